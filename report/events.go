package report

import (
	"crypto/rand"
	"errors"
	"fmt"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/amber-crawler/amber/hop"
	"github.com/amber-crawler/amber/internal/jsonstr"
	"github.com/amber-crawler/amber/status"
)

// Event actions (event.action), as in Elastic's web crawler events. A denied discovery is a
// url-discover event with event.type "denied" and a crawler.url.deny_reason, as Elastic's
// crawler writes it.
const (
	ActionCrawlStart  = "crawl-start"
	ActionCrawlEnd    = "crawl-end"
	ActionURLSeed     = "url-seed"
	ActionURLFetch    = "url-fetch"
	ActionURLDiscover = "url-discover"
	ActionURLOutput   = "url-output"
	ActionSitemapRead = "sitemap-read"  // amber's own: a sitemap file was read (SitemapRead)
	ActionControl     = "crawl-control" // amber's own: an operator changed the running crawl (CrawlControl)
)

// Why a crawl ended: the reason of CrawlEnd and of Input.EndReason.
const (
	EndFinished  = "finished"  // nothing left to fetch
	EndLimit     = "limit"     // a crawl limit was reached (also "limit:KIND")
	EndCancelled = "cancelled" // the operator stopped it
	EndFailed    = "failed"    // an error stopped it
	EndDiskFull  = "disk-full" // free space ran low; the crawl stopped cleanly and resumes when there is room
)

// Why a discovered URL was not queued: the reason of URLDiscoverDenied
// (crawler.url.deny_reason). Already seen URLs are not an event.
const (
	DenyOutOfScope = "out_of_scope" // scope said no; the scope reason goes in crawler.url.scope_reason
	DenyRobots     = "robots"       // robots.txt disallows it
	DenyNofollow   = "nofollow"     // rel=nofollow or a robots meta nofollow
	DenyLimit      = "limit"        // a limit (hops, per-host, URL length) keeps it out
)

// ErrEventsClosed is returned by the methods of an Events log after Close.
var ErrEventsClosed = errors.New("report: events log closed")

// ErrNoAction is returned by Events.Event for an event without an action.
var ErrNoAction = errors.New("report: event without an action")

// EventsConfig configures an Events log.
type EventsConfig struct {
	CrawlID string           // crawler.crawl.id, written on every event
	Version string           // service.version; empty leaves it out
	Now     func() time.Time // clock for @timestamp; default time.Now
}

// URLInfo is the URL an event is about.
type URLInfo struct {
	URL  string // url.full (url.scheme, url.domain, url.port, url.path, url.query are derived)
	Hops string // crawler.url.hops; its length is crawler.url.crawl_depth
	Via  string // crawler.url.via
	Seed string // crawler.url.seed
}

// Event is a free-form event, for what the dedicated methods do not cover.
type Event struct {
	Action  string            // event.action (required)
	Type    string            // event.type; default "info"
	Outcome string            // event.outcome: success, failure or unknown; empty leaves it out
	Reason  string            // event.reason; empty leaves it out
	Message string            // message
	URL     *URLInfo          // url.* and crawler.url.* fields, when not nil
	Labels  map[string]string // written as labels.KEY, so they never clash with reserved fields
}

// Events appends structured events to logs/events.jsonl: one JSON object per line with flat
// ECS field names, as Elastic's web crawler writes its event logs. Each line is built first and
// written with one write call, so a killed crawl leaves whole lines, and concurrent callers
// never interleave. Safe for concurrent use.
type Events struct {
	cfg  EventsConfig
	host string
	pid  int

	mu sync.Mutex // guards f
	f  *lineFile
}

// OpenEvents opens (or creates) path for appending, like OpenCrawlLog: on resume new events
// follow the old ones, and a torn last line (a kill, a full disk) is cut off.
func OpenEvents(path string, cfg EventsConfig) (*Events, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	f, err := openLineFile(path)
	if err != nil {
		return nil, fmt.Errorf("report: open events log: %w", err)
	}
	host, _ := os.Hostname()
	return &Events{cfg: cfg, host: host, pid: os.Getpid(), f: f}, nil
}

// Close syncs and closes the file. Later calls return ErrEventsClosed; Close itself may be
// called again.
func (e *Events) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.f == nil {
		return nil
	}
	err := e.f.close()
	e.f = nil
	if err != nil {
		return fmt.Errorf("report: close events log: %w", err)
	}
	return nil
}

