package report

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/status"
)

func readEvents(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var evs []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("line %d is not a JSON object: %v: %q", n, err, sc.Text())
		}
		evs = append(evs, m)
	}
	return evs
}

func TestEventsFields(t *testing.T) {
	p := filepath.Join(t.TempDir(), "events.jsonl")
	now := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	ev, err := OpenEvents(p, EventsConfig{CrawlID: "demo-20260301", Version: "0.1.0", Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	page := URLInfo{URL: "https://www.example.com:8443/a/b.html?x=1", Hops: "RL", Via: "https://www.example.com/", Seed: "http://example.com/"}
	steps := []error{
		ev.CrawlStart(false, 2),
		ev.URLSeed(URLInfo{URL: "http://example.com/", Seed: "http://example.com/"}, "standard"),
		ev.URLFetch(page, 200, 5120, 1500*time.Millisecond),
		ev.URLFetch(page, status.ConnectFailed, -1, 30*time.Millisecond),
		ev.URLDiscover(page),
		ev.URLDiscoverDenied(URLInfo{URL: "https://other.example.org/", Hops: "RLL", Via: page.URL}, DenyOutOfScope, "out-of-scope"),
		ev.URLDiscoverDenied(URLInfo{URL: "https://www.example.com/private/"}, DenyRobots, ""),
		ev.URLOutput(page, "demo-00000.warc.gz", 1234),
		ev.Event(Event{Action: "field-conflict", Type: "info", Outcome: "failure", Message: "custom field shadows a reserved one",
			URL: &page, Labels: map[string]string{"field": "url", "@timestamp": "x"}}),
		ev.CrawlEnd(EndLimit+":documents", "document limit reached"),
		ev.CrawlControl("jane", "block", "contains:/calendar/", nil),
		ev.CrawlControl("local", "unblock", "contains:/x/", errors.New("no such block rule")),
	}
	for i, err := range steps {
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	if err := ev.Close(); err != nil {
		t.Fatal(err)
	}
	if err := ev.URLDiscover(page); !errors.Is(err, ErrEventsClosed) {
		t.Errorf("write after Close: err = %v", err)
	}
	if err := ev.Event(Event{}); err == nil {
		t.Error("an event without action was accepted")
	}

	evs := readEvents(t, p)
	if len(evs) != len(steps) {
		t.Fatalf("%d events, want %d", len(evs), len(steps))
	}
	common := []string{"@timestamp", "event.id", "event.kind", "event.action", "event.type", "crawler.crawl.id",
		"service.type", "service.name", "service.version", "process.pid", "message"}
	ids := map[string]bool{}
	for i, e := range evs {
		for _, k := range common {
			if _, ok := e[k]; !ok {
				t.Errorf("event %d (%v) lacks %s", i, e["event.action"], k)
			}
		}
		if e["@timestamp"] != "2026-03-01T10:00:00.000Z" || e["crawler.crawl.id"] != "demo-20260301" {
			t.Errorf("event %d: @timestamp %v, crawl id %v", i, e["@timestamp"], e["crawler.crawl.id"])
		}
		id, _ := e["event.id"].(string)
		if id == "" || ids[id] {
			t.Errorf("event %d: event.id %q empty or repeated", i, id)
		}
		ids[id] = true
	}
	pick := func(e map[string]any, keys ...string) map[string]any {
		m := map[string]any{}
		for _, k := range keys {
			if v, ok := e[k]; ok {
				m[k] = v
			}
		}
		return m
	}
	tests := []struct {
		i    int
		want map[string]any
	}{
		{0, map[string]any{"event.action": "crawl-start", "event.type": "start", "crawler.crawl.resume": false, "crawler.crawl.seed_urls.count": 2.0}},
		{1, map[string]any{"event.action": "url-seed", "url.full": "http://example.com/", "crawler.url.seed_type": "standard", "crawler.url.hops": "", "crawler.url.crawl_depth": 0.0}},
		{2, map[string]any{"event.action": "url-fetch", "event.outcome": "success", "http.response.status_code": 200.0,
			"http.response.body.bytes": 5120.0, "event.duration": 1.5e9, "url.domain": "www.example.com", "url.path": "/a/b.html",
			"url.port": 8443.0, "url.query": "x=1", "url.scheme": "https", "crawler.url.hops": "RL", "crawler.url.crawl_depth": 2.0,
			"crawler.url.via": "https://www.example.com/", "crawler.url.seed": "http://example.com/",
			"event.start": "2026-03-01T09:59:58.500Z", "event.end": "2026-03-01T10:00:00.000Z"}},
		{3, map[string]any{"event.action": "url-fetch", "event.outcome": "failure", "crawler.url.status_code": -2.0}},
		{4, map[string]any{"event.action": "url-discover", "event.type": "allowed"}},
		{5, map[string]any{"event.action": "url-discover", "event.type": "denied", "crawler.url.deny_reason": "out_of_scope",
			"crawler.url.scope_reason": "out-of-scope", "url.domain": "other.example.org"}},
		{6, map[string]any{"event.action": "url-discover", "event.type": "denied", "crawler.url.deny_reason": "robots"}},
		{7, map[string]any{"event.action": "url-output", "crawler.output.warc.file": "demo-00000.warc.gz", "crawler.output.warc.offset": 1234.0}},
		{8, map[string]any{"event.action": "field-conflict", "event.outcome": "failure", "labels.field": "url", "labels.@timestamp": "x", "@timestamp": "2026-03-01T10:00:00.000Z"}},
		{9, map[string]any{"event.action": "crawl-end", "event.type": "end", "event.outcome": "success", "event.reason": "limit:documents",
			"crawler.crawl.resume_possible": true, "message": "document limit reached"}},
		{10, map[string]any{"event.action": "crawl-control", "event.type": "change", "event.outcome": "success", "user.name": "jane",
			"crawler.control.command": "block", "crawler.control.args": "contains:/calendar/", "message": "jane: block contains:/calendar/"}},
		{11, map[string]any{"event.action": "crawl-control", "event.outcome": "failure", "user.name": "local",
			"event.reason": "no such block rule", "message": "local: unblock contains:/x/: no such block rule"}},
	}
	for _, tt := range tests {
		keys := make([]string, 0, len(tt.want))
		for k := range tt.want {
			keys = append(keys, k)
		}
		if diff := cmp.Diff(tt.want, pick(evs[tt.i], keys...)); diff != "" {
			t.Errorf("event %d (-want +got):\n%s", tt.i, diff)
		}
	}
	if _, ok := evs[3]["http.response.status_code"]; ok {
		t.Error("a fetch without response has http.response.status_code")
	}
	if _, ok := evs[3]["http.response.body.bytes"]; ok {
		t.Error("a fetch without response has http.response.body.bytes")
	}
}

func TestCrawlEndOutcome(t *testing.T) {
	p := filepath.Join(t.TempDir(), "events.jsonl")
	ev, err := OpenEvents(p, EventsConfig{CrawlID: "c"})
	if err != nil {
		t.Fatal(err)
	}
	reasons := []string{EndFinished, EndLimit, EndCancelled, EndFailed, EndDiskFull}
	for _, r := range reasons {
		if err := ev.CrawlEnd(r, ""); err != nil {
			t.Fatal(err)
		}
	}
	ev.Close()
	want := []string{"success", "success", "unknown", "failure", "failure"}
	for i, e := range readEvents(t, p) {
		if e["event.outcome"] != want[i] || e["event.reason"] != reasons[i] {
			t.Errorf("%s: outcome %v, reason %v", reasons[i], e["event.outcome"], e["event.reason"])
		}
	}
}

// TestEventsConcurrent writes from many goroutines (run with -race): every line is a whole
// JSON object and none is lost.
func TestEventsConcurrent(t *testing.T) {
	p := filepath.Join(t.TempDir(), "events.jsonl")
	ev, err := OpenEvents(p, EventsConfig{CrawlID: "c"})
	if err != nil {
		t.Fatal(err)
	}
	const workers, each = 8, 200
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				u := URLInfo{URL: "https://example.com/" + strconv.Itoa(w) + "/" + strconv.Itoa(i) + "/" + strings.Repeat("x", i)}
				if err := ev.URLFetch(u, 200, int64(i), time.Millisecond); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	ev.Close()
	evs := readEvents(t, p)
	if len(evs) != workers*each {
		t.Fatalf("%d events, want %d", len(evs), workers*each)
	}
	seen := map[any]bool{}
	for _, e := range evs {
		seen[e["url.full"]] = true
	}
	if len(seen) != workers*each {
		t.Errorf("%d distinct URLs, want %d", len(seen), workers*each)
	}
}

// TestEventsResume: reopening appends, and a torn last line left by a kill is cut off.
func TestEventsResume(t *testing.T) {
	p := filepath.Join(t.TempDir(), "events.jsonl")
	ev, err := OpenEvents(p, EventsConfig{CrawlID: "c"})
	if err != nil {
		t.Fatal(err)
	}
	ev.CrawlStart(false, 1)
	ev.Close()
	f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"@timestamp":"2026-03-01T10:00:00.000Z","event.act`)
	f.Close()

	ev, err = OpenEvents(p, EventsConfig{CrawlID: "c"})
	if err != nil {
		t.Fatal(err)
	}
	ev.CrawlStart(true, 1)
	ev.Close()
	data, _ := os.ReadFile(p)
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines, want 2 (the torn one cut):\n%s", len(lines), data)
	}
	for i := range lines {
		if !json.Valid([]byte(lines[i])) {
			t.Errorf("line %d is not JSON: %q", i, lines[i])
		}
	}
	var last map[string]any
	json.Unmarshal([]byte(lines[1]), &last)
	if last["crawler.crawl.resume"] != true {
		t.Errorf("resumed start event = %v", last)
	}
}

// TestEventsBatched: URLCaptured and URLsDiscovered write the lines URLFetch, URLOutput and
// URLDiscover write one at a time (event.id aside).
func TestEventsBatched(t *testing.T) {
	now := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	open := func(name string) (*Events, string) {
		p := filepath.Join(t.TempDir(), name)
		ev, err := OpenEvents(p, EventsConfig{CrawlID: "c", Now: func() time.Time { return now }})
		if err != nil {
			t.Fatal(err)
		}
		return ev, p
	}
	page := URLInfo{URL: "http://example.com/a?b=<c>", Hops: "L", Via: "http://example.com/", Seed: "http://example.com/"}
	links := []URLInfo{{URL: "http://example.com/1", Hops: "LL"}, {URL: "http://example.com/2", Hops: "LE"}}

	one, p1 := open("one.jsonl")
	for _, err := range []error{
		one.URLFetch(page, 200, 10, time.Second), one.URLOutput(page, "f.warc.gz", 42),
		one.URLDiscover(links[0]), one.URLDiscover(links[1]),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	batched, p2 := open("batched.jsonl")
	for _, err := range []error{
		batched.URLCaptured(page, 200, 10, time.Second, "f.warc.gz", 42),
		batched.URLsDiscovered(links), batched.URLsDiscovered(nil),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, ev := range []*Events{one, batched} {
		if err := ev.Close(); err != nil {
			t.Fatal(err)
		}
	}
	a, b := readEvents(t, p1), readEvents(t, p2)
	for _, evs := range [][]map[string]any{a, b} {
		for _, e := range evs {
			delete(e, "event.id")
		}
	}
	if len(a) != 4 {
		t.Fatalf("%d events one at a time, want 4", len(a))
	}
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("batched events differ (-one at a time +batched):\n%s", diff)
	}
}
