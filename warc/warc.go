// Package warc writes amber's captures as WARC 1.1 files and keeps the CDXJ index next to them.
//
// Every record is its own gzip member. Each file starts with a warcinfo record, followed by a
// metadata record holding the crawl configuration as written (ConfigURI) when there is one. A
// capture is a request, a response (or a revisit when its payload was already captured) and a
// metadata record, tied together by WARC-Concurrent-To and always written into one file, or
// nothing at all when it may be left out once the crawl holds it (Capture.Once, HeldIndex);
// files rotate by size between captures. Files are written as NAME.warc.gz.open and renamed on close;
// Recover closes out files left open by a killed process. Records are built and checked with
// github.com/nlnwa/gowarc/v2.
//
// Digests are SHA-1, base32, as "sha1:BASE32". The block digest covers the record block, which
// for a response is the response exactly as it crossed the wire. The payload digest of a
// response covers its entity body as WARC 1.1 §5.9 and the IIPC clarification
// (warc-specifications issue 22) define it: the message body with the chunked transfer coding
// removed and the content coding (gzip, br, ...) kept. That is what internetarchive/gowarc's
// `warc verify` checks, and what makes the same page served with different chunk sizes one
// payload for deduplication.
//
// The CDXJ index the Writer appends to is in append order. pywb and other replay tools
// binary-search their index, so at the end of a run the crawl writes a sorted copy with
// SortCDXJ: LiveCDXJ is the name of the append-order file, SortedCDXJ the name of the sorted one,
// both in the crawl's index directory.
//
// Records are read back by their place in a file, as an index line gives it: ReadRecordHead
// for what an earlier crawl's record says (a recrawl's validators), ReadRecord for the whole
// record with its HTTP head and payload (replay); ParseIndexLine reads the index lines and
// LookupKey gives the key a request is indexed under.
package warc

import (
	"errors"
	"io"
	"time"
)

const (
	// LiveCDXJ is the file name of the CDXJ index a Writer appends to while a crawl runs
	// (Config.CDXJPath), in append order; Recover repairs it.
	LiveCDXJ = "live.cdxj"
	// SortedCDXJ is the file name of the index sorted in byte order by SortCDXJ at the end of
	// every run, next to LiveCDXJ: the one replay tools read.
	SortedCDXJ = "index.cdxj"

	// ConfigURI is the WARC-Target-URI of the metadata record that follows the warcinfo record
	// of every file when Info.Config is set. The record holds the configuration exactly as
	// given, refers to the warcinfo record (WARC-Refers-To) and has a CDXJ line.
	ConfigURI = "urn:amber:crawl-config"
	// ConfigContentType is the Content-Type of that record (RFC 9512).
	ConfigContentType = "application/yaml"
)

// Errors returned by this package. Callers test them with errors.Is.
var (
	// ErrClosed is returned by writes on a closed Writer.
	ErrClosed = errors.New("warc: writer closed")
	// ErrInvalid wraps problems with what the caller asked to write (an empty URL, no response
	// bytes, a metadata field name that is not a token, ...).
	ErrInvalid = errors.New("warc: invalid input")
	// ErrConfig wraps problems with a Config.
	ErrConfig = errors.New("warc: invalid config")
)

// DedupIndex remembers the first capture of each payload digest. It is implemented by
// *frontier.Frontier (durable across resume). Digests are "sha1:BASE32".
type DedupIndex interface {
	// LookupDigest returns the URI and WARC-Date of the first capture with this payload digest.
	LookupDigest(digest string) (uri string, date time.Time, ok bool, err error)
	// StoreDigest records the first capture of a payload digest.
	StoreDigest(digest, uri string, date time.Time) error
}

// HeldIndex remembers the captures a crawl holds, each by its held key: its URL, the HTTP
// status and the payload digest of its response, as "DIGEST STATUS URL" (such as
// "sha1:BASE32 200 http://example.com/style.css"). It is what lets a capture marked
// Capture.Once be written only once. It is implemented by *frontier.Frontier (durable across
// resume) and the shared frontier of several processes.
type HeldIndex interface {
	// LookupHeld reports whether key was stored.
	LookupHeld(key string) (bool, error)
	// StoreHeld records key; storing a key twice is a no-op.
	StoreHeld(key string) error
}

// Config configures a Writer. Zero values get the documented defaults.
type Config struct {
	Dir      string     // directory of the WARC files; created if missing. Required.
	Prefix   string     // file name prefix, default "amber"
	Hostname string     // file name host part, default os.Hostname() (sanitised: [A-Za-z0-9.-] only)
	MaxSize  int64      // a file is rotated before the next capture once it reaches MaxSize bytes; default 1e9
	CDXJPath string     // "" = no index; else CDXJ lines are appended to this file (created with its directory), e.g. indexes/LiveCDXJ
	Dedup    DedupIndex // nil = never write revisits
	Info     Info       // content of each file's warcinfo record
	TempDir  string     // temp files for large records (raw blocks over 1 MiB, compressed ones over 4 MiB), default os.TempDir()

	// Held, when set, remembers every capture written (its held key, see HeldIndex) and
	// keeps a capture marked Capture.Once from being written again. nil: captures are
	// written whatever Capture.Once says, and none is remembered.
	Held HeldIndex

	// BeforeWrite, if set, is called before each capture or resource is appended, with the
	// number of bytes about to be written (its compressed records), without the Writer's lock
	// and possibly from several goroutines at once. The crawl watches free disk space with it.
	BeforeWrite func(n int64)
}