// CrawlStart records the start (or, with resume, the resumption) of a crawl with its number
// of seeds.
func (e *Events) CrawlStart(resume bool, seeds int) error {
	o := e.begin(ActionCrawlStart, "start")
	o.flag("crawler.crawl.resume", resume)
	o.num("crawler.crawl.seed_urls.count", int64(seeds))
	msg := "Starting a crawl"
	if resume {
		msg = "Resuming a crawl"
	}
	o.str("message", msg+" with "+strconv.Itoa(seeds)+" seeds")
	return e.write(o)
}

// CrawlEnd records the end of a crawl: reason is one of the End constants (or "limit:KIND"),
// message says more (which limit, which error). event.outcome is success for finished and
// limit, failure for failed and disk-full, unknown for cancelled.
func (e *Events) CrawlEnd(reason, message string) error {
	o := e.begin(ActionCrawlEnd, "end")
	kind := reason
	if len(kind) > len(EndLimit) && kind[:len(EndLimit)+1] == EndLimit+":" {
		kind = EndLimit
	}
	outcome := "unknown"
	switch kind {
	case EndFinished, EndLimit:
		outcome = "success"
	case EndFailed, EndDiskFull:
		outcome = "failure"
	}
	o.str("event.outcome", outcome)
	o.str("event.reason", reason)
	o.flag("crawler.crawl.resume_possible", kind != EndFinished)
	if message == "" {
		message = "Crawl ended: " + reason
	}
	o.str("message", message)
	return e.write(o)
}

// URLSeed records a seed added to the crawl, with its seed type.
func (e *Events) URLSeed(u URLInfo, seedType string) error {
	o := e.begin(ActionURLSeed, "start")
	o.url(u)
	o.str("crawler.url.seed_type", seedType)
	o.str("message", "Added a seed: "+u.URL)
	return e.write(o)
}

// URLFetch records a fetch: status is the HTTP status or a negative Heritrix code (no
// response), bytes the response body size (<0: none), dur the time the fetch took.
// event.outcome is success for 2xx and 3xx, failure for 4xx, 5xx and no response.
func (e *Events) URLFetch(u URLInfo, status int, bytes int64, dur time.Duration) error {
	return e.write(e.fetchEvent(u, status, bytes, dur))
}

// URLCaptured records a fetch and where its capture was written, as URLFetch and URLOutput
// do, with one write.
func (e *Events) URLCaptured(u URLInfo, status int, bytes int64, dur time.Duration, warcFile string, offset int64) error {
	return e.write(e.fetchEvent(u, status, bytes, dur), e.outputEvent(u, warcFile, offset))
}

func (e *Events) fetchEvent(u URLInfo, status int, bytes int64, dur time.Duration) *object {
	o := e.begin(ActionURLFetch, "access")
	o.url(u)
	outcome := "unknown"
	switch {
	case status >= 200 && status < 400:
		outcome = "success"
	case status >= 400 || status < 0:
		outcome = "failure"
	}
	o.str("event.outcome", outcome)
	end := o.at
	o.time("event.start", end.Add(-dur))
	o.time("event.end", end)
	o.num("event.duration", dur.Nanoseconds())
	o.str("http.request.method", "get")
	if status > 0 {
		o.num("http.response.status_code", int64(status))
	}
	o.num("crawler.url.status_code", int64(status))
	if bytes >= 0 {
		o.num("http.response.body.bytes", bytes)
	}
	if status > 0 {
		o.str("message", "Fetched "+u.URL+" with status "+strconv.Itoa(status))
	} else {
		o.str("message", "No response for "+u.URL+": "+statusText(status))
	}
	return o
}

// URLDiscover records a URL found on a page and queued.
func (e *Events) URLDiscover(u URLInfo) error {
	return e.write(e.discoverEvent(u))
}

// URLsDiscovered records URLs found on a page and queued, as URLDiscover does, with one write.
func (e *Events) URLsDiscovered(us []URLInfo) error {
	if len(us) == 0 {
		return nil
	}
	objs := make([]*object, len(us))
	for i, u := range us {
		objs[i] = e.discoverEvent(u)
	}
	return e.write(objs...)
}

