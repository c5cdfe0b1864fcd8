package crawl_test

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/internal/testsite"
)

// TestStatusServer serves /metrics and /status while a crawl runs.
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
	cfg := basicConfig(t, site, t.TempDir())
	cfg.Scope.Seeds[0].URL = "http://gen.example.com/"
	cfg.StatusAddr = addr
	cfg.HostDelay = 5 * time.Millisecond
	cfg.HostConcurrency = 1
	done := make(chan error, 1)
	go func() { _, err := crawl.Run(t.Context(), cfg); done <- err }()

	var metrics, status string
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) && (metrics == "" || status == "") {
		time.Sleep(50 * time.Millisecond)
		if metrics == "" {
			metrics = get(t, "http://"+addr+"/metrics")
		}
		if status == "" {
			status = get(t, "http://"+addr+"/status")
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# TYPE amber_urls_fetched_total counter", `amber_frontier_urls{state="queued"}`, "amber_bytes_total "} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %q:\n%s", want, metrics)
		}
	}
	var snap crawl.Snapshot
	if err := json.Unmarshal([]byte(status), &snap); err != nil {
		t.Fatalf("/status: %v\n%s", err, status)
	}
	if snap.Dir != cfg.Dir || snap.Started.IsZero() {
		t.Errorf("/status = %+v", snap)
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
