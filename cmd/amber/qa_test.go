package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/amber-crawler/amber/internal/crawltest"
	"github.com/amber-crawler/amber/internal/testsite"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/wacz"
)

// crawlJS crawls the JS site into dir with amber crawl, the fetcher given ("http" or "browser").
func crawlJS(t *testing.T, site *testsite.Server, dir, fetcher string) {
	t.Helper()
	args := []string{"crawl", "--dir", dir, "--connect-to", site.ConnectTo(), "--allow-private", "--host-delay", "0",
		"--fetcher", fetcher, "--browser-path", crawltest.Chromium(t), "--behavior-timeout", "10s", "--quiet", "http://www.example.com/"}
	var stdout, stderr bytes.Buffer
	if err := run(t.Context(), args, nil, &stdout, &stderr); err != nil {
		t.Fatalf("crawl: %v\n%s%s", err, stdout.String(), stderr.String())
	}
}

// qaPages reads a crawl's qa.jsonl.
func qaPages(t *testing.T, dir string) map[string]report.QAPage {
	t.Helper()
	out := map[string]report.QAPage{}
	if ok, err := report.EachQAPage(filepath.Join(dir, "reports", report.QAFile), func(p report.QAPage) error {
		out[p.URL] = p
		return nil
	}); err != nil || !ok {
		t.Fatalf("qa.jsonl: %v %v", ok, err)
	}
	return out
}

