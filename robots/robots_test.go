package robots_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/amber-crawler/amber/chain"
	"github.com/amber-crawler/amber/extract"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/hop"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/robots"
	"github.com/amber-crawler/amber/status"
	"github.com/amber-crawler/amber/warc"
)

const userAgent = "amber-test/1.0"

// TestConfigValidate: the invalid fields are named as written in Go.
func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name  string
		cfg   robots.Config
		field string // "" for valid
	}{
		{"valid", robots.Config{TTL: time.Hour}, ""},
		{"valid with a timeout", robots.Config{TTL: time.Hour, Timeout: time.Second, AllowOnTimeout: true}, ""},
		{"zero TTL", robots.Config{}, "TTL"},
		{"negative TTL", robots.Config{TTL: -time.Second}, "TTL"},
		{"negative timeout", robots.Config{TTL: time.Hour, Timeout: -time.Second}, "Timeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			var fe *chain.FieldError
			switch {
			case tt.field == "" && err != nil:
				t.Errorf("Validate() = %v, want nil", err)
			case tt.field != "" && (!errors.As(err, &fe) || fe.Field != tt.field):
				t.Errorf("Validate() = %v, want a *chain.FieldError for %s", err, tt.field)
			}
		})
	}
}

// site is a server on 127.0.0.1 whose robots.txt is answered by robots (404 without) and
// whose other paths are small pages; it counts the requests of each path.
type site struct {
	*httptest.Server
	mu   sync.Mutex     // guards hits
	hits map[string]int // path -> requests
}

func newSite(t *testing.T, robots http.HandlerFunc) *site {
	t.Helper()
	s := &site{hits: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits[r.URL.Path]++
		s.mu.Unlock()
		switch {
		case r.URL.Path == "/robots.txt" && robots != nil:
			robots(w, r)
		case r.URL.Path == "/robots.txt":
			http.NotFound(w, r)
		default:
			fmt.Fprint(w, "<html><body>a page</body></html>")
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *site) requests(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

// serve answers with code and body.
func serve(code int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(code)
		fmt.Fprint(w, body)
	}
}

// hang never answers while the request lasts.
func hang(w http.ResponseWriter, r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-time.After(time.Minute):
	}
}

// closedURL returns the origin of a port on 127.0.0.1 nothing listens on.
func closedURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}

func hostKey(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Host
}

// archived is one exchange the gate archived.
type archived struct {
	Worker  int
	URL     string
	Status  int
	Capture chain.Capture
}

// hostFailure is one failure the gate told Deps.Hosts of.
type hostFailure struct {
	Host string
	Kind fetch.ErrorKind // 0 for an error that is not a *fetch.Error
	URL  string
	Err  error
}

// sitemapsCall is one call of Deps.Sitemaps.
type sitemapsCall struct {
	Worker int
	Origin string
	Robots frontier.URL
	Listed []string
}

// recorder is the gate's crawl: its archive (chain.Archiver), crawl.log (chain.Lines), hosts
// (robots.Hosts) and sitemaps (Deps.Sitemaps), each recording what it is given and failing
// with its error when one is set.
type recorder struct {
	mu        sync.Mutex // guards everything below
	archived  []archived
	lines     []report.Line
	failures  []hostFailure
	answered  []string
	sitemaps  []sitemapsCall
	errOf     map[string]error // "archive", "line", "failure", "sitemaps" -> the error returned
	onSitemap func()
}

func (r *recorder) fail(what string) error {
	return r.errOf[what]
}

func (r *recorder) Archive(worker int, ex *fetch.Exchange, k chain.Capture) (warc.Result, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.archived = append(r.archived, archived{Worker: worker, URL: ex.URL, Status: ex.StatusCode, Capture: k})
	return warc.Result{}, r.fail("archive")
}

func (r *recorder) WriteLine(l report.Line) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lines = append(r.lines, l)
	return r.fail("line")
}

func (r *recorder) Failure(host string, err error, u frontier.URL) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	f := hostFailure{Host: host, URL: u.URL, Err: err}
	var fe *fetch.Error
	if errors.As(err, &fe) {
		f.Kind = fe.Kind
	}
	r.failures = append(r.failures, f)
	return r.fail("failure")
}

func (r *recorder) Answered(host string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.answered = append(r.answered, host)
}

func (r *recorder) Sitemaps(worker int, origin string, robots frontier.URL, listed []string) error {
	r.mu.Lock()
	r.sitemaps = append(r.sitemaps, sitemapsCall{Worker: worker, Origin: origin, Robots: robots, Listed: listed})
	on := r.onSitemap
	r.mu.Unlock()
	if on != nil {
		on()
	}
	return r.fail("sitemaps")
}

// gateOpts are the settings of a test gate besides its Config.
type gateOpts struct {
	retryDelay time.Duration // default an hour
	guarded    bool          // the client refuses private addresses (127.0.0.1 among them)
	client     func(host string) *fetch.Client
	front      func(*frontier.Frontier) chain.Frontier // the gate's frontier made of the real one; nil: it
}

