package config

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// env is the environment of these tests.
func env(name string) (string, bool) {
	v, ok := map[string]string{
		"INTRANET_PASSWORD": "pw-from-env",
		"API_TOKEN":         "Bearer tok-from-env",
		"EMPTY":             "",
	}[name]
	return v, ok
}

const accessYAML = `seeds: [https://intranet.example.org/]
auth:
  - {origin: "https://Intranet.example.org:443/", type: basic, username: jane, password: "env:INTRANET_PASSWORD"}
  - {origin: "http://old.example.org:8080", type: basic, username: bob, password: hunter2}
  - {origin: "https://api.example.org", type: raw, value: "Bearer abc.def"}
  - {origin: "https://api2.example.org", type: raw, value: "env:API_TOKEN"}
  - {prefix: "http://www.contoso.com/confidential1/", type: basic, username: user, password: "env:INTRANET_PASSWORD"}
  - {prefix: "http://www.contoso.com/confidential1/", realm: contoso, type: basic, username: user2, password: pw2}
  - {realm: "Staff only", type: basic, username: staff, password: pw3}
  - {origin: "https://api.example.org", realm: "Staff only", type: basic, username: api, password: pw4}
http_auth_allowed: true
headers:
  X-Archive: "museum crawl"
  cookie: "consent=yes"
origin_headers:
  https://api.example.org:
    Accept: application/json
proxy: "http://proxyuser:pr0xy-pw@proxy.example.org:3128"
cookies: false
`

