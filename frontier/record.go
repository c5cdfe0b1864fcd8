package frontier

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"
)

// Key prefixes of the badger keyspace. Every key starts with one of them.
const (
	prefixURL    = "u/" // u/<url> -> record; UserMeta = state
	prefixQueue  = "q/" // q/<uvarint len(host)><host><prio 8><seq 8> -> record
	prefixDigest = "d/" // d/<digest> -> <varint unix nanos><uri>
	prefixMeta   = "m/" // m/<key> -> value
)

// States as stored in the UserMeta byte of u/ entries. An in-flight URL is stored as queued:
// its claim is held only in memory, so a crash puts it back in the queue by construction.
const (
	stQueued   byte = 1
	stDone     byte = 2
	stFailed   byte = 3
	stRejected byte = 4
)

const recordVersion = 1

var errCorrupt = errors.New("frontier: corrupt record")

// record is the stored form of a URL: the URL fields plus the frontier's own bookkeeping.
type record struct {
	URL       URL
	Status    int
	Reason    string
	NotBefore int64 // unix nanoseconds; 0 = no constraint
	Seq       uint64
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func (r *record) encode() []byte {
	u := &r.URL
	n := 1 + 6*binary.MaxVarintLen64 + len(u.URL) + len(u.Host) + len(u.Hops) + len(u.Via) +
		len(u.Seed) + len(r.Reason) + 6*binary.MaxVarintLen64
	b := make([]byte, 0, n)
	b = append(b, recordVersion)
	b = appendString(b, u.URL)
	b = appendString(b, u.Host)
	b = appendString(b, u.Hops)
	b = appendString(b, u.Via)
	b = appendString(b, u.Seed)
	b = binary.AppendVarint(b, int64(u.HopsOff))
	b = binary.AppendVarint(b, int64(u.Attempts))
	b = binary.AppendVarint(b, int64(u.Priority))
	b = binary.AppendVarint(b, int64(r.Status))
	b = appendString(b, r.Reason)
	b = binary.AppendVarint(b, r.NotBefore)
	b = binary.AppendUvarint(b, r.Seq)
	return b
}

// decoder reads the fields written by encode; the first error sticks.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = errCorrupt
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.err = errCorrupt
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) int() int {
	v := d.varint()
	if v < math.MinInt || v > math.MaxInt {
		d.err = errCorrupt
		return 0
	}
	return int(v)
}

func (d *decoder) string() string {
	n := d.uvarint()
	if d.err != nil {
		return ""
	}
	if n > uint64(len(d.b)) {
		d.err = errCorrupt
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

func decodeRecord(b []byte) (record, error) {
	var r record
	if len(b) == 0 || b[0] != recordVersion {
		return r, fmt.Errorf("%w: version", errCorrupt)
	}
	d := decoder{b: b[1:]}
	r.URL.URL = d.string()
	r.URL.Host = d.string()
	r.URL.Hops = d.string()
	r.URL.Via = d.string()
	r.URL.Seed = d.string()
	r.URL.HopsOff = d.int()
	r.URL.Attempts = d.int()
	r.URL.Priority = d.int()
	r.Status = d.int()
	r.Reason = d.string()
	r.NotBefore = d.varint()
	r.Seq = d.uvarint()
	if d.err != nil {
		return record{}, d.err
	}
	return r, nil
}

func urlKey(url string) []byte {
	return append([]byte(prefixURL), url...)
}

// hostPrefix is the queue prefix of one host. The length prefix keeps hosts apart whatever
// bytes they contain ("a" is not a prefix of "ab").
func hostPrefix(host string) []byte {
	b := make([]byte, 0, len(prefixQueue)+binary.MaxVarintLen64+len(host)+16)
	b = append(b, prefixQueue...)
	b = binary.AppendUvarint(b, uint64(len(host)))
	return append(b, host...)
}

// queueKey orders a host's queue by priority (lower first), then by sequence (FIFO).
func queueKey(host string, prio int, seq uint64) string {
	b := hostPrefix(host)
	b = binary.BigEndian.AppendUint64(b, uint64(int64(prio))^(1<<63))
	b = binary.BigEndian.AppendUint64(b, seq)
	return string(b)
}

// parseQueueKey returns the host and sequence of a q/ key.
func parseQueueKey(k []byte) (host string, seq uint64, err error) {
	if len(k) < len(prefixQueue) || string(k[:len(prefixQueue)]) != prefixQueue {
		return "", 0, errCorrupt
	}
	rest := k[len(prefixQueue):]
	n, w := binary.Uvarint(rest)
	if w <= 0 || uint64(len(rest)-w) != n+16 {
		return "", 0, errCorrupt
	}
	rest = rest[w:]
	host = string(rest[:n])
	seq = binary.BigEndian.Uint64(rest[n+8:])
	return host, seq, nil
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
