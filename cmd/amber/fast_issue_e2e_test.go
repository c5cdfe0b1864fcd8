package main

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/internal/crawltest"
	"github.com/amber-crawler/amber/internal/testsite"
	"github.com/amber-crawler/amber/internal/warccheck"
	"github.com/amber-crawler/amber/login"
)

// The members' login of testdata/sites/fast/crawler.xml (its Login's parameters).
const (
	fastMemberUser = "alice"
	fastMemberPass = "s3cret:with colon"
)

// fastHosts answers the two computed hosts of the FAST test site (testdata/sites/fast):
// members.example.com, whose pages need a session logged in through a form (a session cookie
// set by the form's page, a hidden CSRF token bound to it; without a logged-in session a page
// redirects to the form), and loop.example.com, a path trap: /a/, /a/a/, /a/a/a/, ... each
// links to a/ below itself.
type fastHosts struct {
	mu       sync.Mutex
	tokens   map[string]string // CSRF token by session id
	loggedIn map[string]bool   // session ids logged in
	logins   int               // successful logins
	posts    []string          // the bodies of the POSTs to /session

	credentialed []string // "host path" of the requests with an Authorization field
}

var trapPath = regexp.MustCompile(`^(/a)+/$`)

func (s *fastHosts) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	page := func(title, body string) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<!DOCTYPE html><html><head><title>%s</title></head><body><h1>%s</h1>%s</body></html>", title, title, body)
	}
	host, _, _ := strings.Cut(r.Host, ":")
	p := r.URL.Path
	if r.Header.Get("Authorization") != "" {
		s.mu.Lock()
		s.credentialed = append(s.credentialed, host+" "+p)
		s.mu.Unlock()
	}
	if host == "loop.example.com" {
		if !trapPath.MatchString(p) {
			http.NotFound(w, r)
			return
		}
		page(fmt.Sprintf("Calendar, level %d", strings.Count(p, "/")-1), `<a href="a/">Next month</a>`)
		return
	}
	sid := ""
	if c, err := r.Cookie("sid"); err == nil {
		sid = c.Value
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case p == "/robots.txt":
		http.NotFound(w, r)
	case p == "/login.html":
		if _, ok := s.tokens[sid]; !ok {
			sid = rand.Text()
			s.tokens[sid] = rand.Text()
			http.SetCookie(w, &http.Cookie{Name: "sid", Value: sid, Path: "/", HttpOnly: true})
		}
		page("Members: log in", fmt.Sprintf(`<form method="post" action="/session">
<input type="hidden" name="csrf" value="%s">
<input name="user"> <input type="password" name="pass"> <button>Log in</button></form>`, html.EscapeString(s.tokens[sid])))
	case p == "/session" && r.Method == http.MethodPost:
		b, _ := io.ReadAll(r.Body)
		s.posts = append(s.posts, string(b))
		form, err := url.ParseQuery(string(b))
		if err != nil || s.tokens[sid] == "" || form.Get("csrf") != s.tokens[sid] {
			http.Error(w, "bad CSRF token", http.StatusForbidden)
			return
		}
		if form.Get("user") != fastMemberUser || form.Get("pass") != fastMemberPass {
			http.Redirect(w, r, "/login.html", http.StatusSeeOther)
			return
		}
		s.loggedIn[sid] = true
		s.logins++
		http.Redirect(w, r, "/", http.StatusSeeOther)
	case !s.loggedIn[sid]:
		http.Redirect(w, r, "/login.html?next="+url.QueryEscape(p), http.StatusFound)
	case p == "/":
		page("Members", `<a href="/profile.html">Your profile</a> <a href="/docs/guide.html">Guide</a>`)
	case p == "/profile.html":
		page("Profile", "Member since 2020.")
	case p == "/docs/guide.html":
		page("Members' guide", "Members only.")
	default:
		http.NotFound(w, r)
	}
}

// The origins of the FAST test site.
const (
	fastWWW  = "http://www.example.com"
	fastMem  = "http://members.example.com"
	fastLoop = "http://loop.example.com"
)

