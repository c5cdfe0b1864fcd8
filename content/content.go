// Package content reads what a fetched URL's response holds for the crawl, as a processor of
// its chain (package chain): the URLs it points at (links, embeds, redirects, the inferred
// favicon of a host met for the first time) and its search document, from the response body
// for a plain fetch and from the rendered DOM for a page a browser loaded. Both give the same
// page-level signals: robots meta nofollow and noindex, rel=nofollow links, feeds. Parsing is
// package extract's; this package decides what is parsed, how much, and with which options.
package content

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"sync"

	"github.com/amber-crawler/amber/chain"
	"github.com/amber-crawler/amber/extract"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/hop"
	"github.com/amber-crawler/amber/weburl"
)

// Config is what the Reader reads with.
type Config struct {
	// Documents configures the search documents; NoDocuments makes none.
	Documents   extract.DocConfig
	NoDocuments bool
	// MaxOutlinks is the crawl's cap of distinct URLs a page adds (the Reader keeps twice as
	// many references, see extractLimit).
	MaxOutlinks int
	// RefreshRedirectMax is the longest <meta http-equiv=refresh> delay that is a redirect
	// (extract.Options.RefreshRedirectMax).
	RefreshRedirectMax *int
	// IgnoreMeta does not obey the robots meta nofollow of a rendered page's main frame.
	IgnoreMeta bool
}

// maxExtractBytes bounds the prefix of a decoded body (or of a rendered page's HTML) that is
// parsed for outlinks and the search document: 8 MiB, above Elastic's 5 MiB of document text
// and far above the HTML of real pages, so that a gzip bomb or an endless body costs at most
// this much memory however large it is. The rest of the body is archived, not parsed.
const maxExtractBytes = 8 << 20

// Reader is the chain's step that reads a fetched URL's content (Record.Content). Content a
// processor marked unread, and a listing document's, is not read.
type Reader struct {
	cfg Config
	log *slog.Logger

	mu    sync.Mutex          // guards hosts
	hosts map[string]struct{} // hosts whose favicon was inferred in this run
}

// New returns a Reader; a nil log discards.
func New(cfg Config, log *slog.Logger) *Reader {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Reader{cfg: cfg, log: log, hosts: map[string]struct{}{}}
}

// Name is the processor's name.
func (*Reader) Name() string { return "read" }

// After reads the content of the exchange the page shows (Record.Shown: a 304's earlier
// capture, read back, is read as the 200 with it would have been).
func (rd *Reader) After(_ context.Context, r *chain.Record) (chain.Verdict, error) {
	if r.Content.Unread || r.Content.Listed {
		return chain.Proceed, nil
	}
	if r.Result.Render != nil {
		r.Content = rd.analyseRendered(r.Exchange(), r.Result.Render, r.Result.Exchanges)
	} else {
		r.Content = rd.analyseBody(r.URL().URL, r.Shown())
	}
	return chain.Proceed, nil
}

// Reads reports whether the Reader reads the content of a plain fetch's response of media
// type mt (lowercase, without parameters) for more than its Location and Refresh fields:
// the links of HTML and CSS, the search document of a binary type the documents' settings
// list; and a response without a Content-Type (""), whose type is sniffed.
func (rd *Reader) Reads(mt string) bool {
	return mt == "" || extract.Reads(mt) || !rd.cfg.NoDocuments && rd.cfg.Documents.ExtractsBinary(mt)
}

// analyseBody returns everything a plain capture points at: the redirect target, the Refresh
// header, links and embeds in the body, and the inferred favicon; and, for a 2xx HTML page (or
// a binary type the config lists), its search document.
func (rd *Reader) analyseBody(pageURL string, ex *fetch.Exchange) chain.Content {
	var p chain.Content
	if loc := ex.Header.Get("Location"); loc != "" && redirect(ex.StatusCode) {
		if abs, ok := weburl.Resolve(pageURL, loc); ok {
			p.Links = append(p.Links, extract.Outlink{URL: abs, Hop: hop.Redirect, Context: "header/location"})
		}
	}
	if rf := ex.Header.Get("Refresh"); rf != "" {
		if abs, ok := extract.RefreshURL(pageURL, rf); ok {
			p.Links = append(p.Links, extract.Outlink{URL: abs, Hop: hop.Redirect, Context: "header/refresh"})
		}
	}
	if redirect(ex.StatusCode) {
		return p
	}
	ok2xx := ex.StatusCode >= 200 && ex.StatusCode < 300
	ct := extract.MediaType(ex.Header.Get("Content-Type"))
	binary := ok2xx && rd.cfg.Documents.ExtractsBinary(ct)
	if !extract.Reads(ct) && ct != "" && !binary {
		return p
	}
	buf := bodyBuffers.Get().(*bytes.Buffer)
	defer releaseBody(buf)
	if err := ex.ReadBodyTo(buf, maxExtractBytes); err != nil {
		rd.log.Debug("read body for extraction", "url", pageURL, "err", err)
	}
	body := buf.Bytes()
	if ct == "" {
		ct = extract.MediaType(http.DetectContentType(body))
	}
	if binary && !rd.cfg.NoDocuments {
		doc, err := extract.ParseBinary(pageURL, ct, body, rd.cfg.Documents)
		if err != nil {
			rd.log.Debug("extract binary document", "url", pageURL, "err", err)
		}
		p.Document = doc
	}
	if !extract.Reads(ct) {
		return p
	}
	// The Content-Type header's charset matters for decoding the page.
	ctHeader := ex.Header.Get("Content-Type")
	if ctHeader == "" {
		ctHeader = ct
	}
	r := rd.parse(pageURL, ctHeader, body, ok2xx && ct != "text/css")
	p.Document, p.NoFollow, p.NoIndex, p.Dropped = r.Document, r.NoFollow, r.NoIndex, r.OutlinksDropped
	p.Generator = r.Generator
	p.Links = append(p.Links, r.Outlinks...)
	if extract.IsHTML(ct) {
		p.Links = rd.withFavicon(pageURL, p.Links, nil)
	}
	return p
}