// newGate returns a gate of cfg on a new frontier, with rec as its crawl.
func newGate(t *testing.T, cfg robots.Config, rec *recorder, o gateOpts) (*robots.Gate, *frontier.Frontier) {
	t.Helper()
	if cfg.TTL == 0 {
		cfg.TTL = time.Hour
	}
	if o.retryDelay == 0 {
		o.retryDelay = time.Hour
	}
	f, err := frontier.Open(frontier.Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if o.client == nil {
		c := newClient(t, !o.guarded)
		o.client = func(string) *fetch.Client { return c }
	}
	var front chain.Frontier = f
	if o.front != nil {
		front = o.front(f)
	}
	env := chain.Env{Log: slog.New(slog.DiscardHandler), Lines: rec, Front: front, Archive: rec}
	g := robots.New(cfg, env, robots.Deps{UserAgent: userAgent, Attempts: 3, RetryDelay: o.retryDelay, HostKey: hostKey,
		Client: o.client, Hosts: rec, Sitemaps: rec.Sitemaps})
	return g, f
}

func newClient(t *testing.T, allowPrivate bool) *fetch.Client {
	t.Helper()
	c, err := fetch.NewClient(fetch.Config{UserAgent: userAgent, AllowPrivate: allowPrivate})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// pageURL is a URL of origin found on its home page, one hop off the seed's scope.
func pageURL(origin, path string) frontier.URL {
	return frontier.URL{URL: origin + path, Host: hostKey(origin), Hops: "L", Via: origin + "/", Seed: origin + "/", HopsOff: 1}
}

// claim adds u to f and claims it.
func claim(t *testing.T, f *frontier.Frontier, u frontier.URL) *frontier.Claim {
	t.Helper()
	if _, err := f.Add(u); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cl, err := f.Claim(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if cl.URL.URL != u.URL {
		t.Fatalf("claimed %s, want %s", cl.URL.URL, u.URL)
	}
	return cl
}

// Verdicts of robots.txt.
var (
	disallowed = chain.Finish(chain.Outcome{Status: status.Robots, Annotations: []string{"robots"}, Denied: report.DenyRobots})
)

func unavailable(attempt string) chain.Verdict {
	return chain.Finish(chain.Outcome{Status: status.Robots, Attempts: 3, Annotations: []string{robots.NoteUnavailable, attempt}})
}

var verdictOpts = []cmp.Option{cmpopts.EquateErrors(), cmpopts.EquateEmpty()}

// TestCheck: the verdict of each kind of robots.txt answer on a URL, from its origin's
// robots.txt fetched and archived once (hop P, via the URL).
func TestCheck(t *testing.T) {
	const rules = "User-agent: *\nDisallow: /private\nDisallow: /search?q=\n"
	tests := []struct {
		name     string
		cfg      robots.Config
		robots   http.HandlerFunc
		path     string
		attempts int // the URL's failed attempts so far
		want     chain.Verdict
		statuses []int // the statuses of the robots.txt exchanges archived
	}{
		{name: "allowed", robots: serve(200, rules), path: "/public", want: chain.Proceed, statuses: []int{200}},
		{name: "disallowed", robots: serve(200, rules), path: "/private/a", want: disallowed, statuses: []int{200}},
		{name: "disallowed by its query", robots: serve(200, rules), path: "/search?q=x", want: disallowed, statuses: []int{200}},
		{name: "home page allowed", robots: serve(200, rules), path: "", want: chain.Proceed, statuses: []int{200}},
		{name: "our group, not *", robots: serve(200, "User-agent: amber-test\nDisallow: /\n\nUser-agent: *\nDisallow:\n"),
			path: "/a", want: disallowed, statuses: []int{200}},
		{name: "another crawler's group", robots: serve(200, "User-agent: otherbot\nDisallow: /\n"), path: "/a", want: chain.Proceed, statuses: []int{200}},
		{name: "no robots.txt", robots: nil, path: "/private", want: chain.Proceed, statuses: []int{404}},
		{name: "5xx: unavailable", robots: serve(503, "down"), path: "/a", want: unavailable("1t"), statuses: []int{503}},
		{name: "5xx on the third attempt", robots: serve(500, "down"), path: "/a", attempts: 2, want: unavailable("3t"), statuses: []int{500}},
		{name: "429: unavailable", robots: serve(429, "slow down"), path: "/a", want: unavailable("1t"), statuses: []int{429}},
		{name: "401 allows", robots: serve(401, "who?"), path: "/a", want: chain.Proceed, statuses: []int{401}},
		{name: "403 allows", robots: serve(403, "no"), path: "/a", want: chain.Proceed, statuses: []int{403}},
		{name: "401 with DisallowOnAuth", cfg: robots.Config{DisallowOnAuth: true}, robots: serve(401, "who?"), path: "/a", want: disallowed, statuses: []int{401}},
		{name: "403 with DisallowOnAuth", cfg: robots.Config{DisallowOnAuth: true}, robots: serve(403, "no"), path: "/a", want: disallowed, statuses: []int{403}},
		{name: "404 with DisallowOnAuth", cfg: robots.Config{DisallowOnAuth: true}, robots: nil, path: "/a", want: chain.Proceed, statuses: []int{404}},
		{name: "redirect without a Location", robots: serve(302, ""), path: "/private", want: chain.Proceed, statuses: []int{302}},
		{name: "redirect to itself: allows all after 5 redirects", robots: func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/robots.txt", http.StatusMovedPermanently)
		}, path: "/private", want: chain.Proceed, statuses: []int{301, 301, 301, 301, 301, 301}},
		{name: "redirect on the origin", robots: func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Query().Get("v") == "" {
				http.Redirect(w, r, "/robots.txt?v=2", http.StatusFound)
				return
			}
			serve(200, rules)(w, r)
		}, path: "/private", want: disallowed, statuses: []int{302, 200}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSite(t, tt.robots)
			rec := &recorder{}
			g, _ := newGate(t, tt.cfg, rec, gateOpts{})
			u := pageURL(s.URL, tt.path)
			u.Attempts = tt.attempts
			got, err := g.Check(t.Context(), 7, nil, u)
			if err != nil {
				t.Fatalf("Check: %v", err)
			}
			if diff := cmp.Diff(tt.want, got, verdictOpts...); diff != "" {
				t.Errorf("verdict (-want +got):\n%s", diff)
			}
			var statuses []int
			for i, a := range rec.archived {
				statuses = append(statuses, a.Status)
				if a.Worker != 7 {
					t.Errorf("exchange %d archived by worker %d, want 7", i, a.Worker)
				}
			}
			if diff := cmp.Diff(tt.statuses, statuses); diff != "" {
				t.Errorf("robots.txt exchanges archived (-want +got):\n%s", diff)
			}
			if len(rec.archived) > 0 {
				want := chain.Capture{Hops: "LP", Via: u.URL, Seed: u.Seed}
				if diff := cmp.Diff(want, rec.archived[0].Capture, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("robots.txt capture (-want +got):\n%s", diff)
				}
				if got, want := rec.archived[0].URL, s.URL+"/robots.txt"; got != want {
					t.Errorf("archived %s, want %s", got, want)
				}
			}
			if n := s.requests("/robots.txt"); n != len(tt.statuses) {
				t.Errorf("robots.txt requested %d times, want %d", n, len(tt.statuses))
			}
			if len(rec.lines) != 0 || len(rec.failures) != 0 {
				t.Errorf("lines %+v and host failures %+v written for a robots.txt that answered, want none", rec.lines, rec.failures)
			}
			// A second URL of the origin uses the policy in the cache.
			if _, err := g.Check(t.Context(), 7, nil, pageURL(s.URL, "/other")); err != nil {
				t.Fatal(err)
			}
			if n := s.requests("/robots.txt"); n != len(tt.statuses) {
				t.Errorf("robots.txt requested %d times after a second URL, want %d (cached)", n, len(tt.statuses))
			}
		})
	}
}

