package crawl

import (
	"fmt"
	"io"
	"mime"
	"net/url"
	"strconv"
	"strings"

	"github.com/amber-crawler/amber/chain"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/hop"
	"github.com/amber-crawler/amber/prior"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/warc"
)

// captures places every exchange of a fetch in the crawl (Record.Captures, Record.Doc). The
// first is the claimed URL itself, with the notes processors gave before the fetch
// (Record.Notes). A rendering fetcher follows the URL's redirects inside the page load: each
// hop continues the URL's hop path with R, via the previous hop. Everything after the chain
// is an embed of the page, listed in the page's metadata record. Doc is the index of the end
// of the chain: the exchange whose content the page shows.
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
		caps[i].Hops, caps[i].Via = u.Hops+string(hop.Embed), u.URL
		caps[0].Outlinks = append(caps[0].Outlinks, warc.Outlink{URL: ex.URL, Hop: string(hop.Embed), Context: "browser"})
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
		c.promote(u, r.Result.Exchanges[i].URL, r.Captures[i].Hops)
	}
	if rd := r.Result.Render; rd != nil && u.Hops == "" && rd.FinalURL != "" {
		c.promote(u, rd.FinalURL, string(hop.Redirect))
	}
}

func isRedirect(code int) bool { return code >= 300 && code < 400 }

// record archives one exchange (request, response or revisit, metadata, CDXJ line) and
// writes its events and crawl.log line. An error is fatal for the crawl.
func (c *crawler) record(worker int, ex *fetch.Exchange, k chain.Capture) (warc.Result, error) {
	if err := c.recordChallenge(worker, ex, k); err != nil {
		return warc.Result{}, err
	}
	res, err := c.warc.WriteCapture(warc.Capture{
		URL: ex.URL, Date: ex.Started, IP: ex.RemoteIP, Request: ex.Request,
		Response: responseReader(ex), ResponseSize: ex.ResponseSize(), Truncated: ex.Truncated,
		Via: k.Via, Hops: k.Hops, Seed: k.Seed, Outlinks: k.Outlinks,
		Extra:       append(captureFields(ex), k.Fields...),
		NotModified: k.NotModified,
	})
	if err != nil {
		return res, fmt.Errorf("write warc: %w", err)
	}
	if k.CountURL {
		c.fetched.Add(1)
	}
	if n := c.addBytes(ex.ResponseSize()); c.cfg.LimitBytes > 0 && n >= c.cfg.LimitBytes {
		c.limitHit.Store(true)
	}
	info := report.URLInfo{URL: ex.URL, Hops: k.Hops, Via: k.Via, Seed: k.Seed}
	if err := c.events.URLCaptured(info, ex.StatusCode, ex.ResponseSize(), ex.Duration, res.Filename, res.Offset); err != nil {
		return res, fmt.Errorf("write fetch and output events: %w", err)
	}
	ann := k.Annotations
	switch {
	case res.NotModified:
		ann = append(ann, prior.NoteNotModified)
	case res.Revisit:
		ann = append(ann, "duplicate:digest")
	}
	if ex.Truncated != "" {
		ann = append(ann, "truncated:"+ex.Truncated)
	}
	return res, c.logLine(report.Line{
		Status: ex.StatusCode, Size: ex.BodySize(), URL: ex.URL, Hops: k.Hops, Via: k.Via,
		MIME: mediaType(ex.Header.Get("Content-Type")), Thread: worker,
		FetchStart: ex.Started, FetchDur: ex.Duration, Digest: res.PayloadDigest, Seed: k.Seed,
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

// recordAll archives every exchange of a fetch with its capture, and the screenshot of a
// rendered page; it returns the records of each exchange.
func (c *crawler) recordAll(worker int, u frontier.URL, res *fetch.Result, caps []chain.Capture) ([]warc.Result, error) {
	recs := make([]warc.Result, 0, len(res.Exchanges))
	for i, ex := range res.Exchanges {
		r, err := c.record(worker, ex, caps[i])
		if err != nil {
			return recs, err
		}
		recs = append(recs, r)
	}
	// A page answered 304 rendered nothing: its screenshot is of an empty page.
	if res.Render != nil && len(res.Render.Screenshot) > 0 && caps[0].NotModified == nil {
		if _, err := c.warc.WriteResource("urn:screenshot:"+u.URL, "image/png", res.Exchanges[0].Started, res.Render.Screenshot, recs[0].RecordID); err != nil {
			return recs, fmt.Errorf("write screenshot: %w", err)
		}
	}
	return recs, nil
}

// politeKey is the frontier's politeness key of a URL the crawl requests that is not one of
// its own URLs (a robots.txt, a login step): the host of its canonical form, as the frontier's
// URLs have it.
func (c *crawler) politeKey(raw string) string {
	if cu, err := c.canonicalize(raw); err == nil {
		return hostKey(cu)
	}
	return strings.ToLower(hostKey(raw))
}

// recordChallenge archives the 401 that an exchange answered (fetch.Exchange.Challenge, a
// realm of Config.Fetch.Auth) before the exchange itself: at the same place in the crawl,
// annotated auth-challenge, not counted as a URL.
func (c *crawler) recordChallenge(worker int, ex *fetch.Exchange, k chain.Capture) error {
	if ex.Challenge == nil {
		return nil
	}
	k.Annotate("auth-challenge")
	k.Outlinks, k.Fields, k.NotModified, k.CountURL = nil, nil, nil, false
	_, err := c.record(worker, ex.Challenge, k)
	return err
}

// archiveAside archives a fetch of r's claimed URL that does not count (login.Deps): its
// exchanges placed as the URL's own, the first annotated note, none counted as a URL.
func (c *crawler) archiveAside(r *chain.Record, res *fetch.Result, note string) error {
	aside := &chain.Record{Claim: r.Claim, Result: res}
	captures(aside)
	aside.Captures[0].Annotations = append(aside.Captures[0].Annotations, note)
	for i := range aside.Captures {
		aside.Captures[i].CountURL = false
	}
	_, err := c.recordAll(r.Worker, r.URL(), res, aside.Captures)
	return err
}
