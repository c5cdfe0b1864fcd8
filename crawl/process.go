package crawl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/amber-crawler/amber/extract"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/scope"
	"github.com/amber-crawler/amber/warc"
)

// maxExtractBytes bounds how much of a decoded body is parsed for links.
const maxExtractBytes = 32 << 20

// process takes one claimed URL through the pipeline. It returns an error only when the crawl
// must stop (the WARC or the frontier cannot be written).
func (c *crawler) process(ctx context.Context, worker int, cl *frontier.Claim) error {
	u := cl.URL
	if !c.cfg.IgnoreRobots {
		verdict, err := c.robots.check(ctx, worker, u)
		if err != nil {
			c.unreserve()
			if ctx.Err() != nil {
				return nil // shutting down: the claim goes back to the queue on the next run
			}
			return err
		}
		switch verdict {
		case robotsDisallowed:
			c.unreserve()
			if err := c.logLine(report.Line{Status: report.StatusRobots, Size: -1, URL: u.URL, Hops: u.Hops, Via: u.Via,
				Thread: worker, Seed: u.Seed, Annotations: []string{"robots"}}); err != nil {
				return err
			}
			info := report.URLInfo{URL: u.URL, Hops: u.Hops, Via: u.Via, Seed: u.Seed}
			if err := c.events.URLDiscoverDenied(info, report.DenyRobots, ""); err != nil {
				return fmt.Errorf("crawl: %w", err)
			}
			return c.frontierErr(c.front.Failed(cl, report.StatusRobots))
		case robotsUnavailable:
			// robots.txt answered 5xx or not at all: disallow for now, try again later.
			c.unreserve()
			retried, err := c.front.RetryStatus(cl, time.Now().Add(c.backoff(u.Attempts)), report.StatusRobots)
			if err != nil {
				return c.frontierErr(err)
			}
			if !retried {
				return c.logLine(report.Line{Status: report.StatusRobots, Size: -1, URL: u.URL, Hops: u.Hops, Via: u.Via,
					Thread: worker, Seed: u.Seed, Annotations: []string{"robots-unavailable", attemptsNote(u.Attempts + 1)}})
			}
			return nil
		}
	}

	if c.browser != nil && pageLike(u.Hops) {
		return c.processPage(ctx, worker, cl)
	}
	req := fetch.Request{URL: u.URL}
	if u.Via != "" {
		req.Header = http.Header{"Referer": {u.Via}}
	}
	ex, err := c.client.Do(ctx, req)
	if err != nil {
		c.unreserve()
		if ctx.Err() != nil {
			return nil
		}
		return c.fetchFailed(worker, cl, err)
	}
	defer ex.Close()

	if retryStatus(ex.StatusCode) && u.Attempts+1 < c.cfg.MaxAttempts {
		// A 5xx, 429 or 503 is retried a few times before its response is archived.
		c.unreserve()
		notBefore := time.Now().Add(c.backoff(u.Attempts))
		if ra, ok := retryAfter(ex.Header.Get("Retry-After"), time.Now()); ok && (ex.StatusCode == 429 || ex.StatusCode == 503) {
			c.front.HostBackoff(u.Host, ra)
			if ra.After(notBefore) {
				notBefore = ra
			}
		}
		c.log.Debug("retry later", "url", u.URL, "status", ex.StatusCode, "attempt", u.Attempts+1)
		_, err := c.front.Retry(cl, notBefore)
		return c.frontierErr(err)
	}

	pg := c.outlinks(ex, u)
	links, denied := c.obeyNofollow(pg)
	decided := c.decide(u, links)
	ann := []string{}
	if u.Attempts > 0 {
		ann = append(ann, attemptsNote(u.Attempts+1))
	}
	res, err := c.record(worker, ex, capture{hops: u.Hops, via: u.Via, seed: u.Seed, outlinks: decided.metadata, annotations: ann, countURL: true})
	if err != nil {
		return err
	}
	if err := c.writeDocument(u, pg, ex, res); err != nil {
		return err
	}
	for _, d := range denied {
		if err := c.events.URLDiscoverDenied(report.URLInfo{URL: d, Hops: u.Hops + "L", Via: u.URL, Seed: u.Seed}, report.DenyNofollow, ""); err != nil {
			return fmt.Errorf("crawl: %w", err)
		}
	}
	// The outlinks are in the frontier before the page is done: a kill between the two
	// refetches the page, and never loses what it linked to.
	if err := c.enqueue(worker, u, decided); err != nil {
		return err
	}
	return c.frontierErr(c.front.Done(cl))
}