// TestBeforeRedirectToAnotherHost: a robots.txt redirected to another host's is followed
// (paced on that host on behalf of the claim), each response archived in its place in the
// crawl (P, then R via the first robots.txt), each host told it answered, and the robots.txt
// at the end of the chain obeyed and its Sitemap: lines read.
func TestBeforeRedirectToAnotherHost(t *testing.T) {
	other := newSite(t, serve(200, "User-agent: *\nDisallow: /private\nSitemap: http://sitemaps.example/s.xml\n"))
	s := newSite(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/robots.txt", http.StatusMovedPermanently)
	})
	rec := &recorder{}
	g, f := newGate(t, robots.Config{}, rec, gateOpts{})
	u := pageURL(s.URL, "/private")
	cl := claim(t, f, u)
	got, err := g.Before(t.Context(), &chain.Record{Claim: cl, Worker: 2})
	if err != nil {
		t.Fatalf("Before: %v", err)
	}
	if diff := cmp.Diff(disallowed, got, verdictOpts...); diff != "" {
		t.Errorf("verdict (-want +got):\n%s", diff)
	}
	want := []archived{
		{Worker: 2, URL: s.URL + "/robots.txt", Status: 301, Capture: chain.Capture{Hops: "LP", Via: u.URL, Seed: u.Seed}},
		{Worker: 2, URL: other.URL + "/robots.txt", Status: 200, Capture: chain.Capture{Hops: "LPR", Via: s.URL + "/robots.txt", Seed: u.Seed}},
	}
	if diff := cmp.Diff(want, rec.archived, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("archived (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{hostKey(s.URL), hostKey(other.URL)}, rec.answered); diff != "" {
		t.Errorf("hosts told they answered (-want +got):\n%s", diff)
	}
	wantSitemaps := []sitemapsCall{{Worker: 2, Origin: s.URL, Listed: []string{"http://sitemaps.example/s.xml"},
		Robots: frontier.URL{URL: other.URL + "/robots.txt", Host: hostKey(other.URL), Hops: "LPR", Via: s.URL + "/robots.txt", Seed: u.Seed, HopsOff: 1}}}
	if diff := cmp.Diff(wantSitemaps, rec.sitemaps); diff != "" {
		t.Errorf("Sitemaps calls (-want +got):\n%s", diff)
	}
	// The policy is the origin's: another URL of it is decided without a request.
	if err := f.Done(cl); err != nil {
		t.Fatal(err)
	}
	cl2 := claim(t, f, pageURL(s.URL, "/public"))
	if got, err := g.Before(t.Context(), &chain.Record{Claim: cl2, Worker: 2}); err != nil || got.Done {
		t.Errorf("Before(/public) = %+v, %v; want Proceed", got, err)
	}
	if n, m := s.requests("/robots.txt"), other.requests("/robots.txt"); n != 1 || m != 1 {
		t.Errorf("robots.txt requested %d and %d times, want once each", n, m)
	}
}

