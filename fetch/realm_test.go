package fetch

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestAuthPrefix: a Prefix credential goes to the URLs under its prefix; the longest prefix
// covering a URL wins, whatever the order of the entries; a realm credential is not sent
// ahead.
func TestAuthPrefix(t *testing.T) {
	rec := &headerRecorder{}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	p := portOf(t, srv.URL)
	base := "http://a.test:" + p
	basic := func(u string) *BasicAuth { return &BasicAuth{Username: u, Password: "pw"} }
	value := func(u string) string { return basicValue(u, "pw") }

	tests := []struct {
		name     string
		auth     []OriginAuth
		denyHTTP bool
		url      string
		want     string
	}{
		{name: "under the prefix", auth: []OriginAuth{{Prefix: base + "/private/", Basic: basic("p")}},
			url: base + "/private/a/b.html", want: value("p")},
		{name: "the prefix itself", auth: []OriginAuth{{Prefix: base + "/private/", Basic: basic("p")}},
			url: base + "/private/", want: value("p")},
		{name: "sibling directory", auth: []OriginAuth{{Prefix: base + "/private/", Basic: basic("p")}},
			url: base + "/public/"},
		{name: "above the prefix", auth: []OriginAuth{{Prefix: base + "/private/", Basic: basic("p")}},
			url: base + "/private"},
		{name: "string prefix without slash", auth: []OriginAuth{{Prefix: base + "/priv", Basic: basic("p")}},
			url: base + "/private/x", want: value("p")},
		{name: "longer prefix wins over origin", auth: []OriginAuth{
			{Origin: base, Basic: basic("o")}, {Prefix: base + "/private/", Basic: basic("p")}},
			url: base + "/private/x", want: value("p")},
		{name: "longer prefix wins listed first", auth: []OriginAuth{
			{Prefix: base + "/private/deep/", Basic: basic("d")}, {Prefix: base + "/private/", Basic: basic("p")}},
			url: base + "/private/deep/x", want: value("d")},
		{name: "origin outside the prefix", auth: []OriginAuth{
			{Origin: base, Basic: basic("o")}, {Prefix: base + "/private/", Basic: basic("p")}},
			url: base + "/index.html", want: value("o")},
		{name: "prefix with query", auth: []OriginAuth{{Prefix: base + "/page?id=1", Basic: basic("q")}},
			url: base + "/page?id=12", want: value("q")},
		{name: "query not matching", auth: []OriginAuth{{Prefix: base + "/page?id=1", Basic: basic("q")}},
			url: base + "/page?id=2"},
		{name: "host spelled otherwise", auth: []OriginAuth{{Prefix: "HTTP://A.TEST:" + p + "/private/", Basic: basic("p")}},
			url: base + "/private/x", want: value("p")},
		{name: "escaped path", auth: []OriginAuth{{Prefix: base + "/caf%C3%A9/", Basic: basic("p")}},
			url: base + "/café/menu", want: value("p")},
		{name: "other host", auth: []OriginAuth{{Prefix: base + "/private/", Basic: basic("p")}},
			url: "http://b.test:" + p + "/private/x"},
		{name: "suffix trap", auth: []OriginAuth{{Prefix: "http://test.com:" + p + "/", Basic: basic("p")}},
			url: "http://testanother.com:" + p + "/"},
		{name: "http not allowed", auth: []OriginAuth{{Prefix: base + "/private/", Basic: basic("p")}}, denyHTTP: true,
			url: base + "/private/x"},
		{name: "realm credential not sent ahead", auth: []OriginAuth{{Prefix: base + "/private/", Realm: "r", Basic: basic("p")}},
			url: base + "/private/x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newTestClient(t, Config{AllowPrivate: true, Auth: tt.auth, HTTPAuthAllowed: !tt.denyHTTP})
			rec.take()
			ex, err := c.Do(t.Context(), Request{URL: tt.url})
			if err != nil {
				t.Fatal(err)
			}
			ex.Close()
			if diff := cmp.Diff([]string{tt.want}, rec.take()); diff != "" {
				t.Errorf("Authorization received (-want +got):\n%s", diff)
			}
		})
	}
}

// realmServer protects /private/ with Basic authentication in realm "Private Zone" (user
// alice, password pw), /digest/ with a Digest challenge of the same realm; it keeps the
// Authorization of every request.
type realmServer struct {
	headerRecorder
}

