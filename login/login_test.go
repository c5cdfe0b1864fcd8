package login

import (
	"context"
	"crypto/rand"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/amber-crawler/amber/fetch"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// site is a test site with a login form: a session cookie set by the form's page, a hidden
// CSRF token bound to it, and pages that redirect to the form without a logged-in session.
type site struct {
	needPreload bool // the form's page answers 403 without the preload's cookie

	mu       sync.Mutex
	tokens   map[string]string // CSRF token by session
	loggedIn map[string]bool   // sessions logged in
	logins   int               // successful logins
}

func newSite() *site {
	return &site{tokens: map[string]string{}, loggedIn: map[string]bool{}}
}

func (s *site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	sid := ""
	if c, err := r.Cookie("sid"); err == nil {
		sid = c.Value
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch r.URL.Path {
	case "/preload":
		http.SetCookie(w, &http.Cookie{Name: "pre", Value: "1", Path: "/"})
		io.WriteString(w, "welcome")
	case "/login.html":
		if _, err := r.Cookie("pre"); s.needPreload && err != nil {
			http.Error(w, "no preload", http.StatusForbidden)
			return
		}
		if _, ok := s.tokens[sid]; !ok {
			sid = rand.Text()
			s.tokens[sid] = rand.Text()
			http.SetCookie(w, &http.Cookie{Name: "sid", Value: sid, Path: "/"})
		}
		s.form(w, s.tokens[sid])
	case "/session", "/get-session":
		if err := r.ParseForm(); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if tok, ok := s.tokens[sid]; !ok || r.Form.Get("csrf") != tok {
			http.Error(w, "bad CSRF token", http.StatusForbidden)
			return
		}
		if r.Form.Get("user") != "alice" || r.Form.Get("pass") != "s3cret" || r.Form.Get("remember") != "on" {
			s.form(w, s.tokens[sid]) // shown again, as sites do
			return
		}
		s.loggedIn[sid] = true
		s.logins++
		http.Redirect(w, r, "/home", http.StatusSeeOther)
	case "/simple":
		if r.Method != http.MethodPost || r.PostFormValue("user") != "alice" || r.PostFormValue("pass") != "s3cret" {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		sid = rand.Text()
		s.loggedIn[sid] = true
		s.logins++
		http.SetCookie(w, &http.Cookie{Name: "sid", Value: sid, Path: "/"})
		http.Redirect(w, r, "/home", http.StatusFound)
	case "/moved":
		http.Redirect(w, r, "/simple", http.StatusTemporaryRedirect)
	case "/home":
		if !s.loggedIn[sid] {
			http.Redirect(w, r, "/login.html?next=/home", http.StatusFound)
			return
		}
		io.WriteString(w, "<h1>Welcome, alice</h1>")
	default:
		http.NotFound(w, r)
	}
}

// form writes the login page: a search form first, then the login form.
func (s *site) form(w http.ResponseWriter, token string) {
	fmt.Fprintf(w, `<!doctype html><form action=/search><input name=q></form>
<form method=post action="session" name=login>
<input type=hidden name=csrf value="%s">
<input name=user><input type=password name=pass>
<input type=checkbox name=remember checked>
<select name=lang><option value=de>de<option value=en selected>en</select>
<button name=go value=1>Log in</button></form>
<form method=get action="get-session" name=getlogin><input type=hidden name=csrf value="%s"><input name=user><input name=pass>
<input type=hidden name=remember value=on></form>`, html.EscapeString(token), html.EscapeString(token))
}

// recorder is a Do through a fetch.Client with a cookie jar, noting each request.
type recorder struct {
	client *fetch.Client
	mu     sync.Mutex
	steps  []string // "step METHOD path[?query] body"
}

func newRecorder(t *testing.T) *recorder {
	c, err := fetch.NewClient(fetch.Config{UserAgent: "amber-test", AllowPrivate: true, Jar: fetch.NewJar()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &recorder{client: c}
}

func (r *recorder) do(ctx context.Context, step string, req fetch.Request) (*fetch.Exchange, error) {
	ex, err := r.client.Do(ctx, req)
	if err != nil {
		return nil, err
	}
	line := step + " " + ex.Method + " " + strings.SplitN(strings.SplitN(string(ex.Request), " ", 3)[1], " ", 2)[0]
	if len(req.Body) > 0 {
		line += " " + string(req.Body)
	}
	r.mu.Lock()
	r.steps = append(r.steps, line)
	r.mu.Unlock()
	return ex, nil
}

func TestPerform(t *testing.T) {
	creds := []Field{{"user", "alice"}, {"pass", "s3cret"}}
	tests := []struct {
		name        string
		needPreload bool
		spec        func(base string) Spec
		want        Result // URL relative to the site
		steps       []string
	}{
		{name: "autofill with CSRF token", spec: func(base string) Spec {
			return Spec{Name: "a", HTMLForm: base + "/login.html", Autofill: true, Parameters: creds}
		}, want: Result{OK: true, Status: 200, URL: "/home"}, steps: []string{
			"form GET /login.html",
			"submit POST /session csrf=TOKEN&user=alice&pass=s3cret&remember=on&lang=en&go=1",
			"redirect GET /home"}},
		{name: "preload first", needPreload: true, spec: func(base string) Spec {
			return Spec{Name: "a", Preload: base + "/preload", HTMLForm: base + "/login.html", Autofill: true, Parameters: creds}
		}, want: Result{OK: true, Status: 200, URL: "/home"}, steps: []string{
			"preload GET /preload",
			"form GET /login.html",
			"submit POST /session csrf=TOKEN&user=alice&pass=s3cret&remember=on&lang=en&go=1",
			"redirect GET /home"}},
		{name: "without the preload", needPreload: true, spec: func(base string) Spec {
			return Spec{Name: "a", HTMLForm: base + "/login.html", Autofill: true, Parameters: creds}
		}, want: Result{Reason: "no login form on the html_form page"}, steps: []string{"form GET /login.html"}},
		{name: "wrong password: form shown again", spec: func(base string) Spec {
			return Spec{Name: "a", HTMLForm: base + "/login.html", Autofill: true, Parameters: []Field{{"user", "alice"}, {"pass", "nope"}}}
		}, want: Result{Reason: "login form shown again", Status: 200, URL: "/session"}, steps: []string{
			"form GET /login.html",
			"submit POST /session csrf=TOKEN&user=alice&pass=nope&remember=on&lang=en&go=1"}},
		{name: "unchecked by parameter", spec: func(base string) Spec {
			return Spec{Name: "a", HTMLForm: base + "/login.html", Autofill: true, Parameters: append(creds, Field{"remember", "off"})}
		}, want: Result{Reason: "login form shown again", Status: 200, URL: "/session"}, steps: []string{
			"form GET /login.html",
			"submit POST /session csrf=TOKEN&user=alice&pass=s3cret&remember=off&lang=en&go=1"}},
		{name: "without autofill the CSRF token is missing", spec: func(base string) Spec {
			return Spec{Name: "a", HTMLForm: base + "/login.html", Form: base + "/session", Parameters: creds}
		}, want: Result{Reason: "status 403", Status: 403, URL: "/session"}, steps: []string{
			"form GET /login.html",
			"submit POST /session user=alice&pass=s3cret"}},
		{name: "form picked by its action, GET", spec: func(base string) Spec {
			return Spec{Name: "a", HTMLForm: base + "/login.html", Form: base + "/get-session", Autofill: true, Parameters: creds}
		}, want: Result{OK: true, Status: 200, URL: "/home"}, steps: []string{
			"form GET /login.html",
			"submit GET /get-session?csrf=TOKEN&user=alice&pass=s3cret&remember=on",
			"redirect GET /home"}},
		{name: "method given wins over the form's", spec: func(base string) Spec {
			return Spec{Name: "a", HTMLForm: base + "/login.html", Form: base + "/get-session", Method: "POST", Autofill: true, Parameters: creds}
		}, want: Result{OK: true, Status: 200, URL: "/home"}, steps: []string{
			"form GET /login.html",
			"submit POST /get-session csrf=TOKEN&user=alice&pass=s3cret&remember=on",
			"redirect GET /home"}},
		{name: "plain parameters, 307 keeps the POST", spec: func(base string) Spec {
			return Spec{Name: "a", Form: base + "/moved", Method: "POST", Parameters: creds}
		}, want: Result{OK: true, Status: 200, URL: "/home"}, steps: []string{
			"submit POST /moved user=alice&pass=s3cret",
			"redirect POST /simple user=alice&pass=s3cret",
			"redirect GET /home"}},
		{name: "refused", spec: func(base string) Spec {
			return Spec{Name: "a", Form: base + "/simple", Parameters: []Field{{"user", "bob"}}}
		}, want: Result{Reason: "status 401", Status: 401, URL: "/simple"}, steps: []string{"submit POST /simple user=bob"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSite()
			s.needPreload = tt.needPreload
			srv := httptest.NewServer(s)
			defer srv.Close()
			spec := tt.spec(srv.URL)
			if err := spec.Validate(); err != nil {
				t.Fatal(err)
			}
			rec := newRecorder(t)
			got, err := Perform(t.Context(), spec, rec.do)
			if err != nil {
				t.Fatal(err)
			}
			got.URL = strings.TrimPrefix(got.URL, srv.URL)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Perform (-want +got):\n%s", diff)
			}
			s.mu.Lock()
			var token string
			for _, tok := range s.tokens {
				token = tok
			}
			s.mu.Unlock()
			var steps []string
			for _, st := range rec.steps {
				if token != "" {
					st = strings.ReplaceAll(st, token, "TOKEN")
				}
				steps = append(steps, st)
			}
			if diff := cmp.Diff(tt.steps, steps); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
			if tt.want.OK {
				// The session works for the pages: the jar holds it.
				ex, err := rec.client.Do(t.Context(), fetch.Request{URL: srv.URL + "/home"})
				if err != nil {
					t.Fatal(err)
				}
				defer ex.Close()
				if ex.StatusCode != 200 {
					t.Errorf("/home after the login: %d", ex.StatusCode)
				}
			}
		})
	}
}

// TestPerformNoResponse: a request that gets no response is Perform's error.
func TestPerformNoResponse(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	base := srv.URL
	srv.Close()
	rec := newRecorder(t)
	_, err := Perform(t.Context(), Spec{Name: "a", HTMLForm: base + "/login.html", Autofill: true}, rec.do)
	if err == nil {
		t.Fatal("no error")
	}
}

func TestExpired(t *testing.T) {
	spec := Spec{HTMLForm: "https://login.example.org/login.html", Form: "https://login.example.org/session"}
	tests := []struct {
		name     string
		status   int
		location string
		want     bool
	}{
		{"ok", 200, "", false},
		{"401", 401, "", true},
		{"403", 403, "", true},
		{"404", 404, "", false},
		{"to the form page", 302, "https://login.example.org/login.html", true},
		{"to the form page with next", 303, "https://LOGIN.example.org:443/login.html?next=/private/", true},
		{"relative to the form page", 302, "/login.html", true},
		{"to the action", 307, "/session", true},
		{"elsewhere", 302, "/home", false},
		{"another host", 302, "https://other.example.org/login.html", false},
		{"redirect without Location", 302, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ex := &fetch.Exchange{URL: "https://login.example.org/private/page", StatusCode: tt.status, Header: http.Header{}}
			if tt.location != "" {
				ex.Header.Set("Location", tt.location)
			}
			if got := spec.Expired(ex); got != tt.want {
				t.Errorf("Expired = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	ok := Spec{Name: "n", HTMLForm: "https://a.test/login", Autofill: true, Parameters: []Field{{"u", "x"}}}
	tests := []struct {
		name    string
		edit    func(*Spec)
		wantErr bool
	}{
		{"ok", func(*Spec) {}, false},
		{"no parameters with autofill", func(s *Spec) { s.Parameters = nil }, false},
		{"no name", func(s *Spec) { s.Name = " " }, true},
		{"autofill without html_form", func(s *Spec) { s.HTMLForm = "" }, true},
		{"no form without autofill", func(s *Spec) { s.Autofill = false }, true},
		{"form without autofill", func(s *Spec) { s.Autofill, s.Form = false, "https://a.test/do" }, false},
		{"no parameters without autofill", func(s *Spec) { s.Autofill, s.Form, s.Parameters = false, "https://a.test/do", nil }, true},
		{"relative form", func(s *Spec) { s.Form = "/do" }, true},
		{"ftp preload", func(s *Spec) { s.Preload = "ftp://a.test/" }, true},
		{"method PUT", func(s *Spec) { s.Method = "PUT" }, true},
		{"method get lowercase", func(s *Spec) { s.Method = "get" }, true},
		{"negative ttl", func(s *Spec) { s.TTL = -time.Second }, true},
		{"parameter twice", func(s *Spec) { s.Parameters = []Field{{"u", "1"}, {"u", "2"}} }, true},
		{"unnamed parameter", func(s *Spec) { s.Parameters = []Field{{"", "1"}} }, true},
		{"site with a port", func(s *Spec) { s.Sites = []string{"a.test:8080"} }, true},
		{"site URL", func(s *Spec) { s.Sites = []string{"https://a.test/"} }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ok
			tt.edit(&s)
			if err := s.Validate(); (err != nil) != tt.wantErr {
				t.Errorf("Validate = %v, wantErr %v", err, tt.wantErr)
			}
		})
	}
}

func TestCovers(t *testing.T) {
	tests := []struct {
		spec Spec
		url  string
		want bool
	}{
		{Spec{Sites: []string{"Site1.example.org", "site2.example.org"}}, "https://site1.example.org:8443/x", true},
		{Spec{Sites: []string{"site1.example.org"}}, "https://www.site1.example.org/", false},
		{Spec{Sites: []string{"example.org"}}, "https://testexample.org/", false},
		{Spec{Form: "https://login.example.org/do"}, "http://login.example.org/page", true},
		{Spec{HTMLForm: "https://login.example.org/form"}, "http://other.example.org/page", false},
	}
	for _, tt := range tests {
		if got := tt.spec.Covers(tt.url); got != tt.want {
			t.Errorf("%v.Covers(%s) = %v, want %v", tt.spec.SiteHosts(), tt.url, got, tt.want)
		}
	}
}
