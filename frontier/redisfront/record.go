package redisfront

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/internal/varrec"
	"github.com/amber-crawler/amber/status"
)

// errCorrupt says that a stored value cannot be decoded.
var errCorrupt = errors.New("redisfront: corrupt value")

// record is what the u hash holds for a URL (its key: the URL itself), after the header the
// scripts read (state letter, queue score, newline).
type record struct {
	URL    frontier.URL // URL.URL is the hash field, not in the encoding
	Status int
	Reason string
}

// encode is the record's encoding: a version byte, then Host, Hops, Via, Seed (length-prefixed),
// HopsOff, Attempts, Priority, Status (varints), Reason, flags (1 sitemap, 2 level), and the
// Level (varint) when flag 2 is set.
func (r *record) encode() []byte {
	u := &r.URL
	b := make([]byte, 0, 1+len(u.Host)+len(u.Hops)+len(u.Via)+len(u.Seed)+len(r.Reason)+11*binary.MaxVarintLen64)
	b = append(b, 1)
	b = varrec.AppendString(b, u.Host)
	b = varrec.AppendString(b, u.Hops)
	b = varrec.AppendString(b, u.Via)
	b = varrec.AppendString(b, u.Seed)
	b = binary.AppendVarint(b, int64(u.HopsOff))
	b = binary.AppendVarint(b, int64(u.Attempts))
	b = binary.AppendVarint(b, int64(u.Priority))
	b = binary.AppendVarint(b, int64(r.Status))
	b = varrec.AppendString(b, r.Reason)
	var flags uint64
	if u.Sitemap {
		flags |= 1
	}
	if u.Level != 0 {
		flags |= 2
	}
	b = binary.AppendUvarint(b, flags)
	if u.Level != 0 {
		b = binary.AppendVarint(b, int64(u.Level))
	}
	return b
}

// decodeValue decodes a u hash value of url: its state and record.
func decodeValue(url, v string) (status.State, record, error) {
	nl := bytes.IndexByte([]byte(v[:min(len(v), 32)]), '\n')
	if nl < 1 {
		return "", record{}, fmt.Errorf("%w: value of %.100q", errCorrupt, url)
	}
	var st status.State
	switch v[0] {
	case 'q':
		st = status.Queued
	case 'i':
		st = status.Inflight
	case 'd':
		st = status.Done
	case 'f':
		st = status.Failed
	case 'r':
		st = status.Rejected
	default:
		return "", record{}, fmt.Errorf("%w: state %q of %.100q", errCorrupt, v[0], url)
	}
	d := varrec.NewDecoder([]byte(v[nl+1:]), errCorrupt)
	if d.Byte() != 1 {
		return "", record{}, fmt.Errorf("%w: record version of %.100q", errCorrupt, url)
	}
	r := record{URL: frontier.URL{URL: url}}
	r.URL.Host, r.URL.Hops, r.URL.Via, r.URL.Seed = d.Str(), d.Str(), d.Str(), d.Str()
	r.URL.HopsOff, r.URL.Attempts, r.URL.Priority, r.Status = d.Int(), d.Int(), d.Int(), d.Int()
	r.Reason = d.Str()
	flags := d.Uvarint()
	r.URL.Sitemap = flags&1 != 0
	if flags&2 != 0 {
		r.URL.Level = d.Int()
	}
	if err := d.Err(); err != nil {
		return "", record{}, fmt.Errorf("%w: record of %.100q", err, url)
	}
	return st, r, nil
}

// queuePriority is the priority in a queue score (priority * 2^40 + sequence number), which
// stays an exact double for priorities within ±2047 and 2^40 sequence numbers.
func queuePriority(p int) string { return strconv.Itoa(min(max(p, -2047), 2047)) }

// encodeDigest is the value of a digest (d, pd): the date in unix nanoseconds (varint), the URI.
func encodeDigest(uri string, date time.Time) string {
	b := binary.AppendVarint(make([]byte, 0, binary.MaxVarintLen64+len(uri)), date.UnixNano())
	return string(append(b, uri...))
}

func decodeDigest(v string) (uri string, date time.Time, err error) {
	ns, n := binary.Varint([]byte(v[:min(len(v), binary.MaxVarintLen64)]))
	if n <= 0 {
		return "", time.Time{}, errCorrupt
	}
	return v[n:], time.Unix(0, ns).UTC(), nil
}

// encodePrior is the value of an earlier capture by URL (pu): the capture time as 20 decimal
// digits (unix nanoseconds plus 2^63, so that the scripts compare them as strings), then the
// date (varint), URI, digest, ETag, Last-Modified and media type. A value written before the
// media type was stored ends after Last-Modified: its media type is "".
func encodePrior(p *frontier.Prior) string {
	b := fmt.Appendf(nil, "%020d", uint64(p.Captured.UnixNano())+1<<63)
	b = binary.AppendVarint(b, p.Date.UnixNano())
	b = varrec.AppendString(b, p.URI)
	b = varrec.AppendString(b, p.Digest)
	b = varrec.AppendString(b, p.ETag)
	b = varrec.AppendString(b, p.LastModified)
	return string(varrec.AppendString(b, p.Mime))
}

func decodePrior(v string) (frontier.Prior, error) {
	if len(v) < 20 {
		return frontier.Prior{}, errCorrupt
	}
	c, err := strconv.ParseUint(v[:20], 10, 64)
	if err != nil {
		return frontier.Prior{}, errCorrupt
	}
	d := varrec.NewDecoder([]byte(v[20:]), errCorrupt)
	p := frontier.Prior{Captured: time.Unix(0, int64(c-1<<63)).UTC(), Date: time.Unix(0, d.Varint()).UTC()}
	p.URI, p.Digest, p.ETag, p.LastModified = d.Str(), d.Str(), d.Str(), d.Str()
	if d.Err() == nil && len(d.Rest()) > 0 {
		p.Mime = d.Str()
	}
	if err := d.Err(); err != nil {
		return frontier.Prior{}, err
	}
	return p, nil
}
