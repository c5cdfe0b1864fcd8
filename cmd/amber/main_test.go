package main

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/internal/crawltest"
	"github.com/amber-crawler/amber/internal/testsite"
	"github.com/amber-crawler/amber/report"

	"github.com/google/go-cmp/cmp"
)

func startBasic(t testing.TB) *testsite.Server {
	t.Helper()
	site, err := testsite.Start(filepath.Join(crawltest.ModuleRoot(t), "testdata", "sites", "basic"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { site.Close() })
	return site
}

func TestCrawlCommand(t *testing.T) {
	site := startBasic(t)
	dir := filepath.Join(t.TempDir(), "crawl")
	seedsFile := filepath.Join(t.TempDir(), "seeds.txt")
	// The seed redirects to www.example.com, which becomes a seed itself; one page is blocked.
	os.WriteFile(seedsFile, []byte("# the museum\nhttp://museum.example.com/ standard\n"), 0o644)
	args := []string{"crawl", "--dir", dir, "--connect-to", site.ConnectTo(), "--allow-private",
		"--host-delay", "0", "--retry-delay", "10ms", "--collection", "museum", seedsFile, "--quiet",
		"--exclude", "contains:/item1"}
	var stdout, stderr bytes.Buffer
	if err := run(t.Context(), args, nil, &stdout, &stderr); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	for _, want := range []string{"Crawl finished", filepath.Join(dir, crawl.ReportsDir, report.HTMLReportFile),
		filepath.Join(dir, crawl.DocumentsFile)} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, stdout.String())
		}
	}
	eff, err := os.ReadFile(filepath.Join(dir, crawl.ConfigFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"collection: museum", "http://museum.example.com/", "allow_private: true", "contains:/item1"} {
		if !strings.Contains(string(eff), want) {
			t.Errorf("crawl.yaml lacks %q:\n%s", want, eff)
		}
	}
	warcs, _ := filepath.Glob(filepath.Join(dir, crawl.WARCDir, "museum-*.warc.gz"))
	if len(warcs) != 1 {
		t.Errorf("WARC files = %v, want one named museum-*", warcs)
	}
	checkReportsGolden(t, filepath.Join(dir, crawl.ReportsDir), "basic")

	// amber report rewrites the same reports.
	os.RemoveAll(filepath.Join(dir, crawl.ReportsDir))
	if err := run(t.Context(), []string{"report", dir}, nil, &stdout, &stderr); err != nil {
		t.Fatalf("amber report: %v", err)
	}
	checkReportsGolden(t, filepath.Join(dir, crawl.ReportsDir), "basic")

	// The same --dir again: already finished, nothing fetched, exit status 0.
	stdout.Reset()
	if err := run(t.Context(), []string{"crawl", "--dir", dir, "--quiet"}, nil, &stdout, &stderr); err != nil {
		t.Fatalf("second run: %v", err)
	}
	if !strings.Contains(stdout.String(), "already finished") {
		t.Errorf("second run stdout = %q", stdout.String())
	}
}

var update = flag.Bool("update", false, "rewrite golden files")

// checkReportsGolden compares the text reports in dir, time-dependent figures masked, with
// testdata/reports/NAME/.
func checkReportsGolden(t *testing.T, dir, name string) {
	t.Helper()
	for _, f := range []string{report.SeedsReportFile, report.HostsReportFile, report.MimetypeReportFile,
		report.ResponseCodeReportFile, report.CrawlReportFile, report.ScopeReportFile} {
		got, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		got = report.MaskTimes(got)
		golden := filepath.Join("testdata", "reports", name, f)
		if *update {
			os.MkdirAll(filepath.Dir(golden), 0o755)
			if err := os.WriteFile(golden, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run with -update to create it)", err)
		}
		if diff := cmp.Diff(string(want), string(got)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", f, diff)
		}
	}
}

var (
	buildOnce sync.Once
	builtPath string
	buildErr  error
)

// amberBinary builds cmd/amber once per test binary.
func amberBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "amber-bin-")
		if err != nil {
			buildErr = err
			return
		}
		builtPath = filepath.Join(dir, "amber")
		cmd := exec.Command("go", "build", "-o", builtPath, ".")
		cmd.Dir = filepath.Join(crawltest.ModuleRoot(t), "cmd", "amber")
		out, err := cmd.CombinedOutput()
		if err != nil {
			buildErr = err
			t.Logf("%s", out)
		}
	})
	if buildErr != nil {
		t.Fatalf("build amber: %v", buildErr)
	}
	return builtPath
}
