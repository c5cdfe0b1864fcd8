package frontier

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/amber-crawler/amber/internal/varrec"
)

// Key prefixes of the badger keyspace. Every key starts with one of them. <url>, <host>,
// <digest> and <key> below are key parts (see keyPart): the string itself up to maxKeyPart
// bytes, a fixed-size form beyond, so that no key depends on the length of its input.
const (
	prefixURL    = "u/" // u/<url> -> record; UserMeta = state
	prefixQueue  = "q/" // q/<uvarint len(<host>)><host><prio 8><seq 8> -> record
	prefixDigest = "d/" // d/<digest> -> <varint unix nanos><uri> (hashed: see longKey)
	prefixMeta   = "m/" // m/<key> -> value (hashed: see longKey)
	prefixHeld   = "c/" // c/<key> -> "" (hashed: see longKey): the captures the crawl holds (StoreHeld)
	prefixFormat = "f/" // f/version -> the keyspace's format version (see migrate)
)

// maxKeyPart is the longest URL, host, digest or metadata key stored verbatim in a key. A
// longer one is stored as its first maxKeyPart bytes followed by its SHA-256 (hashedPart
// bytes in all), so that keys stay under 310 bytes (badger refuses keys over 65,000) while
// keys of shorter strings are those of format 1, and keys keep the order of their strings'
// first maxKeyPart bytes. The two forms cannot be confused: a verbatim part is at most
// maxKeyPart bytes long, a hashed one longer.
//
// SHA-256 rather than a faster non-cryptographic hash (xxhash): it is in the standard
// library, only strings over maxKeyPart bytes pay for it, and no page can craft two URLs
// with one key. A collision is still detected: every hashed key's value holds the full
// string (the record's URL or host, or longKey's prefix), which lookups compare.
const maxKeyPart = 256

// hashedPart is the length of a hashed key part.
const hashedPart = maxKeyPart + sha256.Size

// UserMeta of a d/, m/ or c/ entry whose key part is hashed: its value starts with the full
// digest or key (varrec.AppendString), followed by the value proper.
const longKey byte = 1

// keyPart appends the key part of s to b: s itself, or, for s longer than maxKeyPart, its
// first maxKeyPart bytes followed by its SHA-256.
func keyPart(b []byte, s string) []byte {
	if len(s) <= maxKeyPart {
		return append(b, s...)
	}
	sum := sha256.Sum256([]byte(s))
	b = append(b, s[:maxKeyPart]...)
	return append(b, sum[:]...)
}

// hashed reports whether a key part is hashed (longer than maxKeyPart).
func hashed(part []byte) bool { return len(part) > maxKeyPart }

// States as stored in the UserMeta byte of u/ entries. An in-flight URL is stored as queued:
// its claim is held only in memory, so a crash puts it back in the queue by construction.
const (
	stQueued   byte = 1
	stDone     byte = 2
	stFailed   byte = 3
	stRejected byte = 4
)

// Versions of the record encoding: recordFlagsVersion is recordVersion followed by flags.
const (
	recordVersion      = 1
	recordFlagsVersion = 2
)

var errCorrupt = errors.New("frontier: corrupt record")

// record is the stored form of a URL: the URL fields plus the frontier's own bookkeeping.
type record struct {
	URL       URL
	Status    int
	Reason    string
	NotBefore int64 // unix nanoseconds; 0 = no constraint
	Seq       uint64
}

// maxSize bounds the length of the record's encoding.
func (r *record) maxSize() int {
	u := &r.URL
	return 1 + 6*binary.MaxVarintLen64 + len(u.URL) + len(u.Host) + len(u.Hops) + len(u.Via) +
		len(u.Seed) + len(r.Reason) + 8*binary.MaxVarintLen64
}

// check returns an error wrapping ErrURL when the record may exceed MaxRecordSize.
func (r *record) check() error {
	if n := r.maxSize(); n > MaxRecordSize {
		return fmt.Errorf("%w: record of %d bytes (URL of %d) exceeds %d", ErrURL, n, len(r.URL.URL), MaxRecordSize)
	}
	return nil
}

func (r *record) encode() []byte {
	u := &r.URL
	b := make([]byte, 0, r.maxSize())
	b = append(b, recordVersion)
	b = varrec.AppendString(b, u.URL)
	b = varrec.AppendString(b, u.Host)
	b = varrec.AppendString(b, u.Hops)
	b = varrec.AppendString(b, u.Via)
	b = varrec.AppendString(b, u.Seed)
	b = binary.AppendVarint(b, int64(u.HopsOff))
	b = binary.AppendVarint(b, int64(u.Attempts))
	b = binary.AppendVarint(b, int64(u.Priority))
	b = binary.AppendVarint(b, int64(r.Status))
	b = varrec.AppendString(b, r.Reason)
	b = binary.AppendVarint(b, r.NotBefore)
	b = binary.AppendUvarint(b, r.Seq)
	if f := r.flags(); f != 0 {
		b[0] = recordFlagsVersion
		b = binary.AppendUvarint(b, f)
		if f&flagLevel != 0 {
			b = binary.AppendVarint(b, int64(r.URL.Level))
		}
	}
	return b
}