// Info is the content of the warcinfo record that starts every file. Empty fields are left out.
type Info struct {
	Software    string // e.g. "amber/0.1 (+https://github.com/amber-crawler/amber)"
	Operator    string // person or institution running the crawl
	Collection  string // written as both "isPartOf" and "collection"
	Description string
	UserAgent   string // the crawl's User-Agent, written as "http-header-user-agent" (Heritrix's name)
	Robots      string // robots.txt policy, written as "robots": Heritrix 3's words are "obey" (honoured) and "ignore"
	Config      []byte // the effective crawl configuration (YAML), written as is into a metadata record (ConfigURI)
}

// Outlink is one link found on a captured page, written to the metadata record as
// "outlink: URL HOP CONTEXT" (Heritrix's layout).
type Outlink struct {
	URL     string
	Hop     string // "L", "E", "R", "X", "I", "P" or "M"
	Context string // e.g. "a/@href"; "" is written as "-"
}

// Field is a "name: value" line: one extra line of a metadata record (Capture.Extra), or a
// header field of a recorded HTTP response (HTTPHead.Fields).
type Field struct {
	Name  string // an HTTP token (letters, digits, !#$%&'*+-.^_`|~)
	Value string // in a metadata record, CR and LF are replaced by spaces
}

// Capture is one recorded HTTP exchange with what the crawl knows about it.
type Capture struct {
	URL          string    // WARC-Target-URI. Required.
	Date         time.Time // fetch start: WARC-Date of all three records (written with microseconds, UTC)
	IP           string    // WARC-IP-Address; "" = not written
	Request      []byte    // exact request bytes as sent
	Response     io.Reader // exact raw response bytes: status line, headers, blank line, body as on the wire. Required; written as read, even when malformed
	ResponseSize int64     // advisory length of Response (0 = unknown); the bytes read are what is written
	Truncated    string    // WARC-Truncated on the response ("length", "time", "disconnect", ...) if non-empty
	Via          string    // metadata "via:"
	Hops         string    // metadata "hopsFromSeed:" ("" is written as "-", a seed)
	Seed         string    // metadata "sourceSeed:"
	Outlinks     []Outlink // metadata "outlink:" lines
	Extra        []Field   // more metadata lines, e.g. {"fetchTimeMs", "123"}
	// NotModified, when set, is the earlier capture that the request was made conditional on
	// (If-None-Match, If-Modified-Since). A 304 response is then written as a revisit with the
	// server-not-modified profile (WARC 1.1 §6.7.3) referring to it, carrying its payload
	// digest and the validators (WARC-Etag, WARC-Last-Modified), without a block, so that
	// replay serves the original's headers and payload. Any other response is written as usual.
	NotModified *Original
	// Once writes the capture only if the crawl does not hold it yet: when Config.Held knows
	// its held key (its URL, its response's status and payload digest), nothing is written
	// (no request, response, revisit or metadata record, no CDXJ line) and Result.Held is
	// set. A capture of the same key being written at the same moment is waited for, so two
	// writers of one key at once write it once. No effect without Config.Held.
	Once bool
}

// Original is the earlier capture a server-not-modified revisit stands for: the record that
// holds the payload.
type Original struct {
	URI           string    // its WARC-Target-URI: WARC-Refers-To-Target-URI
	Date          time.Time // its WARC-Date: WARC-Refers-To-Date
	PayloadDigest string    // its payload digest, "sha1:BASE32"; "" when unknown (then none is written)
	ETag          string    // the validators sent, written when the 304 does not repeat them
	LastModified  string
}

// Fields of a server-not-modified revisit with the validators the server confirmed, by
// Heritrix's names (they are not WARC 1.1 fields).
const (
	FieldETag         = "WARC-Etag"
	FieldLastModified = "WARC-Last-Modified"
)

// Result says where a capture's response (or revisit) or a resource record was written.
type Result struct {
	Filename      string // base name of the WARC file (without ".open")
	Offset        int64  // offset of the response/revisit/resource record's gzip member in that file
	Length        int64  // compressed length of that gzip member
	Revisit       bool   // a revisit record was written instead of a response
	NotModified   bool   // that revisit stands for a 304 (server-not-modified profile; see Capture.NotModified)
	PayloadDigest string // "sha1:BASE32" (of a server-not-modified revisit: the original's, maybe "")
	RecordID      string // WARC-Record-ID of the response/revisit/resource, "<urn:uuid:...>"
	Status        int    // HTTP status of the response (0 for resources or unparsable responses)
	// Held reports that nothing was written: the crawl holds the capture already
	// (Capture.Once). Status and PayloadDigest are the response's; the place and RecordID
	// are empty.
	Held bool
}
