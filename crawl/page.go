package crawl

import (
	"bytes"
	"fmt"
	"io"
	"net/http"

	"github.com/amber-crawler/amber/extract"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/hop"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/warc"
)

// maxExtractBytes bounds the prefix of a decoded body (or of a rendered page's HTML) that is
// parsed for outlinks and the search document: 8 MiB, above Elastic's 5 MiB of document text
// and far above the HTML of real pages, so that a gzip bomb or an endless body costs at most
// this much memory however large it is. The rest of the body is archived, not parsed.
const maxExtractBytes = 8 << 20

// page is what the crawl learned from a fetch: the URLs it points at and its search document.
type page struct {
	links    []extract.Outlink
	dropped  int               // distinct outlinks extraction left out (extractLimit)
	doc      *extract.Document // search document, nil when none is due
	noFollow bool              // robots meta nofollow
	noIndex  bool              // robots meta noindex
}

// analyse returns what a fetch points at and its search document: from the response body for
// a plain fetch, from the rendered DOM for a rendered page. Both give the same page-level
// signals (robots meta nofollow and noindex, rel=nofollow links) and the inferred favicon of
// a host seen for the first time. doc is the exchange the page's content came from: the URL's
// own, or for a rendered page the end of the redirect chain the browser followed.
func (c *crawler) analyse(u frontier.URL, res *fetch.Result, doc int) page {
	if res.Render != nil {
		return c.analyseRendered(res.Exchanges[doc], res.Render)
	}
	return c.analyseBody(u.URL, res.Exchanges[0])
}

// analyseBody returns everything a plain capture points at: the redirect target, the Refresh
// header, links and embeds in the body, and the inferred favicon; and, for a 2xx HTML page (or
// a binary type the config lists), its search document.
func (c *crawler) analyseBody(pageURL string, ex *fetch.Exchange) page {
	var p page
	if loc := ex.Header.Get("Location"); loc != "" && isRedirect(ex.StatusCode) {
		if abs, ok := resolve(pageURL, loc); ok {
			p.links = append(p.links, extract.Outlink{URL: abs, Hop: hop.Redirect, Context: "header/location"})
		}
	}
	if rf := ex.Header.Get("Refresh"); rf != "" {
		if abs, ok := extract.RefreshURL(pageURL, rf); ok {
			p.links = append(p.links, extract.Outlink{URL: abs, Hop: hop.Redirect, Context: "header/refresh"})
		}
	}
	if isRedirect(ex.StatusCode) {
		return p
	}
	ok2xx := ex.StatusCode >= 200 && ex.StatusCode < 300
	ct := mediaType(ex.Header.Get("Content-Type"))
	binary := ok2xx && c.cfg.Documents.ExtractsBinary(ct)
	if !isParsable(ct) && ct != "" && !binary {
		return p
	}
	body, err := readBody(ex)
	if err != nil {
		c.log.Debug("read body for extraction", "url", pageURL, "err", err)
	}
	if ct == "" {
		ct = mediaType(http.DetectContentType(body))
	}
	if binary && !c.cfg.NoDocuments {
		doc, err := extract.ParseBinary(pageURL, ct, body, c.cfg.Documents)
		if err != nil {
			c.log.Debug("extract binary document", "url", pageURL, "err", err)
		}
		p.doc = doc
	}
	if !isParsable(ct) {
		return p
	}
	// The Content-Type header's charset matters for decoding the page.
	ctHeader := ex.Header.Get("Content-Type")
	if ctHeader == "" {
		ctHeader = ct
	}
	r := c.parse(pageURL, ctHeader, body, ok2xx && ct != "text/css")
	p.doc, p.noFollow, p.noIndex, p.dropped = r.Document, r.NoFollow, r.NoIndex, r.OutlinksDropped
	p.links = append(p.links, r.Outlinks...)
	if isHTML(ct) {
		p.links = c.withFavicon(pageURL, p.links)
	}
	return p
}

// analyseRendered returns what a rendered page points at: the links of its rendered DOM (all
// frames; the browser fetched the embeds itself) and the inferred favicon; the robots meta and
// the search document come from the rendered DOM of the main frame, the document of ex.
func (c *crawler) analyseRendered(ex *fetch.Exchange, r *fetch.Render) page {
	var p page
	for _, l := range r.Links {
		p.links = append(p.links, extract.Outlink{URL: l.URL, Hop: hop.Link, Context: l.Context, NoFollow: l.NoFollow})
	}
	if r.HTML == "" || isRedirect(ex.StatusCode) || !isHTML(mediaType(ex.Header.Get("Content-Type"))) {
		return p
	}
	ok2xx := ex.StatusCode >= 200 && ex.StatusCode < 300
	html := r.HTML
	if len(html) > maxExtractBytes {
		html = html[:maxExtractBytes]
	}
	res := c.parse(ex.URL, "text/html; charset=utf-8", []byte(html), ok2xx)
	p.doc, p.noFollow, p.noIndex = res.Document, res.NoFollow, res.NoIndex
	// Chromium's links have neither a <meta http-equiv=refresh> target nor the feeds a page
	// names (<link rel=alternate type=application/rss+xml>): they come from the rendered DOM,
	// as the plain fetcher has them (a refresh's hop R, or L above URLs.RefreshRedirectMax).
	for _, o := range res.Outlinks {
		if o.Context == "meta/@content" {
			p.links = append(p.links, o)
		} else if o.Feed {
			p.links = markFeed(p.links, o)
		}
	}
	if res.NoFollow && c.cfg.Robots.IgnoreMeta {
		p.links = relNoFollowOnly(p.links, res.Outlinks)
	}
	p.links = c.withFavicon(ex.URL, p.links)
	return p
}