// TestCheckUnavailable: a robots.txt request that got no response is logged (crawl.log, the
// request's status and error) and counted against its host, not archived; the URL is
// disallowed for now and tried again (a timeout allows all with AllowOnTimeout), or, when
// retrying cannot mend it (its address refused), fails as its fetch would.
func TestCheckUnavailable(t *testing.T) {
	tests := []struct {
		name       string
		cfg        robots.Config
		origin     func(t *testing.T) string
		guarded    bool
		want       chain.Verdict // Failure: compared by kind
		failKind   fetch.ErrorKind
		lineStatus int
		allowNote  bool
	}{
		{name: "connection refused", origin: closedURL, want: unavailable("1t"), failKind: fetch.Connect, lineStatus: status.ConnectFailed},
		{name: "timeout", cfg: robots.Config{Timeout: 100 * time.Millisecond}, origin: hangingURL,
			want: unavailable("1t"), failKind: fetch.Timeout, lineStatus: status.Timeout},
		{name: "timeout allows all", cfg: robots.Config{Timeout: 100 * time.Millisecond, AllowOnTimeout: true}, origin: hangingURL,
			want: chain.Proceed, failKind: fetch.Timeout, lineStatus: status.Timeout, allowNote: true},
		{name: "AllowOnTimeout, connection refused", cfg: robots.Config{AllowOnTimeout: true}, origin: closedURL,
			want: unavailable("1t"), failKind: fetch.Connect, lineStatus: status.ConnectFailed},
		{name: "address refused", origin: openURL, guarded: true,
			want: chain.Fail(&fetch.Error{Kind: fetch.Blocked}), failKind: fetch.Blocked, lineStatus: status.InvalidURL},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			origin := tt.origin(t)
			rec := &recorder{}
			g, _ := newGate(t, tt.cfg, rec, gateOpts{guarded: tt.guarded})
			u := pageURL(origin, "/a")
			got, err := g.Check(t.Context(), 3, nil, u)
			if err != nil {
				t.Fatalf("Check: %v", err)
			}
			kindOf := cmp.Comparer(func(a, b error) bool {
				var x, y *fetch.Error
				return errors.As(a, &x) == errors.As(b, &y) && (x == nil || x.Kind == y.Kind)
			})
			if diff := cmp.Diff(tt.want, got, kindOf, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("verdict (-want +got):\n%s", diff)
			}
			if len(rec.failures) != 1 {
				t.Fatalf("host failures %+v, want one", rec.failures)
			}
			hf := rec.failures[0]
			if hf.Host != u.Host || hf.Kind != tt.failKind || hf.URL != u.URL {
				t.Errorf("host failure %+v, want host %s, kind %v, URL %s", hf, u.Host, tt.failKind, u.URL)
			}
			ann := []string{"robots", "err:" + chain.ErrorWord(hf.Err)}
			if tt.allowNote {
				ann = append(ann, robots.NoteTimeoutAllows)
			}
			wantLines := []report.Line{{Status: tt.lineStatus, Size: -1, URL: origin + "/robots.txt", Hops: "LP", Via: u.URL,
				Thread: 3, Seed: u.Seed, Annotations: ann}}
			if diff := cmp.Diff(wantLines, rec.lines); diff != "" {
				t.Errorf("crawl.log lines (-want +got):\n%s", diff)
			}
			if len(rec.archived) != 0 || len(rec.answered) != 0 || len(rec.sitemaps) != 0 {
				t.Errorf("archived %+v, answered %v, sitemaps %+v; want nothing for a robots.txt without a response", rec.archived, rec.answered, rec.sitemaps)
			}
		})
	}
}

// hangingURL is the origin of a site whose robots.txt never answers.
func hangingURL(t *testing.T) string { return newSite(t, hang).URL }

// openURL is the origin of a site with rules that disallow everything.
func openURL(t *testing.T) string { return newSite(t, serve(200, "User-agent: *\nDisallow: /\n")).URL }