func (s *realmServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.got = append(s.got, r.Header.Get("Authorization"))
	s.mu.Unlock()
	switch {
	case strings.HasPrefix(r.URL.Path, "/digest/"):
		w.Header().Set("WWW-Authenticate", `Digest realm="Private Zone", nonce="abc", qop="auth"`)
		w.WriteHeader(http.StatusUnauthorized)
		return
	case strings.HasPrefix(r.URL.Path, "/private/"):
		if u, pw, ok := r.BasicAuth(); !ok || u != "alice" || pw != "pw" {
			w.Header().Add("WWW-Authenticate", `Bearer realm="api", Basic realm="Private Zone", charset="UTF-8"`)
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, "who are you?")
			return
		}
	}
	io.WriteString(w, "content of "+r.URL.Path)
}

// TestAuthRealm: a 401 whose Basic challenge names the realm of a credential covering the
// URL is answered once (the 401 kept as Challenge), and the credential is then sent ahead
// in that directory; anything else is left as the server answered.
func TestAuthRealm(t *testing.T) {
	srv := &realmServer{}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	p := portOf(t, hs.URL)
	base := "http://a.test:" + p
	good := basicValue("alice", "pw")
	bad := basicValue("alice", "wrong")
	realm := func(r string, pw string) OriginAuth {
		return OriginAuth{Realm: r, Basic: &BasicAuth{Username: "alice", Password: pw}}
	}
	withPrefix := func(a OriginAuth, prefix string) OriginAuth { a.Prefix = prefix; return a }

	type fetched struct {
		Status, Challenge int // Challenge: the status of Exchange.Challenge, 0 without
		Sent              []string
	}
	tests := []struct {
		name     string
		auth     []OriginAuth
		denyHTTP bool
		header   http.Header
		urls     []string
		want     []fetched
	}{
		{name: "answered then sent ahead", auth: []OriginAuth{realm("Private Zone", "pw")},
			urls: []string{base + "/private/a", base + "/private/b", base + "/private/sub/c", base + "/public"},
			want: []fetched{{200, 401, []string{"", good}}, {200, 0, []string{good}}, {200, 0, []string{good}}, {200, 0, []string{""}}}},
		{name: "learnt for the directory only", auth: []OriginAuth{realm("Private Zone", "pw")},
			urls: []string{base + "/private/sub/c", base + "/private/a"},
			want: []fetched{{200, 401, []string{"", good}}, {200, 401, []string{"", good}}}},
		{name: "realm scoped to a prefix", auth: []OriginAuth{withPrefix(realm("Private Zone", "pw"), base+"/private/")},
			urls: []string{base + "/private/a"}, want: []fetched{{200, 401, []string{"", good}}}},
		{name: "prefix not covering", auth: []OriginAuth{withPrefix(realm("Private Zone", "pw"), base+"/other/")},
			urls: []string{base + "/private/a"}, want: []fetched{{401, 0, []string{""}}}},
		{name: "other realm", auth: []OriginAuth{realm("private zone", "pw")},
			urls: []string{base + "/private/a"}, want: []fetched{{401, 0, []string{""}}}},
		{name: "wrong password answered once, not learnt", auth: []OriginAuth{realm("Private Zone", "wrong")},
			urls: []string{base + "/private/a", base + "/private/b"},
			want: []fetched{{401, 401, []string{"", bad}}, {401, 401, []string{"", bad}}}},
		{name: "digest challenge not answered", auth: []OriginAuth{realm("Private Zone", "pw")},
			urls: []string{base + "/digest/a"}, want: []fetched{{401, 0, []string{""}}}},
		{name: "caller's own Authorization", auth: []OriginAuth{realm("Private Zone", "pw")},
			header: http.Header{"Authorization": {"Bearer x"}},
			urls:   []string{base + "/private/a"}, want: []fetched{{401, 0, []string{"Bearer x"}}}},
		{name: "http not allowed", auth: []OriginAuth{realm("Private Zone", "pw")}, denyHTTP: true,
			urls: []string{base + "/private/a"}, want: []fetched{{401, 0, []string{""}}}},
		{name: "prefix credential refused, realm answers", auth: []OriginAuth{
			{Prefix: base + "/private/", Basic: &BasicAuth{Username: "alice", Password: "wrong"}}, realm("Private Zone", "pw")},
			urls: []string{base + "/private/a", base + "/private/b"},
			want: []fetched{{200, 401, []string{bad, good}}, {200, 0, []string{good}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newTestClient(t, Config{AllowPrivate: true, Auth: tt.auth, HTTPAuthAllowed: !tt.denyHTTP})
			srv.take()
			var got []fetched
			for _, u := range tt.urls {
				ex, err := c.Do(t.Context(), Request{URL: u, Header: tt.header})
				if err != nil {
					t.Fatal(err)
				}
				f := fetched{Status: ex.StatusCode, Sent: srv.take()}
				if ex.Challenge != nil {
					f.Challenge = ex.Challenge.StatusCode
					body := string(readAll(t, ex.Challenge.Body))
					if body != "who are you?" {
						t.Errorf("challenge body = %q", body)
					}
					if strings.Contains(string(ex.Challenge.Request), "Authorization: "+good) {
						t.Errorf("the challenged request carried the realm's credential:\n%s", ex.Challenge.Request)
					}
				}
				if ex.StatusCode == 200 && strings.Contains(u, "/private/") && !strings.Contains(string(ex.Request), "Authorization: "+good) {
					t.Errorf("the answered request does not record its credential:\n%s", ex.Request)
				}
				ex.Close()
				if ex.Challenge != nil && ex.Challenge.ResponseSize() != 0 {
					t.Errorf("Close did not close the challenge")
				}
				got = append(got, f)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("fetches (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAuthRealmConcurrent: concurrent requests answering and learning the same realm.
func TestAuthRealmConcurrent(t *testing.T) {
	srv := &realmServer{}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	base := "http://a.test:" + portOf(t, hs.URL)
	c := newTestClient(t, Config{AllowPrivate: true, HTTPAuthAllowed: true,
		Auth: []OriginAuth{{Realm: "Private Zone", Basic: &BasicAuth{Username: "alice", Password: "pw"}}}})
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Go(func() {
			ex, err := c.Do(t.Context(), Request{URL: base + "/private/" + strings.Repeat("x", i)})
			if err != nil {
				errs <- err
				return
			}
			if ex.StatusCode != 200 {
				errs <- errors.New(ex.URL + ": " + http.StatusText(ex.StatusCode))
			}
			ex.Close()
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestBasicRealms reads the realms of Basic challenges out of WWW-Authenticate values.
func TestBasicRealms(t *testing.T) {
	tests := []struct {
		name   string
		values []string
		want   []string
	}{
		{name: "basic", values: []string{`Basic realm="Private Zone"`}, want: []string{"Private Zone"}},
		{name: "scheme and param case", values: []string{`BASIC REALM="x"`}, want: []string{"x"}},
		{name: "token realm", values: []string{`Basic realm=intranet`}, want: []string{"intranet"}},
		{name: "with charset", values: []string{`Basic realm="a", charset="UTF-8"`}, want: []string{"a"}},
		{name: "after another scheme", values: []string{`Bearer realm="api", error="invalid_token", Basic realm="b"`}, want: []string{"b"}},
		{name: "comma and quote in realm", values: []string{`Basic realm="a, \"b\""`}, want: []string{`a, "b"`}},
		{name: "digest only", values: []string{`Digest realm="d", nonce="n", qop="auth,auth-int"`}},
		{name: "token68 before basic", values: []string{`Negotiate abc==, Basic realm="n"`}, want: []string{"n"}},
		{name: "two fields", values: []string{`Digest realm="d"`, `Basic realm="e"`}, want: []string{"e"}},
		{name: "two basic", values: []string{`Basic realm="a", Basic realm="b"`}, want: []string{"a", "b"}},
		{name: "spaces around =", values: []string{`Basic realm = "s"`}, want: []string{"s"}},
		{name: "unterminated quote", values: []string{`Basic realm="open`}, want: []string{"open"}},
		{name: "garbage", values: []string{`,,, "" = ;`}},
		{name: "empty", values: []string{""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for r := range basicRealms(tt.values) {
				got = append(got, r)
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
				t.Errorf("basicRealms(%q) (-want +got):\n%s", tt.values, diff)
			}
		})
	}
}

// TestRequestBody: a request's Body is sent with its Content-Length and recorded in
// Exchange.Request; a POST without one says Content-Length: 0.
func TestRequestBody(t *testing.T) {
	tests := []struct {
		name   string
		method string
		body   string
		want   string // the end of the request as sent
	}{
		{name: "form post", method: "POST", body: "user=alice&csrf=t%2B1",
			want: "Content-Length: 21\r\nConnection: keep-alive\r\n\r\nuser=alice&csrf=t%2B1"},
		{name: "empty post", method: "POST", want: "Content-Length: 0\r\nConnection: keep-alive\r\n\r\n"},
		{name: "get", method: "GET", want: "Content-Type: application/x-www-form-urlencoded\r\nConnection: keep-alive\r\n\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var gotBody string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				gotBody = string(b)
			}))
			defer srv.Close()
			c := newTestClient(t, Config{AllowPrivate: true})
			ex, err := c.Do(t.Context(), Request{URL: srv.URL + "/login", Method: tt.method, Body: []byte(tt.body),
				Header: http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}})
			if err != nil {
				t.Fatal(err)
			}
			defer ex.Close()
			if gotBody != tt.body {
				t.Errorf("server got body %q, want %q", gotBody, tt.body)
			}
			if !strings.HasSuffix(string(ex.Request), tt.want) {
				t.Errorf("request does not end with %q:\n%s", tt.want, ex.Request)
			}
		})
	}
}