// TestAccess: every key as written in YAML, resolved for the fetcher: origins normalised,
// env: references read, the proxy's credentials back in its URL.
func TestAccess(t *testing.T) {
	c, err := Parse([]byte(accessYAML), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	a, err := c.Access(env)
	if err != nil {
		t.Fatal(err)
	}
	want := Access{
		Auth: []Credential{
			{Origin: "https://intranet.example.org", Type: AuthBasic, Username: "jane", Password: "pw-from-env"},
			{Origin: "http://old.example.org:8080", Type: AuthBasic, Username: "bob", Password: "hunter2"},
			{Origin: "https://api.example.org", Type: AuthRaw, Value: "Bearer abc.def"},
			{Origin: "https://api2.example.org", Type: AuthRaw, Value: "Bearer tok-from-env"},
			{Prefix: "http://www.contoso.com/confidential1/", Type: AuthBasic, Username: "user", Password: "pw-from-env"},
			{Prefix: "http://www.contoso.com/confidential1/", Realm: "contoso", Type: AuthBasic, Username: "user2", Password: "pw2"},
			{Realm: "Staff only", Type: AuthBasic, Username: "staff", Password: "pw3"},
			{Origin: "https://api.example.org", Realm: "Staff only", Type: AuthBasic, Username: "api", Password: "pw4"},
		},
		HTTPAuthAllowed: true,
		Header:          http.Header{"X-Archive": {"museum crawl"}, "Cookie": {"consent=yes"}},
		OriginHeader:    map[string]http.Header{"https://api.example.org": {"Accept": {"application/json"}}},
		Proxy:           &url.URL{Scheme: "http", Host: "proxy.example.org:3128", User: url.UserPassword("proxyuser", "pr0xy-pw")},
		Cookies:         false,
	}
	if diff := cmp.Diff(want, a, cmp.Comparer(func(x, y *url.Userinfo) bool { return x.String() == y.String() })); diff != "" {
		t.Errorf("Access (-want +got):\n%s", diff)
	}

	// Defaults: no keys, cookies on.
	empty, err := (&File{}).Access(nil)
	if err != nil || !empty.Cookies || empty.Auth != nil || empty.Proxy != nil || empty.Header != nil || empty.HTTPAuthAllowed {
		t.Errorf("Access of an empty config = %+v, %v; want cookies only", empty, err)
	}
}

// TestProxyForms: the proxy as a URL string or a map, with the credentials in either place.
func TestProxyForms(t *testing.T) {
	for _, tc := range []struct {
		yaml string
		want string // the resolved URL
	}{
		{`proxy: http://proxy.example.org:3128`, "http://proxy.example.org:3128"},
		{`proxy: "https://u:p%40ss@proxy.example.org"`, "https://u:p%40ss@proxy.example.org"},
		{`proxy: "http://u@proxy.example.org:8080"`, "http://u:@proxy.example.org:8080"},
		{"proxy:\n  url: http://proxy.example.org:8080\n  username: u\n  password: env:INTRANET_PASSWORD\n", "http://u:pw-from-env@proxy.example.org:8080"},
		{"proxy:\n  url: http://u:p@proxy.example.org:8080\n", "http://u:p@proxy.example.org:8080"},
		{`proxy: "http://u:env:INTRANET_PASSWORD@proxy.example.org:3128"`, "http://u:pw-from-env@proxy.example.org:3128"},
	} {
		c, err := Parse([]byte(tc.yaml), "c.yaml")
		if err != nil {
			t.Errorf("%s: %v", tc.yaml, err)
			continue
		}
		if strings.Contains(c.Proxy.URL, "@") {
			t.Errorf("%s: user info left in ProxySpec.URL %q", tc.yaml, c.Proxy.URL)
		}
		a, err := c.Access(env)
		if err != nil {
			t.Errorf("%s: %v", tc.yaml, err)
			continue
		}
		if got := a.Proxy.String(); got != tc.want {
			t.Errorf("%s: proxy %s, want %s", tc.yaml, got, tc.want)
		}
	}
}

// TestAccessErrors: each mistake is an error naming the key, and no error shows a secret.
func TestAccessErrors(t *testing.T) {
	const seed = "seeds: [https://a.example/]\n"
	secrets := []string{"hunter2", "s3cr3t", "pw-from-env", "tok"}
	for _, tc := range []struct {
		name, yaml string
		want       string // in the error
	}{
		{"unknown type", "auth: [{origin: https://a.example, type: digest, username: u, password: hunter2}]", `auth[0] (https://a.example): type "digest"`},
		{"ntlm", "auth: [{prefix: https://a.example/x/, type: ntlmv2, username: u, password: hunter2}]", `auth[0] (https://a.example/x/): type "ntlmv2": want basic or raw (amber answers Basic challenges only; NTLMv2 is not supported`},
		{"digest by realm", "auth: [{realm: r, type: Digest, username: u, password: hunter2}]", `auth[0] (realm "r"): type "Digest": want basic or raw (amber answers Basic challenges only; Digest is not supported`},
		{"origin and prefix", "auth: [{origin: https://a.example, prefix: https://a.example/x/, type: basic, username: u, password: hunter2}]", "origin or prefix, not both"},
		{"no origin prefix or realm", "auth: [{type: basic, username: u, password: hunter2}]", "auth[0]: want origin, prefix or realm"},
		{"prefix not a URL", "auth: [{prefix: /private/, type: basic, username: u, password: hunter2}]", `auth[0] (/private/): prefix: "/private/": want an http:// or https:// URL`},
		{"prefix without host", "auth: [{prefix: 'https:///x', type: basic, username: u, password: hunter2}]", "no host"},
		{"prefix with user info", "auth: [{prefix: 'https://u:s3cr3t@a.example/x/', type: basic, username: u, password: hunter2}]", "auth[0]: prefix: a prefix is a URL without user info"},
		{"prefix with fragment", "auth: [{prefix: 'https://a.example/x/#top', type: basic, username: u, password: hunter2}]", "a prefix has no fragment"},
		{"realm with raw", "auth: [{realm: r, type: raw, value: tok}]", "it takes type basic, not raw"},
		{"realm with line break", "auth: [{realm: \"a\\nb\", type: basic, username: u, password: hunter2}]", "the realm has line breaks"},
		{"prefix and realm twice", "auth:\n  - {prefix: https://a.example/x/, realm: r, type: basic, username: u, password: hunter2}\n  - {prefix: https://a.example/x/, realm: r, type: basic, username: v, password: s3cr3t}\n", `auth[1] (https://a.example/x/ realm "r"): the prefix and realm of auth[0] too`},
		{"no type", "auth: [{origin: https://a.example, username: u, password: hunter2}]", `auth[0] (https://a.example): type ""`},
		{"origin with a path", "auth: [{origin: https://a.example/login, type: basic, username: u, password: hunter2}]", "auth[0] (https://a.example/login): origin"},
		{"origin not http", "auth: [{origin: ftp://a.example, type: basic, username: u, password: hunter2}]", "auth[0] (ftp://a.example): origin"},
		{"origin with user info", "auth: [{origin: 'https://u:s3cr3t@a.example', type: basic, username: u, password: hunter2}]", "auth[0]: origin"},
		{"one origin twice", "auth:\n  - {origin: https://a.example, type: basic, username: u, password: hunter2}\n  - {origin: 'https://A.example:443', type: raw, value: tok}\n", "auth[1] (https://a.example): the origin of auth[0]"},
		{"basic without username", "auth: [{origin: https://a.example, type: basic, password: hunter2}]", "auth[0] (https://a.example): basic wants a username"},
		{"basic with value", "auth: [{origin: https://a.example, type: basic, username: u, value: tok}]", "not value"},
		{"username with colon", "auth: [{origin: https://a.example, type: basic, username: 'u:x', password: hunter2}]", "contains ':'"},
		{"raw with password", "auth: [{origin: https://a.example, type: raw, value: tok, password: hunter2}]", "raw takes value"},
		{"raw without value", "auth: [{origin: https://a.example, type: raw}]", "raw wants a value"},
		{"raw from an empty variable", "auth: [{origin: https://a.example, type: raw, value: 'env:EMPTY'}]", "raw wants a value"},
		{"unset variable", "auth: [{origin: https://a.example, type: basic, username: u, password: 'env:NOPE'}]", "auth[0] (https://a.example): password: env:NOPE: environment variable NOPE is not set"},
		{"bad variable name", "auth: [{origin: https://a.example, type: basic, username: u, password: 'env:A-B'}]", "not an environment variable name"},
		{"redacted password", "auth: [{origin: https://a.example, type: basic, username: u, password: '***'}]", "auth[0] (https://a.example): password: ***: the value was not recorded"},
		{"redacted cookie", "headers: {Cookie: '***'}", "headers.Cookie: ***: the value was not recorded"},
		{"authorization header", "headers: {authorization: 'Bearer s3cr3t'}", "headers: Authorization: give credentials in auth"},
		{"proxy-authorization header", "origin_headers: {'https://a.example': {Proxy-Authorization: s3cr3t}}", "origin_headers.https://a.example: Proxy-Authorization"},
		{"header name with space", "headers: {'X Key': v}", `headers: "X Key" is not a header name`},
		{"header twice", "headers: {X-Key: a, x-key: b}", "X-Key given twice"},
		{"header value with a line break", "headers: {X-Key: \"a\\r\\nEvil: 1\"}", "headers.X-Key: the value has line breaks"},
		{"origin headers of a path", "origin_headers: {'https://a.example/x': {X-Key: v}}", "origin_headers:"},
		{"origin headers twice", "origin_headers: {'https://a.example': {X-Key: v}, 'https://a.example:443': {X-Key: w}}", "origin_headers: https://a.example given twice"},
		{"proxy scheme", "proxy: socks5://proxy.example.org:1080", `proxy "socks5://proxy.example.org:1080": want an http:// or https:// URL`},
		{"proxy with a path", "proxy: http://proxy.example.org/x", "want scheme://host[:port] only"},
		{"proxy without host", "proxy: 'http://:8080'", "no host"},
		{"proxy credentials twice", "proxy:\n  url: 'http://u:s3cr3t@proxy.example.org'\n  username: v\n  password: hunter2\n", "not both"},
		{"proxy password without user", "proxy: {url: 'http://proxy.example.org', password: hunter2}", "a password without a username"},
		{"proxy password unset", "proxy: {url: 'http://proxy.example.org', username: u, password: 'env:NOPE'}", "proxy.password: env:NOPE"},
		{"proxy URL that does not parse", "proxy: 'http://u:s3cr3t@proxy example.org:%zz'", "proxy: not a URL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			c, perr := Parse([]byte(seed+tc.yaml), "c.yaml")
			if perr != nil {
				err = perr
			} else {
				_, err = c.Access(env)
			}
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, ErrConfig) {
				t.Errorf("error %v does not wrap ErrConfig", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not say %q", err, tc.want)
			}
			for _, s := range secrets {
				if strings.Contains(err.Error(), s) {
					t.Errorf("error %q shows the secret %q", err, s)
				}
			}
		})
	}
}

