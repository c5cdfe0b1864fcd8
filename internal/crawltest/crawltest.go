// Package crawltest holds helpers shared by the end-to-end tests: reading a crawl directory's
// crawl.log and checking WARC files with warcio.js, a reader we did not write.
package crawltest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/amber-crawler/amber/internal/testsite"
	"github.com/amber-crawler/amber/report"
)

// ReadCrawlLog parses every line of a crawl.log.
func ReadCrawlLog(t testing.TB, path string) []report.Line {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []report.Line
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		l, err := report.ParseLine(sc.Text())
		if err != nil {
			t.Fatalf("crawl.log: %v: %q", err, sc.Text())
		}
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// ModuleRoot finds the directory holding go.mod, from the test's working directory up.
func ModuleRoot(t testing.TB) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// Warcio returns the command prefix for warcio.js's CLI, or skips the test when node or the
// package is missing — except in CI (CI=true), where that is a failure.
func Warcio(t testing.TB) []string {
	t.Helper()
	cli := filepath.Join(ModuleRoot(t), "node_modules", "warcio", "dist", "cli.js")
	_, errNode := exec.LookPath("node")
	_, errCLI := os.Stat(cli)
	if errNode != nil || errCLI != nil {
		msg := fmt.Sprintf("warcio.js not available (node: %v, %s: %v); run `make tools`", errNode, cli, errCLI)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return []string{"node", cli}
}

// WarcioCDXJ indexes a WARC file with warcio.js (`warcio cdx-index`) and returns its lines.
// warcio.js parses every record, so an unreadable file fails here.
func WarcioCDXJ(t testing.TB, warcPath string) []string {
	t.Helper()
	cmd := Warcio(t)
	var stdout, stderr bytes.Buffer
	c := exec.Command(cmd[0], append(cmd[1:], "cdx-index", warcPath)...)
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Run(); err != nil {
		var ee *exec.ExitError
		errors.As(err, &ee)
		t.Fatalf("warcio cdx-index %s: %v\n%s", warcPath, err, stderr.String())
	}
	if stderr.Len() > 0 {
		t.Errorf("warcio cdx-index %s wrote to stderr:\n%s", warcPath, stderr.String())
	}
	var lines []string
	for _, l := range strings.Split(stdout.String(), "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

// ChromiumPath is where Debian's chromium package installs the full browser, and
// HeadlessShellPath the browser binary of its chromium-headless-shell package: the same paths
// as browser.ChromiumPath and browser.HeadlessShellPath (this package cannot import browser,
// whose tests import it; browser's TestTestBrowser keeps them equal).
const (
	ChromiumPath      = "/usr/bin/chromium"
	HeadlessShellPath = "/usr/lib/chromium/chromium-headless-shell"
)

// Chromium returns the Chromium executable for a browser test: $AMBER_TEST_CHROMIUM when set,
// else the one amber's browser fetcher runs by default (browser.DefaultPath: the headless shell
// when it is installed, else the full browser), so that the tests run what a crawl runs. With
// -short (make test-short) the test is skipped; without Chromium it is skipped too, except in
// CI (CI=true), where a missing Chromium is a failure (`apt-get install -y chromium
// chromium-headless-shell`).
func Chromium(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("browser test: skipped with -short")
	}
	candidates := []string{HeadlessShellPath, ChromiumPath}
	if p := os.Getenv("AMBER_TEST_CHROMIUM"); p != "" {
		candidates = []string{p}
	}
	for _, p := range candidates {
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("chromium not found at %s (CI needs it: apt-get install -y chromium chromium-headless-shell)", strings.Join(candidates, " or "))
	}
	t.Skipf("chromium not found at %s", strings.Join(candidates, " or "))
	return ""
}

// ReadEvents reads an events.jsonl file, one map per event.
func ReadEvents(t testing.TB, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var evs []map[string]any
	for line := range strings.Lines(string(b)) {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("events.jsonl: %v: %q", err, line)
		}
		evs = append(evs, m)
	}
	return evs
}

// SphinxDocs returns the HTML of Python's documentation as Debian's python3-doc installs it
// (Sphinx output: a search page whose script fetches a JSON file), or skips the test without
// it (fails in CI, which installs it).
func SphinxDocs(t testing.TB) string {
	t.Helper()
	dirs, _ := filepath.Glob("/usr/share/doc/python3*/html")
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "search.html")); err == nil {
			return d
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("Python's documentation is required in CI (Debian package python3-doc)")
	}
	t.Skip("no Python documentation (apt-get install python3-doc)")
	return ""
}

// JSSite serves testdata/sites/js on loopback until the test ends: a page whose content needs
// JavaScript (script-inserted text, a list loaded with fetch(), an image loaded when scrolled
// into view), a cookie-protected image (the page sets the cookie), a redirecting image.
func JSSite(t testing.TB) *testsite.Server {
	t.Helper()
	root := filepath.Join(ModuleRoot(t), "testdata", "sites", "js", "www.example.com")
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
