package content

import (
	"context"
	"strings"

	"github.com/amber-crawler/amber/chain"
	"github.com/amber-crawler/amber/extract"
	"github.com/amber-crawler/amber/novelty"
)

// maxNoveltyBytes bounds the body read to measure a machine-readable response's text.
const maxNoveltyBytes = 1 << 20

// Novelty is the chain's step that measures how much of a response's text is new to the
// crawl (package novelty) and puts the measure on its capture (chain.Capture.Text), which its
// crawl.log line carries (textShingles, textNew) for the reports' waste report. It measures
// the title and body of a page's search document (the documents of noindex pages included:
// it comes before the robots meta step drops them), and the words of a 2xx response in a
// machine-readable text format (JSON, XML, RSS and Atom feeds, plain text; its first MiB):
// an API's or a feed's copy of a page's text is no new content either. Images, styles and
// scripts are not measured; neither are pages when the crawl makes no documents. Memory is
// fixed (novelty.Seen).
type Novelty struct{ seen *novelty.Seen }

// NewNovelty returns the step, with nothing seen yet.
func NewNovelty() *Novelty { return &Novelty{seen: novelty.NewSeen()} }

// Name is the processor's name.
func (*Novelty) Name() string { return "novelty" }

// After measures the response's text, if it has text to measure.
func (n *Novelty) After(_ context.Context, r *chain.Record) (chain.Verdict, error) {
	if r.Doc >= len(r.Captures) || r.Result == nil {
		return chain.Proceed, nil
	}
	var m novelty.Measure
	if d := r.Content.Document; d != nil {
		m = n.seen.Measure(d.Title, d.Body) // not joined: the body is a page's size
	} else {
		ex := r.Exchange()
		if ex.StatusCode < 200 || ex.StatusCode >= 300 || !machineText(extract.MediaType(ex.Header.Get("Content-Type"))) {
			return chain.Proceed, nil
		}
		body, err := ex.ReadBody(maxNoveltyBytes)
		if err != nil && len(body) == 0 {
			return chain.Proceed, nil // a body that cannot be read is not measured
		}
		m = n.seen.Measure(string(body))
	}
	r.Captures[r.Doc].Text = &m
	return chain.Proceed, nil
}

// machineText reports whether mt is a machine-readable text format whose words are measured:
// JSON, XML (feeds included) and plain text.
func machineText(mt string) bool {
	switch mt {
	case "application/json", "text/xml", "application/xml", "text/plain", "application/rss+xml",
		"application/atom+xml", "application/rdf+xml":
		return true
	}
	return strings.HasSuffix(mt, "+json") || strings.HasSuffix(mt, "+xml")
}