// TestCheckLastFailure: a failure retrying cannot mend (the address refused) fails the URLs
// of its origin while it is the failure of the origin's last robots.txt fetch; once a later
// fetch fails in a way retrying may mend (a refused connection), the URL is disallowed for
// now and tried again, as for any robots.txt that did not answer.
func TestCheckLastFailure(t *testing.T) {
	origin := closedURL(t)
	guarded, open := newClient(t, false), newClient(t, true)
	var mu sync.Mutex
	client := guarded
	rec := &recorder{}
	g, _ := newGate(t, robots.Config{}, rec, gateOpts{retryDelay: time.Nanosecond, client: func(string) *fetch.Client {
		mu.Lock()
		defer mu.Unlock()
		return client
	}})
	u := pageURL(origin, "/a")
	first, err := g.Check(t.Context(), 1, nil, u)
	if err != nil {
		t.Fatal(err)
	}
	var fe *fetch.Error
	if !errors.As(first.Failure, &fe) || fe.Kind != fetch.Blocked {
		t.Fatalf("first verdict %+v, want a failure of kind blocked", first)
	}
	mu.Lock()
	client = open // the address is let through now; nothing listens there
	mu.Unlock()
	got, err := g.Check(t.Context(), 1, nil, u)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.failures) != 2 || rec.failures[1].Kind != fetch.Connect {
		t.Fatalf("host failures %+v, want the second one a refused connection", rec.failures)
	}
	if diff := cmp.Diff(unavailable("1t"), got, verdictOpts...); diff != "" {
		t.Errorf("the last fetch's failure decides, not an earlier one (-want +got):\n%s", diff)
	}
}

// failingFront is a frontier whose Pace fails from its failPace-th call on and whose Ended
// fails from its failEnded-th call on (0: never), as a shared frontier's server that cannot
// be reached would.
type failingFront struct {
	*frontier.Frontier
	err                 error
	failPace, failEnded int

	mu          sync.Mutex // guards paces and ends
	paces, ends int
}

func (f *failingFront) Pace(ctx context.Context, cl *frontier.Claim, host string) error {
	f.mu.Lock()
	f.paces++
	fail := f.failPace > 0 && f.paces >= f.failPace
	f.mu.Unlock()
	if fail {
		return f.err
	}
	return f.Frontier.Pace(ctx, cl, host)
}

func (f *failingFront) Ended(cl *frontier.Claim, t time.Time) error {
	f.mu.Lock()
	f.ends++
	fail := f.failEnded > 0 && f.ends >= f.failEnded
	f.mu.Unlock()
	if fail {
		return f.err
	}
	return f.Frontier.Ended(cl, t)
}

// TestBeforeFrontierError: a frontier that fails to pace a request (its server cannot be
// reached) stops the crawl, as Before's own pacing of the URL does: it is not the host's
// failure, and no robots.txt line is written as if the host had not answered.
func TestBeforeFrontierError(t *testing.T) {
	down := errors.New("frontier server: connection refused")
	tests := []struct {
		name                string
		failPace, failEnded int
	}{
		{name: "the URL's own request", failPace: 2},
		{name: "the robots.txt request", failPace: 1},
		{name: "the end of the robots.txt request", failEnded: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSite(t, serve(200, "User-agent: *\nDisallow:\n"))
			rec := &recorder{}
			g, f := newGate(t, robots.Config{}, rec, gateOpts{front: func(f *frontier.Frontier) chain.Frontier {
				return &failingFront{Frontier: f, err: down, failPace: tt.failPace, failEnded: tt.failEnded}
			}})
			cl := claim(t, f, pageURL(s.URL, "/a"))
			v, err := g.Before(t.Context(), &chain.Record{Claim: cl, Worker: 1})
			if errors.Is(err, down) && len(rec.lines) == 0 && len(rec.failures) == 0 {
				return
			}
			msg := fmt.Sprintf("Before = %+v, %v; lines %+v, host failures %+v; want the frontier's error, nothing written or counted",
				v, err, rec.lines, rec.failures)
			t.Error(msg)
		})
	}
}

// TestCheckCache: a robots.txt is trusted for TTL, one that could not be had for the retry
// delay; after that the next URL fetches it again.
func TestCheckCache(t *testing.T) {
	tests := []struct {
		name   string
		robots http.HandlerFunc
		ttl    time.Duration
		retry  time.Duration
		want   int // robots.txt requests for two URLs
	}{
		{"answered, within TTL", serve(200, "User-agent: *\nDisallow:\n"), time.Hour, time.Nanosecond, 1},
		{"answered, TTL passed", serve(200, "User-agent: *\nDisallow:\n"), time.Nanosecond, time.Hour, 2},
		{"5xx, within the retry delay", serve(503, ""), time.Nanosecond, time.Hour, 1},
		{"5xx, retry delay passed", serve(503, ""), time.Hour, time.Nanosecond, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSite(t, tt.robots)
			rec := &recorder{}
			g, _ := newGate(t, robots.Config{TTL: tt.ttl}, rec, gateOpts{retryDelay: tt.retry})
			for _, p := range []string{"/a", "/b"} {
				if _, err := g.Check(t.Context(), 1, nil, pageURL(s.URL, p)); err != nil {
					t.Fatal(err)
				}
			}
			if got := s.requests("/robots.txt"); got != tt.want {
				t.Errorf("robots.txt requested %d times, want %d", got, tt.want)
			}
			if len(rec.archived) != tt.want {
				t.Errorf("robots.txt archived %d times, want %d", len(rec.archived), tt.want)
			}
		})
	}
}

