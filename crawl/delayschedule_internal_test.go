package crawl

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/schedule"
	"github.com/amber-crawler/amber/scope"
	"github.com/amber-crawler/amber/timeslot"
)

// fakeClock is a clock that moves only when the test moves it.
type fakeClock struct {
	mu    sync.Mutex // guards now and waits
	now   time.Time
	waits []fakeWait
}

type fakeWait struct {
	at time.Time
	ch chan time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	if d <= 0 {
		ch <- c.now
		return ch
	}
	c.waits = append(c.waits, fakeWait{at: c.now.Add(d), ch: ch})
	return ch
}

// set moves the clock to t and fires the waits that are due.
func (c *fakeClock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
	kept := c.waits[:0]
	for _, w := range c.waits {
		if w.at.After(t) {
			kept = append(kept, w)
			continue
		}
		w.ch <- t
	}
	c.waits = kept
}

// sitesServer serves hosts whose home pages link to /1 ... /n, on one loopback listener, and
// counts the requests.
func sitesServer(t *testing.T, pages int) (addr string, requests *atomic.Int64) {
	t.Helper()
	requests = new(atomic.Int64)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.Header().Set("Content-Type", "text/html")
		if r.URL.Path != "/" {
			fmt.Fprintf(w, "<html><body>page %s</body></html>", r.URL.Path)
			return
		}
		var b strings.Builder
		for i := range pages {
			fmt.Fprintf(&b, `<a href="/%d">%d</a>`, i+1, i+1)
		}
		fmt.Fprintf(w, "<html><body>%s</body></html>", b.String())
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String(), requests
}

func sitesConfig(t *testing.T, addr string, hosts ...string) Config {
	t.Helper()
	ct, err := fetch.ParseConnectTo("::" + addr)
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Dir = t.TempDir()
	cfg.Collection = "test"
	for _, h := range hosts {
		cfg.Scope.Seeds = append(cfg.Scope.Seeds, scope.Seed{URL: "http://" + h + "/", Type: scope.StandardSeed})
	}
	cfg.Workers = 4
	cfg.HostDelay = 0
	cfg.IgnoreRobots = true
	cfg.ProgressEvery = -1
	cfg.Fetch = fetch.Config{UserAgent: "amber-test/1.0", AllowPrivate: true, ConnectTo: []fetch.ConnectTo{ct}}
	return cfg
}

// crawlLogURLs returns the URLs of crawl.log in the order of its lines.
func crawlLogURLs(t *testing.T, dir string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, CrawlLogFile))
	if err != nil {
		t.Fatal(err)
	}
	var urls []string
	for line := range strings.Lines(string(b)) {
		if f := strings.Fields(line); len(f) > 3 {
			urls = append(urls, f[3])
		}
	}
	return urls
}

// events returns the events of the crawl directory in the order of their lines.
func events(t *testing.T, dir string) []map[string]any {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, EventsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var es []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e map[string]any
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("events line %q: %v", sc.Text(), err)
		}
		es = append(es, e)
	}
	return es
}