// TestQACommand: amber qa on a plain crawl of the JS site says what is missing, writes
// qa.jsonl and report.html's QA section, and shows its progress.
func TestQACommand(t *testing.T) {
	site := crawltest.JSSite(t)
	dir := filepath.Join(t.TempDir(), "plain")
	crawlJS(t, site, dir, "http")
	var stdout, stderr bytes.Buffer
	if err := run(t.Context(), []string{"qa", "--browser-tabs", "2", dir}, nil, &stdout, &stderr); err != nil {
		t.Fatalf("qa: %v\n%s%s", err, stdout.String(), stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{"amber qa: 1 of 1 pages checked", "missing:      2 URLs on 1 pages", "console errors: 1",
		filepath.Join(dir, "reports", "report.html")} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if !regexp.MustCompile(`qa: 1/1 pages, 2 URLs missing, 1 console errors, 0 not loaded`).MatchString(stderr.String()) {
		t.Errorf("no progress line on stderr:\n%s", stderr.String())
	}
	if p := qaPages(t, dir)["http://www.example.com/"]; len(p.Missing) != 2 {
		t.Errorf("qa.jsonl: %+v", p)
	}
	html, err := os.ReadFile(filepath.Join(dir, "reports", report.HTMLReportFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<h2 id="qa">Quality assurance</h2>`, `data-type="XHR"`, "http://www.example.com/data.json", "never seen by the crawl"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}

// TestQAUsage: mistakes in the command line are usage errors (exit status 2).
func TestQAUsage(t *testing.T) {
	crawlDir := filepath.Join(t.TempDir(), "crawl")
	if err := os.MkdirAll(filepath.Join(crawlDir, "state"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, args := range map[string][]string{
		"no directory":     {"qa"},
		"two directories":  {"qa", crawlDir, crawlDir},
		"not a crawl":      {"qa", t.TempDir()},
		"limit and sample": {"qa", "--limit", "2", "--sample", "2", crawlDir},
		"no tabs":          {"qa", "--browser-tabs", "0", crawlDir},
		"bad reference":    {"qa", "--reference", t.TempDir(), crawlDir},
		"unknown flag":     {"qa", "--nope", crawlDir},
	} {
		var stdout, stderr bytes.Buffer
		err := run(t.Context(), args, nil, &stdout, &stderr)
		var ue usageError
		if !errors.As(err, &ue) || exitCode(err) != exitUsage {
			t.Errorf("%s: %v, want a usage error", name, err)
		}
	}
	var stdout bytes.Buffer
	if err := run(t.Context(), []string{"help", "qa"}, nil, &stdout, &stdout); err != nil || !strings.Contains(stdout.String(), "Usage: amber qa") {
		t.Errorf("help qa: %v\n%s", err, stdout.String())
	}
}

// TestPatchCommand: amber patch captures what amber qa found missing in a plain crawl of the
// JS site into the crawl (new WARC files, the index, the reports, a WACZ package), and a
// second amber qa finds nothing missing and gives the previous run's figures beside its own.
func TestPatchCommand(t *testing.T) {
	site := crawltest.JSSite(t)
	dir := filepath.Join(t.TempDir(), "plain")
	crawlJS(t, site, dir, "http")
	var stdout, stderr bytes.Buffer
	if err := run(t.Context(), []string{"patch", dir}, nil, &stdout, &stderr); exitCode(err) != exitUsage {
		t.Errorf("patch before qa: %v, want a usage error", err)
	}
	if err := run(t.Context(), []string{"qa", "--quiet", dir}, nil, &stdout, &stderr); err != nil {
		t.Fatalf("qa: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "amber patch "+dir) {
		t.Errorf("qa does not name the patch command:\n%s", stdout.String())
	}
	stdout.Reset()
	if err := run(t.Context(), []string{"patch", "--connect-to", site.ConnectTo(), "--wacz", dir}, nil, &stdout, &stderr); err != nil {
		t.Fatalf("patch: %v\n%s%s", err, stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), "Patch: 2 URLs missing in amber qa: 2 queued, 0 known to the crawl already, 0 out of scope") {
		t.Errorf("patch summary:\n%s", stdout.String())
	}
	for _, u := range []string{"/data.json", "/img/observed.png"} {
		if n := site.Hits("www.example.com", u); n != 1 {
			t.Errorf("%s fetched %d times, want once, by the patch", u, n)
		}
	}
	// The index, the reports and the package have them.
	index, err := os.ReadFile(filepath.Join(dir, "indexes", "index.cdxj"))
	if err != nil {
		t.Fatal(err)
	}
	hosts, err := os.ReadFile(filepath.Join(dir, "reports", report.MimetypeReportFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(index), "com,example)/data.json ") || !strings.Contains(string(hosts), "application/json") {
		t.Errorf("data.json not in the index or the MIME type report:\n%s", hosts)
	}
	z, err := wacz.Open(filepath.Join(dir, "amber.wacz")) // the collection's name
	if err != nil {
		matches, _ := filepath.Glob(filepath.Join(dir, "*.wacz"))
		t.Fatalf("%v (packages: %v)", err, matches)
	}
	defer z.Close()
	rc, err := z.OpenEntry("indexes/index.cdxj")
	if err != nil {
		t.Fatal(err)
	}
	zi, _ := io.ReadAll(rc)
	rc.Close()
	if !strings.Contains(string(zi), "com,example)/img/observed.png ") {
		t.Error("observed.png not in the package's index")
	}

	stdout.Reset()
	if err := run(t.Context(), []string{"qa", "--quiet", dir}, nil, &stdout, &stderr); err != nil {
		t.Fatalf("second qa: %v\n%s", err, stderr.String())
	}
	for _, want := range []string{"missing:      0 URLs on 0 pages (previous run: 2 URLs on 1 pages)", "console errors: 0 (previous run: 1)"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("second qa lacks %q:\n%s", want, stdout.String())
		}
	}
	if p := qaPages(t, dir)["http://www.example.com/"]; len(p.Missing) != 0 {
		t.Errorf("still missing: %+v", p.Missing)
	}
	stdout.Reset()
	if err := run(t.Context(), []string{"crawl", "--dir", dir, "--patch"}, nil, &stdout, &stderr); err != nil || !strings.Contains(stdout.String(), "nothing to patch") {
		t.Errorf("a patch with nothing missing: %v\n%s", err, stdout.String())
	}
}

// TestPatchUsage: a patch crawl names its crawl, and only it.
func TestPatchUsage(t *testing.T) {
	crawlDir := filepath.Join(t.TempDir(), "crawl")
	if err := os.MkdirAll(filepath.Join(crawlDir, "state"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, args := range map[string][]string{
		"no directory":       {"patch"},
		"two directories":    {"patch", crawlDir, crawlDir},
		"--dir and DIR":      {"patch", "--dir", crawlDir, crawlDir},
		"not a crawl":        {"patch", t.TempDir()},
		"no qa.jsonl":        {"patch", crawlDir},
		"--patch and seeds":  {"crawl", "--dir", crawlDir, "--patch", "http://www.example.com/"},
		"--patch and config": {"crawl", "--dir", crawlDir, "--patch", "--config", "x.yaml"},
		"--patch, no --dir":  {"crawl", "--patch"},
	} {
		var stdout, stderr bytes.Buffer
		if err := run(t.Context(), args, nil, &stdout, &stderr); exitCode(err) != exitUsage {
			t.Errorf("%s: %v, want a usage error", name, err)
		}
	}
}