// TestCrawlDelay: a robots.txt Crawl-delay, at most fetch.MaxCrawlDelay, becomes the host's
// delay in the frontier, unless IgnoreCrawlDelay.
func TestCrawlDelay(t *testing.T) {
	tests := []struct {
		name   string
		cfg    robots.Config
		robots string
		want   time.Duration
	}{
		{"obeyed", robots.Config{}, "User-agent: *\nCrawl-delay: 7\n", 7 * time.Second},
		{"capped", robots.Config{}, "User-agent: *\nCrawl-delay: 86400\n", fetch.MaxCrawlDelay},
		{"our group's", robots.Config{}, "User-agent: amber-test\nCrawl-delay: 3\n\nUser-agent: *\nCrawl-delay: 9\n", 3 * time.Second},
		{"none", robots.Config{}, "User-agent: *\nDisallow:\n", 0},
		{"ignored", robots.Config{IgnoreCrawlDelay: true}, "User-agent: *\nCrawl-delay: 7\n", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSite(t, serve(200, tt.robots))
			g, f := newGate(t, tt.cfg, &recorder{}, gateOpts{})
			u := pageURL(s.URL, "/a")
			if _, err := g.Check(t.Context(), 1, nil, u); err != nil {
				t.Fatal(err)
			}
			if got := f.HostDelay(u.Host); got != tt.want {
				t.Errorf("HostDelay(%s) = %v, want %v", u.Host, got, tt.want)
			}
		})
	}
}

// TestCrawlDelayFollowsLatest: a robots.txt fetched again (TTL) that dropped its Crawl-delay
// drops the host's delay.
func TestCrawlDelayFollowsLatest(t *testing.T) {
	var mu sync.Mutex
	n := 0
	s := newSite(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		first := n == 1
		mu.Unlock()
		if first {
			fmt.Fprint(w, "User-agent: *\nCrawl-delay: 5\n")
			return
		}
		fmt.Fprint(w, "User-agent: *\nDisallow:\n")
	})
	g, f := newGate(t, robots.Config{TTL: time.Nanosecond}, &recorder{}, gateOpts{})
	u := pageURL(s.URL, "/a")
	for i, want := range []time.Duration{5 * time.Second, 0} {
		if _, err := g.Check(t.Context(), 1, nil, u); err != nil {
			t.Fatal(err)
		}
		if got := f.HostDelay(u.Host); got != want {
			t.Errorf("after robots.txt %d: HostDelay = %v, want %v", i+1, got, want)
		}
	}
}

// TestOneFetchPerOrigin: concurrent first URLs of an origin wait for the one robots.txt
// request, and all obey it.
func TestOneFetchPerOrigin(t *testing.T) {
	release := make(chan struct{})
	arrived := make(chan struct{}, 100)
	s := newSite(t, func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		<-release
		fmt.Fprint(w, "User-agent: *\nDisallow: /private\n")
	})
	rec := &recorder{}
	g, _ := newGate(t, robots.Config{}, rec, gateOpts{})
	const callers = 8
	got := make([]chain.Verdict, callers)
	errs := make([]error, callers)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Go(func() {
			got[i], errs[i] = g.Check(t.Context(), i, nil, pageURL(s.URL, fmt.Sprintf("/private/%d", i)))
		})
	}
	<-arrived // the first request is under way: the others wait for it, or find its answer
	close(release)
	wg.Wait()
	for i := range callers {
		if errs[i] != nil {
			t.Errorf("caller %d: %v", i, errs[i])
			continue
		}
		if diff := cmp.Diff(disallowed, got[i], verdictOpts...); diff != "" {
			t.Errorf("caller %d: verdict (-want +got):\n%s", i, diff)
		}
	}
	if n := s.requests("/robots.txt"); n != 1 {
		t.Errorf("robots.txt requested %d times, want once", n)
	}
	if len(rec.archived) != 1 {
		t.Errorf("robots.txt archived %d times, want once", len(rec.archived))
	}
}

// TestCheckCanceled: a caller whose context ends while it waits for another's robots.txt
// request returns the context's error; the request goes on for the other.
func TestCheckCanceled(t *testing.T) {
	release := make(chan struct{})
	arrived := make(chan struct{}, 10)
	s := newSite(t, func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		<-release
		fmt.Fprint(w, "User-agent: *\nDisallow:\n")
	})
	rec := &recorder{}
	g, _ := newGate(t, robots.Config{}, rec, gateOpts{})
	var first chain.Verdict
	var firstErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		first, firstErr = g.Check(t.Context(), 1, nil, pageURL(s.URL, "/a"))
	}()
	<-arrived
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := g.Check(ctx, 2, nil, pageURL(s.URL, "/b")); !errors.Is(err, context.Canceled) {
		t.Errorf("Check with its context ended = %v, want context.Canceled", err)
	}
	close(release)
	<-done
	if firstErr != nil || first.Done {
		t.Errorf("first caller: %+v, %v; want Proceed", first, firstErr)
	}
	if len(rec.lines) != 0 || len(rec.failures) != 0 {
		t.Errorf("lines %+v, host failures %+v; want none for a caller that gave up", rec.lines, rec.failures)
	}
}