// TestSecretsNotWritten: crawl.yaml (Marshal) and fmt show passwords, raw values, the proxy
// password and Cookie values as ***, and env: references as they are; read back, the
// references resolve again and the redacted secrets are errors, not "***" sent as a password.
func TestSecretsNotWritten(t *testing.T) {
	c, err := Parse([]byte(accessYAML), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	printed := fmt.Sprintf("%v %+v %#v %v %v", *c, *c, c.Auth, c.Auth[1].Password, *c.Proxy)
	for _, s := range []string{"hunter2", "abc.def", "pr0xy-pw", "consent=yes", "pw2", "pw3", "pw4"} {
		if strings.Contains(string(out), s) {
			t.Errorf("crawl.yaml holds the secret %q:\n%s", s, out)
		}
		if s != "consent=yes" && strings.Contains(printed, s) {
			t.Errorf("fmt shows the secret %q: %s", s, printed)
		}
	}
	for _, s := range []string{"env:INTRANET_PASSWORD", "env:API_TOKEN", "password: '***'", "value: '***'", "cookie: '***'",
		"url: http://proxy.example.org:3128", "prefix: http://www.contoso.com/confidential1/", "realm: contoso", "username: proxyuser", "X-Archive: museum crawl", "http_auth_allowed: true", "cookies: false"} {
		if !strings.Contains(strings.ReplaceAll(string(out), `"`, "'"), s) {
			t.Errorf("crawl.yaml lacks %q:\n%s", s, out)
		}
	}
	back, err := Parse(out, "crawl.yaml")
	if err != nil {
		t.Fatalf("crawl.yaml does not read back: %v\n%s", err, out)
	}
	if _, err := back.Access(env); err == nil || !strings.Contains(err.Error(), "auth[1] (http://old.example.org:8080): password: ***") {
		t.Errorf("Access of crawl.yaml: %v; want the unrecorded password of auth[1]", err)
	}
	// Given again (as the command line does on resume), the crawl runs as before.
	back.Auth[1].Password, back.Auth[2].Value = "hunter2", "Bearer abc.def"
	back.Auth[5].Password, back.Auth[6].Password, back.Auth[7].Password = "pw2", "pw3", "pw4"
	back.Headers["cookie"], back.Proxy.Password = "consent=yes", "pr0xy-pw"
	first, err := c.Access(env)
	if err != nil {
		t.Fatal(err)
	}
	again, err := back.Access(env)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(first, again, cmp.Comparer(func(x, y *url.Userinfo) bool { return x.String() == y.String() })); diff != "" {
		t.Errorf("Access after the round trip (-first +again):\n%s", diff)
	}
}

func TestSecretString(t *testing.T) {
	for _, tc := range []struct {
		s    Secret
		want string
	}{
		{"", ""}, {"hunter2", "***"}, {"env:X", "env:X"}, {"envy", "***"}, {"***", "***"},
	} {
		if got := tc.s.String(); got != tc.want {
			t.Errorf("Secret(%q).String() = %q, want %q", string(tc.s), got, tc.want)
		}
	}
}