// extsBlock is the crawl.log annotation of a URL FAST's default exclude_exts leaves out.
const extsBlock = `scope:block:regex:[^?]*(?:\.jpg|\.jpeg|\.ico|\.tif|\.png|\.bmp|\.gif|\.wmf|\.avi|\.mpg|\.wmv|\.wma|\.ram|\.asx|\.ASF|\.mp3|\.wav|\.ogg|\.ra|\.aac|\.m4a|\.zip|\.gz|\.vmarc|\.z|\.tar|\.iso|\.img|\.rpm|\.cab|\.rar|\.ace|\.hqx|\.swf|\.exe|\.java|\.jar|\.prz|\.wrl|\.midr|\.css|\.ps|\.ttf|\.mso|\.dvi)(?:\?.*)?`

// TestFASTIssueCrawl is issue 14's end-to-end test: the built amber crawls the FAST test site
// (testdata/sites/fast) from its FAST crawler configuration, crawler.xml, given to --config as
// it is (with use_javascript: yes for the browser fetcher). The site has a login form (a
// hidden CSRF field, a session cookie, members' pages that redirect to the form without the
// session), two Basic realms (one covered by a passwd URI prefix, one by a passwd realm),
// links with unsorted query parameters, a link to an old host that a rewrite rule maps to the
// new one, a meta refresh below html_redir_threshold, an RSS feed among the rss section's
// start URIs, a repeating path trap (max_uri_recursion), an excluded URI prefix, a CSS file
// and favicons FAST's default exclude_exts leaves out, and a link to a domain
// include_domains does not name. The crawl captures exactly the expected URLs and leaves
// the others out with the expected reasons (crawl.log), logs in once and archives the POST
// with the CSRF token, requests the sorted and rewritten URLs and never the URLs as found,
// records the rewritten URL's origin in its metadata record, sends each credential where the
// passwd section says only, and writes WARC files that validate (warccheck and warcio.js).
func TestFASTIssueCrawl(t *testing.T) {
	// crawl.log as "STATUS URL HOPS VIA NOTES" (NOTES: the annotations about scope, feeds,
	// rewrites, logins, challenges and duplicates). A robots.txt and a favicon come with the
	// first page of their host to be fetched or analysed, which the workers' order decides:
	// their hops and via are *.
	want := []string{
		"200 " + fastWWW + "/   []",
		"404 " + fastWWW + "/robots.txt * * []",
		"-5000 " + fastWWW + "/style.css E " + fastWWW + "/ [" + extsBlock + "]",
		"-5000 " + fastWWW + "/favicon.ico * * [" + extsBlock + "]",
		"200 " + fastWWW + "/about.html L " + fastWWW + "/ []",
		// sort_query_params: the link's b=2&a=1 is fetched as a=1&b=2.
		"200 " + fastWWW + "/list.html?a=1&b=2 L " + fastWWW + "/ []",
		// rewrite_rules: the link to the old host is fetched on the new one.
		"200 " + fastWWW + "/news/2026.html L " + fastWWW + "/ [rewritten-from:http://old.example.com/news/2026.html]",
		// html_redir_is_redir, html_redir_threshold 3: a 1 s refresh is a redirect.
		"200 " + fastWWW + "/refresh.html L " + fastWWW + "/ []",
		"200 " + fastWWW + "/hours.html LR " + fastWWW + "/refresh.html []",
		// passwd by URI prefix: sent ahead. passwd by realm: the challenge, then the page.
		"200 " + fastWWW + "/reports/ L " + fastWWW + "/ []",
		"200 " + fastWWW + "/reports/2025.html LL " + fastWWW + "/reports/ []",
		"401 " + fastWWW + "/staff/ L " + fastWWW + "/ [auth-challenge]",
		"200 " + fastWWW + "/staff/ L " + fastWWW + "/ []",
		// exclude_uris, include_domains.
		"-5000 " + fastWWW + "/private/secret.html L " + fastWWW + "/ [scope:block:regex:http://www\\.example\\.com/private/.*]",
		"-5000 http://other.example.org/ L " + fastWWW + "/ [scope:out-of-scope]",
		// rss start_uris: the feed, then its items (sorted parameters too).
		"200 " + fastWWW + "/feed.xml L " + fastWWW + "/ [feed:rss:2]",
		"200 " + fastWWW + "/news/exhibition.html LL " + fastWWW + "/feed.xml []",
		"200 " + fastWWW + "/news/concert.html?day=fri&time=20 LL " + fastWWW + "/feed.xml []",
		// The Login: its form's page, the POST, the redirect after it; then the members'
		// pages with the session (the first the same page as the login's redirect).
		"404 " + fastMem + "/robots.txt * * []",
		"200 " + fastMem + "/login.html LP " + fastMem + "/ [login:form]",
		"303 " + fastMem + "/session LP " + fastMem + "/ [login:submit]",
		"200 " + fastMem + "/ LP " + fastMem + "/ [login:redirect]",
		"200 " + fastMem + "/ L " + fastWWW + "/ [duplicate:digest]",
		"-5000 " + fastMem + "/favicon.ico * * [" + extsBlock + "]",
		"200 " + fastMem + "/profile.html LL " + fastMem + "/ []",
		"200 " + fastMem + "/docs/guide.html LL " + fastMem + "/ []",
		// max_uri_recursion 2: a/ three times in a row is a trap.
		"404 " + fastLoop + "/robots.txt * * []",
		"200 " + fastLoop + "/a/ L " + fastWWW + "/ []",
		"-5000 " + fastLoop + "/favicon.ico * * [" + extsBlock + "]",
		"200 " + fastLoop + "/a/a/ LL " + fastLoop + "/a/ []",
		"-5000 " + fastLoop + "/a/a/a/ LLL " + fastLoop + "/a/a/ [scope:trap]",
	}
	tests := []struct {
		fetcher string
		// missing are the lines of want this fetcher's crawl does not have.
		missing []string
	}{
		{crawl.FetcherHTTP, nil},
		{crawl.FetcherBrowser, nil},
	}
	for _, tt := range tests {
		t.Run(tt.fetcher, func(t *testing.T) {
			if tt.fetcher == crawl.FetcherBrowser {
				crawltest.Chromium(t)
			}
			var w []string
			for _, l := range want {
				if !slices.Contains(tt.missing, l) {
					w = append(w, l)
				}
			}
			testFASTIssueCrawl(t, tt.fetcher == crawl.FetcherBrowser, w)
		})
	}
}

