package crawl

import (
	"github.com/amber-crawler/amber/chain"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/warc"
)

// env is what the crawl's processors may use of it (chain.Env): its log and events, crawl.log,
// the frontier's politeness and metadata, and the archiving of their own exchanges.
func (c *crawler) env() chain.Env {
	return chain.Env{Log: c.log, Events: c.events, Lines: lines{c}, Front: c.front, Archive: archiver{c}}
}

// lines writes the crawl's crawl.log lines (chain.Lines).
type lines struct{ c *crawler }

func (l lines) WriteLine(line report.Line) error { return l.c.logLine(line) }

// archiver archives a processor's exchanges as the crawl archives its own (chain.Archiver).
type archiver struct{ c *crawler }

func (a archiver) Archive(worker int, ex *fetch.Exchange, k chain.Capture) (warc.Result, error) {
	return a.c.record(worker, ex, k)
}
