package ctl_test

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/amber-crawler/amber/config"
	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/ctl"
	"github.com/amber-crawler/amber/internal/crawltest"
	"github.com/amber-crawler/amber/internal/ctltest"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/scope"
	"github.com/amber-crawler/amber/status"
)

func send(t *testing.T, dir string, args ...string) ctl.Response {
	t.Helper()
	req, err := ctl.Parse(args)
	if err != nil {
		t.Fatalf("ctl %v: %v", args, err)
	}
	res, err := ctl.Send(t.Context(), dir, req)
	if err != nil {
		t.Fatalf("ctl %v: %v", args, err)
	}
	return res
}

func ctlOK(t *testing.T, dir string, args ...string) *ctl.Status {
	t.Helper()
	res := send(t, dir, args...)
	if !res.OK || res.Status == nil {
		t.Fatalf("ctl %v: %+v", args, res)
	}
	return res.Status
}

// configFromYAML is the crawl as a resume with `amber crawl --dir DIR` builds it from crawl.yaml.
func configFromYAML(t *testing.T, base crawl.Config) crawl.Config {
	t.Helper()
	p := filepath.Join(base.Dir, crawl.ConfigFile)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	yc, err := config.Parse(b, p)
	if err != nil {
		t.Fatal(err)
	}
	cfg := base
	if cfg.Scope, err = yc.ScopeConfig(scope.Standard); err != nil {
		t.Fatal(err)
	}
	cfg.HostDelays, cfg.LimitURLs, cfg.EffectiveConfig = yc.Politeness.HostDelays, yc.Limits.URLs, b
	return cfg
}

