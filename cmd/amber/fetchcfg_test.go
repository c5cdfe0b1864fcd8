package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/config"
	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/internal/crawltest"
	"github.com/amber-crawler/amber/internal/testproxy"
	"github.com/amber-crawler/amber/internal/testsite"
)

// accessView is what a crawl.Config says about how sites are reached, secrets included.
type accessView struct {
	Auth            []string // "ORIGIN basic USER:PASSWORD" or "ORIGIN raw VALUE"
	HTTPAuthAllowed bool
	Header          http.Header
	OriginHeader    map[string]http.Header
	Proxy           string // with its password
	Cookies         bool
}

func viewAccess(c crawl.Config) accessView {
	v := accessView{HTTPAuthAllowed: c.Fetch.HTTPAuthAllowed, Header: c.Fetch.Header,
		OriginHeader: c.Fetch.OriginHeader, Cookies: c.Fetch.Jar != nil}
	for _, a := range c.Fetch.Auth {
		if a.Basic != nil {
			v.Auth = append(v.Auth, a.Origin+" basic "+a.Basic.Username+":"+a.Basic.Password)
		} else {
			v.Auth = append(v.Auth, a.Origin+" raw "+a.Raw)
		}
	}
	if c.Fetch.Proxy != nil {
		v.Proxy = c.Fetch.Proxy.String()
	}
	return v
}

// TestAccessConfig: --auth, --auth-raw, --http-auth-allowed, --header, --proxy and
// --no-cookies, and the YAML keys they override, reach the fetcher's config with their
// secrets (env: references read); crawl.yaml records them with the secrets as ***.
func TestAccessConfig(t *testing.T) {
	t.Setenv("AMBER_TEST_PW", "pw-from-env")
	tmp := t.TempDir()
	cfgFile := writeFile(t, tmp, "c.yaml", `seeds: [https://a.example/]
auth:
  - {origin: "https://a.example", type: basic, username: jane, password: "env:AMBER_TEST_PW"}
  - {origin: "https://api.example:8443", type: raw, value: "Token c0nfig-t0k"}
http_auth_allowed: true
headers: {X-Archive: config, Accept-Language: en}
origin_headers:
  "https://api.example:8443": {Accept: application/json}
proxy:
  url: http://127.0.0.2:3128
  username: pu
  password: c0nfig-pr0xy
cookies: false
`)
	flags := []string{"--auth", "https://a.example=jane:fl4g-pw", "--auth-raw", "https://api.example:8443=Bearer fl4g-t0k",
		"--http-auth-allowed", "--header", "X-Archive: museum", "--header", "Accept-Language:  en ",
		"--proxy", "http://pu:fl4g-pr0xy@127.0.0.2:3128", "--no-cookies"}
	for _, tc := range []struct {
		name    string
		args    []string
		want    accessView
		secrets []string // not in crawl.yaml
		yaml    []string // in crawl.yaml
	}{
		{"defaults", nil, accessView{Cookies: true}, nil, []string{"cookies: true"}},
		{"flags", flags, accessView{
			Auth:            []string{"https://a.example basic jane:fl4g-pw", "https://api.example:8443 raw Bearer fl4g-t0k"},
			HTTPAuthAllowed: true,
			Header:          http.Header{"X-Archive": {"museum"}, "Accept-Language": {"en"}},
			Proxy:           "http://pu:fl4g-pr0xy@127.0.0.2:3128",
		}, []string{"fl4g-pw", "fl4g-t0k", "fl4g-pr0xy"}, []string{"password: '***'", "value: '***'", "url: http://127.0.0.2:3128", "cookies: false"}},
		{"config", []string{"--config", cfgFile}, accessView{
			Auth:            []string{"https://a.example basic jane:pw-from-env", "https://api.example:8443 raw Token c0nfig-t0k"},
			HTTPAuthAllowed: true,
			Header:          http.Header{"X-Archive": {"config"}, "Accept-Language": {"en"}},
			OriginHeader:    map[string]http.Header{"https://api.example:8443": {"Accept": {"application/json"}}},
			Proxy:           "http://pu:c0nfig-pr0xy@127.0.0.2:3128",
		}, []string{"pw-from-env", "c0nfig-t0k", "c0nfig-pr0xy"}, []string{"password: env:AMBER_TEST_PW", "value: '***'"}},
		{"flags over config", []string{"--config", cfgFile, "--auth", "https://A.example:443/=bob:fl4g-pw", "--header", "x-archive: flag",
			"--proxy", "http://127.0.0.3:8080", "--no-cookies=false", "--auth-raw", "https://b.example=Bearer b-t0k"}, accessView{
			Auth:            []string{"https://a.example basic bob:fl4g-pw", "https://api.example:8443 raw Token c0nfig-t0k", "https://b.example raw Bearer b-t0k"},
			HTTPAuthAllowed: true,
			Header:          http.Header{"X-Archive": {"flag"}, "Accept-Language": {"en"}},
			OriginHeader:    map[string]http.Header{"https://api.example:8443": {"Accept": {"application/json"}}},
			Proxy:           "http://127.0.0.3:8080",
			Cookies:         true,
		}, []string{"fl4g-pw", "c0nfig-t0k", "b-t0k", "c0nfig-pr0xy"}, []string{"x-archive: flag", "cookies: true"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"--dir", filepath.Join(tmp, "crawl")}, tc.args...)
			if !slices.Contains(tc.args, "--config") {
				args = append(args, "https://a.example/")
			}
			c := mustCrawlConfig(t, args)
			if diff := cmp.Diff(tc.want, viewAccess(c)); diff != "" {
				t.Errorf("fetch config (-want +got):\n%s", diff)
			}
			if err := checkFetch(c); err != nil {
				t.Errorf("the fetch package refuses the config: %v", err)
			}
			for _, s := range tc.secrets {
				if bytes.Contains(c.EffectiveConfig, []byte(s)) {
					t.Errorf("crawl.yaml holds the secret %q:\n%s", s, c.EffectiveConfig)
				}
			}
			for _, s := range tc.yaml {
				if !bytes.Contains(c.EffectiveConfig, []byte(s)) {
					t.Errorf("crawl.yaml lacks %q:\n%s", s, c.EffectiveConfig)
				}
			}
		})
	}
}

