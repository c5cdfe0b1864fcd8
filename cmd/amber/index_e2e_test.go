package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/internal/testsite"
	"github.com/amber-crawler/amber/internal/zinctest"
	"github.com/amber-crawler/amber/report"
)

// zincServer is the ZincSearch the tests of the package share (nil without bin/zincsearch).
var zincServer *zinctest.Server

func TestMain(m *testing.M) {
	var dir string
	if _, err := zinctest.Path(); err == nil {
		dir, err = os.MkdirTemp("", "zinc")
		if err == nil {
			zincServer, err = zinctest.Start(dir)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	code := m.Run()
	if zincServer != nil {
		zincServer.Close()
		os.RemoveAll(dir)
	}
	os.Exit(code)
}

// zinc returns the shared server, or skips t without it (fails it in CI).
func zinc(t *testing.T) *zinctest.Server {
	t.Helper()
	zinctest.Require(t)
	if zincServer == nil {
		t.Fatal("zinctest: the shared server did not start")
	}
	return zincServer
}

// indexConfig writes a config file with the index section for s and index, and returns its
// path.
func indexConfig(t *testing.T, s *zinctest.Server, index, password string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "index.yaml")
	y := fmt.Sprintf(`index:
  sink: elasticsearch
  url: %s
  name: %s
  username: %s
  password: %s
  compression: false
  retries: 2
  retry_delay: 50ms
  request_timeout: 5s
`, s.URL, index, zinctest.User, password)
	if err := os.WriteFile(p, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// docIDs reads documents.jsonl: the last line of each id.
func docIDs(t *testing.T, dir string) map[string]map[string]any {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, crawl.DocumentsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	docs := map[string]map[string]any{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var d map[string]any
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			t.Fatalf("documents.jsonl: %v", err)
		}
		docs[d["id"].(string)] = d
	}
	return docs
}

// checkIndexed checks that index holds every document of dir's documents.jsonl exactly once,
// and nothing else.
func checkIndexed(t *testing.T, s *zinctest.Server, index, dir string) map[string]map[string]any {
	t.Helper()
	docs := docIDs(t, dir)
	var hits []zinctest.Hit
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		var err error
		if hits, err = s.Search(index, "*"); err != nil {
			t.Fatal(err)
		}
		if len(hits) >= len(docs) || time.Now().After(deadline) {
			break
		}
	}
	seen := map[string]int{}
	for _, h := range hits {
		seen[h.ID]++
	}
	missing, twice := 0, 0
	for id := range docs {
		switch seen[id] {
		case 0:
			if missing++; missing < 5 {
				t.Errorf("document %s (%v) not in the index", id, docs[id]["url"])
			}
		case 1:
		default:
			twice++
		}
	}
	if missing > 0 || twice > 0 || len(seen) != len(docs) || len(hits) != len(docs) {
		t.Errorf("index %s: %d hits, %d ids, %d documents in documents.jsonl; %d missing, %d more than once",
			index, len(hits), len(seen), len(docs), missing, twice)
	}
	return docs
}

func TestCrawlIntoIndex(t *testing.T) {
	s := zinc(t)
	site := startBasic(t)
	dir := filepath.Join(t.TempDir(), "crawl")
	index := "crawl-into-index"
	args := []string{"crawl", "--dir", dir, "--config", indexConfig(t, s, index, zinctest.Password),
		"--connect-to", site.ConnectTo(), "--allow-private", "--host-delay", "0", "--retry-delay", "10ms",
		"--quiet", "http://museum.example.com/"}
	var stdout, stderr bytes.Buffer
	if err := run(t.Context(), args, nil, &stdout, &stderr); err != nil {
		t.Fatalf("run: %v\n%s\n%s", err, stdout.String(), stderr.String())
	}
	docs := checkIndexed(t, s, index, dir)
	if len(docs) < 3 {
		t.Fatalf("only %d documents", len(docs))
	}
	// Every document is found by its text.
	for id, d := range docs {
		title, _ := d["title"].(string)
		if strings.TrimSpace(title) == "" {
			continue
		}
		hits, err := s.Search(index, fmt.Sprintf("title:%q", title))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(hits, func(h zinctest.Hit) bool { return h.ID == id }) {
			t.Errorf("document %s not found by its title %q", d["url"], title)
		}
	}
	want := fmt.Sprintf("%d sent, %d acknowledged, 0 failed, 0 backlog", len(docs), len(docs))
	if !strings.Contains(stdout.String(), want) {
		ev, _ := os.ReadFile(filepath.Join(dir, crawl.EventsFile))
		t.Errorf("summary lacks %q:\n%s\n%s", want, stdout.String(), grepLines(string(ev), "index"))
	}
	html, err := os.ReadFile(filepath.Join(dir, crawl.ReportsDir, report.HTMLReportFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(html), `id="search-index"`) || !strings.Contains(string(html), index) {
		t.Error("report.html has no search index section")
	}
	yml, _ := os.ReadFile(filepath.Join(dir, crawl.ConfigFile))
	if strings.Contains(string(yml), zinctest.Password) || !strings.Contains(string(yml), "password: '***'") {
		t.Errorf("crawl.yaml holds the password:\n%s", yml)
	}
}

func TestCrawlIndexWrongPassword(t *testing.T) {
	s := zinc(t)
	site := startBasic(t)
	dir := filepath.Join(t.TempDir(), "crawl")
	args := []string{"crawl", "--dir", dir, "--config", indexConfig(t, s, "wrong-password", "not-the-password"),
		"--connect-to", site.ConnectTo(), "--allow-private", "--host-delay", "0", "--retry-delay", "10ms",
		"--quiet", "http://museum.example.com/"}
	var stdout, stderr bytes.Buffer
	err := run(t.Context(), args, nil, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "401") || !strings.Contains(err.Error(), "http://") {
		t.Fatalf("run = %v, want an error with 401 and the document's URL\n%s", err, stdout.String())
	}
	if !strings.Contains(stdout.String(), "Crawl finished") || !strings.Contains(stdout.String(), "0 acknowledged") {
		t.Errorf("summary:\n%s", stdout.String())
	}
	ev, _ := os.ReadFile(filepath.Join(dir, crawl.EventsFile))
	if !strings.Contains(string(ev), `"index-refused"`) {
		t.Errorf("events.jsonl has no index-refused event")
	}
	rec, _, _ := report.ReadIndexRecord(dir)
	if rec.Backlog == 0 || rec.Offset != 0 || !strings.Contains(rec.Error, "401") {
		t.Errorf("record = %+v, want every document in the backlog and the error", rec)
	}

	// amber index sends them, the password given again (crawl.yaml writes it as ***).
	stdout.Reset()
	if err := run(t.Context(), []string{"index", "--password", "env:AMBER_TEST_INDEX_PASSWORD", dir}, nil, &stdout, &stderr); err == nil {
		t.Fatal("amber index without the password's variable set: no error")
	}
	t.Setenv("AMBER_TEST_INDEX_PASSWORD", zinctest.Password)
	if err := run(t.Context(), []string{"index", "--password", "env:AMBER_TEST_INDEX_PASSWORD", dir}, nil, &stdout, &stderr); err != nil {
		t.Fatalf("amber index: %v\n%s", err, stdout.String())
	}
	docs := checkIndexed(t, s, "wrong-password", dir)
	want := fmt.Sprintf("%d acknowledged, 0 failed, 0 backlog", len(docs))
	if !strings.Contains(stdout.String(), want) {
		t.Errorf("amber index says %q, want %q", stdout.String(), want)
	}
	// Again: nothing left to send, nothing sent.
	first := stdout.String()
	stdout.Reset()
	if err := run(t.Context(), []string{"index", "--password", "env:AMBER_TEST_INDEX_PASSWORD", dir}, nil, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if stdout.String() != first {
		t.Errorf("second amber index says %q, want what the first said, %q", stdout.String(), first)
	}
	checkIndexed(t, s, "wrong-password", dir)
}

// waitLines waits until path has n lines, or fails t after a minute.
func waitLines(t *testing.T, path string, n int, cmd *exec.Cmd) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); countLines(path) < n; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			if cmd != nil {
				cmd.Process.Kill()
			}
			t.Fatalf("%s: fewer than %d lines after a minute", path, n)
		}
	}
}