// TestControl steers a crawl through its control socket: pause (no request while paused),
// block (a queued URL and a later-found one refused), add-seed, unblock, host-delay, limit and
// stop, then resumes it from crawl.yaml twice: once to a changed limit, once to the end.
func TestControl(t *testing.T) {
	site := ctltest.StartSite(t)
	cfg := ctltest.Config(t, site.Addr(), t.TempDir())
	cfg.Services = []crawl.Service{ctl.New()}
	yc := config.File{Seeds: []config.SeedSpec{{URL: "http://a.test/"}, {URL: "http://slow.test/"}}}
	var err error
	if cfg.EffectiveConfig, err = yc.Marshal(); err != nil {
		t.Fatal(err)
	}
	dir := cfg.Dir
	if _, err := ctl.Send(t.Context(), dir, ctl.Request{Command: ctl.CmdStatus}); !errors.Is(err, ctl.ErrNotRunning) {
		t.Fatalf("control before the crawl: err = %v, want ErrNotRunning", err)
	}

	openA, slow := site.Gate("a.test/"), site.Gate("slow.test/")
	done := ctltest.Start(t, cfg)
	if fi, err := os.Stat(filepath.Join(dir, ctl.Socket)); err != nil || fi.Mode().Type() != fs.ModeSocket || fi.Mode().Perm() != 0o600 {
		t.Fatalf("control socket: %v, %v; want a socket with mode 0600", fi, err)
	}
	ctltest.WaitFor(t, "both seeds requested", func() bool { return site.Count("a.test/") == 1 && site.Count("slow.test/") == 1 })

	// Paused while a.test/ is being fetched: its links are queued, none is claimed.
	if st := ctlOK(t, dir, "pause"); !st.Paused {
		t.Error("status after pause: not paused")
	}
	close(openA)
	ctltest.WaitFor(t, "a.test/ done", func() bool {
		st := ctlOK(t, dir, "status")
		return st.Frontier.Done >= 1 && st.Frontier.InFlight == 1 && st.Frontier.Queued >= 3
	})
	before := site.Total()
	for _, args := range [][]string{
		{"block", "contains:/calendar/"},
		{"add-seed", "http://new.test/"},
		{"host-delay", "c.test", "300ms"},
		{"limit", "500"},
	} {
		ctlOK(t, dir, args...)
	}
	time.Sleep(300 * time.Millisecond) // what a paused crawl must not do, it would do by now
	if n := site.Total(); n != before {
		t.Errorf("%d requests while paused", n-before)
	}

	st := ctlOK(t, dir, "resume")
	if st.Paused || st.LimitURLs != 500 || !slices.Equal(st.Block, []string{"contains:/calendar/"}) || st.HostDelays["c.test"] != "300ms" {
		t.Errorf("status after resume: paused %v, limit %d, block %v, host delays %v", st.Paused, st.LimitURLs, st.Block, st.HostDelays)
	}
	idle := func() bool {
		st := ctlOK(t, dir, "status")
		return st.Frontier.Queued == 0 && st.Frontier.InFlight == 1
	}
	ctltest.WaitFor(t, "the crawl to go on", func() bool { return site.Count("new.test/") == 1 && site.Count("a.test/later") == 1 && idle() })

	ctlOK(t, dir, "unblock", "contains:/calendar/")
	ctlOK(t, dir, "add-seed", "http://b.test/")
	ctlOK(t, dir, "add-seed", "http://c.test/")
	ctltest.WaitFor(t, "b.test and c.test", func() bool { return site.Count("b.test/calendar/5") == 1 && site.Count("c.test/3") == 1 && idle() })
	ts := site.Times("c.test/", "c.test/1", "c.test/2", "c.test/3")
	for i := 1; i < len(ts); i++ {
		if gap := ts[i].Sub(ts[i-1]); gap < 300*time.Millisecond {
			t.Errorf("c.test: %v between requests, want at least the host delay 300ms", gap)
		}
	}

	bad := []struct {
		args []string
		want string
	}{
		{[]string{"unblock", "contains:/nothing/"}, "not a block rule"},
		{[]string{"add-seed", "http://new.test/"}, "a seed already"},
	}
	for _, b := range bad {
		res := send(t, dir, b.args...)
		if res.OK || !res.BadRequest || !strings.Contains(res.Error, b.want) {
			t.Errorf("ctl %v: %+v, want a bad request with %q", b.args, res, b.want)
		}
	}
	for _, args := range [][]string{{"block", "nokind"}, {"frobnicate"}, {"limit", "-3"}, {"host-delay", "c.test", "soon"}, {"pause", "now"}} {
		if _, err := ctl.Parse(args); !errors.Is(err, ctl.ErrBadRequest) {
			t.Errorf("Parse(%v): err = %v, want ErrBadRequest", args, err)
		}
	}

	ctlOK(t, dir, "stop")
	r := <-done
	if r.Err != nil || r.Res.End != crawl.EndCancelled {
		t.Fatalf("after stop: end %q, err %v; want %q", r.Res.End, r.Err, crawl.EndCancelled)
	}
	if _, err := os.Lstat(filepath.Join(dir, ctl.Socket)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("control socket left after the run: %v", err)
	}

	lines := crawltest.ReadCrawlLog(t, filepath.Join(dir, crawl.CrawlLogFile))
	refused := map[string]string{}
	for _, l := range lines {
		if l.Status == status.OutOfScope {
			refused[l.URL] = strings.Join(l.Annotations, ",")
		}
	}
	for _, u := range []string{"http://a.test/calendar/1", "http://a.test/calendar/2"} {
		if refused[u] != "scope:block:contains:/calendar/" {
			t.Errorf("%s: crawl.log annotations %q, want refused with scope:block:contains:/calendar/", u, refused[u])
		}
	}
	for _, k := range []string{"a.test/calendar/1", "a.test/calendar/2"} {
		if n := site.Count(k); n != 0 {
			t.Errorf("%s requested %d times, blocked", k, n)
		}
	}

	var actions []string
	for _, e := range crawltest.ReadEvents(t, filepath.Join(dir, crawl.EventsFile)) {
		if e["event.action"] == report.ActionControl {
			actions = append(actions, fmt.Sprintf("%v %v %v", e["crawler.control.command"], e["event.outcome"], e["user.name"] != ""))
		}
	}
	want := []string{"pause success true", "block success true", "add-seed success true", "host-delay success true",
		"limit success true", "resume success true", "unblock success true", "add-seed success true", "add-seed success true",
		"unblock failure true", "add-seed failure true", "stop success true"}
	if !slices.Equal(actions, want) {
		t.Errorf("control events:\n%q\nwant\n%q", actions, want)
	}
	if b, err := os.ReadFile(filepath.Join(dir, ctl.LogFile)); err != nil || strings.Count(string(b), "\n") != len(want) {
		t.Errorf("control.log: %d lines, %v; want %d", strings.Count(string(b), "\n"), err, len(want))
	}

	// Resumed from crawl.yaml: the changes are there.
	cfg2 := configFromYAML(t, cfg)
	var seedURLs []string
	for _, s := range cfg2.Scope.Seeds {
		seedURLs = append(seedURLs, s.URL)
	}
	if want := []string{"http://a.test/", "http://slow.test/", "http://new.test/", "http://b.test/", "http://c.test/"}; !slices.Equal(seedURLs, want) ||
		len(cfg2.Scope.Block) != 0 || cfg2.LimitURLs != 500 || cfg2.HostDelays["c.test"] != 300*time.Millisecond {
		t.Fatalf("crawl.yaml: seeds %v, block %v, limit %d, host delays %v", seedURLs, cfg2.Scope.Block, cfg2.LimitURLs, cfg2.HostDelays)
	}
	done = ctltest.Start(t, cfg2)
	ctltest.WaitFor(t, "slow.test/ again", func() bool { return site.Count("slow.test/") == 2 })
	st = ctlOK(t, dir, "status")
	if st.HostDelays["c.test"] != "300ms" || st.LimitURLs != 500 {
		t.Errorf("resumed status: host delays %v, limit %d", st.HostDelays, st.LimitURLs)
	}
	// The limit is what was fetched: the seed added now waits for a later run.
	ctlOK(t, dir, "limit", fmt.Sprint(st.Fetched))
	ctlOK(t, dir, "add-seed", "http://d.test/")
	close(slow)
	if r := <-done; r.Err != nil || r.Res.End != crawl.EndLimit || site.Count("d.test/") != 0 {
		t.Fatalf("after limit: end %q, err %v, d.test/ requested %d times; want %q, none", r.Res.End, r.Err, site.Count("d.test/"), crawl.EndLimit)
	}

	cfg3 := configFromYAML(t, cfg)
	if cfg3.LimitURLs != st.Fetched {
		t.Errorf("crawl.yaml limit %d, want %d", cfg3.LimitURLs, st.Fetched)
	}
	cfg3.LimitURLs = 0
	res, err := crawl.Run(t.Context(), cfg3)
	if err != nil || res.End != crawl.EndFinished {
		t.Fatalf("last run: end %q, err %v", res.End, err)
	}
	for k := range site.Pages {
		if site.Count(k) == 0 {
			t.Errorf("%s never requested", k)
		}
	}
}