// capture says where an exchange sits in the crawl, for its records and log lines.
type capture struct {
	hops, via, seed string
	outlinks        []warc.Outlink
	fields          []warc.Field // metadata lines besides the exchange's own
	annotations     []string     // crawl.log annotations besides duplicate and truncation
	countURL        bool         // counts towards the URL limit (robots.txt does not)
}

// record archives one exchange (request, response or revisit, metadata, CDXJ line) and
// writes its events and crawl.log line. An error is fatal for the crawl.
func (c *crawler) record(worker int, ex *fetch.Exchange, k capture) (warc.Result, error) {
	res, err := c.warc.WriteCapture(warc.Capture{
		URL: ex.URL, Date: ex.Started, IP: ex.RemoteIP, Request: ex.Request,
		Response: responseReader(ex), ResponseSize: ex.ResponseSize(), Truncated: ex.Truncated,
		Via: k.via, Hops: k.hops, Seed: k.seed, Outlinks: k.outlinks,
		Extra: append(captureFields(ex), k.fields...),
	})
	if err != nil {
		return res, fmt.Errorf("crawl: write warc: %w", err)
	}
	if k.countURL {
		c.fetched.Add(1)
	}
	if n := c.bytes.Add(ex.ResponseSize()); c.cfg.LimitBytes > 0 && n >= c.cfg.LimitBytes {
		c.limitHit.Store(true)
	}
	info := report.URLInfo{URL: ex.URL, Hops: k.hops, Via: k.via, Seed: k.seed}
	if err := c.events.URLFetch(info, ex.StatusCode, ex.ResponseSize(), ex.Duration); err != nil {
		return res, fmt.Errorf("crawl: %w", err)
	}
	if err := c.events.URLOutput(info, res.Filename, res.Offset); err != nil {
		return res, fmt.Errorf("crawl: %w", err)
	}
	ann := k.annotations
	if res.Revisit {
		ann = append(ann, "duplicate:digest")
	}
	if ex.Truncated != "" {
		ann = append(ann, "truncated:"+ex.Truncated)
	}
	return res, c.logLine(report.Line{
		Status: ex.StatusCode, Size: ex.ResponseSize(), URL: ex.URL, Hops: k.hops, Via: k.via,
		MIME: mediaType(ex.Header.Get("Content-Type")), Thread: worker,
		FetchStart: ex.Started, FetchDur: ex.Duration, Digest: res.PayloadDigest, Seed: k.seed,
		Annotations: ann,
		Extra:       map[string]any{"warcFilename": res.Filename, "warcFileOffset": res.Offset, "contentSize": ex.ResponseSize()},
	})
}

// obeyNofollow drops the links robots meta nofollow or rel=nofollow forbid following (unless
// the crawl ignores robots) and returns the rest and the URLs dropped. Embeds are kept: they
// are part of the page, not links to follow.
func (c *crawler) obeyNofollow(p page) ([]extract.Outlink, []string) {
	if c.cfg.IgnoreRobots {
		return p.links, nil
	}
	var kept []extract.Outlink
	var denied []string
	for _, l := range p.links {
		if l.Hop == 'L' && (p.noFollow || l.NoFollow) {
			denied = append(denied, l.URL)
			continue
		}
		kept = append(kept, l)
	}
	return kept, denied
}