func (e *Events) discoverEvent(u URLInfo) *object {
	o := e.begin(ActionURLDiscover, "allowed")
	o.url(u)
	o.source(u)
	o.str("message", "Discovered "+u.URL)
	return o
}

// SourceSitemap is the crawler.url.source of a url-discover event about a URL a sitemap file
// listed (FromSitemap); other discoveries have no source field.
const SourceSitemap = "sitemap"

// FromSitemap reports whether a hop path is that of a URL listed in a sitemap file: its last
// step is M (hop.Sitemap) and the URL before that step was a sitemap file itself, whose own
// path ends in M, perhaps followed by the redirects that led to it. A sitemap file found in
// robots.txt (PM) or configured (M) is not from a sitemap; an entry of either (PMM, MM), a
// sitemap file listed by an index (PMM) and an entry of a redirected sitemap file (PMRM) are.
func FromSitemap(hops string) bool {
	if hop.Last(hops) != hop.Sitemap {
		return false
	}
	return hop.Last(strings.TrimRight(hops[:len(hops)-1], string(hop.Redirect))) == hop.Sitemap
}

// source adds crawler.url.source for a URL listed in a sitemap.
func (o *object) source(u URLInfo) {
	if FromSitemap(u.Hops) {
		o.str("crawler.url.source", SourceSitemap)
	}
}

// URLDiscoverDenied records a URL found on a page and not queued: reason is one of the Deny
// constants; for DenyOutOfScope, scopeReason is the scope decision's reason (spec/scope.md:
// out-of-scope, block:RULE, max-hops, …), written as crawler.url.scope_reason.
func (e *Events) URLDiscoverDenied(u URLInfo, reason, scopeReason string) error {
	o := e.begin(ActionURLDiscover, "denied")
	o.url(u)
	o.source(u)
	o.str("crawler.url.deny_reason", reason)
	msg := "Denied " + u.URL + ": " + reason
	if scopeReason != "" {
		o.str("crawler.url.scope_reason", scopeReason)
		msg += " (" + scopeReason + ")"
	}
	o.str("message", msg)
	return e.write(o)
}

// CrawlControl records a change an operator made to the running crawl (amber ctl): who (the
// user name, or "local" when unknown) as user.name, the command and its argument as
// crawler.control.command and crawler.control.args, and whether it was applied
// (event.outcome; a refused change has its error as event.reason).
func (e *Events) CrawlControl(who, command, args string, err error) error {
	o := e.begin(ActionControl, "change")
	o.str("user.name", who)
	o.str("crawler.control.command", command)
	o.str("crawler.control.args", args)
	msg := who + ": " + command
	if args != "" {
		msg += " " + args
	}
	if err != nil {
		o.str("event.outcome", "failure")
		o.str("event.reason", err.Error())
		msg += ": " + err.Error()
	} else {
		o.str("event.outcome", "success")
	}
	o.str("message", msg)
	return e.write(o)
}

// SitemapInfo is what the crawl made of one sitemap file, for SitemapRead.
type SitemapInfo struct {
	Kind      string // "urlset", "index" or "text"; "" when the file is not a sitemap
	URLs      int    // the URLs it listed that were read, before scope decided on them
	Truncated string // why the rest of the file was not read ("max-urls", "max-bytes"); "" if nothing was left
	Problem   string // why the file was not used as it is: "not-a-sitemap", "malformed", "nested-index"; "" if none
}

// SitemapRead records a sitemap file read (action sitemap-read, an amber event): its kind,
// the number of URLs it listed (crawler.sitemap.kind, crawler.sitemap.urls.count), why it
// was cut short (crawler.sitemap.truncated) and what was wrong with it (event.reason).
// event.outcome is success unless it was not a sitemap or broke off.
func (e *Events) SitemapRead(u URLInfo, s SitemapInfo) error {
	o := e.begin(ActionSitemapRead, "info")
	o.url(u)
	outcome := "success"
	if s.Problem == "not-a-sitemap" || s.Problem == "malformed" {
		outcome = "failure"
	}
	o.str("event.outcome", outcome)
	if s.Problem != "" {
		o.str("event.reason", s.Problem)
	}
	if s.Kind != "" {
		o.str("crawler.sitemap.kind", s.Kind)
	}
	o.num("crawler.sitemap.urls.count", int64(s.URLs))
	if s.Truncated != "" {
		o.str("crawler.sitemap.truncated", s.Truncated)
	}
	msg := "Read sitemap " + u.URL + ": "
	switch {
	case s.Kind == "":
		msg += "not a sitemap"
	default:
		msg += s.Kind + " of " + strconv.Itoa(s.URLs) + " URLs"
	}
	if s.Truncated != "" {
		msg += ", truncated (" + s.Truncated + ")"
	}
	if s.Problem != "" && s.Kind != "" {
		msg += ", " + s.Problem
	}
	o.str("message", msg)
	return e.write(o)
}