func testFASTIssueCrawl(t *testing.T, browser bool, want []string) {
	bin := amberBinary(t)
	root := filepath.Join(crawltest.ModuleRoot(t), "testdata", "sites", "fast")
	files, err := testsite.Start(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { files.Close() })
	// One server for every host: the computed hosts answered by hosts, the others by files
	// (which logs their requests). The front counts every host's hits.
	hosts := &fastHosts{tokens: map[string]string{}, loggedIn: map[string]bool{}}
	site, err := testsite.StartHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch h, _, _ := strings.Cut(r.Host, ":"); h {
		case "members.example.com", "loop.example.com":
			hosts.ServeHTTP(w, r)
		default:
			files.ServeHTTP(w, r)
		}
	}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { site.Close() })

	xmlPath := filepath.Join(root, "crawler.xml")
	if browser {
		xml, err := os.ReadFile(xmlPath)
		if err != nil {
			t.Fatal(err)
		}
		js := bytes.Replace(xml, []byte(`<attrib name="use_javascript" type="boolean"> no </attrib>`),
			[]byte(`<attrib name="use_javascript" type="boolean"> yes </attrib>`), 1)
		if bytes.Equal(js, xml) {
			t.Fatal("crawler.xml has no use_javascript: no")
		}
		xmlPath = writeFile(t, t.TempDir(), "crawler.xml", string(js))
	}
	dir := filepath.Join(t.TempDir(), "crawl")
	cmd := exec.Command(bin, "crawl", "--config", xmlPath, "--dir", dir,
		"--allow-private", "--max-attempts", "1", "--connect-to", site.ConnectTo())
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("amber crawl: %v\n%s", err, stderr.String())
	}

	// crawl.log: every URL with its outcome.
	var got []string
	for _, l := range crawltest.ReadCrawlLog(t, filepath.Join(dir, crawl.CrawlLogFile)) {
		notes := []string{}
		for _, a := range l.Annotations {
			for _, p := range []string{"scope:", "feed:", "rewritten-from:", "login:", "auth-challenge", "duplicate:"} {
				if strings.HasPrefix(a, p) {
					notes = append(notes, a)
				}
			}
		}
		hops, via := l.Hops, l.Via
		if strings.HasSuffix(l.URL, "/robots.txt") || strings.HasSuffix(l.URL, "/favicon.ico") {
			hops, via = "*", "*" // the first page of the host to be fetched, or analysed
		}
		got = append(got, fmt.Sprintf("%d %s %s %s [%s]", l.Status, l.URL, hops, via, strings.Join(notes, " ")))
	}
	slices.Sort(got)
	want = slices.Sorted(slices.Values(want))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("crawl.log (-want +got):\n%s", diff)
	}

	// The WARC files validate, and hold a response (a revisit for the duplicate) for each
	// URL crawl.log says was fetched, and nothing else; the rewritten URL's metadata record
	// names the URL as found.
	reports, err := warccheck.ValidateDir(filepath.Join(dir, crawl.WARCDir))
	if err != nil {
		t.Fatal(err)
	}
	if len(reports) == 0 {
		t.Fatal("no WARC files")
	}
	var wantRecords, gotRecords []string
	for _, l := range want {
		f := strings.Fields(l)
		if f[0] == "-5000" {
			continue
		}
		typ := "response"
		if strings.Contains(l, "[duplicate:digest]") {
			typ = "revisit"
		}
		wantRecords = append(wantRecords, typ+" "+f[0]+" "+f[1])
	}
	from := map[string]string{}
	for _, r := range reports {
		if !r.OK() {
			t.Errorf("%s: %v %v", r.Path, r.Errors, r.Dangling)
		}
		for _, rec := range r.Records {
			switch rec.Type {
			case "response", "revisit":
				gotRecords = append(gotRecords, fmt.Sprintf("%s %d %s", rec.Type, rec.HTTPStatus, rec.TargetURI))
			case "metadata":
				if f := rec.Field("rewrittenFrom"); f != "" {
					from[rec.TargetURI] = f
				}
			}
		}
	}
	slices.Sort(wantRecords)
	slices.Sort(gotRecords)
	if diff := cmp.Diff(wantRecords, gotRecords); diff != "" {
		t.Errorf("response and revisit records (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{fastWWW + "/news/2026.html": "http://old.example.com/news/2026.html"}, from); diff != "" {
		t.Errorf("rewrittenFrom of the metadata records (-want +got):\n%s", diff)
	}
	if err := warccheck.CheckCDXJ(filepath.Join(dir, crawl.CDXJFile), filepath.Join(dir, crawl.WARCDir)); err != nil {
		t.Errorf("CDXJ: %v", err)
	}

	// One login: one successful POST with the CSRF token of the session the form's page set,
	// archived as it was sent, and one login event.
	hosts.mu.Lock()
	logins, posts := hosts.logins, slices.Clone(hosts.posts)
	var token string
	for sid := range hosts.loggedIn {
		token = hosts.tokens[sid]
	}
	hosts.mu.Unlock()
	wantPost := url.Values{"csrf": {token}, "user": {fastMemberUser}, "pass": {fastMemberPass}}
	if logins != 1 || len(posts) != 1 || token == "" {
		t.Fatalf("%d logins, %d POSTs, token %q; want one login", logins, len(posts), token)
	}
	if got, err := url.ParseQuery(posts[0]); err != nil || !cmp.Equal(got, wantPost) {
		t.Errorf("the login POSTed %q, want %v", posts[0], wantPost.Encode())
	}
	var archived []string
	for _, r := range reports {
		for _, rec := range readWARC(t, r.Path) {
			if _, block, ok := bytes.Cut(rec.Data, []byte("\r\n\r\n")); ok && rec.Type == "request" && bytes.HasPrefix(block, []byte("POST ")) {
				_, body, _ := bytes.Cut(block, []byte("\r\n\r\n"))
				archived = append(archived, rec.URI+" "+strings.TrimRight(string(body), "\r\n"))
			}
		}
	}
	if diff := cmp.Diff([]string{fastMem + "/session " + posts[0]}, archived); diff != "" {
		t.Errorf("POST request records (-want +got):\n%s", diff)
	}
	var events []string
	f, err := os.Open(filepath.Join(dir, crawl.EventsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e map[string]any
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("events.jsonl: %v", err)
		}
		if e["event.action"] == login.ActionLogin {
			events = append(events, fmt.Sprintf("%v %v %v", e["event.outcome"], e["labels.login"], e["url.full"]))
		}
	}
	if diff := cmp.Diff([]string{"success members " + fastMem + "/"}, events); diff != "" {
		t.Errorf("login events (-want +got):\n%s", diff)
	}

	// What was sorted or rewritten away, excluded, trapped or out of domain was never
	// requested; what it became was, once.
	for hp, n := range map[string]int{
		"www.example.com /list.html?b=2&a=1":                 0,
		"www.example.com /list.html?a=1&b=2":                 1,
		"www.example.com /news/concert.html?time=20&day=fri": 0,
		"www.example.com /news/concert.html?day=fri&time=20": 1,
		"old.example.com /news/2026.html":                    0,
		"www.example.com /news/2026.html":                    1,
		"www.example.com /private/secret.html":               0,
		"www.example.com /style.css":                         0,
		"loop.example.com /a/a/a/":                           0,
		"other.example.org /":                                0,
		"members.example.com /login.html":                    1,
	} {
		host, p, _ := strings.Cut(hp, " ")
		if got := site.Hits(host, p); got != n {
			t.Errorf("%s%s requested %d times, want %d", host, p, got, n)
		}
	}

	// Each credential went where the passwd section says, only: the prefix's ahead of any
	// challenge, the realm's after the 401 that named it.
	hosts.mu.Lock()
	if len(hosts.credentialed) > 0 {
		t.Errorf("requests sent credentials: %v", hosts.credentialed)
	}
	hosts.mu.Unlock()
	var reportsAuth, staffAuth []string
	for _, r := range files.Requests() {
		switch {
		case r.Host == "www.example.com" && strings.HasPrefix(r.URI, "/reports/"):
			reportsAuth = append(reportsAuth, r.Authorization)
		case r.Host == "www.example.com" && strings.HasPrefix(r.URI, "/staff/"):
			staffAuth = append(staffAuth, r.Authorization)
		case r.Authorization != "":
			t.Errorf("%s%s was sent credentials", r.Host, r.URI)
		}
	}
	if diff := cmp.Diff([]string{basicAuth("alice", "reports-pw"), basicAuth("alice", "reports-pw")}, reportsAuth); diff != "" {
		t.Errorf("Authorization of the requests under /reports/ (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"", basicAuth("bob", "staff-pw")}, staffAuth); diff != "" {
		t.Errorf("Authorization of the requests under /staff/ (-want +got):\n%s", diff)
	}

	// No password of the XML file is in the crawl's configuration, logs or reports.
	for _, name := range []string{crawl.ConfigFile, crawl.CrawlLogFile, crawl.EventsFile} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		for _, secret := range []string{"reports-pw", "staff-pw", fastMemberPass} {
			if bytes.Contains(b, []byte(secret)) {
				t.Errorf("%s holds the password %q", name, secret)
			}
		}
	}
	if strings.Contains(stderr.String(), "reports-pw") || strings.Contains(stderr.String(), fastMemberPass) {
		t.Errorf("amber's output holds a password:\n%s", stderr.String())
	}

	// warcio.js reads every WARC file (last: without it the test is skipped here).
	for _, r := range reports {
		if lines := crawltest.WarcioCDXJ(t, r.Path); len(lines) == 0 {
			t.Errorf("warcio.js indexes nothing in %s", r.Path)
		}
	}
}

// basicAuth is the Authorization value of Basic credentials.
func basicAuth(user, password string) string {
	r := &http.Request{Header: http.Header{}}
	r.SetBasicAuth(user, password)
	return r.Header.Get("Authorization")
}