// TestCrawlMaxSites: with one site at a time and two documents of it while another waits, the
// crawl interleaves the two sites, two URLs at a time.
func TestCrawlMaxSites(t *testing.T) {
	addr, _ := sitesServer(t, 3)
	cfg := sitesConfig(t, addr, "a.test", "b.test")
	cfg.MaxSites, cfg.MaxInterDocs = 1, 2
	res, err := Run(t.Context(), cfg)
	if err != nil || res.End != EndFinished {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	// a's home page is claimed first and finished while b waits; a/1 is a's second document
	// with b waiting: a goes back behind b, and so on. Each host's favicon is its last URL.
	want := []string{
		"http://a.test/", "http://a.test/1",
		"http://b.test/", "http://b.test/1",
		"http://a.test/2", "http://a.test/3",
		"http://b.test/2", "http://b.test/3",
		"http://a.test/favicon.ico", "http://b.test/favicon.ico",
	}
	if diff := cmp.Diff(want, crawlLogURLs(t, cfg.Dir)); diff != "" {
		t.Errorf("crawl.log order (-want +got):\n%s", diff)
	}
}

// TestCrawlDelaySchedule: a crawl that starts in a suspending slot fetches nothing until the
// slot ends; Ctrl-C ends a suspended run with its URLs kept; the slots' starts and ends are
// events, before the fetches they allow.
func TestCrawlDelaySchedule(t *testing.T) {
	addr, requests := sitesServer(t, 2)
	monday := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC) // a Monday
	suspend, err := timeslot.Parse(nil, "Mon 09:00", "Mon 17:00")
	if err != nil {
		t.Fatal(err)
	}
	suspend.Suspend = true
	evening, err := timeslot.Parse([]string{"mon"}, "17:00", "23:00")
	if err != nil {
		t.Fatal(err)
	}
	evening.Delay = 10 * time.Millisecond
	clk := &fakeClock{now: monday.Add(9*time.Hour + 30*time.Minute)}
	cfg := sitesConfig(t, addr, "a.test")
	cfg.DelaySchedule = DelaySchedule{Zone: time.UTC, Slots: []timeslot.Slot{suspend, evening}}
	cfg.Clock = clk

	// Suspended, then stopped (Ctrl-C): nothing fetched, the seed still queued.
	ctx, cancel := context.WithCancel(t.Context())
	ended := make(chan struct{})
	var res Result
	go func() {
		defer close(ended)
		res, err = Run(ctx, cfg)
	}()
	waitEvents(t, cfg.Dir, "slot-start", 1)
	cancel()
	<-ended
	if err != nil || res.End != EndCancelled || res.Stats.Queued != 1 || requests.Load() != 0 {
		t.Fatalf("suspended run = %+v, %v, %d requests; want cancelled, the seed queued, no request", res, err, requests.Load())
	}

	// Resumed in the slot, then the slot ends: the crawl goes on and finishes.
	ended = make(chan struct{})
	go func() {
		defer close(ended)
		res, err = Run(t.Context(), cfg)
	}()
	waitEvents(t, cfg.Dir, "slot-start", 2) // the first run's and this one's
	if n := requests.Load(); n != 0 {
		t.Fatalf("%d requests while suspended", n)
	}
	clk.set(monday.Add(17 * time.Hour))
	<-ended
	if err != nil || res.End != EndFinished {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	var got []string
	for _, e := range events(t, cfg.Dir) {
		switch e["event.action"] {
		case schedule.ActionDelaySchedule:
			labels := fmt.Sprint(e["labels.slot"])
			if e["labels.suspend"] == "true" {
				labels += " suspend"
			}
			if d, ok := e["labels.delay"]; ok {
				labels += " delay " + fmt.Sprint(d)
			}
			got = append(got, fmt.Sprint(e["event.reason"], " ", labels))
		case "url-fetch":
			if len(got) == 0 || got[len(got)-1] != "fetch" {
				got = append(got, "fetch")
			}
		}
	}
	want := []string{
		"slot-start Mon 09:00-Mon 17:00 suspend", // the first run
		"slot-start Mon 09:00-Mon 17:00 suspend", // the second
		"slot-end Mon 09:00-Mon 17:00",
		"slot-start mon 17:00-23:00 delay 10ms",
		"fetch",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// waitEvents waits until the crawl directory's events hold n delay-schedule events with
// reason (a generous deadline: one that does not come is a failure).
func waitEvents(t *testing.T, dir, reason string, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(filepath.Join(dir, EventsFile)); err == nil {
			got := 0
			for _, e := range events(t, dir) {
				if e["event.action"] == schedule.ActionDelaySchedule && e["event.reason"] == reason {
					got++
				}
			}
			if got >= n {
				return
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("fewer than %d %s events", n, reason)
}

// TestValidateDelaySchedule: the fields Validate refuses.
func TestValidateDelaySchedule(t *testing.T) {
	slot, err := timeslot.Parse(nil, "09:00", "17:00")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		modify func(*Config)
		field  string // "" for valid
	}{
		{"slots and sites", func(c *Config) {
			c.DelaySchedule.Slots = []timeslot.Slot{slot}
			c.MaxSites, c.MaxInterDocs = 128, 10
		}, ""},
		{"a slot without time", func(c *Config) { c.DelaySchedule.Slots = []timeslot.Slot{{Delay: time.Second}} }, "DelaySchedule.Slots[0]"},
		{"negative delay", func(c *Config) {
			s := slot
			s.Delay = -time.Second
			c.DelaySchedule.Slots = []timeslot.Slot{slot, s}
		}, "DelaySchedule.Slots[1]"},
		{"negative max sites", func(c *Config) { c.MaxSites = -1 }, "MaxSites"},
		{"negative max inter docs", func(c *Config) { c.MaxInterDocs = -1 }, "MaxInterDocs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := validConfig()
			tt.modify(&c)
			err := c.Validate()
			var fe *FieldError
			switch {
			case tt.field == "" && err != nil:
				t.Errorf("Validate = %v, want nil", err)
			case tt.field != "" && (!errors.As(err, &fe) || fe.Field != tt.field):
				t.Errorf("Validate = %v, want a FieldError for %s", err, tt.field)
			}
		})
	}
}

// TestStatusLineScheduleAndSites: the status line names the delay-schedule slot in force and
// the sites crawled and waiting.
func TestStatusLineScheduleAndSites(t *testing.T) {
	tests := []struct {
		name string
		s    Snapshot
		want string // the start of the line
	}{
		{"neither", Snapshot{}, "0 fetched"},
		{"suspended", Snapshot{Suspended: true, DelaySlot: "Mon 09:00-Mon 17:00: suspended until Mon 17:00 UTC"},
			"schedule Mon 09:00-Mon 17:00: suspended until Mon 17:00 UTC | 0 fetched"},
		{"sites", Snapshot{Frontier: frontier.Stats{Sites: 2, SitesWaiting: 5}}, "2 sites, 5 waiting | 0 fetched"},
		{"paused, a delay slot", Snapshot{Paused: true, DelaySlot: "22:00-06:00: delay 2s until Tue 06:00 UTC"},
			"PAUSED | schedule 22:00-06:00: delay 2s until Tue 06:00 UTC | 0 fetched"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.s.statusLine(); !strings.HasPrefix(got, tt.want) {
				t.Errorf("statusLine = %q, want it to start with %q", got, tt.want)
			}
		})
	}
}