// analyseRendered returns what a rendered page points at: the links of its rendered DOM (all
// frames; the browser fetched the embeds itself) and the inferred favicon, unless the page load
// (loaded: the exchanges of the fetch) asked for it already; the robots meta and the search
// document come from the rendered DOM of the main frame, the document of ex.
func (rd *Reader) analyseRendered(ex *fetch.Exchange, r *fetch.Render, loaded []*fetch.Exchange) chain.Content {
	var p chain.Content
	for _, l := range r.Links {
		p.Links = append(p.Links, extract.Outlink{URL: l.URL, Hop: hop.Link, Context: l.Context, NoFollow: l.NoFollow})
	}
	if r.HTML == "" || redirect(ex.StatusCode) || !extract.IsHTML(extract.MediaType(ex.Header.Get("Content-Type"))) {
		return p
	}
	ok2xx := ex.StatusCode >= 200 && ex.StatusCode < 300
	html := r.HTML
	if len(html) > maxExtractBytes {
		html = html[:maxExtractBytes]
	}
	res := rd.parse(ex.URL, "text/html; charset=utf-8", []byte(html), ok2xx)
	p.Document, p.NoFollow, p.NoIndex, p.Generator = res.Document, res.NoFollow, res.NoIndex, res.Generator
	// Chromium's links have neither a <meta http-equiv=refresh> target nor the feeds a page
	// names (<link rel=alternate type=application/rss+xml>): they come from the rendered DOM,
	// as the plain fetcher has them (a refresh's hop R, or L above URLs.RefreshRedirectMax).
	for _, o := range res.Outlinks {
		if o.Context == "meta/@content" {
			p.Links = append(p.Links, o)
		} else if o.Feed {
			p.Links = markFeed(p.Links, o)
		}
	}
	if res.NoFollow && rd.cfg.IgnoreMeta {
		p.Links = relNoFollowOnly(p.Links, res.Outlinks)
	}
	p.Links = rd.withFavicon(ex.URL, p.Links, loaded)
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
func (rd *Reader) parse(pageURL, contentType string, body []byte, withDocument bool) extract.Result {
	opt := extract.Options{MaxOutlinks: rd.extractLimit(), RefreshRedirectMax: rd.cfg.RefreshRedirectMax}
	if withDocument && !rd.cfg.NoDocuments {
		opt.Document = &rd.cfg.Documents
	}
	res, err := extract.ParseWith(pageURL, contentType, body, opt)
	if err != nil {
		rd.log.Debug("extract", "url", pageURL, "err", err)
	}
	return res
}

// extractLimit is the most references extraction keeps from one body: twice MaxOutlinks, so
// that the cap, which counts distinct canonical URLs (the crawl's outlink decision), is rarely reached early by a URL
// found both as a link and as an embed or by spellings of one URL; and memory stays bounded.
func (rd *Reader) extractLimit() int { return 2 * rd.cfg.MaxOutlinks }

// bodyBuffers hold the decoded bodies analyseBody reads, given back once the body is parsed:
// a new buffer for every page was the largest single allocation of a crawl (6 KB a 5 KB page).
// What extraction returns (links, the search document) holds copies, never the body's bytes.
var bodyBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooledBody is the largest buffer kept for the next body: a rare large page's buffer is
// left to the collector rather than held by the pool.
const maxPooledBody = 1 << 20

func releaseBody(b *bytes.Buffer) {
	if b.Cap() > maxPooledBody {
		return
	}
	b.Reset()
	bodyBuffers.Put(b)
}

// withFavicon adds the inferred /favicon.ico of the page's host the first time the host is
// seen in this run (the frontier's seen set makes later runs' repeats harmless), unless one of
// the exchanges the page was loaded with (loaded) is that favicon: a browser that asked for
// it has it archived with the page, and a second fetch would archive it again (with
// the browser's Accept-Encoding, or a 404, not even as a revisit).
func (rd *Reader) withFavicon(page string, links []extract.Outlink, loaded []*fetch.Exchange) []extract.Outlink {
	h := host(page)
	rd.mu.Lock()
	_, seen := rd.hosts[h]
	rd.hosts[h] = struct{}{}
	rd.mu.Unlock()
	fav := extract.Favicon(page)
	if seen || slices.ContainsFunc(loaded, func(ex *fetch.Exchange) bool { return ex.URL == fav.URL }) {
		return links
	}
	return append(links, fav)
}

// redirect reports whether code is a redirect's.
func redirect(code int) bool { return code >= 300 && code < 400 }

// host is the host[:port] of a URL, "" when it does not parse.
func host(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Host
}
