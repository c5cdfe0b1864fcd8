package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestReplayCommand crawls the basic site, replays it with amber replay on a free port,
// browses it through the proxy, and stops it as Ctrl-C does.
func TestReplayCommand(t *testing.T) {
	site := startBasic(t)
	dir := filepath.Join(t.TempDir(), "crawl")
	args := []string{"crawl", "--dir", dir, "--connect-to", site.ConnectTo(), "--allow-private",
		"--host-delay", "0", "--retry-delay", "10ms", "--collection", "museum", "--quiet", "http://museum.example.com/"}
	var stdout, stderr bytes.Buffer
	if err := run(t.Context(), args, nil, &stdout, &stderr); err != nil {
		t.Fatalf("crawl: %v\n%s", err, stderr.String())
	}

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	pr, pw := io.Pipe()
	lines := make(chan string, 100)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	done := make(chan error, 1)
	var logs bytes.Buffer
	go func() {
		err := run(ctx, []string{"replay", "--listen", "127.0.0.1:0", dir}, nil, pw, &logs)
		pw.Close()
		done <- err
	}()
	var printed []string
	proxy := ""
	for l := range lines {
		printed = append(printed, l)
		if p, ok := strings.CutPrefix(l, "proxy:"); ok {
			proxy = strings.Fields(p)[0]
		}
		if l == "Ctrl-C stops." {
			break
		}
	}
	if proxy == "" {
		t.Fatalf("no proxy address printed:\n%s\n%v", strings.Join(printed, "\n"), <-done)
	}
	out := strings.Join(printed, "\n")
	for _, want := range []string{filepath.Join(dir, "replay", "ca.pem"), filepath.Join(dir, "replay", "misses.jsonl"),
		"http://amber.replay/", "--ignore-certificate-errors-spki-list=", "(the crawl's earliest capture)"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	pu, _ := url.Parse(proxy)
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(pu)}, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	defer client.CloseIdleConnections()
	for _, tc := range []struct {
		url    string
		status int
		body   string
	}{
		{"http://www.example.com/", 200, "<title>Example Museum</title>"},
		{"http://museum.example.com/", 301, ""},
		{"http://www.example.com/not-crawled.html", 404, "Not in the archive"},
	} {
		resp, err := client.Get(tc.url)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || !strings.Contains(string(b), tc.body) {
			t.Errorf("%s: %s, body %.100q; want %d with %q", tc.url, resp.Status, b, tc.status, tc.body)
		}
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("amber replay stopped with %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("amber replay did not stop")
	}
	var rest []string
	for l := range lines {
		rest = append(rest, l)
	}
	if want := "amber replay: stopped; 1 request was not in the archive"; len(rest) == 0 || rest[len(rest)-1] != want {
		t.Errorf("last lines %q, want %q", rest, want)
	}
	if !strings.Contains(logs.String(), "not-crawled.html") {
		t.Errorf("the miss is not on stderr:\n%s", logs.String())
	}
	b, err := os.ReadFile(filepath.Join(dir, "replay", "misses.jsonl"))
	if err != nil || !strings.Contains(string(b), `"url":"http://www.example.com/not-crawled.html"`) {
		t.Errorf("misses.jsonl: %s (%v)", b, err)
	}
}

// TestReplayUsage: the mistakes of the command line exit 2.
func TestReplayUsage(t *testing.T) {
	notCrawl := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		want int
	}{
		{"no source", []string{"replay"}, exitUsage},
		{"bad --at", []string{"replay", "--at", "yesterday", notCrawl}, exitUsage},
		{"unknown flag", []string{"replay", "--port", "1", notCrawl}, exitUsage},
		{"not a crawl directory", []string{"replay", notCrawl}, exitUsage},
		{"no such file", []string{"replay", filepath.Join(notCrawl, "x.wacz")}, exitUsage},
		{"help", []string{"replay", "--help"}, exitOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout bytes.Buffer
			err := run(t.Context(), tc.args, nil, &stdout, new(bytes.Buffer))
			if code := exitCode(err); code != tc.want {
				t.Errorf("exit status %d (%v), want %d", code, err, tc.want)
			}
			if tc.want == exitOK && !strings.Contains(stdout.String(), "Usage: amber replay") {
				t.Errorf("help: %s", stdout.String())
			}
		})
	}
	if es, _ := os.ReadDir(notCrawl); len(es) != 0 {
		t.Errorf("amber replay wrote into a directory that is not a crawl: %v", es)
	}
}

// TestParseAt reads --at as a CDX timestamp (padded as pywb pads it) or RFC 3339.
func TestParseAt(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Time
		err  bool
	}{
		{"20260304050607", time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC), false},
		{"2026", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), false},
		{"202603", time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), false},
		{"2026-03-04T05:06:07+01:00", time.Date(2026, 3, 4, 4, 6, 7, 0, time.UTC), false},
		{"20261304", time.Time{}, true},
		{"202", time.Time{}, true},
		{"202603040506070", time.Time{}, true},
		{"March", time.Time{}, true},
	} {
		got, err := parseAt(tc.in)
		if (err != nil) != tc.err || !got.Equal(tc.want) {
			t.Errorf("parseAt(%q) = %v, %v; want %v (error: %v)", tc.in, got, err, tc.want, tc.err)
		}
	}
}
