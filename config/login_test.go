package config

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/login"
)

// TestLoginSpecs: logins as written in YAML, FAST's example (§3.4) among them, resolved for
// the login package.
func TestLoginSpecs(t *testing.T) {
	const y = `logins:
  - name: mytestlogin
    preload: http://preload.contoso.com/
    scheme: https
    site: login.contoso.com
    form: /path/to/some/form.cgi
    method: post
    parameters: {user: username, password: "env:INTRANET_PASSWORD"}
    sites: [site1.contoso.com, " Site2.contoso.com "]
    ttl: 7200
    html_form: http://login.contoso.com/login.html
    autofill: true
    relogin_if_failed: true
  - name: plain
    form: https://www.example.org/login
    parameters: {b: "2", a: "1"}
    ttl: 90m
  - name: path without scheme
    site: www.example.org:8080
    form: do/login
    html_form: http://www.example.org:8080/
    autofill: true
`
	c, err := Parse([]byte(y), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.LoginSpecs(env)
	if err != nil {
		t.Fatal(err)
	}
	want := []login.Spec{
		{Name: "mytestlogin", Preload: "http://preload.contoso.com/", Form: "https://login.contoso.com/path/to/some/form.cgi",
			Method: "POST", HTMLForm: "http://login.contoso.com/login.html", Autofill: true,
			Parameters: []login.Field{{Name: "password", Value: "pw-from-env"}, {Name: "user", Value: "username"}},
			Sites:      []string{"site1.contoso.com", "site2.contoso.com"}, TTL: 2 * time.Hour, ReloginIfFailed: true},
		{Name: "plain", Form: "https://www.example.org/login",
			Parameters: []login.Field{{Name: "a", Value: "1"}, {Name: "b", Value: "2"}}, TTL: 90 * time.Minute},
		{Name: "path without scheme", Form: "http://www.example.org:8080/do/login", HTMLForm: "http://www.example.org:8080/", Autofill: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("LoginSpecs (-want +got):\n%s", diff)
	}

	// crawl.yaml: parameter values as ***, env: references as they are.
	out, err := c.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"user: '***'", "password: env:INTRANET_PASSWORD", "ttl: 2h0m0s", "html_form: http://login.contoso.com/login.html"} {
		if !strings.Contains(strings.ReplaceAll(string(out), `"`, "'"), s) {
			t.Errorf("crawl.yaml lacks %q:\n%s", s, out)
		}
	}
	if strings.Contains(string(out), "username") {
		t.Errorf("crawl.yaml holds a parameter value:\n%s", out)
	}
	back, err := Parse(out, "crawl.yaml")
	if err != nil {
		t.Fatalf("crawl.yaml does not read back: %v", err)
	}
	if _, err := back.LoginSpecs(env); err == nil || !strings.Contains(err.Error(), "logins[0] (mytestlogin): parameters.user: ***: the value was not recorded") {
		t.Errorf("LoginSpecs of crawl.yaml: %v; want the unrecorded parameter", err)
	}
}

func TestLoginSpecErrors(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		want       string
	}{
		{"two of a name", "logins:\n  - {name: a, form: https://a.test/l, parameters: {u: x}}\n  - {name: a, form: https://a.test/m, parameters: {u: x}}", "logins[1] (a): the name of logins[0] too"},
		{"no name", "logins: [{form: https://a.test/l, parameters: {u: x}}]", "a login needs a name"},
		{"autofill without html_form", "logins: [{name: a, autofill: true}]", "give html_form"},
		{"no form", "logins: [{name: a, parameters: {u: x}}]", "without autofill, give the URL"},
		{"path without site", "logins: [{name: a, form: /login, parameters: {u: x}}]", `form "/login" is a path: give site`},
		{"site without form", "logins: [{name: a, site: a.test, parameters: {u: x}}]", `site "a.test" without form`},
		{"URL and site", "logins: [{name: a, site: a.test, form: https://a.test/l, parameters: {u: x}}]", "leave scheme and site out"},
		{"ftp scheme", "logins: [{name: a, scheme: ftp, site: a.test, form: /l, parameters: {u: x}}]", `scheme "ftp": want http or https`},
		{"site with a path", "logins: [{name: a, site: a.test/x, form: /l, parameters: {u: x}}]", "want a host name"},
		{"method PUT", "logins: [{name: a, form: https://a.test/l, method: put, parameters: {u: x}}]", `method "PUT": want GET or POST`},
		{"bad ttl", "logins: [{name: a, form: https://a.test/l, ttl: soon, parameters: {u: x}}]", `ttl "soon"`},
		{"negative ttl", "logins: [{name: a, form: https://a.test/l, ttl: -5, parameters: {u: x}}]", "out of range"},
		{"unset variable", "logins: [{name: a, form: https://a.test/l, parameters: {pw: 'env:NOPE'}}]", "logins[0] (a): parameters.pw: env:NOPE: environment variable NOPE is not set"},
		{"unknown key", "logins: [{name: a, form: https://a.test/l, action: POST}]", "field action not found"},
		{"site URL in sites", "logins: [{name: a, form: https://a.test/l, parameters: {u: x}, sites: ['https://a.test/']}]", "is not a host name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse([]byte(tc.yaml), "c.yaml")
			if err == nil {
				_, err = c.LoginSpecs(env)
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
		})
	}
}
