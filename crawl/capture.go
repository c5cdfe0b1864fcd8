package crawl

import (
	"net/url"
	"slices"
	"strings"

	"github.com/amber-crawler/amber/chain"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/hop"
	"github.com/amber-crawler/amber/warc"
)

// captures places every exchange of a fetch in the crawl (Record.Captures, Record.Doc). The
// first is the claimed URL itself, with the notes processors gave before the fetch
// (Record.Notes). A rendering fetcher follows the URL's redirects inside the page load: each
// hop continues the URL's hop path with R, via the previous hop. Everything after the chain
// is an embed of the page, listed once in the page's metadata record however often the page
// asked for it; a rendered page's are archived only if the crawl does not hold them yet
// (Capture.Once): a style sheet every page loads is written once, and so is an image a page
// asks for twice. Doc is the index of the end of the chain: the exchange whose content the
// page shows.
func captures(r *chain.Record) {
	u, res := r.URL(), r.Result
	caps := make([]chain.Capture, len(res.Exchanges))
	ann := annotations(res)
	for i := range caps {
		caps[i] = chain.Capture{Hops: u.Hops, Via: u.Via, Seed: u.Seed, Annotations: ann, CountURL: true}
	}
	if u.Attempts > 0 {
		caps[0].Annotations = append(caps[0].Annotations, chain.AttemptsNote(u.Attempts+1))
	}
	if r := res.Render; r != nil && r.TimedOut {
		caps[0].Fields = []warc.Field{{Name: "pageTimedOut", Value: "true"}}
		caps[0].Annotations = append(caps[0].Annotations, "page-timeout")
	}
	caps[0].Annotate(r.Notes...)
	chained, chainHops, doc := true, u.Hops, 0
	for i := 1; i < len(res.Exchanges); i++ {
		prev, ex := res.Exchanges[i-1], res.Exchanges[i]
		if chained && redirectsTo(prev, ex.URL) {
			chainHops += string(hop.Redirect)
			caps[i].Hops, caps[i].Via = chainHops, prev.URL
			doc = i
			continue
		}
		chained = false
		caps[i].Hops, caps[i].Via, caps[i].Once = u.Hops+string(hop.Embed), u.URL, res.Render != nil
		if !slices.ContainsFunc(caps[0].Outlinks, func(o warc.Outlink) bool { return o.URL == ex.URL }) {
			caps[0].Outlinks = append(caps[0].Outlinks, warc.Outlink{URL: ex.URL, Hop: string(hop.Embed), Context: "browser"})
		}
	}
	r.Captures, r.Doc = caps, doc
}

// redirectsTo reports whether ex is a redirect whose Location is target.
func redirectsTo(ex *fetch.Exchange, target string) bool {
	loc, ok := resolve(ex.URL, ex.Header.Get("Location"))
	return isRedirect(ex.StatusCode) && ok && loc == target
}

// promoteChain widens the scope of a seed to the URLs its page load was redirected to by a
// rendering fetcher (spec/scope.md §3.2), as a queued redirect would: the hops of the
// redirect chain, and a script's navigation of the seed's page.
func (c *crawler) promoteChain(r *chain.Record) {
	u := r.URL()
	for i := 1; i <= r.Doc; i++ {
		c.scope.promote(u, r.Result.Exchanges[i].URL, r.Captures[i].Hops)
	}
	if rd := r.Result.Render; rd != nil && u.Hops == "" && rd.FinalURL != "" {
		c.scope.promote(u, rd.FinalURL, string(hop.Redirect))
	}
}

func isRedirect(code int) bool { return code >= 300 && code < 400 }

// hostKey is the politeness key of a canonical URL: host[:port] as url.Parse reads it, ""
// when it does not parse.
func hostKey(canonical string) string {
	if h, ok := plainHost(canonical); ok {
		return h
	}
	u, err := url.Parse(canonical)
	if err != nil {
		return ""
	}
	return u.Host
}

// plainHost reads the host[:port] of the plainest http and https URLs, which most canonical
// URLs are, without url.Parse and its allocations (several for every URL a page links to): a
// lower-case scheme, an authority of lower-case letters, digits, dots and hyphens with an
// optional port, and after it no percent sign (url.Parse would check the escapes), space or
// control byte (which it rejects). On such a URL url.Parse finds the same host and no error
// (FuzzHostKey holds the two to the same answer); ok is false for any other.
func plainHost(u string) (host string, ok bool) {
	rest, ok := strings.CutPrefix(u, "http://")
	if !ok {
		if rest, ok = strings.CutPrefix(u, "https://"); !ok {
			return "", false
		}
	}
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	port := false
	for i := 0; i < end; i++ {
		switch c := rest[i]; {
		case '0' <= c && c <= '9':
		case c == ':' && !port:
			port = true
		case port:
			return "", false
		case 'a' <= c && c <= 'z', c == '.', c == '-':
		default:
			return "", false
		}
	}
	for i := end; i < len(rest); i++ {
		if c := rest[i]; c <= ' ' || c == 0x7f || c == '%' {
			return "", false
		}
	}
	return rest[:end], true
}

func resolve(base, ref string) (string, bool) {
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

// politeKey is the frontier's politeness key of a URL the crawl requests that is not one of
// its own URLs (a robots.txt, a login step): the host of its canonical form, as the frontier's
// URLs have it.
func (c *crawler) politeKey(raw string) string {
	if cu, err := c.scope.form.canonicalize(raw); err == nil {
		return hostKey(cu)
	}
	return strings.ToLower(hostKey(raw))
}