// TestCrawlIndexKill9 kills a crawl that sends its documents to the index with SIGKILL
// partway, resumes it, and checks that the index holds every document exactly once.
func TestCrawlIndexKill9(t *testing.T) {
	s := zinc(t)
	const pages = 600
	bin := amberBinary(t)
	site, err := testsite.StartHandler(testsite.Generated{Pages: pages})
	if err != nil {
		t.Fatal(err)
	}
	defer site.Close()
	dir := filepath.Join(t.TempDir(), "crawl")
	index := "kill-nine"
	args := []string{"crawl", "--dir", dir, "--config", indexConfig(t, s, index, zinctest.Password),
		"--connect-to", site.ConnectTo(), "--allow-private", "--host-delay", "1ms", "--host-concurrency", "2",
		"--workers", "2", "--quiet", "http://gen.example.com/"}
	first := exec.Command(bin, args...)
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	// Killed once some documents were acknowledged and more are on their way.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
		if rec, ok, _ := report.ReadIndexRecord(dir); ok && rec.Acknowledged > 0 && countLines(filepath.Join(dir, crawl.DocumentsFile)) > int(rec.Acknowledged) {
			break
		}
		if time.Now().After(deadline) {
			first.Process.Kill()
			t.Fatal("no document acknowledged after a minute")
		}
	}
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	first.Wait()
	rec, _, _ := report.ReadIndexRecord(dir)
	t.Logf("killed with %d documents written, %d acknowledged", countLines(filepath.Join(dir, crawl.DocumentsFile)), rec.Acknowledged)

	out, err := exec.Command(bin, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("resume: %v\n%s", err, out)
	}
	docs := checkIndexed(t, s, index, dir)
	if len(docs) != pages {
		t.Errorf("%d documents, want %d", len(docs), pages)
	}
	if !strings.Contains(string(out), " 0 failed, 0 backlog") {
		t.Errorf("resume's summary:\n%s", out)
	}
}

