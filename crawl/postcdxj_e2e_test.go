package crawl_test

import (
	"bytes"
	"fmt"
	"html"
	"io"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/internal/crawltest"
	"github.com/amber-crawler/amber/internal/testsite"
	"github.com/amber-crawler/amber/internal/warccheck"
	"github.com/amber-crawler/amber/login"
)

// mpLoginSite has a login form with enctype=multipart/form-data and a hidden CSRF field,
// members' pages behind it, and /search, which answers a POST.
type mpLoginSite struct {
	mu     sync.Mutex // guards the fields below
	logins [][]byte   // the raw bodies of the login submissions
	posts  []string   // the bodies of the POSTs to /search
}

func (s *mpLoginSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html")
	s.mu.Lock()
	defer s.mu.Unlock()
	switch r.URL.Path {
	case "/":
		fmt.Fprint(w, `<a href="/members.html">members</a> <a href="/search">search</a>`)
	case "/login.html":
		fmt.Fprintf(w, `<form method=post action=/session enctype="multipart/form-data"><input type=hidden name=csrf value="%s">
<input name=user><input type=password name=pass><input type=submit name=go value="Log in"></form>`, html.EscapeString("t/k 1"))
	case "/session":
		raw, _ := io.ReadAll(r.Body)
		s.logins = append(s.logins, raw)
		r.Body = io.NopCloser(bytes.NewReader(raw))
		if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "multipart/form-data" || r.ParseMultipartForm(1<<20) != nil ||
			r.FormValue("csrf") != "t/k 1" || r.FormValue("user") != "alice" || r.FormValue("pass") != "s3cret" {
			http.Error(w, "no", http.StatusForbidden)
			return
		}
		http.SetCookie(w, &http.Cookie{Name: "sid", Value: "ok", Path: "/"})
		http.Redirect(w, r, "/members.html", http.StatusSeeOther)
	case "/members.html":
		if c, err := r.Cookie("sid"); err != nil || c.Value != "ok" {
			http.Redirect(w, r, "/login.html", http.StatusFound)
			return
		}
		fmt.Fprint(w, "members only")
	case "/search":
		b, _ := io.ReadAll(r.Body)
		s.posts = append(s.posts, r.Method+" "+string(b))
		fmt.Fprint(w, "results")
	default:
		http.NotFound(w, r)
	}
}

// TestPOSTCaptureCDXJ: a login whose form is multipart/form-data is submitted so and archived
// with the exact body the site received; it and a post_payloads POST are keyed in the CDXJ
// index as pywb and warcio.js key a POST (__wb_method=post and the body's parameters), and
// the whole index equals what warcio.js's cdx-index prints for the crawl's WARC files.
func TestPOSTCaptureCDXJ(t *testing.T) {
	s := &mpLoginSite{}
	ts, err := testsite.StartHandler(s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ts.Close() })
	cfg := fastConfig(t, ts, crawl.FetcherHTTP)
	cfg.IgnoreRobots = true
	cfg.Fetch.Jar = fetch.NewJar()
	cfg.Logins = []login.Spec{{Name: "mp", HTMLForm: "http://www.example.com/login.html", Autofill: true,
		Parameters: []login.Field{{Name: "user", Value: "alice"}, {Name: "pass", Value: "s3cret"}}, Sites: []string{"www.example.com"}}}
	cfg.PostPayloads = []crawl.PostPayload{{URL: "http://www.example.com/search", Body: "q=archives&x=1"}}
	last := lastLines(runFAST(t, cfg))
	if l := last["http://www.example.com/members.html"]; l.Status != 200 {
		t.Errorf("/members.html: status %d, want 200 (logged in)", l.Status)
	}
	s.mu.Lock()
	logins, posts := slices.Clone(s.logins), slices.Clone(s.posts)
	s.mu.Unlock()
	if len(logins) != 1 || !slices.Equal(posts, []string{"POST q=archives&x=1"}) {
		t.Fatalf("%d logins, posts %q; want 1 login and the POST", len(logins), posts)
	}

	// The login's request record holds the exact body the site received.
	warcs, err := filepath.Glob(filepath.Join(cfg.Dir, crawl.WARCDir, "*.warc.gz"))
	if err != nil || len(warcs) == 0 {
		t.Fatalf("WARC files: %v %v", warcs, err)
	}
	reports, err := warccheck.ValidateDir(filepath.Join(cfg.Dir, crawl.WARCDir))
	if err != nil {
		t.Fatal(err)
	}
	var archived [][]byte
	for _, r := range reports {
		if !r.OK() {
			t.Errorf("%s: %v", r.Path, r.Errors)
		}
		for _, rec := range r.Records {
			if block := recordBlock(t, r.Path, rec.Offset); rec.Type == "request" && strings.HasPrefix(block, "POST /session ") {
				_, body, _ := strings.Cut(block, "\r\n\r\n")
				archived = append(archived, []byte(body))
			}
		}
	}
	if len(archived) != 1 || !bytes.Equal(archived[0], logins[0]) {
		t.Errorf("archived login bodies %q, want the one the site received %q", archived, logins[0])
	}

	// The index: POSTs keyed by method and body, the rest as warcio.js keys them too.
	data, err := os.ReadFile(filepath.Join(cfg.Dir, crawl.CDXJFile))
	if err != nil {
		t.Fatal(err)
	}
	ours := strings.Split(strings.TrimSpace(string(data)), "\n")
	var keys []string
	for _, l := range ours {
		if k, _, _ := strings.Cut(l, " "); strings.Contains(k, "__wb_method=") {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	want := []string{
		"com,example)/search?__wb_method=post&q=archives&x=1",
		"com,example)/session?__wb_method=post&csrf=t%2fk+1&go=log+in&pass=s3cret&user=alice",
	}
	if diff := cmp.Diff(want, keys); diff != "" {
		t.Errorf("POST keys (-want +got):\n%s", diff)
	}
	var theirs []string
	for _, f := range warcs {
		theirs = append(theirs, crawltest.WarcioCDXJ(t, f)...)
	}
	sort.Strings(ours)
	sort.Strings(theirs)
	if diff := cmp.Diff(ours, theirs); diff != "" {
		t.Errorf("our CDXJ vs warcio.js cdx-index (-ours +warcio):\n%s", diff)
	}
}
