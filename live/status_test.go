package live_test

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/internal/ctltest"
	"github.com/amber-crawler/amber/internal/testsite"
	"github.com/amber-crawler/amber/live"
	"github.com/amber-crawler/amber/scope"
)

// TestStatusServer serves /metrics, /status and /debug/pprof/ while a crawl runs.
func TestStatusServer(t *testing.T) {
	site, err := testsite.StartHandler(testsite.Generated{Pages: 400})
	if err != nil {
		t.Fatal(err)
	}
	defer site.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cfg := ctltest.Config(t, site.Addr, t.TempDir())
	cfg.Scope.Seeds = []scope.Seed{{URL: "http://gen.example.com/", Type: scope.StandardSeed}}
	srv, err := live.New(live.Config{Addr: addr})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Services = []crawl.Service{srv}
	cfg.HostDelay = 5 * time.Millisecond
	cfg.HostConcurrency = 1
	done := make(chan error, 1)
	go func() { _, err := crawl.Run(t.Context(), cfg); done <- err }()

	// Scrape until the crawl ends; keep the last answers that saw some fetches.
	var metrics, status, heap, index string
	for running := true; running; {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			running = false
		case <-time.After(50 * time.Millisecond):
		}
		if running && heap == "" {
			heap = get(t, "http://"+addr+"/debug/pprof/heap")
			index = get(t, "http://"+addr+"/debug/pprof/")
		}
		if m := get(t, "http://"+addr+"/metrics"); strings.Contains(m, `amber_urls_total{outcome="captured"}`) && !strings.Contains(m, `{outcome="captured"} 0`) {
			metrics = m
		}
		if s := get(t, "http://"+addr+"/status"); strings.Contains(s, `"captured"`) {
			status = s
		}
	}
	if metrics == "" || status == "" {
		t.Fatalf("no scrape during the crawl saw a capture: metrics %q, status %q", metrics, status)
	}
	// A heap profile is gzipped protobuf; the index lists the named profiles.
	if len(heap) < 2 || heap[0] != 0x1f || heap[1] != 0x8b {
		t.Errorf("/debug/pprof/heap during the crawl: %d bytes, not a gzipped profile", len(heap))
	}
	if !strings.Contains(index, "goroutine") || !strings.Contains(index, "heap") {
		t.Errorf("/debug/pprof/ lacks the profile index:\n%.500s", index)
	}
	for _, want := range []string{
		"# TYPE amber_urls_fetched_total counter",
		"# TYPE amber_bytes_total counter",
		"# TYPE amber_start_time_seconds gauge",
		"# TYPE amber_crawl_log_lines_total counter",
		`amber_crawl_log_lines_total{code="200"} `,
		`amber_urls_total{outcome="out-of-scope"} `,
		`amber_frontier_urls{state="queued"}`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %q:\n%s", want, metrics)
		}
	}
	if strings.Contains(metrics, "amber_fetch_rate") {
		t.Errorf("/metrics has a computed rate gauge; rates are rate() of the counters:\n%s", metrics)
	}
	promtoolCheck(t, metrics)
	var snap crawl.Snapshot
	if err := json.Unmarshal([]byte(status), &snap); err != nil {
		t.Fatalf("/status: %v\n%s", err, status)
	}
	if snap.Dir != cfg.Dir || snap.Started.IsZero() || snap.Outcomes["captured"] == 0 || snap.Statuses["200"] == 0 {
		t.Errorf("/status = %+v", snap)
	}
}

// promtoolCheck lints an exposition with Prometheus' own promtool (Debian package prometheus),
// a reader we did not write; without it the check is skipped, except in CI.
func promtoolCheck(t *testing.T, metrics string) {
	t.Helper()
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("promtool is required in CI (apt-get install -y prometheus): %v", err)
		}
		t.Logf("promtool not found; exposition not linted: %v", err)
		return
	}
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = strings.NewReader(metrics)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("promtool check metrics: %v\n%s\n%s", err, out, metrics)
	}
}

func get(t *testing.T, u string) string {
	resp, err := http.Get(u)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Errorf("%s: %s", u, resp.Status)
	}
	return string(b)
}