// TestAccessResume: a crawl resumed from its crawl.yaml alone is told which secret was not
// recorded, and runs as before when the flags give it again.
func TestAccessResume(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "crawl")
	auth := []string{"--auth", "https://a.example=jane:hunter2"}
	first := mustCrawlConfig(t, append([]string{"--dir", dir, "https://a.example/"}, auth...))
	writeFile(t, mkdir(t, dir), crawl.ConfigFile, string(first.EffectiveConfig))

	a, err := parseCrawlArgs([]string{"--dir", dir})
	if err != nil {
		t.Fatal(err)
	}
	cfg, _, err := buildConfig(a)
	if err == nil {
		_, err = crawlConfig(cfg, a)
	}
	if !errors.Is(err, config.ErrConfig) || !strings.Contains(err.Error(), "auth[0] (https://a.example): password: ***: the value was not recorded") {
		t.Errorf("resume without the password: %v", err)
	}
	resumed := mustCrawlConfig(t, append([]string{"--dir", dir}, auth...))
	if diff := cmp.Diff(viewAccess(first), viewAccess(resumed)); diff != "" {
		t.Errorf("resumed with --auth (-first +resumed):\n%s", diff)
	}
	if !bytes.Equal(first.EffectiveConfig, resumed.EffectiveConfig) {
		t.Errorf("crawl.yaml changed on resume:\n%s\n---\n%s", first.EffectiveConfig, resumed.EffectiveConfig)
	}
}