// Record flags: a record with any set is written as recordFlagsVersion, its flags after Seq.
// One without is written as recordVersion, byte for byte as before flags existed.
// flagLevel: the URL's Level follows the flags.
const (
	flagSitemap = 1 << 0
	flagLevel   = 1 << 1
)

func (r *record) flags() uint64 {
	var f uint64
	if r.URL.Sitemap {
		f |= flagSitemap
	}
	if r.URL.Level != 0 {
		f |= flagLevel
	}
	return f
}

func decodeRecord(b []byte) (record, error) {
	var r record
	if len(b) == 0 || (b[0] != recordVersion && b[0] != recordFlagsVersion) {
		return r, fmt.Errorf("%w: version", errCorrupt)
	}
	// One allocation for all the strings of the record.
	d := varrec.NewSharedDecoder(b[1:], errCorrupt)
	r.URL.URL = d.Str()
	r.URL.Host = d.Str()
	r.URL.Hops = d.Str()
	r.URL.Via = d.Str()
	r.URL.Seed = d.Str()
	r.URL.HopsOff = d.Int()
	r.URL.Attempts = d.Int()
	r.URL.Priority = d.Int()
	r.Status = d.Int()
	r.Reason = d.Str()
	r.NotBefore = d.Varint()
	r.Seq = d.Uvarint()
	if b[0] == recordFlagsVersion {
		f := d.Uvarint()
		r.URL.Sitemap = f&flagSitemap != 0
		if f&flagLevel != 0 {
			r.URL.Level = d.Int()
		}
	}
	if err := d.Err(); err != nil {
		return record{}, err
	}
	return r, nil
}

// prefixed is the key of s under prefix.
func prefixed(prefix, s string) []byte {
	b := make([]byte, 0, len(prefix)+min(len(s), hashedPart))
	return keyPart(append(b, prefix...), s)
}

func urlKey(url string) []byte  { return prefixed(prefixURL, url) }
func metaKey(key string) []byte { return prefixed(prefixMeta, key) }

// hostPrefix is the queue prefix of one host. The length prefix keeps hosts apart whatever
// bytes they contain ("a" is not a prefix of "ab").
func hostPrefix(host string) []byte {
	n := min(len(host), hashedPart)
	if len(host) > maxKeyPart {
		n = hashedPart
	}
	b := make([]byte, 0, len(prefixQueue)+binary.MaxVarintLen64+n+16)
	b = append(b, prefixQueue...)
	b = binary.AppendUvarint(b, uint64(n))
	return keyPart(b, host)
}

// queueKey orders a host's queue by priority (lower first), then by sequence (FIFO).
func queueKey(host string, prio int64, seq uint64) string {
	b := hostPrefix(host)
	b = binary.BigEndian.AppendUint64(b, uint64(prio)^(1<<63))
	b = binary.BigEndian.AppendUint64(b, seq)
	return string(b)
}

// parseQueueKey returns the host key part and the sequence of a q/ key. The part is the host
// itself unless it is hashed.
func parseQueueKey(k []byte) (part []byte, seq uint64, err error) {
	if len(k) < len(prefixQueue) || string(k[:len(prefixQueue)]) != prefixQueue {
		return nil, 0, errCorrupt
	}
	rest := k[len(prefixQueue):]
	n, w := binary.Uvarint(rest)
	if w <= 0 || uint64(len(rest)-w) != n+16 {
		return nil, 0, errCorrupt
	}
	rest = rest[w:]
	seq = binary.BigEndian.Uint64(rest[n+8:])
	return rest[:n], seq, nil
}

// encodeLong is the value of a d/, m/ or c/ entry with a hashed key part (UserMeta longKey).
func encodeLong(full string, val []byte) []byte {
	b := make([]byte, 0, binary.MaxVarintLen64+len(full)+len(val))
	return append(varrec.AppendString(b, full), val...)
}

// decodeLong splits the value of a d/, m/ or c/ entry with UserMeta longKey.
func decodeLong(b []byte) (full string, val []byte, err error) {
	d := varrec.NewDecoder(b, errCorrupt)
	full = d.Str()
	if err := d.Err(); err != nil {
		return "", nil, err
	}
	return full, d.Rest(), nil
}

func encodeDigest(uri string, date time.Time) []byte {
	b := binary.AppendVarint(nil, date.UnixNano())
	return append(b, uri...)
}

func decodeDigest(b []byte) (string, time.Time, error) {
	ns, n := binary.Varint(b)
	if n <= 0 {
		return "", time.Time{}, errCorrupt
	}
	return string(b[n:]), time.Unix(0, ns).UTC(), nil
}
