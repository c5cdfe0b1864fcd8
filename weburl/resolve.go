package weburl

import (
	"net/url"
	"strings"
)

// Resolve returns the reference ref (a Location header, a URL a document lists) resolved
// against the absolute URL base, as Go's net/url resolves it; false when either does not
// parse.
func Resolve(base, ref string) (string, bool) {
	b, err := url.Parse(base)
	if err != nil {
		return "", false
	}
	r, err := url.Parse(strings.TrimSpace(ref))
	if err != nil {
		return "", false
	}
	return b.ResolveReference(r).String(), true
}