// TestCrawlIndexServerRestart stops the index server while a crawl sends it documents and
// starts it again before the crawl ends: the crawl goes on, and the index ends with every
// document exactly once.
func TestCrawlIndexServerRestart(t *testing.T) {
	zinctest.Require(t)
	s := zinctest.StartT(t) // its own: it is stopped
	const pages = 400
	site, err := testsite.StartHandler(testsite.Generated{Pages: pages})
	if err != nil {
		t.Fatal(err)
	}
	defer site.Close()
	dir := filepath.Join(t.TempDir(), "crawl")
	index := "server-restart"
	args := []string{"crawl", "--dir", dir, "--config", indexConfig(t, s, index, zinctest.Password),
		"--connect-to", site.ConnectTo(), "--allow-private", "--host-delay", "10ms", "--host-concurrency", "1",
		"--workers", "1", "--quiet", "http://gen.example.com/"}
	var stdout, stderr bytes.Buffer
	done := make(chan error, 1)
	go func() { done <- run(t.Context(), args, nil, &stdout, &stderr) }()
	logPath := filepath.Join(dir, crawl.CrawlLogFile)
	waitLines(t, logPath, pages/5, nil)
	if err := s.Stop(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	stoppedAt := countLines(logPath)
	waitLines(t, logPath, stoppedAt+pages/4, nil)
	if err := s.Restart(); err != nil {
		t.Fatal(err)
	}
	t.Logf("server down from %d to %d crawl.log lines", stoppedAt, countLines(logPath))
	if err := <-done; err != nil {
		t.Fatalf("run: %v\n%s\n%s", err, stdout.String(), stderr.String())
	}
	if docs := checkIndexed(t, s, index, dir); len(docs) != pages {
		t.Errorf("%d documents, want %d", len(docs), pages)
	}
	ev, _ := os.ReadFile(filepath.Join(dir, crawl.EventsFile))
	for _, want := range []string{`"index-unavailable"`, `"index-available"`} {
		if !strings.Contains(string(ev), want) {
			t.Errorf("events.jsonl has no %s event", want)
		}
	}
	if !strings.Contains(stdout.String(), " 0 failed, 0 backlog") {
		t.Errorf("summary:\n%s", stdout.String())
	}
}

// grepLines returns the lines of s that contain sub.
func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// crawlingTime is the time from the first to the last line of the crawl.log of the crawl
// directory dir: the fetching, without what the run does after its last URL (with the sink
// on: sending the documents the index has not taken yet).
func crawlingTime(b *testing.B, dir string) time.Duration {
	data, err := os.ReadFile(filepath.Join(dir, "logs", "crawl.log"))
	if err != nil {
		b.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	first, err1 := time.Parse(time.RFC3339Nano, strings.Fields(lines[0])[0])
	last, err2 := time.Parse(time.RFC3339Nano, strings.Fields(lines[len(lines)-1])[0])
	if err1 != nil || err2 != nil {
		b.Fatalf("crawl.log times: %v, %v", err1, err2)
	}
	return last.Sub(first)
}

// BenchmarkCrawlIndex crawls the same generated site with the search-index sink off and on
// (ZincSearch on 127.0.0.1, on the same cores): pages/s of the whole run, which with the sink
// on ends once the index has taken every document, and crawling-pages/s, the fetching alone.
// Prints figures, asserts nothing:
//
//	go test -run '^$' -bench CrawlIndex -benchtime 1x -count 3 ./cmd/amber/
func BenchmarkCrawlIndex(b *testing.B) {
	zinctest.Require(b)
	s := zinctest.StartT(b)
	const pages = 2000
	site, err := testsite.StartHandler(testsite.Generated{Pages: pages})
	if err != nil {
		b.Fatal(err)
	}
	defer site.Close()
	for _, sink := range []bool{false, true} {
		name := map[bool]string{false: "off", true: "on"}[sink]
		b.Run(name, func(b *testing.B) {
			for i := range b.N {
				dir := filepath.Join(b.TempDir(), "crawl")
				args := []string{"crawl", "--dir", dir, "--connect-to", site.ConnectTo(), "--allow-private",
					"--host-delay", "0", "--host-concurrency", "4", "--workers", "4", "--quiet", "--log-level", "error", "http://gen.example.com/"}
				if sink {
					p := filepath.Join(b.TempDir(), "index.yaml")
					y := fmt.Sprintf("index: {sink: elasticsearch, url: %q, name: bench-%d, username: %s, password: %s, compression: false}\n",
						s.URL, i, zinctest.User, zinctest.Password)
					if err := os.WriteFile(p, []byte(y), 0o644); err != nil {
						b.Fatal(err)
					}
					args = append(args, "--config", p)
				}
				var out bytes.Buffer
				start := time.Now()
				if err := run(b.Context(), args, nil, &out, &out); err != nil {
					b.Fatalf("%v\n%s", err, out.String())
				}
				b.ReportMetric(float64(pages)/time.Since(start).Seconds(), "pages/s")
				b.ReportMetric(float64(pages)/crawlingTime(b, dir).Seconds(), "crawling-pages/s")
			}
		})
	}
}