// URLOutput records where a capture was written: the WARC file name and the offset of its
// record in the file.
func (e *Events) URLOutput(u URLInfo, warcFile string, offset int64) error {
	return e.write(e.outputEvent(u, warcFile, offset))
}

func (e *Events) outputEvent(u URLInfo, warcFile string, offset int64) *object {
	o := e.begin(ActionURLOutput, "info")
	o.url(u)
	o.str("event.module", "warc")
	o.str("event.outcome", "success")
	o.str("crawler.output.warc.file", warcFile)
	o.num("crawler.output.warc.offset", offset)
	o.str("message", "Wrote "+u.URL+" to "+warcFile+" at offset "+strconv.FormatInt(offset, 10))
	return o
}

// Event records a free-form event. Action is required.
func (e *Events) Event(ev Event) error {
	if ev.Action == "" {
		return ErrNoAction
	}
	typ := ev.Type
	if typ == "" {
		typ = "info"
	}
	o := e.begin(ev.Action, typ)
	if ev.URL != nil {
		o.url(*ev.URL)
	}
	if ev.Outcome != "" {
		o.str("event.outcome", ev.Outcome)
	}
	if ev.Reason != "" {
		o.str("event.reason", ev.Reason)
	}
	keys := make([]string, 0, len(ev.Labels))
	for k := range ev.Labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		o.key("labels." + k)
		o.b = jsonstr.Append(o.b, ev.Labels[k], true)
	}
	if ev.Message != "" {
		o.str("message", ev.Message)
	}
	return e.write(o)
}

const eventTime = "2006-01-02T15:04:05.000Z"

// begin starts an event with the fields every event carries.
func (e *Events) begin(action, typ string) *object {
	o := objectPool.Get().(*object)
	o.b, o.at, o.n = append(o.b[:0], '{'), e.cfg.Now(), 0
	o.time("@timestamp", o.at)
	o.str("event.id", rand.Text())
	o.str("event.kind", "event")
	o.str("event.action", action)
	o.str("event.type", typ)
	o.str("crawler.crawl.id", e.cfg.CrawlID)
	o.str("service.type", "crawler")
	o.str("service.name", "amber")
	if e.cfg.Version != "" {
		o.str("service.version", e.cfg.Version)
	}
	o.num("process.pid", int64(e.pid))
	if e.host != "" {
		o.str("host.name", e.host)
	}
	return o
}

