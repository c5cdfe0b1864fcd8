package main

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/amber-crawler/amber/config"
	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/fetch"
)

// applyAccessFlags puts --auth, --auth-raw, --http-auth-allowed, --header, --proxy and
// --no-cookies into cfg, so that crawl.yaml records them (secrets as ***). An --auth or
// --auth-raw entry replaces the config's entry of its origin (how a crawl resumed from its
// crawl.yaml is given its passwords again), a --header the config's field of its name.
// The errors never show a password or a header value.
func applyAccessFlags(cfg *config.File, a crawlArgs) error {
	f := a.flags
	for _, s := range f.auth {
		origin, cred, ok := strings.Cut(s, "=")
		if !ok {
			return fmt.Errorf("--auth: want ORIGIN=USER:PASSWORD")
		}
		user, pw, ok := strings.Cut(cred, ":")
		if !ok || user == "" {
			return fmt.Errorf("--auth %s: want ORIGIN=USER:PASSWORD", shownOrigin(origin))
		}
		if err := setAuth(cfg, config.AuthSpec{Origin: origin, Type: config.AuthBasic, Username: user, Password: config.Secret(pw)}); err != nil {
			return fmt.Errorf("--auth: %w", err)
		}
	}
	for _, s := range f.authRaw {
		origin, v, ok := strings.Cut(s, "=")
		if !ok {
			return fmt.Errorf("--auth-raw: want ORIGIN=VALUE (the whole Authorization value, e.g. 'Bearer TOKEN')")
		}
		if strings.TrimSpace(v) == "" {
			return fmt.Errorf("--auth-raw %s: want ORIGIN=VALUE (the whole Authorization value, e.g. 'Bearer TOKEN')", shownOrigin(origin))
		}
		if err := setAuth(cfg, config.AuthSpec{Origin: origin, Type: config.AuthRaw, Value: config.Secret(v)}); err != nil {
			return fmt.Errorf("--auth-raw: %w", err)
		}
	}
	if a.set["http-auth-allowed"] {
		cfg.HTTPAuthAllowed = f.httpAuthAllowed
	}
	for _, s := range f.headers {
		name, v, ok := strings.Cut(s, ":")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return fmt.Errorf("--header: want 'NAME: VALUE'")
		}
		if cfg.Headers == nil {
			cfg.Headers = config.HeaderMap{}
		}
		for k := range cfg.Headers {
			if http.CanonicalHeaderKey(k) == http.CanonicalHeaderKey(name) {
				delete(cfg.Headers, k)
			}
		}
		cfg.Headers[name] = strings.TrimSpace(v)
	}
	if a.set["proxy"] {
		cfg.Proxy = nil
		if f.proxy != "" {
			p, err := config.ParseProxy(f.proxy)
			if err != nil {
				return fmt.Errorf("--proxy: %w", err)
			}
			cfg.Proxy = p
		}
	}
	if a.set["no-cookies"] {
		on := !f.noCookies
		cfg.Cookies = &on
	}
	return nil
}

// shownOrigin is the origin part (before the '=') of an --auth value as errors show it: not
// when it holds user info, which may be a password.
func shownOrigin(origin string) string {
	if strings.Contains(origin, "@") {
		return "(origin with user info)"
	}
	return fmt.Sprintf("%q", origin)
}

// setAuth puts e into cfg.Auth, in place of the entry of the same origin (without a realm)
// if there is one.
func setAuth(cfg *config.File, e config.AuthSpec) error {
	o, err := config.Origin(e.Origin)
	if err != nil || strings.Contains(e.Origin, "@") {
		return fmt.Errorf("%w: %s: want an origin, scheme://host[:port]", config.ErrConfig, shownOrigin(e.Origin))
	}
	e.Origin = o
	for i, old := range cfg.Auth {
		if oo, err := config.Origin(old.Origin); err == nil && oo == o && old.Realm == "" {
			cfg.Auth[i] = e
			return nil
		}
	}
	cfg.Auth = append(cfg.Auth, e)
	return nil
}

// checkFetch builds the HTTP client the crawl will build, so that what only the fetch
// package checks (a header it does not allow, a proxy with --connect-to) is reported before
// the crawl directory is created.
func checkFetch(c crawl.Config) error {
	cl, err := fetch.NewClient(c.Fetch)
	if err != nil {
		return err
	}
	return cl.Close()
}