// TestCheckFatal: the errors of the crawl's files (the robots.txt record, its crawl.log line,
// the host count, the sitemaps queued) are returned, as is the context's when it ends during
// the request (then nothing is logged or counted).
func TestCheckFatal(t *testing.T) {
	boom := errors.New("disk full")
	tests := []struct {
		name   string
		origin func(t *testing.T, cancel func()) string
		fail   string // which of the recorder's parts fails
		want   error
	}{
		{name: "archive", origin: siteOf(serve(200, "User-agent: *\nDisallow:\n")), fail: "archive", want: boom},
		{name: "sitemaps", origin: siteOf(serve(200, "User-agent: *\nDisallow:\nSitemap: http://a.example/s.xml\n")), fail: "sitemaps", want: boom},
		{name: "crawl.log line", origin: closedOrigin, fail: "line", want: boom},
		{name: "host failure", origin: closedOrigin, fail: "failure", want: boom},
		{name: "context ended", origin: func(t *testing.T, cancel func()) string {
			// The request is under way once the server has it: the context ends then.
			return newSite(t, func(w http.ResponseWriter, r *http.Request) {
				cancel()
				hang(w, r)
			}).URL
		}, want: context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			origin := tt.origin(t, cancel)
			rec := &recorder{errOf: map[string]error{tt.fail: boom}}
			g, _ := newGate(t, robots.Config{}, rec, gateOpts{})
			_, err := g.Check(ctx, 1, nil, pageURL(origin, "/a"))
			if !errors.Is(err, tt.want) {
				t.Errorf("Check = %v, want %v", err, tt.want)
			}
			if tt.want == context.Canceled && (len(rec.lines) != 0 || len(rec.failures) != 0) {
				t.Errorf("lines %+v, host failures %+v; want none for a request the crawl ended", rec.lines, rec.failures)
			}
		})
	}
}

func siteOf(h http.HandlerFunc) func(*testing.T, func()) string {
	return func(t *testing.T, _ func()) string { return newSite(t, h).URL }
}

func closedOrigin(t *testing.T, _ func()) string { return closedURL(t) }