func mkdir(t *testing.T, dir string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestAccessErrors: a mistake in the access flags or keys exits 2 before anything is
// written, says what is wrong, and never shows the secret.
func TestAccessErrors(t *testing.T) {
	tmp := t.TempDir()
	const seed = "https://a.example/"
	digest := writeFile(t, tmp, "digest.yaml", "seeds: [https://a.example/]\nauth: [{origin: https://a.example, type: digest, username: u, password: hunter2}]\n")
	unset := writeFile(t, tmp, "unset.yaml", "seeds: [https://a.example/]\nauth: [{origin: https://a.example, type: basic, username: u, password: 'env:AMBER_TEST_UNSET'}]\n")
	for i, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"auth without =", []string{"--auth", "https://a.example:hunter2", seed}, "--auth: want ORIGIN=USER:PASSWORD"},
		{"auth without password", []string{"--auth", "https://a.example=jane", seed}, `--auth "https://a.example": want ORIGIN=USER:PASSWORD`},
		{"auth origin with user info", []string{"--auth", "https://jane:hunter2@a.example=jane:hunter2", seed}, "--auth: config: invalid config: (origin with user info): want an origin"},
		{"auth origin with a path", []string{"--auth", "https://a.example/login=jane:hunter2", seed}, `"https://a.example/login": want an origin`},
		{"auth-raw without value", []string{"--auth-raw", "https://a.example=", seed}, "--auth-raw \"https://a.example\": want ORIGIN=VALUE"},
		{"header without colon", []string{"--header", "X-Key=hunter2", seed}, "--header: want 'NAME: VALUE'"},
		{"header the client writes", []string{"--header", "Host: hunter2.example", seed}, "Host"},
		{"authorization header", []string{"--header", "Authorization: Bearer hunter2", seed}, "give credentials in auth"},
		{"proxy scheme", []string{"--proxy", "socks5://u:hunter2@127.0.0.2:1080", seed}, "want an http:// or https:// URL"},
		{"proxy and connect-to", []string{"--proxy", "http://u:hunter2@127.0.0.2:3128", "--connect-to", "::127.0.0.1:8080", seed}, "Proxy and ConnectTo cannot be combined"},
		{"unknown auth type", []string{"--config", digest}, `auth[0] (https://a.example): type "digest": want basic or raw`},
		{"unset variable", []string{"--config", unset}, "environment variable AMBER_TEST_UNSET is not set"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(tmp, "crawl", string(rune('a'+i)))
			args := append([]string{"crawl", "--dir", dir, "--quiet"}, tc.args...)
			var stdout, stderr bytes.Buffer
			err := run(t.Context(), args, nil, &stdout, &stderr)
			if code := exitCode(err); code != exitUsage {
				t.Fatalf("exit status %d (%v), want %d", code, err, exitUsage)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not say %q", err, tc.want)
			}
			for _, out := range []string{err.Error(), stdout.String(), stderr.String()} {
				if strings.Contains(out, "hunter2") {
					t.Errorf("the secret is shown: %q", out)
				}
			}
			if _, serr := os.Stat(dir); !os.IsNotExist(serr) {
				t.Errorf("crawl directory created despite the mistake: %v", serr)
			}
		})
	}
}

// proxyIP is the address of the test proxy: another loopback address than the test site's,
// so that WARC-IP-Address tells which was dialled.
const proxyIP = "127.0.0.2"

