package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amber-crawler/amber/internal/testsite"
)

// TestCrawlProfiles crawls a generated site with --cpuprofile and --memprofile and checks that
// both files are gzip-compressed profiles that go tool pprof reads (when go is on PATH).
func TestCrawlProfiles(t *testing.T) {
	site, err := testsite.StartHandler(testsite.Generated{Pages: 300})
	if err != nil {
		t.Fatal(err)
	}
	defer site.Close()
	tmp := t.TempDir()
	cpu, mem := filepath.Join(tmp, "cpu.pprof"), filepath.Join(tmp, "mem.pprof")
	args := []string{"crawl", "--dir", filepath.Join(tmp, "crawl"), "--connect-to", site.ConnectTo(),
		"--allow-private", "--host-delay", "0", "--quiet", "--cpuprofile", cpu, "--memprofile", mem,
		"http://gen.example.com/"}
	var stdout, stderr bytes.Buffer
	if err := run(t.Context(), args, nil, &stdout, &stderr); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	goTool, lookErr := exec.LookPath("go")
	for _, tc := range []struct {
		path string
		want string // a line go tool pprof -top prints for this kind of profile
	}{
		{cpu, "Type: cpu"},
		{mem, "Type: inuse_space"},
	} {
		b, err := os.ReadFile(tc.path)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
			t.Errorf("%s: %d bytes, not gzip (a pprof profile is gzipped protobuf)", filepath.Base(tc.path), len(b))
			continue
		}
		if lookErr != nil {
			t.Logf("go not on PATH; %s not read with go tool pprof", filepath.Base(tc.path))
			continue
		}
		out, err := exec.Command(goTool, "tool", "pprof", "-top", tc.path).CombinedOutput()
		if err != nil {
			t.Errorf("go tool pprof -top %s: %v\n%s", filepath.Base(tc.path), err, out)
			continue
		}
		if !strings.Contains(string(out), tc.want) {
			t.Errorf("go tool pprof -top %s lacks %q:\n%s", filepath.Base(tc.path), tc.want, out)
		}
	}
}

// TestCrawlProfileUsageError: a profile file that cannot be created is a usage error (exit
// status 2) before the crawl starts: no crawl directory is made.
func TestCrawlProfileUsageError(t *testing.T) {
	tmp := t.TempDir()
	missing := filepath.Join(tmp, "no-such-dir", "p.pprof")
	for _, flag := range []string{"--cpuprofile", "--memprofile"} {
		t.Run(flag, func(t *testing.T) {
			dir := filepath.Join(tmp, "crawl"+flag)
			args := []string{"crawl", "--dir", dir, "--quiet", flag, missing, "http://gen.example.com/"}
			var stdout, stderr bytes.Buffer
			err := run(t.Context(), args, nil, &stdout, &stderr)
			var ue usageError
			if !errors.As(err, &ue) || exitCode(err) != exitUsage {
				t.Fatalf("run = %v (exit %d), want a usage error (exit %d)", err, exitCode(err), exitUsage)
			}
			if !strings.Contains(err.Error(), "profile") {
				t.Errorf("error %q does not name the profile", err)
			}
			if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("crawl directory exists after a usage error: %v", err)
			}
		})
	}
}
