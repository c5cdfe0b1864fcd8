// Package crawldir names the files of a crawl directory (design §3): everything one crawl
// writes lives under one directory, and every package that reads or writes one of its files
// (the crawl, its reports, WACZ packages, a later crawl that builds on it) finds it by these
// names, relative to the directory.
package crawldir

const (
	// ConfigFile is the effective configuration of the crawl, written at start (crawl.yaml).
	ConfigFile = "crawl.yaml"
	// StateDir holds the crawl's own frontier (badger): queue, seen set, digests, counters.
	StateDir = "state"
	// WARCDir holds the WARC files, PREFIX-TIMESTAMP-SERIAL-HOST.warc.gz (.open while written).
	WARCDir = "warcs"
	// CDXJFile is the CDXJ index of every capture, sorted in byte order at the end of each run.
	CDXJFile = "indexes/index.cdxj"
	// LiveCDXJFile is the CDXJ index in append order, written while the crawl runs.
	LiveCDXJFile = "indexes/live.cdxj"
	// CrawlLogFile is the Heritrix-format crawl.log.
	CrawlLogFile = "logs/crawl.log"
	// EventsFile is the structured events, one JSON object per line.
	EventsFile = "logs/events.jsonl"
	// ControlLogFile is the history of live-control changes, one JSON object per line.
	ControlLogFile = "logs/control.log"
	// StatusTokenFile holds the token the status server asks of a change when it is not on
	// loopback (mode 0600).
	StatusTokenFile = "logs/status-token"
	// ControlSocket is the Unix socket of a running crawl's live control (mode 0600).
	ControlSocket = "control.sock"
	// DocumentsFile is the stream of search documents (Elastic web-crawler schema).
	DocumentsFile = "documents.jsonl"
	// IndexFile records what a search index acknowledged of DocumentsFile (report.IndexFile,
	// written by package searchindex).
	IndexFile = "documents.index.json"
	// ReportsDir holds the post-crawl reports.
	ReportsDir = "reports"
)
