package crawl

import (
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/amber-crawler/amber/chain"
	"github.com/amber-crawler/amber/documents"
	"github.com/amber-crawler/amber/extract"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/hop"
	"github.com/amber-crawler/amber/prior"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/status"
	"github.com/amber-crawler/amber/warc"
)

// records writes what the crawl keeps of the URLs it meets: each capture in the WARC files
// (counted by the budget), with its events and crawl.log line; a page's search document; and
// the URLs it kept out (refused before their fetch, or a page's sub-requests refused or
// without a response), in the frontier, crawl.log and events. It is the chain's Lines and
// Archiver (chain.Env): processors write their lines and exchanges as the crawl does.
type records struct {
	warc   *warc.Writer
	clog   *report.CrawlLog
	events *report.Events
	docs   *documents.Stream // nil when documents are off
	tally  *tally            // crawl.log lines of this run, for the run's figures
	budget *budget
	// front is the crawl's frontier as its observers watch it (Handle.Watch); frontierErr
	// sorts its errors (crawler.frontierErr).
	front       func() frontier.Store
	frontierErr func(error) error
}

// Archive archives one exchange (request, response or revisit, metadata, CDXJ line) and
// writes its events and crawl.log line; an exchange the crawl holds already (Capture.Once,
// warc.Result.Held) is not archived, logged or counted again. An exchange whose body was not
// fetched (fetch.Exchange.BodyNotFetched, its capture marked why by the content filter) has
// no response to archive: its request and metadata records are written. An error is fatal
// for the crawl.
func (w *records) Archive(worker int, ex *fetch.Exchange, k chain.Capture) (warc.Result, error) {
	if err := w.challenge(worker, ex, k); err != nil {
		return warc.Result{}, err
	}
	c := warc.Capture{
		URL: ex.URL, Date: ex.Started, IP: ex.RemoteIP, Request: ex.Request,
		Response: responseReader(ex), ResponseSize: ex.ResponseSize(), Truncated: ex.Truncated,
		Via: k.Via, Hops: k.Hops, Seed: k.Seed, Outlinks: k.Outlinks,
		Extra:       append(captureFields(ex), k.Fields...),
		NotModified: k.NotModified, Once: k.Once,
	}
	var res warc.Result
	var err error
	if ex.BodyNotFetched {
		res, err = w.warc.WriteRequest(c)
	} else {
		res, err = w.warc.WriteCapture(c)
	}
	if err != nil {
		return res, fmt.Errorf("write warc: %w", err)
	}
	if res.Held {
		return res, nil
	}
	w.budget.counted(ex.ResponseSize(), k.CountURL)
	info := report.URLInfo{URL: ex.URL, Hops: k.Hops, Via: k.Via, Seed: k.Seed}
	if err := w.events.URLCaptured(info, ex.StatusCode, ex.ResponseSize(), ex.Duration, res.Filename, res.Offset); err != nil {
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
	mime := extract.MediaType(ex.Header.Get("Content-Type"))
	if mime == "" {
		mime = k.Type
	}
	extra := map[string]any{"warcFilename": res.Filename, "warcFileOffset": res.Offset, report.ExtraContentSize: ex.ResponseSize()}
	if k.Text != nil {
		extra[report.ExtraTextShingles], extra[report.ExtraTextNew] = k.Text.Shingles, k.Text.New
	}
	return res, w.WriteLine(report.Line{
		Status: ex.StatusCode, Size: ex.BodySize(), URL: ex.URL, Hops: k.Hops, Via: k.Via,
		MIME: mime, Thread: worker,
		FetchStart: ex.Started, FetchDur: ex.Duration, Digest: res.PayloadDigest, Seed: k.Seed,
		Annotations: ann, Extra: extra,
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

// archiveAll archives every exchange of a fetch with its capture, and the screenshot of a
// rendered page; it returns the records of each exchange.
func (w *records) archiveAll(worker int, u frontier.URL, res *fetch.Result, caps []chain.Capture) ([]warc.Result, error) {
	recs := make([]warc.Result, 0, len(res.Exchanges))
	for i, ex := range res.Exchanges {
		r, err := w.Archive(worker, ex, caps[i])
		if err != nil {
			return recs, err
		}
		recs = append(recs, r)
	}
	// A page answered 304 rendered nothing: its screenshot is of an empty page.
	if res.Render != nil && len(res.Render.Screenshot) > 0 && caps[0].NotModified == nil {
		if _, err := w.warc.WriteResource("urn:screenshot:"+u.URL, "image/png", res.Exchanges[0].Started, res.Render.Screenshot, recs[0].RecordID); err != nil {
			return recs, fmt.Errorf("write screenshot: %w", err)
		}
	}
	return recs, nil
}

// challenge archives the 401 that an exchange answered (fetch.Exchange.Challenge, a
// realm of Config.Fetch.Auth) before the exchange itself: at the same place in the crawl,
// annotated auth-challenge, not counted as a URL.
func (w *records) challenge(worker int, ex *fetch.Exchange, k chain.Capture) error {
	if ex.Challenge == nil {
		return nil
	}
	k.Annotate("auth-challenge")
	k.Outlinks, k.Fields, k.NotModified, k.CountURL = nil, nil, nil, false
	_, err := w.Archive(worker, ex.Challenge, k)
	return err
}

// aside archives a fetch of r's claimed URL that does not count (login.Deps): its
// exchanges placed as the URL's own, the first annotated note, none counted as a URL.
func (w *records) aside(r *chain.Record, res *fetch.Result, note string) error {
	aside := &chain.Record{Claim: r.Claim, Result: res}
	captures(aside)
	aside.Captures[0].Annotations = append(aside.Captures[0].Annotations, note)
	for i := range aside.Captures {
		aside.Captures[i].CountURL = false
	}
	_, err := w.archiveAll(r.Worker, r.URL(), res, aside.Captures)
	return err
}

// document writes the search document of the capture the page shows, and logs
// reserved custom-field names it refused.
func (w *records) document(r *chain.Record) error {
	doc := r.Content.Document
	if doc == nil || w.docs == nil {
		return nil
	}
	info := r.Info()
	for _, name := range doc.ReservedFieldConflicts {
		if err := w.events.Event(report.Event{
			Action: "document-field-denied", Type: "denied", Outcome: "failure", Reason: "reserved-field", URL: &info,
			Message: fmt.Sprintf("custom field %q is a reserved field name and was not written", name),
		}); err != nil {
			return fmt.Errorf("write document event: %w", err)
		}
	}
	ex, rec := r.Exchange(), r.Records[r.Doc]
	if _, err := w.docs.Add(r.DocURL(), doc, rec.Filename, rec.Offset, ex.Started); err != nil {
		return err
	}
	return nil
}

// refuse records a URL u that page pointed at (an outlink, a sub-request) and the crawl kept
// out with outcome o: in the frontier, so it is reported and never queued later, and, the
// first time, in crawl.log and events.
func (w *records) refuse(worker int, page, u frontier.URL, o chain.Outcome) error {
	first, err := w.front().Reject(u, refusalReason(o))
	switch {
	case errors.Is(err, frontier.ErrURL):
		// Too big to remember: logged each time a page points at it, never fatal.
		first = true
	case err != nil:
		return w.frontierErr(err)
	}
	if !first {
		return nil
	}
	info := report.URLInfo{URL: u.URL, Hops: u.Hops, Via: page.URL, Seed: page.Seed}
	if o.FetchEvent {
		if err := w.events.URLFetch(info, o.Status, 0, 0); err != nil {
			return fmt.Errorf("write fetch event: %w", err)
		}
	}
	if err := w.WriteLine(report.Line{Status: o.Status, Size: -1, URL: u.URL, Hops: u.Hops, Via: page.URL,
		Thread: worker, Seed: page.Seed, Annotations: o.Annotations}); err != nil {
		return err
	}
	if o.Denied != "" {
		if err := w.events.URLDiscoverDenied(info, o.Denied, o.ScopeReason); err != nil {
			return fmt.Errorf("write %s event: %w", o.Denied, err)
		}
	}
	return nil
}

// refused records the sub-requests of a fetch that were refused (subs: with the
// outcome admit gave; a refusal the fetcher made itself, with its reason as a block rule's)
// or that got no response, so nothing the page wanted is invisible.
func (w *records) refused(worker int, u frontier.URL, res *fetch.Result, subs *subRequests) error {
	embedHops := u.Hops + string(hop.Embed)
	for _, b := range res.Blocked {
		o, ok := subs.outcome(b.URL)
		if !ok {
			o = scopeOutcome(b.Reason, "")
		}
		sub := frontier.URL{URL: b.URL, Host: hostKey(b.URL), Hops: embedHops, Via: u.URL, Seed: u.Seed}
		if err := w.refuse(worker, u, sub, o); err != nil {
			return err
		}
	}
	for _, f := range res.Failed {
		var ref *chain.Refusal
		if errors.As(f.Err, &ref) { // a policy refused its address
			sub := frontier.URL{URL: f.URL, Host: hostKey(f.URL), Hops: embedHops, Via: u.URL, Seed: u.Seed}
			if err := w.refuse(worker, u, sub, scopeOutcome(ref.Reason, "")); err != nil {
				return err
			}
			continue
		}
		code := status.ConnectFailed
		var fe *fetch.Error
		if errors.As(f.Err, &fe) {
			code = fe.Status()
		}
		if err := w.WriteLine(report.Line{Status: code, Size: -1, URL: f.URL, Hops: embedHops, Via: u.URL,
			Thread: worker, Seed: u.Seed, Annotations: annotations(res, "err:"+chain.ErrorWord(f.Err))}); err != nil {
			return err
		}
	}
	return nil
}

// WriteLine writes a crawl.log line (a zero Time is now) and counts it for the run's figures.
func (w *records) WriteLine(l report.Line) error {
	if err := w.clog.Write(l); err != nil {
		return fmt.Errorf("write crawl.log: %w", err)
	}
	w.tally.add(l)
	return nil
}