// TestSitemaps: the Sitemap: lines of a robots.txt are given to Deps.Sitemaps once per fetch,
// with the robots.txt as captured.
func TestSitemaps(t *testing.T) {
	tests := []struct {
		name   string
		robots http.HandlerFunc
		want   []string
	}{
		{"listed", serve(200, "Sitemap: http://a.example/one.xml\nUser-agent: *\nDisallow:\nSitemap: http://a.example/two.xml.gz\n"),
			[]string{"http://a.example/one.xml", "http://a.example/two.xml.gz"}},
		{"none listed", serve(200, "User-agent: *\nDisallow:\n"), nil},
		{"no robots.txt", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSite(t, tt.robots)
			rec := &recorder{}
			g, _ := newGate(t, robots.Config{}, rec, gateOpts{})
			u := pageURL(s.URL, "/a")
			for range 2 {
				if _, err := g.Check(t.Context(), 4, nil, u); err != nil {
					t.Fatal(err)
				}
			}
			want := []sitemapsCall{{Worker: 4, Origin: s.URL, Listed: tt.want,
				Robots: frontier.URL{URL: s.URL + "/robots.txt", Host: u.Host, Hops: "LP", Via: u.URL, Seed: u.Seed, HopsOff: 1}}}
			if diff := cmp.Diff(want, rec.sitemaps, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Sitemaps calls (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAdmit: a request a fetcher makes of its own is refused as a claimed URL would be, but
// not tried again (robots-unavailable alone, no attempts); it is not paced (its record's
// claim is not the frontier's); a robots.txt that cannot be fetched lets it go.
func TestAdmit(t *testing.T) {
	tests := []struct {
		name    string
		origin  func(t *testing.T) string
		guarded bool
		path    string
		want    chain.Verdict
	}{
		{name: "allowed", origin: rulesURL, path: "/public.css", want: chain.Proceed},
		{name: "disallowed", origin: rulesURL, path: "/private/x.css", want: disallowed},
		{name: "unavailable", origin: failingURL, path: "/x.css",
			want: chain.Finish(chain.Outcome{Status: status.Robots, Annotations: []string{robots.NoteUnavailable}})},
		{name: "connection refused", origin: closedURL, path: "/x.css",
			want: chain.Finish(chain.Outcome{Status: status.Robots, Annotations: []string{robots.NoteUnavailable}})},
		{name: "address refused", origin: openURL, guarded: true, path: "/x.css", want: chain.Proceed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			origin := tt.origin(t)
			rec := &recorder{}
			g, _ := newGate(t, robots.Config{}, rec, gateOpts{guarded: tt.guarded})
			page := pageURL("http://page.example", "/")
			r := &chain.Record{Claim: frontier.NewClaim(page, nil), Worker: 5}
			sub := frontier.URL{URL: origin + tt.path, Host: hostKey(origin), Hops: "LE", Via: page.URL, Seed: page.Seed}
			got, err := g.Admit(t.Context(), r, sub)
			if err != nil {
				t.Fatalf("Admit: %v", err)
			}
			if diff := cmp.Diff(tt.want, got, verdictOpts...); diff != "" {
				t.Errorf("verdict (-want +got):\n%s", diff)
			}
			for _, a := range rec.archived {
				if a.Capture.Hops != "LEP" || a.Capture.Via != sub.URL || a.Worker != 5 {
					t.Errorf("archived %+v, want hops LEP via %s by worker 5", a, sub.URL)
				}
			}
		})
	}
}

func rulesURL(t *testing.T) string {
	return newSite(t, serve(200, "User-agent: *\nDisallow: /private\n")).URL
}

func failingURL(t *testing.T) string { return newSite(t, serve(500, "")).URL }

// TestRetryAfter: a robots.txt answered 429 or 503 with Retry-After pauses its host in the
// frontier until then: no URL of it is claimed before.
func TestRetryAfter(t *testing.T) {
	tests := []struct {
		name   string
		robots http.HandlerFunc
		paused bool
	}{
		{"503 with Retry-After", retryAfter(503, "3600"), true},
		{"429 with Retry-After", retryAfter(429, "3600"), true},
		{"503 without", serve(503, ""), false},
		{"200 with Retry-After", retryAfter(200, "3600"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSite(t, tt.robots)
			g, f := newGate(t, robots.Config{}, &recorder{}, gateOpts{})
			u := pageURL(s.URL, "/a")
			if _, err := g.Check(t.Context(), 1, nil, u); err != nil {
				t.Fatal(err)
			}
			if _, err := f.Add(u); err != nil {
				t.Fatal(err)
			}
			wait := time.Minute // a host not paused is claimed at once
			if tt.paused {
				wait = 200 * time.Millisecond // a paused one stays paused for an hour
			}
			ctx, cancel := context.WithTimeout(t.Context(), wait)
			defer cancel()
			cl, err := f.Claim(ctx)
			if paused := errors.Is(err, context.DeadlineExceeded); paused != tt.paused {
				t.Errorf("Claim = %v, %v; host paused: %v, want %v", cl, err, paused, tt.paused)
			}
		})
	}
}

func retryAfter(code int, after string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", after)
		w.WriteHeader(code)
	}
}

// TestMeta: robots meta nofollow takes out the page's links (not its embeds) and noindex its
// document, unless IgnoreMeta; rel=nofollow takes out its own link either way. The links
// taken out are recorded as denied by nofollow.
func TestMeta(t *testing.T) {
	links := func() []extract.Outlink {
		return []extract.Outlink{
			{URL: "http://a.example/1", Hop: hop.Link},
			{URL: "http://a.example/nf", Hop: hop.Link, NoFollow: true},
			{URL: "http://a.example/i.png", Hop: hop.Embed},
			{URL: "http://a.example/next", Hop: hop.Redirect},
			{URL: "http://a.example/2", Hop: hop.Link},
		}
	}
	doc := &extract.Document{Title: "t"}
	tests := []struct {
		name        string
		ignore      bool
		noFollow    bool
		noIndex     bool
		wantLinks   []string
		wantDenied  []string
		wantIndexed bool
	}{
		{name: "no robots meta", wantLinks: []string{"http://a.example/1", "http://a.example/i.png", "http://a.example/next", "http://a.example/2"},
			wantDenied: []string{"http://a.example/nf"}, wantIndexed: true},
		{name: "nofollow", noFollow: true, wantLinks: []string{"http://a.example/i.png", "http://a.example/next"},
			wantDenied: []string{"http://a.example/1", "http://a.example/nf", "http://a.example/2"}, wantIndexed: true},
		{name: "noindex", noIndex: true, wantLinks: []string{"http://a.example/1", "http://a.example/i.png", "http://a.example/next", "http://a.example/2"},
			wantDenied: []string{"http://a.example/nf"}},
		{name: "nofollow, noindex", noFollow: true, noIndex: true, wantLinks: []string{"http://a.example/i.png", "http://a.example/next"},
			wantDenied: []string{"http://a.example/1", "http://a.example/nf", "http://a.example/2"}},
		{name: "ignored", ignore: true, noFollow: true, noIndex: true,
			wantLinks:  []string{"http://a.example/1", "http://a.example/i.png", "http://a.example/next", "http://a.example/2"},
			wantDenied: []string{"http://a.example/nf"}, wantIndexed: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := robots.NewMeta(robots.Config{IgnoreMeta: tt.ignore})
			r := &chain.Record{Content: chain.Content{Links: links(), Document: doc, NoFollow: tt.noFollow, NoIndex: tt.noIndex}}
			v, err := m.After(t.Context(), r)
			if err != nil || v.Done {
				t.Fatalf("After = %+v, %v; want Proceed", v, err)
			}
			var got []string
			for _, l := range r.Content.Links {
				got = append(got, l.URL)
			}
			if diff := cmp.Diff(tt.wantLinks, got); diff != "" {
				t.Errorf("links kept (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantDenied, r.Content.Denied); diff != "" {
				t.Errorf("links denied (-want +got):\n%s", diff)
			}
			if r.Content.DeniedReason != report.DenyNofollow {
				t.Errorf("denied reason %q, want %q", r.Content.DeniedReason, report.DenyNofollow)
			}
			if indexed := r.Content.Document != nil; indexed != tt.wantIndexed {
				t.Errorf("document kept: %v, want %v", indexed, tt.wantIndexed)
			}
		})
	}
}
