// Package warc writes amber's captures as WARC 1.1 files and keeps the CDXJ index next to them.
//
// Every record is its own gzip member. Each file starts with a warcinfo record. A capture is a
// request, a response (or a revisit when its payload was already captured) and a metadata
// record, tied together by WARC-Concurrent-To and always written into one file; files rotate by
// size between captures. Files are written as NAME.warc.gz.open and renamed on close; Recover
// closes out files left open by a killed process. Records are built and checked with
// github.com/nlnwa/gowarc/v2.
//
// Digests are SHA-1, base32, as "sha1:BASE32". The payload digest is what gowarc's and
// warcio's validators compute: the SHA-1 of the HTTP message body exactly as it crossed the
// wire, i.e. everything after the header block, chunked transfer-coding and content-coding
// kept.
package warc

import (
	"errors"
	"io"
	"time"
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

// Config configures a Writer. Zero values get the documented defaults.
type Config struct {
	Dir      string     // directory of the WARC files; created if missing. Required.
	Prefix   string     // file name prefix, default "amber"
	Hostname string     // file name host part, default os.Hostname() (sanitised: [A-Za-z0-9.-] only)
	MaxSize  int64      // a file is rotated before the next capture once it reaches MaxSize bytes; default 1e9
	CDXJPath string     // "" = no index; else CDXJ lines are appended to this file (created with its directory)
	Dedup    DedupIndex // nil = never write revisits
	Info     Info       // content of each file's warcinfo record
	TempDir  string     // temp files for large records (raw blocks over 1 MiB, compressed ones over 4 MiB), default os.TempDir()
}

// Info is the content of the warcinfo record that starts every file. Empty fields are left out.
type Info struct {
	Software    string // e.g. "amber/0.1 (+https://github.com/amber-crawler/amber)"
	Operator    string // person or institution running the crawl
	Collection  string // written as both "isPartOf" and "collection"
	Description string
	Config      []byte // the effective crawl YAML, written as "crawl-config" holding a JSON string
}

// Outlink is one link found on a captured page, written to the metadata record as
// "outlink: URL HOP CONTEXT" (Heritrix's layout).
type Outlink struct {
	URL     string
	Hop     string // "L", "E", "R", "X", "I", "P" or "M"
	Context string // e.g. "a/@href"; "" is written as "-"
}

// Field is one extra "name: value" line of a metadata record.
type Field struct {
	Name  string // an HTTP token (letters, digits, !#$%&'*+-.^_`|~)
	Value string // CR and LF are replaced by spaces
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
}

// Result says where a capture's response (or revisit) or a resource record was written.
type Result struct {
	Filename      string // base name of the WARC file (without ".open")
	Offset        int64  // offset of the response/revisit/resource record's gzip member in that file
	Length        int64  // compressed length of that gzip member
	Revisit       bool   // a revisit record was written instead of a response
	PayloadDigest string // "sha1:BASE32"
	RecordID      string // WARC-Record-ID of the response/revisit/resource, "<urn:uuid:...>"
	Status        int    // HTTP status of the response (0 for resources or unparsable responses)
}