// startProxy starts a CONNECT proxy on proxyIP that wants the Basic credentials user:pass
// and sends every tunnel to the address to (the test site).
func startProxy(t *testing.T, to, user, pass string) *testproxy.Proxy {
	t.Helper()
	p, err := testproxy.StartAt(proxyIP+":0", to, user, pass)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

// warcRecord is one record of a WARC file: its type, target URI and whole text.
type warcRecord struct {
	Type, URI string
	Data      []byte
}

// readWARC reads the records of a gzipped WARC file, one gzip member each.
func readWARC(t *testing.T, path string) []warcRecord {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	br := bufio.NewReader(f)
	zr, err := gzip.NewReader(br)
	if err != nil {
		t.Fatal(err)
	}
	var recs []warcRecord
	for {
		zr.Multistream(false)
		data, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		head, _, _ := bytes.Cut(data, []byte("\r\n\r\n"))
		r := warcRecord{Data: data}
		for _, line := range strings.Split(string(head), "\r\n") {
			k, v, _ := strings.Cut(line, ":")
			switch strings.ToLower(k) {
			case "warc-type":
				r.Type = strings.TrimSpace(v)
			case "warc-target-uri":
				r.URI = strings.TrimSpace(v)
			}
		}
		recs = append(recs, r)
		if err := zr.Reset(br); err == io.EOF {
			return recs
		} else if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
}

func originOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

// TestCrawlSecrets crawls the Elastic test site through a forward proxy that wants a
// password, with a basic credential for www, a raw one (from the environment) for api, a
// configured header and the session cookie a page sets, with each fetcher. The proxy carried
// every request (WARC-IP-Address is its address); the guarded pages were captured; each
// credential went to its origin only; and no secret is in any file of the crawl directory
// or in the log, except the Authorization of the request records of the origin it was sent
// to (the WARC holds the request as sent).
func TestCrawlSecrets(t *testing.T) {
	const (
		basicPW   = "s3cret" // testdata/sites/elastic/_routes.txt
		token     = "T0KEN-42"
		proxyUser = "crawler"
		proxyPW   = "pr0xy-pw"
	)
	t.Setenv("AMBER_TEST_API_TOKEN", "Bearer "+token)
	basicValue := base64.StdEncoding.EncodeToString([]byte("alice:" + basicPW))
	proxyValue := base64.StdEncoding.EncodeToString([]byte(proxyUser + ":" + proxyPW))

	site, err := testsite.Start(filepath.Join(crawltest.ModuleRoot(t), "testdata", "sites", "elastic"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { site.Close() })
	seedsFile := writeFile(t, t.TempDir(), "seeds.txt", `http://www.example.com/login.html
http://www.example.com/private/
http://api.example.com/v1/status.json
http://cdn.example.net/logo.png one-page
http://docs.example.com/ one-page
`)
	wantCaptured := []string{
		"http://api.example.com/v1/status.json", "http://cdn.example.net/logo.png", "http://docs.example.com/",
		"http://www.example.com/login.html", "http://www.example.com/members/",
		"http://www.example.com/private/", "http://www.example.com/private/handbook.html",
	}
	for _, tc := range []struct {
		name  string
		extra []string
	}{
		{"http", nil},
		{"browser", []string{"--fetcher", "browser", "--browser-path", crawltest.Chromium(t), "--screenshot=false"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proxy := startProxy(t, site.Addr, proxyUser, proxyPW)
			before := len(site.Requests())
			dir := filepath.Join(t.TempDir(), "crawl")
			args := append([]string{"crawl", "--dir", dir, "--allow-private", "--host-delay", "0", "--workers", "4",
				"--log-level", "debug", "--max-hops", "1", "--flavour", "standard",
				"--proxy", "http://" + url.UserPassword(proxyUser, proxyPW).String() + "@" + proxy.Addr(),
				"--auth", "http://www.example.com=alice:" + basicPW,
				"--auth-raw", "http://api.example.com=env:AMBER_TEST_API_TOKEN",
				"--http-auth-allowed", "--header", "X-Archive: museum", seedsFile}, tc.extra...)
			var stdout, stderr bytes.Buffer
			if err := run(t.Context(), args, nil, &stdout, &stderr); err != nil {
				t.Fatalf("run: %v\n%s", err, stderr.String())
			}

			// The guarded pages were captured: credentials and the session cookie worked.
			var captured []string
			for _, l := range crawltest.ReadCrawlLog(t, filepath.Join(dir, crawl.CrawlLogFile)) {
				if l.Status == 200 && !strings.HasSuffix(l.URL, "/robots.txt") {
					captured = append(captured, l.URL)
				}
			}
			slices.Sort(captured)
			if diff := cmp.Diff(wantCaptured, captured); diff != "" {
				t.Errorf("captured with status 200 (-want +got):\n%s", diff)
			}

			// Every request went through the proxy, with its credentials.
			tunnels, others := proxy.Tunnels(), len(proxy.Others())
			refused := 0
			for _, c := range proxy.Connects() {
				if c.Status != http.StatusOK {
					refused++
				}
			}
			var targets []string
			for k := range tunnels {
				targets = append(targets, k)
			}
			slices.Sort(targets)
			if want := []string{"api.example.com:80", "cdn.example.net:80", "docs.example.com:80", "www.example.com:80"}; !slices.Equal(targets, want) {
				t.Errorf("tunnels to %v, want %v", targets, want)
			}
			if refused != 0 || others != 0 {
				t.Errorf("proxy refused %d CONNECTs and got %d other requests", refused, others)
			}

			// Each credential went to its origin only, and every request to www's private
			// area had it.
			for _, r := range site.Requests()[before:] {
				want := ""
				switch {
				case r.Host == "www.example.com":
					want = "Basic " + basicValue
				case r.Host == "api.example.com":
					want = "Bearer " + token
				}
				if r.Authorization != want {
					t.Errorf("%s%s sent Authorization %q, want %q", r.Host, r.URI, r.Authorization, want)
				}
				if r.Host == "www.example.com" && r.URI == "/members/" && r.Cookie != "session=abc123" {
					t.Errorf("/members/ sent Cookie %q, want the session cookie", r.Cookie)
				}
			}

			// No secret anywhere, but in the request records of its own origin.
			allowed := map[string]string{basicValue: "http://www.example.com", "Bearer " + token: "http://api.example.com"}
			nowhere := []string{basicPW, proxyPW, proxyValue}
			seen := map[string]int{}
			check := func(where string, data []byte, origin string, request bool) {
				for _, s := range nowhere {
					if bytes.Contains(data, []byte(s)) {
						t.Errorf("%s holds the secret %q", where, s)
					}
				}
				for s, o := range allowed {
					if !bytes.Contains(data, []byte(s)) {
						continue
					}
					if !request || origin != o {
						t.Errorf("%s holds the credential %q of %s", where, s, o)
					}
					seen[s]++
				}
			}
			check("the log", stderr.Bytes(), "", false)
			check("stdout", stdout.Bytes(), "", false)
			var files []string
			err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				files = append(files, p)
				if strings.HasSuffix(p, ".warc.gz") {
					for _, r := range readWARC(t, p) {
						check(p+" "+r.Type+" record of "+r.URI, r.Data, originOf(r.URI), r.Type == "request")
						if r.Type == "request" && !bytes.Contains(r.Data, []byte("\r\nX-Archive: museum\r\n")) {
							t.Errorf("request record of %s lacks the configured header", r.URI)
						}
						if r.Type == "response" && !bytes.Contains(r.Data, []byte("\r\nWARC-IP-Address: "+proxyIP+"\r\n")) {
							t.Errorf("response record of %s: WARC-IP-Address is not the proxy's", r.URI)
						}
					}
					return nil
				}
				data, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				check(p, data, "", false)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			for s, o := range allowed {
				if seen[s] == 0 {
					t.Errorf("no request record of %s carries its credential", o)
				}
			}
			if len(files) < 5 {
				t.Errorf("only %d files in the crawl directory: %v", len(files), files)
			}
			eff, err := os.ReadFile(filepath.Join(dir, crawl.ConfigFile))
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range []string{"password: '***'", "value: env:AMBER_TEST_API_TOKEN", "username: " + proxyUser, "http_auth_allowed: true"} {
				if !bytes.Contains(eff, []byte(s)) {
					t.Errorf("crawl.yaml lacks %q:\n%s", s, eff)
				}
			}
		})
	}
}

// TestCrawlCookies: the plain fetcher keeps the session cookie /login.html sets and sends it
// to /members/, which refuses requests without it; with --no-cookies it does not.
func TestCrawlCookies(t *testing.T) {
	site, err := testsite.Start(filepath.Join(crawltest.ModuleRoot(t), "testdata", "sites", "elastic"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { site.Close() })
	for _, tc := range []struct {
		name    string
		flags   []string
		members int // status of /members/
		yaml    string
	}{
		{"cookies", nil, 200, "cookies: true"},
		{"no cookies", []string{"--no-cookies"}, 403, "cookies: false"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "crawl")
			args := append([]string{"crawl", "--dir", dir, "--connect-to", site.ConnectTo(), "--allow-private",
				"--host-delay", "0", "--quiet", "--max-hops", "1", "http://www.example.com/login.html"}, tc.flags...)
			if err := run(t.Context(), args, nil, new(bytes.Buffer), new(bytes.Buffer)); err != nil {
				t.Fatal(err)
			}
			got := 0
			for _, l := range crawltest.ReadCrawlLog(t, filepath.Join(dir, crawl.CrawlLogFile)) {
				if l.URL == "http://www.example.com/members/" {
					got = l.Status
				}
			}
			if got != tc.members {
				t.Errorf("/members/ status %d, want %d", got, tc.members)
			}
			eff, err := os.ReadFile(filepath.Join(dir, crawl.ConfigFile))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(eff, []byte(tc.yaml)) {
				t.Errorf("crawl.yaml lacks %q:\n%s", tc.yaml, eff)
			}
		})
	}
}
