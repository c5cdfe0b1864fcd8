package fetch

import (
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"

	"golang.org/x/net/publicsuffix"
)

// NewJar returns an empty in-memory cookie jar for Config.Jar: net/http/cookiejar with the
// public suffix list of golang.org/x/net/publicsuffix, so a server cannot set a cookie for a
// public suffix (Domain=com, Domain=co.uk) and have it sent to every site under it. It is
// safe for concurrent use.
func NewJar() http.CookieJar {
	// cookiejar.New's error is documented as always nil.
	jar, _ := cookiejar.New(&cookiejar.Options{PublicSuffixList: publicsuffix.List})
	return jar
}

// jarCookies returns the Cookie value for a request to u: the configured values first (each
// as given), then the jar's cookies for u whose names the configured values do not use, in
// the jar's order (net/http/cookiejar follows RFC 6265 §5.4: longer paths first, then
// earlier creation first). It is "" when there is nothing to send.
func jarCookies(jar http.CookieJar, u *url.URL, configured []string) string {
	var parts []string
	parts = append(parts, configured...)
	var names map[string]bool
	for _, ck := range jar.Cookies(u) {
		if len(configured) > 0 {
			if names == nil {
				names = cookieNames(configured)
			}
			if names[ck.Name] {
				continue
			}
		}
		// Cookies from the jar carry only Name and Value; String writes "name=value",
		// quoting a value that needs it and leaving out an invalid cookie.
		if s := (&http.Cookie{Name: ck.Name, Value: ck.Value, Quoted: ck.Quoted}).String(); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "; ")
}

// storeCookies hands the Set-Cookie fields of a response to u to the jar.
func storeCookies(jar http.CookieJar, u *url.URL, h http.Header) {
	if len(h["Set-Cookie"]) == 0 {
		return
	}
	if cs := (&http.Response{Header: h}).Cookies(); len(cs) > 0 {
		jar.SetCookies(u, cs)
	}
}