// write writes the events, one line each, with one write call: all of them or none.
func (e *Events) write(objs ...*object) error {
	defer func() {
		for _, o := range objs {
			if cap(o.b) <= 64<<10 { // a line for a huge URL is not kept
				objectPool.Put(o)
			}
		}
	}()
	for _, o := range objs {
		o.b = append(o.b, '}', '\n')
	}
	b := objs[0].b
	if len(objs) > 1 {
		for _, o := range objs[1:] {
			b = append(b, o.b...)
		}
		objs[0].b = b
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.f == nil {
		return ErrEventsClosed
	}
	if err := e.f.writeLine(b); err != nil {
		return fmt.Errorf("report: write events log: %w", err)
	}
	return nil
}

// object builds one JSON object with its keys in the order they are added.
type object struct {
	b  []byte
	at time.Time
	n  int
}

var objectPool = sync.Pool{New: func() any { return &object{b: make([]byte, 0, 1024)} }}

// key adds a key, escaped as json.Marshal escapes it.
func (o *object) key(k string) {
	if o.n > 0 {
		o.b = append(o.b, ',')
	}
	o.n++
	o.b = jsonstr.Append(o.b, k, true)
	o.b = append(o.b, ':')
}

// field adds one of the field names of this file: plain ASCII, written as it is.
func (o *object) field(k string) {
	if o.n > 0 {
		o.b = append(o.b, ',')
	}
	o.n++
	o.b = append(o.b, '"')
	o.b = append(o.b, k...)
	o.b = append(o.b, '"', ':')
}

func (o *object) str(k, v string) {
	o.field(k)
	o.b = jsonstr.Append(o.b, v, true)
}

// time adds t in UTC as eventTime.
func (o *object) time(k string, t time.Time) {
	o.field(k)
	o.b = append(o.b, '"')
	o.b = t.UTC().AppendFormat(o.b, eventTime)
	o.b = append(o.b, '"')
}

func (o *object) num(k string, v int64) {
	o.field(k)
	o.b = strconv.AppendInt(o.b, v, 10)
}

func (o *object) flag(k string, v bool) {
	o.field(k)
	o.b = strconv.AppendBool(o.b, v)
}

func (o *object) url(u URLInfo) {
	o.str("url.full", u.URL)
	if p, ok := splitURL(u.URL); ok {
		if p.scheme != "" {
			o.str("url.scheme", p.scheme)
		}
		if p.host != "" {
			o.str("url.domain", p.host)
		}
		if p.port != "" {
			if n, err := strconv.Atoi(p.port); err == nil {
				o.num("url.port", int64(n))
			}
		}
		o.str("url.path", p.path)
		if p.query != "" {
			o.str("url.query", p.query)
		}
	}
	o.str("crawler.url.hops", u.Hops)
	o.num("crawler.url.crawl_depth", int64(len(u.Hops)))
	if u.Via != "" {
		o.str("crawler.url.via", u.Via)
	}
	if u.Seed != "" {
		o.str("crawler.url.seed", u.Seed)
	}
}

// statusText describes a negative Heritrix status code.
func statusText(code int) string {
	switch code {
	case status.DNSFailed:
		return "DNS lookup failed"
	case status.ConnectFailed:
		return "connection failed"
	case status.ConnectBroken:
		return "connection broken"
	case status.Timeout:
		return "timeout"
	case status.InvalidURL:
		return "invalid or refused URL"
	case status.RetriesFailed:
		return "retries exhausted"
	case status.TooManyHops:
		return "too many hops"
	case status.OutOfScope:
		return "out of scope"
	case status.Robots:
		return "disallowed by robots.txt"
	case 0:
		return "not fetched"
	}
	return "status " + strconv.Itoa(code)
}

// urlParts are the url.* fields of an event.
type urlParts struct{ scheme, host, port, path, query string }

// splitURL splits s as net/url reads it: scheme, host name (no brackets), port, escaped path
// ("/" when empty) and raw query. ok is false when s does not parse.
func splitURL(s string) (p urlParts, ok bool) {
	if p, ok := splitPlainURL(s); ok {
		return p, true
	}
	u, err := url.Parse(s)
	if err != nil {
		return urlParts{}, false
	}
	p = urlParts{scheme: u.Scheme, host: u.Hostname(), port: u.Port(), path: u.EscapedPath(), query: u.RawQuery}
	if p.path == "" {
		p.path = "/"
	}
	return p, true
}

// splitPlainURL splits the URLs a crawl mostly logs without net/url: http or https, a host of
// lowercase letters, digits, dots and hyphens, a numeric port, a path and query of characters
// net/url keeps as they are, no fragment. It reports false for anything else
// (FuzzSplitPlainURL holds it to net/url).
func splitPlainURL(s string) (urlParts, bool) {
	var p urlParts
	switch {
	case strings.HasPrefix(s, "http://"):
		p.scheme, s = "http", s[7:]
	case strings.HasPrefix(s, "https://"):
		p.scheme, s = "https", s[8:]
	default:
		return p, false
	}
	end := strings.IndexAny(s, "/?")
	if end < 0 {
		end = len(s)
	}
	hostport, rest := s[:end], s[end:]
	host, port, hasPort := strings.Cut(hostport, ":")
	if host == "" || hasPort && (port == "" || strings.Trim(port, "0123456789") != "") {
		return p, false
	}
	for i := 0; i < len(host); i++ {
		if c := host[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-') {
			return p, false
		}
	}
	p.host, p.port = host, port
	path, query, _ := strings.Cut(rest, "?")
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-._~!$&'()*+,;=:@/?", c) >= 0) {
			return p, false
		}
	}
	if path == "" {
		path = "/"
	}
	p.path, p.query = path, query
	return p, true
}