// TestControlSocket runs crawls in a short and in a long crawl directory (beyond a Unix socket
// path's limit of about 108 bytes), each with a stale socket left by a killed crawl: control
// says no crawl runs there, the crawl replaces the socket (mode 0600), control reaches it, and
// the socket is gone when the run ends.
func TestControlSocket(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("long socket paths go through /proc/self/fd (Linux)")
	}
	tests := []struct {
		name string
		sub  string
	}{
		{"short", "c"},
		{"long", strings.Repeat("a-rather-long-directory-name/", 5) + "crawl"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			site := ctltest.StartSite(t)
			dir := filepath.Join(t.TempDir(), tt.sub)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			sock := filepath.Join(dir, ctl.Socket)
			if tt.name == "long" && len(sock) < 110 {
				t.Fatalf("socket path %d bytes: not long", len(sock))
			}
			leaveStaleSocket(t, dir)
			if _, err := ctl.Send(t.Context(), dir, ctl.Request{Command: ctl.CmdStatus}); !errors.Is(err, ctl.ErrNotRunning) {
				t.Fatalf("stale socket: err = %v, want ErrNotRunning", err)
			}
			cfg := ctltest.Config(t, site.Addr(), dir)
			cfg.Services = []crawl.Service{ctl.New()}
			cfg.Scope.Seeds = []scope.Seed{{URL: "http://slow.test/"}}
			slow := site.Gate("slow.test/")
			done := ctltest.Start(t, cfg)
			if fi, err := os.Lstat(sock); err != nil || fi.Mode().Type() != fs.ModeSocket || fi.Mode().Perm() != 0o600 {
				t.Fatalf("control socket: %v, %v; want a socket with mode 0600", fi, err)
			}
			if st := ctlOK(t, dir, "status"); st.Dir != dir {
				t.Errorf("status dir %q, want %q", st.Dir, dir)
			}
			close(slow)
			if r := <-done; r.Err != nil || r.Res.End != crawl.EndFinished {
				t.Fatalf("end %q, err %v", r.Res.End, r.Err)
			}
			if _, err := os.Lstat(sock); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("socket after the run: %v", err)
			}
			if _, err := ctl.Send(t.Context(), dir, ctl.Request{Command: ctl.CmdStatus}); !errors.Is(err, ctl.ErrNotRunning) {
				t.Errorf("after the run: err = %v, want ErrNotRunning", err)
			}
		})
	}
}

// leaveStaleSocket leaves dir/control.sock as a killed crawl does: a socket nobody listens on.
func leaveStaleSocket(t *testing.T, dir string) {
	t.Helper()
	d, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	addr := fmt.Sprintf("/proc/self/fd/%d/%s", d.Fd(), ctl.Socket)
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: addr, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close()
}
