package main

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/wacz"
)

// TestWACZCommand crawls the basic site with amber crawl, packages it with amber wacz (at the
// default path and with -o before or after DIR), and checks the exit status of each mistake.
func TestWACZCommand(t *testing.T) {
	site := startBasic(t)
	dir := filepath.Join(t.TempDir(), "crawl")
	args := []string{"crawl", "--dir", dir, "--connect-to", site.ConnectTo(), "--allow-private",
		"--host-delay", "0", "--retry-delay", "10ms", "--collection", "museum", "--quiet", "http://museum.example.com/"}
	var stdout, stderr bytes.Buffer
	if err := run(t.Context(), args, nil, &stdout, &stderr); err != nil {
		t.Fatalf("crawl: %v\n%s", err, stderr.String())
	}

	other := filepath.Join(t.TempDir(), "elsewhere.wacz")
	for _, tc := range []struct {
		name string
		args []string
		want string // the package written
	}{
		{"default", []string{"wacz", dir}, filepath.Join(dir, "museum.wacz")},
		{"-o after DIR", []string{"wacz", dir, "-o", other}, other},
		{"--output before DIR", []string{"wacz", "--output", other, dir}, other},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(tc.want)
			var stdout, stderr bytes.Buffer
			if err := run(t.Context(), tc.args, nil, &stdout, &stderr); err != nil {
				t.Fatalf("amber %v: %v\n%s", tc.args, err, stderr.String())
			}
			if !strings.Contains(stdout.String(), "WACZ written: "+tc.want) || !strings.Contains(stdout.String(), "main page: http://museum.example.com/") {
				t.Errorf("stdout:\n%s", stdout.String())
			}
			if stderr.Len() != 0 {
				t.Errorf("stderr: %s", stderr.String())
			}
			zr, err := zip.OpenReader(tc.want)
			if err != nil {
				t.Fatal(err)
			}
			defer zr.Close()
			f, err := zr.Open(wacz.DatapackageFile)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var dp struct{ Title, Software, MainPageURL string }
			if err := json.NewDecoder(f).Decode(&dp); err != nil {
				t.Fatal(err)
			}
			if dp.Title != "museum" || dp.Software != "amber/"+version || dp.MainPageURL != "http://museum.example.com/" {
				t.Errorf("datapackage.json: %+v", dp)
			}
		})
	}

	notCrawl := t.TempDir()
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	for _, tc := range []struct {
		name string
		ctx  context.Context
		args []string
		lock bool // a crawl holds dir
		want int
	}{
		{name: "no DIR", args: []string{"wacz"}, want: exitUsage},
		{name: "two DIRs", args: []string{"wacz", dir, dir}, want: exitUsage},
		{name: "unknown flag", args: []string{"wacz", "--title", "x", dir}, want: exitUsage},
		{name: "not a crawl directory", args: []string{"wacz", notCrawl}, want: exitUsage},
		{name: "not .wacz", args: []string{"wacz", dir, "-o", filepath.Join(t.TempDir(), "x.zip")}, want: exitUsage},
		{name: "no such directory for -o", args: []string{"wacz", dir, "-o", filepath.Join(notCrawl, "nope", "x.wacz")}, want: exitUsage},
		{name: "in use", args: []string{"wacz", dir, "-o", filepath.Join(t.TempDir(), "x.wacz")}, lock: true, want: exitFailure},
		{name: "interrupted", ctx: cancelled, args: []string{"wacz", dir, "-o", filepath.Join(t.TempDir(), "x.wacz")}, want: exitInterrupted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.lock {
				f, err := frontier.Open(frontier.Config{Dir: filepath.Join(dir, crawl.StateDir)})
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
			}
			ctx := tc.ctx
			if ctx == nil {
				ctx = t.Context()
			}
			err := run(ctx, tc.args, nil, new(bytes.Buffer), new(bytes.Buffer))
			if code := exitCode(err); code != tc.want {
				t.Fatalf("exit status %d (%v), want %d", code, err, tc.want)
			}
			if tc.lock && !errors.Is(err, wacz.ErrInUse) {
				t.Errorf("err = %v, want wacz.ErrInUse", err)
			}
			if n := len(tc.args); n > 2 && tc.args[n-2] == "-o" {
				if _, err := os.Stat(tc.args[n-1]); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("%s exists after a failure", tc.args[n-1])
				}
			}
		})
	}
	es, _ := os.ReadDir(notCrawl)
	if len(es) != 0 {
		t.Errorf("amber wacz wrote into a directory that is not a crawl directory: %v", es)
	}
}

// TestWACZHelp: amber help wacz and amber wacz --help print the usage on stdout.
func TestWACZHelp(t *testing.T) {
	for _, args := range [][]string{{"help", "wacz"}, {"wacz", "--help"}, {"wacz", "-h"}} {
		var stdout, stderr bytes.Buffer
		if err := run(t.Context(), args, nil, &stdout, &stderr); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if !strings.Contains(stdout.String(), "Usage: amber wacz DIR [-o FILE.wacz]") || stderr.Len() != 0 {
			t.Errorf("%v: stdout %q, stderr %q", args, stdout.String(), stderr.String())
		}
	}
	var stdout bytes.Buffer
	if err := run(t.Context(), []string{"help"}, nil, &stdout, new(bytes.Buffer)); err != nil || !strings.Contains(stdout.String(), "amber wacz DIR") {
		t.Errorf("amber help does not list amber wacz: %v\n%s", err, stdout.String())
	}
}

// TestCrawlWACZFlag: amber crawl --wacz packages the crawl at the end of a run that
// finishes, and of one that stops at a limit (the package holds what was captured so far);
// a run that is not packaged leaves no .wacz.
func TestCrawlWACZFlag(t *testing.T) {
	site := startBasic(t)
	for _, tc := range []struct {
		name  string
		extra []string
		wacz  bool
	}{
		{"finished", []string{"--wacz"}, true},
		{"limit", []string{"--wacz", "--limit", "2"}, true},
		{"no flag", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "crawl")
			args := append([]string{"crawl", "--dir", dir, "--connect-to", site.ConnectTo(), "--allow-private",
				"--host-delay", "0", "--retry-delay", "10ms", "--collection", "museum", "--quiet"}, tc.extra...)
			args = append(args, "http://museum.example.com/")
			var stdout, stderr bytes.Buffer
			err := run(t.Context(), args, nil, &stdout, &stderr)
			if code := exitCode(err); code != exitOK && code != exitLimit {
				t.Fatalf("crawl: %v\n%s", err, stderr.String())
			}
			_, serr := os.Stat(filepath.Join(dir, "museum.wacz"))
			if (serr == nil) != tc.wacz {
				t.Fatalf("museum.wacz exists %v, want %v (stdout:\n%s)", serr == nil, tc.wacz, stdout.String())
			}
			if tc.wacz && !strings.Contains(stdout.String(), "WACZ written: ") {
				t.Errorf("stdout does not say where the WACZ is:\n%s", stdout.String())
			}
		})
	}
}
