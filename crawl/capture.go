package crawl

import (
	"fmt"
	"io"
	"mime"
	"net/url"
	"strconv"
	"strings"

	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/hop"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/warc"
)

// capture says where an exchange sits in the crawl, for its records and log lines.
type capture struct {
	hops, via, seed string
	outlinks        []warc.Outlink
	fields          []warc.Field // metadata lines besides the exchange's own
	annotations     []string     // crawl.log annotations besides duplicate and truncation
	countURL        bool         // counts towards the URL limit (robots.txt does not)
	// notModified is the earlier capture the request was made conditional on (RecrawlOf):
	// a 304 is then written as a server-not-modified revisit of it.
	notModified *warc.Original
}

// captures places every exchange of a fetch in the crawl. The first is the claimed URL itself.
// A rendering fetcher follows the URL's redirects inside the page load: each hop continues the
// URL's hop path with R, via the previous hop, and, for a seed's own chain, widens the seed's
// scope (spec/scope.md §3.2) as a queued redirect would. Everything after the chain is an
// embed of the page, listed in the page's metadata record. doc is the index of the end of the
// chain: the exchange whose content the page shows.
func (c *crawler) captures(u frontier.URL, res *fetch.Result) (caps []capture, doc int) {
	caps = make([]capture, len(res.Exchanges))
	ann := c.annotations(res)
	for i := range caps {
		caps[i] = capture{hops: u.Hops, via: u.Via, seed: u.Seed, annotations: ann, countURL: true}
	}
	if u.Attempts > 0 {
		caps[0].annotations = append(caps[0].annotations, attemptsNote(u.Attempts+1))
	}
	if r := res.Render; r != nil && r.TimedOut {
		caps[0].fields = []warc.Field{{Name: "pageTimedOut", Value: "true"}}
		caps[0].annotations = append(caps[0].annotations, "page-timeout")
	}
	chain, chainHops := true, u.Hops
	for i := 1; i < len(res.Exchanges); i++ {
		prev, ex := res.Exchanges[i-1], res.Exchanges[i]
		loc, ok := resolve(prev.URL, prev.Header.Get("Location"))
		if chain && isRedirect(prev.StatusCode) && ok && loc == ex.URL {
			chainHops += string(hop.Redirect)
			caps[i].hops, caps[i].via = chainHops, prev.URL
			c.promote(u, ex.URL, chainHops)
			doc = i
			continue
		}
		chain = false
		caps[i].hops, caps[i].via = u.Hops+string(hop.Embed), u.URL
		caps[0].outlinks = append(caps[0].outlinks, warc.Outlink{URL: ex.URL, Hop: string(hop.Embed), Context: "browser"})
	}
	// A script navigation of a seed's page widens the seed's scope like a redirect.
	if r := res.Render; r != nil && u.Hops == "" && r.FinalURL != "" {
		c.promote(u, r.FinalURL, string(hop.Redirect))
	}
	return caps, doc
}

func isRedirect(code int) bool { return code >= 300 && code < 400 }

// record archives one exchange (request, response or revisit, metadata, CDXJ line) and
// writes its events and crawl.log line. An error is fatal for the crawl.
func (c *crawler) record(worker int, ex *fetch.Exchange, k capture) (warc.Result, error) {
	if err := c.recordChallenge(worker, ex, k); err != nil {
		return warc.Result{}, err
	}
	res, err := c.warc.WriteCapture(warc.Capture{
		URL: ex.URL, Date: ex.Started, IP: ex.RemoteIP, Request: ex.Request,
		Response: responseReader(ex), ResponseSize: ex.ResponseSize(), Truncated: ex.Truncated,
		Via: k.via, Hops: k.hops, Seed: k.seed, Outlinks: k.outlinks,
		Extra:       append(captureFields(ex), k.fields...),
		NotModified: k.notModified,
	})
	if err != nil {
		return res, fmt.Errorf("write warc: %w", err)
	}
	if k.countURL {
		c.fetched.Add(1)
	}
	if n := c.addBytes(ex.ResponseSize()); c.cfg.LimitBytes > 0 && n >= c.cfg.LimitBytes {
		c.limitHit.Store(true)
	}
	info := report.URLInfo{URL: ex.URL, Hops: k.hops, Via: k.via, Seed: k.seed}
	if err := c.events.URLCaptured(info, ex.StatusCode, ex.ResponseSize(), ex.Duration, res.Filename, res.Offset); err != nil {
		return res, fmt.Errorf("write fetch and output events: %w", err)
	}
	ann := k.annotations
	switch {
	case res.NotModified:
		ann = append(ann, priorNote)
	case res.Revisit:
		ann = append(ann, "duplicate:digest")
	}
	if ex.Truncated != "" {
		ann = append(ann, "truncated:"+ex.Truncated)
	}
	return res, c.logLine(report.Line{
		Status: ex.StatusCode, Size: ex.BodySize(), URL: ex.URL, Hops: k.hops, Via: k.via,
		MIME: mediaType(ex.Header.Get("Content-Type")), Thread: worker,
		FetchStart: ex.Started, FetchDur: ex.Duration, Digest: res.PayloadDigest, Seed: k.seed,
		Annotations: ann,
		Extra:       map[string]any{"warcFilename": res.Filename, "warcFileOffset": res.Offset, report.ExtraContentSize: ex.ResponseSize()},
	})
}

// responseReader gives the exact response bytes; an error opening them surfaces when the WARC
// writer reads.
func responseReader(ex *fetch.Exchange) io.Reader {
	r, err := ex.Response()
	if err != nil {
		return errReader{err}
	}
	return r
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// captureFields are the extra metadata-record lines of a capture.
func captureFields(ex *fetch.Exchange) []warc.Field {
	f := []warc.Field{{Name: "fetchTimeMs", Value: strconv.FormatInt(ex.Duration.Milliseconds(), 10)}}
	if ex.TLS != nil {
		f = append(f,
			warc.Field{Name: "tlsVersion", Value: ex.TLS.Version},
			warc.Field{Name: "tlsCipherSuite", Value: ex.TLS.CipherSuite},
			warc.Field{Name: "tlsCertificateVerified", Value: strconv.FormatBool(ex.TLS.Verified)})
		if ex.TLS.VerifyError != "" {
			f = append(f, warc.Field{Name: "tlsCertificateError", Value: ex.TLS.VerifyError})
		}
	}
	return f
}

// mediaType is the Content-Type without parameters, lowercased; "" when absent.
func mediaType(ct string) string {
	if ct == "" {
		return ""
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		mt, _, _ = strings.Cut(ct, ";")
		mt = strings.ToLower(strings.TrimSpace(mt))
	}
	return mt
}

// hostKey is the politeness key of a canonical URL: host[:port].
func hostKey(canonical string) string {
	u, err := url.Parse(canonical)
	if err != nil {
		return ""
	}
	return u.Host
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
