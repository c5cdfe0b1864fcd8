package config

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/amber-crawler/amber/login"
)

// LoginSpec is one entry of logins: an HTML form login, as FAST's Login element (or logins
// section) describes it. See login.Spec for how it is made.
type LoginSpec struct {
	// Name names the login (events, errors); unique.
	Name string `yaml:"name"`
	// Preload is a URL fetched first, for the cookies it sets.
	Preload string `yaml:"preload,omitempty"`
	// Scheme (http or https), Site (a host name) and Form (a path) make the URL the form is
	// submitted to, scheme://site/form, as in FAST; Form may also be that whole URL. The
	// scheme defaults to html_form's, else https.
	Scheme string `yaml:"scheme,omitempty"`
	Site   string `yaml:"site,omitempty"`
	Form   string `yaml:"form,omitempty"`
	// Method is GET or POST (FAST's action attrib). Default: the form's with autofill, POST
	// without.
	Method string `yaml:"method,omitempty"`
	// HTMLForm is the URL of the page holding the form; required with autofill.
	HTMLForm string `yaml:"html_form,omitempty"`
	// Autofill submits the page's form with its hidden fields and defaults, parameters set
	// over them.
	Autofill bool `yaml:"autofill,omitempty"`
	// Parameters are the form fields to set, {name: value}; a value may be env:NAME. Every
	// value is written back (crawl.yaml, warcinfo) as *** unless it is an env: reference.
	Parameters map[string]Secret `yaml:"parameters,omitempty"`
	// Sites are the host names whose pages need the login (default: the form's host).
	Sites []string `yaml:"sites,omitempty"`
	// TTL is how long a login lasts: seconds (FAST's integer) or a Go duration ("2h");
	// 0: it does not expire.
	TTL LoginTTL `yaml:"ttl,omitempty"`
	// ReloginIfFailed logs in again when a page of sites answers as logged out (a redirect
	// to the form, 401, 403) and fetches it once more, and retries a failed login after ttl.
	ReloginIfFailed bool `yaml:"relogin_if_failed,omitempty"`
}

// LoginTTL is a login's lifetime: written as whole seconds (7200, FAST's integer ttl) or a Go
// duration ("2h").
type LoginTTL time.Duration

// UnmarshalYAML reads seconds or a duration.
func (d *LoginTTL) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: ttl: want seconds or a duration", n.Line)
	}
	if s, err := strconv.ParseInt(strings.TrimSpace(n.Value), 10, 64); err == nil {
		if s < 0 || s > int64(100*365*24*time.Hour/time.Second) {
			return fmt.Errorf("line %d: ttl: %d seconds is out of range", n.Line, s)
		}
		*d = LoginTTL(time.Duration(s) * time.Second)
		return nil
	}
	v, err := time.ParseDuration(strings.TrimSpace(n.Value))
	if err != nil || v < 0 {
		return fmt.Errorf("line %d: ttl %q: want seconds or a duration (\"2h\")", n.Line, n.Value)
	}
	*d = LoginTTL(v)
	return nil
}

// MarshalYAML writes the duration ("2h0m0s").
func (d LoginTTL) MarshalYAML() (any, error) { return time.Duration(d).String(), nil }

// LoginSpecs checks the logins and resolves their parameters' env: references with
// lookupEnv (os.LookupEnv in amber). The errors name the entry (logins[0] (intranet): ...)
// and never contain a parameter's value. Parameters are given in the order of their names.
func (c *File) LoginSpecs(lookupEnv func(string) (string, bool)) ([]login.Spec, error) {
	var out []login.Spec
	names := map[string]int{}
	for i, l := range c.Logins {
		where := fmt.Sprintf("logins[%d] (%s)", i, l.Name)
		if j, dup := names[l.Name]; dup {
			return nil, fmt.Errorf("%w: %s: the name of logins[%d] too", ErrConfig, where, j)
		}
		names[l.Name] = i
		s, err := l.spec(lookupEnv)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrConfig, where, err)
		}
		out = append(out, s)
	}
	return out, nil
}

// spec resolves one entry.
func (l LoginSpec) spec(lookupEnv func(string) (string, bool)) (login.Spec, error) {
	s := login.Spec{Name: l.Name, Preload: l.Preload, HTMLForm: l.HTMLForm, Autofill: l.Autofill,
		Method: strings.ToUpper(l.Method), TTL: time.Duration(l.TTL), ReloginIfFailed: l.ReloginIfFailed}
	form, err := l.formURL()
	if err != nil {
		return s, err
	}
	s.Form = form
	for _, name := range slices.Sorted(maps.Keys(l.Parameters)) {
		v, err := l.Parameters[name].Resolve(lookupEnv)
		if err != nil {
			return s, fmt.Errorf("parameters.%s: %w", name, err)
		}
		s.Parameters = append(s.Parameters, login.Field{Name: name, Value: v})
	}
	for _, h := range l.Sites {
		s.Sites = append(s.Sites, strings.ToLower(strings.TrimSpace(h)))
	}
	if err := s.Validate(); err != nil {
		return s, err
	}
	return s, nil
}

// formURL makes the URL the form is submitted to from scheme, site and form.
func (l LoginSpec) formURL() (string, error) {
	form := strings.TrimSpace(l.Form)
	if u, err := url.Parse(form); err == nil && u.Scheme != "" {
		if l.Site != "" || l.Scheme != "" {
			return "", fmt.Errorf("form %q is a whole URL: leave scheme and site out", form)
		}
		return form, nil
	}
	site := strings.TrimSpace(l.Site)
	switch {
	case form == "" && site == "":
		return "", nil
	case form == "":
		return "", fmt.Errorf("site %q without form (the path the form is submitted to)", site)
	case site == "":
		return "", fmt.Errorf("form %q is a path: give site (and scheme), or write form as a whole URL", form)
	case strings.ContainsAny(site, "/@ "):
		return "", fmt.Errorf("site %q: want a host name (host[:port])", site)
	}
	scheme := strings.ToLower(strings.TrimSpace(l.Scheme))
	if scheme == "" {
		scheme = "https"
		if u, err := url.Parse(l.HTMLForm); err == nil && u.Scheme == "http" {
			scheme = "http"
		}
	}
	if scheme != "http" && scheme != "https" {
		return "", fmt.Errorf("scheme %q: want http or https", l.Scheme)
	}
	if !strings.HasPrefix(form, "/") {
		form = "/" + form
	}
	return scheme + "://" + site + form, nil
}