// writeDocument writes the capture's search document, unless robots meta noindex forbids it
// (the page is archived all the same), and logs reserved custom-field names it refused.
func (c *crawler) writeDocument(u frontier.URL, p page, ex *fetch.Exchange, res warc.Result) error {
	if p.doc == nil || c.docs == nil || (p.noIndex && !c.cfg.IgnoreRobots) {
		return nil
	}
	info := report.URLInfo{URL: u.URL, Hops: u.Hops, Via: u.Via, Seed: u.Seed}
	for _, name := range p.doc.ReservedFieldConflicts {
		if err := c.events.Event(report.Event{
			Action: "document-field-denied", Type: "denied", Outcome: "failure", Reason: "reserved-field", URL: &info,
			Message: fmt.Sprintf("custom field %q is a reserved field name and was not written", name),
		}); err != nil {
			return fmt.Errorf("crawl: %w", err)
		}
	}
	if _, err := c.docs.add(u.URL, p.doc, res.Filename, res.Offset, ex.Started); err != nil {
		return err
	}
	return nil
}

// fetchFailed records a fetch that got no response: retried while attempts remain, else logged.
func (c *crawler) fetchFailed(worker int, cl *frontier.Claim, err error) error {
	u := cl.URL
	status, retryable := report.StatusConnectFailed, true
	var fe *fetch.Error
	if errors.As(err, &fe) {
		status, retryable = fe.Status(), fe.Retryable()
	}
	c.log.Debug("fetch failed", "url", u.URL, "err", err, "attempt", u.Attempts+1)
	if eerr := c.events.URLFetch(report.URLInfo{URL: u.URL, Hops: u.Hops, Via: u.Via, Seed: u.Seed}, status, 0, 0); eerr != nil {
		return fmt.Errorf("crawl: %w", eerr)
	}
	if retryable {
		retried, rerr := c.front.RetryStatus(cl, time.Now().Add(c.backoff(u.Attempts)), status)
		if rerr != nil {
			return c.frontierErr(rerr)
		}
		if retried {
			return nil
		}
	} else if ferr := c.front.Failed(cl, status); ferr != nil {
		return c.frontierErr(ferr)
	}
	return c.logLine(report.Line{Status: status, Size: -1, URL: u.URL, Hops: u.Hops, Via: u.Via, Thread: worker,
		Seed: u.Seed, Annotations: []string{attemptsNote(u.Attempts + 1), "err:" + errorWord(err)}})
}

// errorWord is a one-token description of a fetch error for crawl.log annotations.
func errorWord(err error) string {
	var fe *fetch.Error
	if errors.As(err, &fe) {
		if fe.Err != nil {
			return strings.Join(strings.Fields(fe.Err.Error()), "_")
		}
	}
	return strings.Join(strings.Fields(err.Error()), "_")
}

func attemptsNote(n int) string { return strconv.Itoa(n) + "t" }

// backoff is the wait before retry number attempts+1: RetryDelay doubled per earlier attempt.
func (c *crawler) backoff(attempts int) time.Duration {
	d := c.cfg.RetryDelay
	for range min(attempts, 10) {
		d *= 2
	}
	return d
}

func retryStatus(code int) bool { return code >= 500 || code == 429 }

// retryAfter parses a Retry-After header: seconds or an HTTP date. Values beyond a day are capped.
func retryAfter(v string, now time.Time) (time.Time, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return time.Time{}, false
	}
	var t time.Time
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		t = now.Add(time.Duration(n) * time.Second)
	} else if d, err := http.ParseTime(v); err == nil {
		t = d
	} else {
		return time.Time{}, false
	}
	if limit := now.Add(24 * time.Hour); t.After(limit) {
		t = limit
	}
	return t, true
}

func (c *crawler) frontierErr(err error) error {
	if err != nil {
		return fmt.Errorf("crawl: frontier: %w", err)
	}
	return nil
}