// markFeed marks the link to a feed f among a rendered page's links, or adds it when Chromium
// did not report it (a <link> element is not a link to it).
func markFeed(links []extract.Outlink, f extract.Outlink) []extract.Outlink {
	for i := range links {
		if links[i].URL == f.URL {
			links[i].Feed = true
			return links
		}
	}
	return append(links, f)
}

// relNoFollowOnly takes the robots meta nofollow of the main frame back out of a rendered
// page's links (the browser marks every link of a frame whose robots meta says nofollow, as
// it marks rel=nofollow ones): a link stays nofollow only when the main frame's own HTML
// (parsed, with its per-link rel=nofollow) has it so, or does not have it at all (a link of
// another frame).
func relNoFollowOnly(links, parsed []extract.Outlink) []extract.Outlink {
	rel := make(map[string]bool, len(parsed))
	for _, o := range parsed {
		if o.Hop == hop.Link {
			rel[o.URL] = o.NoFollow
		}
	}
	out := make([]extract.Outlink, len(links))
	for i, l := range links {
		if nf, ok := rel[l.URL]; ok && l.NoFollow && !nf {
			l.NoFollow = false
		}
		out[i] = l
	}
	return out
}

// parse extracts a parsable body: with its search document when one is due, and at most
// extractLimit references.
func (c *crawler) parse(pageURL, contentType string, body []byte, withDocument bool) extract.Result {
	opt := extract.Options{MaxOutlinks: c.extractLimit(), RefreshRedirectMax: c.cfg.URLs.RefreshRedirectMax}
	if withDocument && !c.cfg.NoDocuments {
		opt.Document = &c.cfg.Documents
	}
	res, err := extract.ParseWith(pageURL, contentType, body, opt)
	if err != nil {
		c.log.Debug("extract", "url", pageURL, "err", err)
	}
	return res
}

func isParsable(ct string) bool { return isHTML(ct) || ct == "text/css" }

func isHTML(ct string) bool { return ct == "text/html" || ct == "application/xhtml+xml" }

// extractLimit is the most references extraction keeps from one body: twice MaxOutlinks, so
// that the cap, which counts distinct canonical URLs (decide), is rarely reached early by a URL
// found both as a link and as an embed or by spellings of one URL; and memory stays bounded.
func (c *crawler) extractLimit() int { return 2 * c.cfg.MaxOutlinks }

// readBody returns the first maxExtractBytes of the decoded body of ex. Decoding stops there,
// so a decompression bomb inflates no further.
func readBody(ex *fetch.Exchange) ([]byte, error) {
	r, err := ex.Body()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var buf bytes.Buffer
	// The raw body size is the decoded size of an uncoded body: read it with one allocation.
	buf.Grow(int(min(ex.BodySize(), maxExtractBytes)) + bytes.MinRead)
	_, err = buf.ReadFrom(io.LimitReader(r, maxExtractBytes))
	return buf.Bytes(), err
}

// withFavicon adds the inferred /favicon.ico of the page's host the first time the host is
// seen in this run (the frontier's seen set makes later runs' repeats harmless).
func (c *crawler) withFavicon(page string, links []extract.Outlink) []extract.Outlink {
	h := hostKey(page)
	c.hostsMu.Lock()
	_, seen := c.hosts[h]
	c.hosts[h] = struct{}{}
	c.hostsMu.Unlock()
	if seen {
		return links
	}
	return append(links, extract.Favicon(page))
}

// obeyNofollow drops the links robots meta nofollow or rel=nofollow forbid following (unless
// the crawl ignores robots; robots meta alone with Robots.IgnoreMeta) and returns the rest and
// the URLs dropped. Embeds are kept: they are part of the page, not links to follow.
func (c *crawler) obeyNofollow(p page) ([]extract.Outlink, []string) {
	if c.cfg.IgnoreRobots {
		return p.links, nil
	}
	noFollow := p.noFollow && !c.cfg.Robots.IgnoreMeta
	var kept []extract.Outlink
	var denied []string
	for _, l := range p.links {
		if l.Hop == hop.Link && (noFollow || l.NoFollow) {
			denied = append(denied, l.URL)
			continue
		}
		kept = append(kept, l)
	}
	return kept, denied
}

// writeDocument writes the search document of the capture of docURL, unless robots meta
// noindex forbids it (the page is archived all the same; obeyed unless the crawl ignores robots
// or Robots.IgnoreMeta), and logs reserved custom-field names it refused.
func (c *crawler) writeDocument(u frontier.URL, docURL string, p page, ex *fetch.Exchange, res warc.Result) error {
	if p.doc == nil || c.docs == nil || (p.noIndex && !c.cfg.IgnoreRobots && !c.cfg.Robots.IgnoreMeta) {
		return nil
	}
	info := report.URLInfo{URL: u.URL, Hops: u.Hops, Via: u.Via, Seed: u.Seed}
	for _, name := range p.doc.ReservedFieldConflicts {
		if err := c.events.Event(report.Event{
			Action: "document-field-denied", Type: "denied", Outcome: "failure", Reason: "reserved-field", URL: &info,
			Message: fmt.Sprintf("custom field %q is a reserved field name and was not written", name),
		}); err != nil {
			return fmt.Errorf("write document event: %w", err)
		}
	}
	if _, err := c.docs.add(docURL, p.doc, res.Filename, res.Offset, ex.Started); err != nil {
		return err
	}
	return nil
}
