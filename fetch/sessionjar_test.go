package fetch

import (
	"net/http"
	"net/url"
	"testing"
	"time"
)

// recordingJar keeps the cookies handed to it, for TestSessionJar.
type recordingJar struct{ set []*http.Cookie }

func (j *recordingJar) SetCookies(_ *url.URL, cs []*http.Cookie) { j.set = append(j.set, cs...) }
func (j *recordingJar) Cookies(*url.URL) []*http.Cookie          { return nil }

// TestSessionJar: a session cookie reaches the jar with an expiry SessionCookieTTL after a
// site first set it with its value; setting it again with the same value does not renew it
// (the browser fetcher copies Chromium's cookies back after each page), a new value does; a
// cookie with its own expiry keeps it.
func TestSessionJar(t *testing.T) {
	const ttl = 15 * time.Minute
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	type set struct {
		at     time.Duration // after t0
		url    string
		cookie http.Cookie
	}
	page := "http://www.example.com/a/page"
	tests := []struct {
		name string
		sets []set
		// want: the expiry of the last cookie the underlying jar got, after t0; -1: its own
		// (none added).
		want time.Duration
	}{
		{"session", []set{{0, page, http.Cookie{Name: "s", Value: "1"}}}, ttl},
		{"set later", []set{{time.Hour, page, http.Cookie{Name: "s", Value: "1"}}}, time.Hour + ttl},
		{"same value again does not renew", []set{{0, page, http.Cookie{Name: "s", Value: "1"}}, {ttl / 2, page, http.Cookie{Name: "s", Value: "1"}}}, ttl},
		{"same value after expiry stays expired", []set{{0, page, http.Cookie{Name: "s", Value: "1"}}, {2 * ttl, page, http.Cookie{Name: "s", Value: "1"}}}, ttl},
		{"new value renews", []set{{0, page, http.Cookie{Name: "s", Value: "1"}}, {ttl / 2, page, http.Cookie{Name: "s", Value: "2"}}}, ttl/2 + ttl},
		{"max-age kept", []set{{0, page, http.Cookie{Name: "s", Value: "1", MaxAge: 3600}}}, -1},
		{"expires kept", []set{{0, page, http.Cookie{Name: "s", Value: "1", Expires: t0.Add(48 * time.Hour)}}}, -1},
		{"another path is another cookie", []set{{0, page, http.Cookie{Name: "s", Value: "1", Path: "/a"}}, {ttl / 2, page, http.Cookie{Name: "s", Value: "1", Path: "/"}}}, ttl/2 + ttl},
		{"default path is the page's directory", []set{{0, page, http.Cookie{Name: "s", Value: "1", Path: "/a"}}, {ttl / 2, page, http.Cookie{Name: "s", Value: "1"}}}, ttl},
		{"another host is another cookie", []set{{0, page, http.Cookie{Name: "s", Value: "1"}}, {ttl / 2, "http://other.example.com/a/page", http.Cookie{Name: "s", Value: "1"}}}, ttl/2 + ttl},
		{"a domain cookie is the domain's", []set{{0, page, http.Cookie{Name: "s", Value: "1", Domain: ".example.com"}}, {ttl / 2, "http://other.example.com/a/x", http.Cookie{Name: "s", Value: "1", Domain: "example.com"}}}, ttl},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var now time.Time
			under := &recordingJar{}
			j := NewSessionJar(under, ttl, func() time.Time { return now })
			for _, s := range tt.sets {
				now = t0.Add(s.at)
				u, err := url.Parse(s.url)
				if err != nil {
					t.Fatal(err)
				}
				c := s.cookie
				j.SetCookies(u, []*http.Cookie{&c})
			}
			if len(under.set) != len(tt.sets) {
				t.Fatalf("the jar got %d cookies, want %d", len(under.set), len(tt.sets))
			}
			last, given := under.set[len(under.set)-1], tt.sets[len(tt.sets)-1].cookie
			if tt.want < 0 {
				if !last.Expires.Equal(given.Expires) || last.MaxAge != given.MaxAge {
					t.Errorf("expires %v max-age %d, want its own %v %d", last.Expires, last.MaxAge, given.Expires, given.MaxAge)
				}
				return
			}
			if want := t0.Add(tt.want); !last.Expires.Equal(want) {
				t.Errorf("expires %v, want %v", last.Expires, want)
			}
			if last.Name != given.Name || last.Value != given.Value || last.Path != given.Path || last.Domain != given.Domain {
				t.Errorf("cookie %v, want %v with an expiry", last, &given)
			}
		})
	}
}
