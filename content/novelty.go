package content

import (
	"context"

	"github.com/amber-crawler/amber/chain"
	"github.com/amber-crawler/amber/novelty"
)

// Novelty is the chain's step that measures how much of a page's text is new to the crawl
// (package novelty) and puts the measure on the page's capture (chain.Capture.Text), which
// its crawl.log line carries (textShingles, textNew) for the reports' waste report. It
// measures the title and body of the page's search document, the documents of noindex pages
// included (it comes before the robots meta step drops them); a crawl without documents
// measures nothing. Memory is fixed (novelty.Seen).
type Novelty struct{ seen *novelty.Seen }

// NewNovelty returns the step, with nothing seen yet.
func NewNovelty() *Novelty { return &Novelty{seen: novelty.NewSeen()} }

// Name is the processor's name.
func (*Novelty) Name() string { return "novelty" }

// After measures the page's document, if it has one.
func (n *Novelty) After(_ context.Context, r *chain.Record) (chain.Verdict, error) {
	d := r.Content.Document
	if d == nil || r.Content.Listed || r.Doc >= len(r.Captures) {
		return chain.Proceed, nil
	}
	m := n.seen.Measure(d.Title + "\n" + d.Body)
	r.Captures[r.Doc].Text = &m
	return chain.Proceed, nil
}