func (c *crawler) logLine(l report.Line) error {
	if l.Time.IsZero() {
		l.Time = time.Now()
	}
	if err := c.clog.Write(l); err != nil {
		return fmt.Errorf("crawl: %w", err)
	}
	return nil
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

// page is what the crawl learned from a capture's body.
type page struct {
	links    []extract.Outlink
	doc      *extract.Document // search document, nil when none is due
	noFollow bool              // robots meta nofollow
	noIndex  bool              // robots meta noindex
}

// outlinks returns everything the capture points at: the redirect target, the Refresh header,
// links in the body, and the inferred favicon of a host seen for the first time; and, for a
// 2xx HTML page (or a binary type the config lists), its search document.
func (c *crawler) outlinks(ex *fetch.Exchange, u frontier.URL) page {
	var p page
	var out []extract.Outlink
	if loc := ex.Header.Get("Location"); loc != "" && ex.StatusCode >= 300 && ex.StatusCode < 400 {
		if abs, ok := resolve(u.URL, loc); ok {
			out = append(out, extract.Outlink{URL: abs, Hop: 'R', Context: "header/location"})
		}
	}
	if rf := ex.Header.Get("Refresh"); rf != "" {
		if abs, ok := extract.RefreshURL(u.URL, rf); ok {
			out = append(out, extract.Outlink{URL: abs, Hop: 'R', Context: "header/refresh"})
		}
	}
	ok2xx := ex.StatusCode >= 200 && ex.StatusCode < 300
	if ex.StatusCode < 300 || ex.StatusCode >= 400 {
		ct := mediaType(ex.Header.Get("Content-Type"))
		binary := ok2xx && c.cfg.Documents.ExtractsBinary(ct)
		if isParsable(ct) || ct == "" || binary {
			body, err := readBody(ex)
			if err != nil {
				c.log.Debug("read body for extraction", "url", u.URL, "err", err)
			}
			if ct == "" {
				ct = mediaType(http.DetectContentType(body))
			}
			if binary && !c.cfg.NoDocuments {
				doc, err := extract.ParseBinary(u.URL, ct, body, c.cfg.Documents)
				if err != nil {
					c.log.Debug("extract binary document", "url", u.URL, "err", err)
				}
				p.doc = doc
			}
			if isParsable(ct) {
				ctHeader := ex.Header.Get("Content-Type")
				if ctHeader == "" {
					ctHeader = ct
				}
				var res extract.Result
				if ok2xx && !c.cfg.NoDocuments && ct != "text/css" {
					// The Content-Type header's charset matters for decoding the page.
					res, err = extract.ParseDocument(u.URL, ctHeader, body, c.cfg.Documents)
					p.doc = res.Document
				} else {
					res, err = extract.Parse(u.URL, ctHeader, body)
				}
				if err != nil {
					c.log.Debug("extract", "url", u.URL, "err", err)
				}
				p.noFollow, p.noIndex = res.NoFollow, res.NoIndex
				out = append(out, res.Outlinks...)
				if ct == "text/html" || ct == "application/xhtml+xml" {
					if fav := c.favicon(u.URL); fav != nil {
						out = append(out, *fav)
					}
				}
			}
		}
	}
	p.links = out
	return p
}

func isParsable(ct string) bool {
	return ct == "text/html" || ct == "application/xhtml+xml" || ct == "text/css"
}

func readBody(ex *fetch.Exchange) ([]byte, error) {
	r, err := ex.Body()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(io.LimitReader(r, maxExtractBytes))
}

// favicon returns the inferred /favicon.ico of the page's host the first time the host is seen
// in this run (the frontier's seen set makes later runs' repeats harmless).
func (c *crawler) favicon(page string) *extract.Outlink {
	h := hostKey(page)
	c.hostsMu.Lock()
	_, seen := c.hosts[h]
	c.hosts[h] = struct{}{}
	c.hostsMu.Unlock()
	if seen {
		return nil
	}
	f := extract.Favicon(page)
	return &f
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

// decision is what scope said about one distinct outlink of a page.
type decision struct {
	url      frontier.URL
	decision scope.Decision
}

// decided is the outcome of scoping a page's outlinks.
type decided struct {
	in       []frontier.URL // distinct canonical URLs to queue
	out      []decision     // distinct canonical URLs left out (none of their variants was in)
	metadata []warc.Outlink // every outlink, for the metadata record
}

// decide canonicalises and scopes every outlink. A URL found with several hop letters on one
// page is queued if any of them is in scope (an image also linked with <a> is still an embed),
// and rejected only when none is.
func (c *crawler) decide(u frontier.URL, links []extract.Outlink) decided {
	var d decided
	flavour := c.cfg.Scope.Flavour
	type entry struct {
		in   bool
		best decision
	}
	order := []string{}
	byURL := map[string]*entry{}
	for _, l := range links {
		cu, err := scope.Canonicalize(l.URL, flavour)
		if err != nil {
			continue
		}
		hops := u.Hops + string(l.Hop)
		d.metadata = append(d.metadata, warc.Outlink{URL: cu, Hop: string(l.Hop), Context: l.Context})
		if l.Hop == 'R' && isRedirectChain(u.Hops) {
			if c.scope.PromoteRedirect(u.Seed, cu, hops) {
				c.savePromotion(u.Seed, cu, hops)
			}
		}
		dec := c.scope.Decide(scope.Candidate{URL: cu, Hops: hops, Via: u.URL, ViaHopsOff: u.HopsOff, Seed: u.Seed})
		cand := decision{
			url:      frontier.URL{URL: cu, Host: hostKey(cu), Hops: hops, Via: u.URL, Seed: u.Seed, HopsOff: dec.HopsOff},
			decision: dec,
		}
		e, ok := byURL[cu]
		if !ok {
			byURL[cu] = &entry{in: dec.In, best: cand}
			order = append(order, cu)
			continue
		}
		if dec.In && !e.in {
			e.in, e.best = true, cand
		}
	}
	for _, cu := range order {
		e := byURL[cu]
		if e.in {
			d.in = append(d.in, e.best.url)
		} else {
			d.out = append(d.out, e.best)
		}
	}
	return d
}

// isRedirectChain reports whether a hop path is a seed's own redirect chain so far.
func isRedirectChain(hops string) bool {
	return strings.Trim(hops, "R") == ""
}

// enqueue adds the in-scope outlinks to the frontier and records each newly rejected URL once.
func (c *crawler) enqueue(worker int, u frontier.URL, d decided) error {
	if len(d.in) > 0 {
		added, err := c.front.AddBatch(d.in)
		if err != nil {
			return c.frontierErr(err)
		}
		for i, ok := range added {
			if !ok {
				continue
			}
			n := d.in[i]
			if err := c.events.URLDiscover(report.URLInfo{URL: n.URL, Hops: n.Hops, Via: n.Via, Seed: n.Seed}); err != nil {
				return fmt.Errorf("crawl: %w", err)
			}
		}
	}
	for _, o := range d.out {
		first, err := c.front.Reject(o.url, o.decision.Reason)
		if err != nil {
			return c.frontierErr(err)
		}
		if !first {
			continue
		}
		status := report.StatusOutOfScope
		if o.decision.Reason == scope.ReasonMaxHops {
			status = report.StatusTooManyHops
		}
		if err := c.logLine(report.Line{Status: status, Size: -1, URL: o.url.URL, Hops: o.url.Hops, Via: u.URL,
			Thread: worker, Seed: u.Seed, Annotations: []string{"scope:" + o.decision.Reason}}); err != nil {
			return err
		}
		info := report.URLInfo{URL: o.url.URL, Hops: o.url.Hops, Via: u.URL, Seed: u.Seed}
		if err := c.events.URLDiscoverDenied(info, report.DenyOutOfScope, o.decision.Reason); err != nil {
			return fmt.Errorf("crawl: %w", err)
		}
	}
	return nil
}

func (c *crawler) savePromotion(seed, target, hops string) {
	if err := c.front.PutMeta(metaPromoted+target, []byte(seed+"\x00"+hops)); err != nil {
		c.log.Warn("save seed redirect", "url", target, "err", err)
	}
	c.log.Info("seed redirect promoted to seed", "url", target, "seed", seed)
}

// restorePromotions re-applies the seed redirects seen by earlier runs.
func (c *crawler) restorePromotions() error {
	err := c.front.ScanMeta(metaPromoted, func(key string, v []byte) error {
		seed, hops, _ := strings.Cut(string(v), "\x00")
		c.scope.PromoteRedirect(seed, strings.TrimPrefix(key, metaPromoted), hops)
		return nil
	})
	if err != nil {
		return fmt.Errorf("crawl: restore seed redirects: %w", err)
	}
	return nil
}
