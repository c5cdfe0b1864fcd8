package ctl_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/ctl"
	"github.com/amber-crawler/amber/frontier/redisfront"
	"github.com/amber-crawler/amber/internal/crawltest"
	"github.com/amber-crawler/amber/internal/ctltest"
	"github.com/amber-crawler/amber/internal/redistest"
	"github.com/amber-crawler/amber/status"
)

// TestSharedControl steers a crawl of two processes sharing a frontier in redis-server (here
// two runs in one test process, each with its own directory and Service). Sent to the crawl
// (SendShared), status answers twice, pause pauses both and resume resumes both; a block rule
// given to one process's socket is made by the other too, which records it in its own
// control.log and reports it; queued URLs the rule matches are never fetched.
func TestSharedControl(t *testing.T) {
	srv := redistest.Start(t)
	site := ctltest.StartSite(t)
	open, slow := site.Gate("a.test/"), site.Gate("slow.test/")
	var dirs []string
	var done []chan ctltest.Result
	for _, p := range []string{"p1", "p2"} {
		cfg := ctltest.Config(t, site.Addr(), filepath.Join(t.TempDir(), p))
		cfg.Shared = redisfront.Shared{URL: srv.URL(0), CrawlID: "ctl", Process: p}
		cfg.Services = []crawl.Service{ctl.New()}
		dirs = append(dirs, cfg.Dir)
		done = append(done, ctltest.Start(t, cfg))
	}
	t.Cleanup(func() { // a test that failed half way stops the crawl
		select {
		case <-slow:
		default:
			close(slow)
		}
		for _, d := range dirs {
			ctl.Send(t.Context(), d, ctl.Request{Command: ctl.CmdStop})
		}
		for _, ch := range done {
			<-ch
		}
	})
	shared := func(args ...string) []ctl.ProcessResponse {
		t.Helper()
		req, err := ctl.Parse(args)
		if err != nil {
			t.Fatal(err)
		}
		res, err := ctl.SendShared(t.Context(), srv.URL(0), "ctl", req)
		if err != nil {
			t.Fatalf("SendShared %v: %v", args, err)
		}
		return res
	}
	paused := func(res []ctl.ProcessResponse) []string {
		var ps []string
		for _, r := range res {
			if r.OK && r.Status.Paused {
				ps = append(ps, r.Process)
			}
		}
		slices.Sort(ps)
		return ps
	}
	ctltest.WaitFor(t, "both seeds requested", func() bool { return site.Count("a.test/") == 1 && site.Count("slow.test/") == 1 })
	if res := shared("status"); len(res) != 2 || len(paused(res)) != 0 {
		t.Fatalf("status of the crawl: %+v, want two processes running", res)
	}
	if got := paused(shared("pause")); !slices.Equal(got, []string{"p1", "p2"}) {
		t.Errorf("pause: paused %v, want both", got)
	}
	close(open) // a.test/'s links are queued, none claimed: the crawl is paused
	ctltest.WaitFor(t, "a.test/ done", func() bool {
		st := ctlOK(t, dirs[0], "status")
		return st.Frontier.Queued >= 3
	})
	ctlOK(t, dirs[0], "block", "contains:/calendar/")
	// p2 makes the change within a second, and records it.
	ctltest.WaitFor(t, "p2's control.log records the block given to p1", func() bool {
		b, _ := os.ReadFile(filepath.Join(dirs[1], ctl.LogFile))
		return strings.Contains(string(b), `"command":"block"`) && strings.Contains(string(b), "contains:/calendar/")
	})
	if st := ctlOK(t, dirs[1], "status"); !slices.Equal(st.Block, []string{"contains:/calendar/"}) || !st.Paused {
		t.Errorf("p2's status after the block: block %v, paused %v", st.Block, st.Paused)
	}
	if got := paused(shared("resume")); len(got) != 0 {
		t.Errorf("resume: still paused %v", got)
	}
	ctltest.WaitFor(t, "a.test/later", func() bool { return site.Count("a.test/later") == 1 })
	close(slow)
	for i, ch := range done {
		if r := <-ch; r.Err != nil || r.Res.End != crawl.EndFinished {
			t.Errorf("%s: end %q, err %v", dirs[i], r.Res.End, r.Err)
		}
		done[i] = closedResult()
	}
	for _, k := range []string{"a.test/calendar/1", "a.test/calendar/2"} {
		if n := site.Count(k); n != 0 {
			t.Errorf("%s requested %d times, blocked", k, n)
		}
	}
	refused := 0
	for _, d := range dirs {
		for _, l := range crawltest.ReadCrawlLog(t, filepath.Join(d, crawl.CrawlLogFile)) {
			if l.Status == status.OutOfScope && strings.Contains(l.URL, "/calendar/") {
				refused++
			}
		}
	}
	if refused != 2 {
		t.Errorf("%d calendar URLs refused in the processes' crawl.logs, want 2", refused)
	}
	if _, err := ctl.SendShared(t.Context(), srv.URL(0), "ctl", ctl.Request{Command: ctl.CmdStatus}); !errors.Is(err, ctl.ErrNotRunning) {
		t.Errorf("SendShared after the crawl: %v, want ErrNotRunning", err)
	}
}

// closedResult is a channel that has given its result already.
func closedResult() chan ctltest.Result {
	ch := make(chan ctltest.Result, 1)
	ch <- ctltest.Result{}
	return ch
}
