// Package post makes the requests for some URLs POST requests with a body (FAST's
// post_payload), as a processor of the crawl's chain (package chain): a payload is for one URL
// exactly, or for every URL that starts with a prefix, the exact one first, then the longest
// prefix. The body is sent as application/x-www-form-urlencoded.
package post

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/amber-crawler/amber/chain"
	"github.com/amber-crawler/amber/scope"
	"github.com/amber-crawler/amber/weburl"
)

// Payload makes the requests for some URLs POST requests with a body: the URL exactly, or
// with Prefix every URL that starts with it.
type Payload struct {
	// URL is the URL as the crawl has it (canonical, as crawl.log writes it), or with Prefix
	// the start of such URLs.
	URL    string
	Prefix bool
	// Body is sent as the request's body, Content-Type application/x-www-form-urlencoded.
	Body string
}

// payloadFor returns the payload of the URL u: the one for exactly u, else the one of the
// longest prefix of u.
func payloadFor(ps []Payload, u string) (Payload, bool) {
	var best Payload
	found := false
	for _, p := range ps {
		switch {
		case !p.Prefix && p.URL == u:
			return p, true
		case p.Prefix && strings.HasPrefix(u, p.URL) && (!found || len(p.URL) > len(best.URL)):
			best, found = p, true
		}
	}
	return best, found
}

// Payloads is the chain's step that makes the request of a URL with a payload a POST with its
// body; its capture says so (crawl.log annotation post). Its URLs are canonical (Canonical).
type Payloads []Payload

// Name is the processor's name.
func (Payloads) Name() string { return "post_payloads" }

// Before makes the request a POST with the payload of its URL.
func (ps Payloads) Before(_ context.Context, r *chain.Record) (chain.Verdict, error) {
	p, ok := payloadFor(ps, r.Request.URL)
	if !ok {
		return chain.Proceed, nil
	}
	req := &r.Request
	req.Method = http.MethodPost
	req.Body = []byte(p.Body)
	if req.Header == nil {
		req.Header = http.Header{}
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return chain.Proceed, nil
}

// After marks the capture of a URL requested with a POST.
func (Payloads) After(_ context.Context, r *chain.Record) (chain.Verdict, error) {
	if r.Request.Method == http.MethodPost {
		r.Captures[0].Annotate(Note)
	}
	return chain.Proceed, nil
}

// Note is the crawl.log annotation of a URL requested with a payload's body.
const Note = "post"

// Validate reports the first payload whose URL is not an http or https URL that canonicalises
// in the scope's flavour f, as a *chain.FieldError of its index ("[1]").
func Validate(ps []Payload, f scope.Flavour) error {
	for i, p := range ps {
		u, err := url.Parse(p.URL)
		if err == nil && (u.Scheme != "http" && u.Scheme != "https" || u.Host == "") {
			err = errors.New("want an http or https URL")
		}
		if err == nil {
			_, err = scope.Canonicalize(p.URL, f)
		}
		if err != nil {
			return &chain.FieldError{Field: fmt.Sprintf("[%d]", i), Err: fmt.Errorf("%q: %w", p.URL, err)}
		}
	}
	return nil
}

// Canonical returns the payloads with their URLs canonical in the flavour f, as the crawl's
// URLs are (Validate checked they are URLs). With sortQuery (the crawl sorts the query of the
// URLs it finds, urls.sort_query_params) an exact payload whose query is not sorted is there
// twice, as written (a seed, taken as given, matches it) and with its query sorted (the URL
// found on a page matches it). Prefixes are compared as written.
func Canonical(ps []Payload, f scope.Flavour, sortQuery bool) Payloads {
	out := slices.Clone(ps)
	for i := range out {
		if cu, err := scope.Canonicalize(out[i].URL, f); err == nil {
			out[i].URL = cu
		}
	}
	if !sortQuery {
		return out
	}
	for _, p := range out[:len(out):len(out)] {
		sorted := weburl.SortQuery(p.URL)
		if p.Prefix || sorted == p.URL || slices.ContainsFunc(out, func(q Payload) bool { return !q.Prefix && q.URL == sorted }) {
			continue
		}
		p.URL = sorted
		out = append(out, p)
	}
	return out
}
