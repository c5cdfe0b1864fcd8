package main

import (
	"bytes"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/amber-crawler/amber/internal/crawltest"
	"github.com/amber-crawler/amber/internal/testsite"
	"github.com/amber-crawler/amber/report"
)

// startJS serves testdata/sites/js as the crawl tests do: a page whose content needs
// JavaScript (a list loaded with fetch(), an image loaded when scrolled into view), a
// cookie-protected image, a redirecting image.
func startJS(t testing.TB) *testsite.Server {
	t.Helper()
	root := filepath.Join(crawltest.ModuleRoot(t), "testdata", "sites", "js", "www.example.com")
	files := http.FileServer(http.Dir(root))
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			files.ServeHTTP(w, r)
			return
		}
		http.SetCookie(w, &http.Cookie{Name: "amber_session", Value: "ok", Path: "/", HttpOnly: true})
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		http.ServeFile(w, r, filepath.Join(root, "index.html"))
	})
	mux.HandleFunc("/redirect.png", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/img/target.png", http.StatusFound)
	})
	mux.HandleFunc("/protected.png", func(w http.ResponseWriter, r *http.Request) {
		if c, err := r.Cookie("amber_session"); err != nil || c.Value != "ok" {
			http.Error(w, "no cookie", http.StatusForbidden)
			return
		}
		http.ServeFile(w, r, filepath.Join(root, "img", "protected.png"))
	})
	site, err := testsite.StartHandler(mux)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { site.Close() })
	return site
}

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
	site := startJS(t)
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
