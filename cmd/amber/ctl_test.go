package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/amber-crawler/amber/config"
	"github.com/amber-crawler/amber/crawl"
)

// TestCtl steers a running `amber crawl` with `amber ctl`: statuses, exit statuses of good and
// bad commands, stop (the crawl exits interrupted), and the changes kept by a resume.
func TestCtl(t *testing.T) {
	bin := amberBinary(t)
	release := make(chan struct{})
	var mu sync.Mutex
	hits := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits[r.Host+r.URL.Path]++
		mu.Unlock()
		if r.Host == "slow.test" && r.URL.Path == "/" {
			select { // keeps the crawl running until the test lets it end
			case <-release:
			case <-r.Context().Done():
				return
			}
		}
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<html><body><a href="/a">a</a></body></html>`)
	}))
	defer srv.Close()
	count := func(k string) int {
		mu.Lock()
		defer mu.Unlock()
		return hits[k]
	}
	dir := filepath.Join(t.TempDir(), "crawl")
	crawlArgs := []string{"crawl", "--dir", dir, "--connect-to", "::" + srv.Listener.Addr().String(), "--allow-private",
		"--host-delay", "0", "--quiet", "http://a.test/", "http://slow.test/"}
	crawlCmd := exec.Command(bin, crawlArgs...)
	var crawlErr bytes.Buffer
	crawlCmd.Stderr = &crawlErr
	if err := crawlCmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer crawlCmd.Process.Kill()
	ctl := func(args ...string) (string, string, int) {
		cmd := exec.Command(bin, append([]string{"ctl"}, args...)...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		var ee *exec.ExitError
		switch {
		case err == nil:
			return out.String(), errb.String(), 0
		case errors.As(err, &ee):
			return out.String(), errb.String(), ee.ExitCode()
		}
		t.Fatal(err)
		return "", "", -1
	}
	deadline := time.Now().Add(30 * time.Second)
	for count("slow.test/") == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the crawl did not start; stderr:\n%s", crawlErr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	empty := t.TempDir()

	tests := []struct {
		name   string
		args   []string
		want   int
		stdout string // in stdout
		stderr string // in stderr
	}{
		{"status", []string{dir, "status"}, 0, `"paused": false`, ""},
		{"pause", []string{dir, "pause"}, 0, "crawl paused", ""},
		{"status paused", []string{dir, "status"}, 0, `"paused": true`, ""},
		{"bad rule", []string{dir, "block", "nokind"}, exitUsage, "", "scope"},
		{"unknown command", []string{dir, "frobnicate"}, exitUsage, "", "unknown command"},
		{"missing argument", []string{dir, "host-delay", "slow.test"}, exitUsage, "", "takes 2 argument(s)"},
		{"bad duration", []string{dir, "host-delay", "slow.test", "soon"}, exitUsage, "", "not a duration"},
		{"unblock what is not blocked", []string{dir, "unblock", "contains:/nothing/"}, exitUsage, "", "not a block rule"},
		{"block", []string{dir, "block", "contains:/calendar/"}, 0, "block contains:/calendar/: done", ""},
		{"host-delay", []string{dir, "host-delay", "slow.test", "2s"}, 0, "done", ""},
		{"limit", []string{dir, "limit", "1000"}, 0, "done", ""},
		{"resume", []string{dir, "resume"}, 0, "crawl running", ""},
		{"no crawl running", []string{empty, "status"}, exitFailure, "", "no crawl is running"},
		{"no directory", []string{filepath.Join(empty, "nope"), "pause"}, exitFailure, "", "no crawl is running"},
		{"help", []string{"--help"}, 0, "usage: amber ctl DIR COMMAND", ""},
		{"stop", []string{dir, "stop"}, 0, "done", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errs, code := ctl(tt.args...)
			if code != tt.want || !strings.Contains(out, tt.stdout) || !strings.Contains(errs, tt.stderr) {
				t.Errorf("amber ctl %v: exit %d, stdout %q, stderr %q; want exit %d, stdout with %q, stderr with %q",
					tt.args, code, out, errs, tt.want, tt.stdout, tt.stderr)
			}
		})
	}
	err := crawlCmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitInterrupted {
		t.Fatalf("crawl after ctl stop: %v, want exit %d; stderr:\n%s", err, exitInterrupted, crawlErr.String())
	}

	yc, err := config.Load(filepath.Join(dir, crawl.ConfigFile))
	if err != nil {
		t.Fatal(err)
	}
	if yc.Politeness.HostDelays["slow.test"] != 2*time.Second || yc.Limits.URLs != 1000 || len(yc.Scope.Block) != 1 || yc.Scope.Block[0].Text != "contains:/calendar/" {
		t.Errorf("crawl.yaml: host delays %v, limit %d, block %v", yc.Politeness.HostDelays, yc.Limits.URLs, yc.Scope.Block)
	}

	// Resumed with --dir alone: the changes are applied again, and the crawl finishes.
	close(release)
	resume := exec.Command(bin, "crawl", "--dir", dir, "--connect-to", "::"+srv.Listener.Addr().String(), "--allow-private", "--quiet")
	out, err := resume.CombinedOutput()
	if err != nil {
		t.Fatalf("resume: %v\n%s", err, out)
	}
	var ctlEvents []string
	b, err := os.ReadFile(filepath.Join(dir, crawl.EventsFile))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(b)) {
		var e map[string]any
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatal(err)
		}
		if e["event.action"] == "crawl-control" {
			ctlEvents = append(ctlEvents, fmt.Sprint(e["crawler.control.command"], " ", e["event.outcome"]))
		}
	}
	// Bad commands caught by amber ctl never reach the crawl; one the crawl refuses is recorded.
	want := "pause success,unblock failure,block success,host-delay success,limit success,resume success,stop success"
	if got := strings.Join(ctlEvents, ","); got != want {
		t.Errorf("control events %s, want %s", got, want)
	}
	if n := count("slow.test/"); n != 2 {
		t.Errorf("slow.test/ requested %d times, want 2 (once per run)", n)
	}
}
