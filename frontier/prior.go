package frontier

import (
	"encoding/binary"
	"fmt"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/amber-crawler/amber/internal/varrec"
)

// What a crawl knows of earlier crawls it builds on (crawl.Config.DedupFrom, RecrawlOf): their
// captures by payload digest and by URL, loaded once from their indexes. Millions of entries
// stay on disk: the lookups read badger (one per capture, or per URL fetched), and they are
// not in the key filter, so they cost Open nothing.
const (
	prefixPriorDigest = "h/" // h/<digest> -> <varint unix nanos><uri> (hashed: see longKey)
	prefixPriorURL    = "p/" // p/<url> -> encodePrior (hashed: see longKey)
)

// Prior is a capture made by an earlier crawl.
type Prior struct {
	// Key is what the capture is stored under: its payload digest for StorePriorDigests, its
	// URL (the crawl's canonical form) for StorePriorURLs.
	Key string
	// URI and Date are the WARC-Target-URI and WARC-Date of the record that holds the payload:
	// what a revisit refers to.
	URI  string
	Date time.Time
	// Captured is when the URL was captured (the date of its own record, a revisit's too);
	// of two captures of one URL the later is kept. StorePriorURLs only.
	Captured time.Time
	// Digest is the payload digest ("sha1:BASE32", "" unknown), ETag and LastModified the
	// response's validators ("" none). StorePriorURLs only.
	Digest, ETag, LastModified string
	// Mime is the media type of the response's Content-Type, lowercase, without parameters;
	// "" when the capture's record does not say (a server-not-modified revisit, which has no
	// HTTP headers, or an entry stored before amber kept it). StorePriorURLs only.
	Mime string
}

// StorePriorDigests stores earlier captures by payload digest (Prior.Key), for PriorDigest. Of
// two captures of one payload, the one given last is kept: any of them is what a revisit may
// refer to, and the store is written without reading it first, which makes loading a large
// index twice as fast. Entries are written in transactions of their own, several at a time;
// an error leaves those before it stored. An error wrapping ErrURL concerns one entry too
// large to store (nothing of the batch from it on is stored); other errors are the store's
// (ErrNoSpace, ...).
func (f *Frontier) StorePriorDigests(ps []Prior) error {
	return f.storePriors(prefixPriorDigest, ps, func(p *Prior) []byte { return encodeDigest(p.URI, p.Date) }, nil)
}

// StorePriorURLs stores earlier captures by URL (Prior.Key), for PriorURL. Of two captures of a
// URL, the one Captured later is kept (the first given, when at the same time). Errors as for
// StorePriorDigests.
func (f *Frontier) StorePriorURLs(ps []Prior) error {
	return f.storePriors(prefixPriorURL, ps, encodePrior, func(stored []byte, p *Prior) (bool, error) {
		old, err := decodePrior(stored)
		if err != nil {
			return false, err
		}
		return p.Captured.After(old.Captured), nil
	})
}

// storePriors writes ps under prefix, in ops that stay well within a transaction's limits.
// replace says whether p replaces the stored value; nil: it does, unread.
func (f *Frontier) storePriors(prefix string, ps []Prior, encode func(*Prior) []byte, replace func(stored []byte, p *Prior) (bool, error)) error {
	for len(ps) > 0 {
		n, size := 0, int64(txnOverhead)
		vals := make([][]byte, 0, min(len(ps), maxGroupEntries/4))
		for n < len(ps) && n < maxGroupEntries/4 {
			v := encode(&ps[n])
			if len(ps[n].Key)+len(v)+2*binary.MaxVarintLen64 > MaxRecordSize {
				return fmt.Errorf("%w: earlier capture %.100q of %d bytes", ErrURL, ps[n].Key, len(ps[n].Key)+len(v))
			}
			es := entrySize(min(len(ps[n].Key), hashedPart)+len(prefix), len(ps[n].Key)+len(v)+binary.MaxVarintLen64)
			if n > 0 && size+es > maxGroupSize/2 {
				break
			}
			size += es
			vals = append(vals, v)
			n++
		}
		batch := ps[:n]
		if err := f.storePriorBatch(prefix, batch, vals, size, replace); err != nil {
			return err
		}
		ps = ps[n:]
	}
	return nil
}

func (f *Frontier) storePriorBatch(prefix string, batch []Prior, vals [][]byte, size int64, replace func([]byte, *Prior) (bool, error)) error {
	if err := f.enter(); err != nil {
		return err
	}
	defer f.exit()
	err := f.write(size, len(batch), func(txn *badger.Txn) error {
		for i := range batch {
			if err := putPrior(txn, prefix, &batch[i], vals[i], replace); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("frontier: store earlier captures: %w", err)
	}
	return nil
}

// putPrior stores val under p.Key in txn unless replace keeps the stored value (nil: the
// stored value is not read, and replaced). The transaction sees its own writes, so two entries
// of one batch are decided as two of two batches.
func putPrior(txn *badger.Txn, prefix string, p *Prior, val []byte, replace func([]byte, *Prior) (bool, error)) error {
	k := prefixed(prefix, p.Key)
	if replace != nil {
		// A hashed key held by another string (two strings of one SHA-256) is not found: it
		// is replaced, which loses that string's earlier capture, never a capture of this crawl.
		stored, found, err := getLong(txn, k, p.Key)
		if err != nil {
			return err
		}
		if found {
			ok, err := replace(stored, p)
			if err != nil || !ok {
				return err
			}
		}
	}
	if !hashed(k[len(prefix):]) {
		return txn.Set(k, val)
	}
	return txn.SetEntry(badger.NewEntry(k, encodeLong(p.Key, val)).WithMeta(longKey))
}

// PriorDigest returns the URI and date of the earlier capture stored with payload digest by
// StorePriorDigests; ok is false when there is none. Its errors are the store's.
func (f *Frontier) PriorDigest(digest string) (uri string, date time.Time, ok bool, err error) {
	v, ok, err := f.getPrior(prefixPriorDigest, digest)
	if err != nil || !ok {
		return "", time.Time{}, false, err
	}
	uri, date, err = decodeDigest(v)
	if err != nil {
		return "", time.Time{}, false, fmt.Errorf("frontier: earlier capture of %.100q: %w", digest, err)
	}
	return uri, date, true, nil
}

// PriorURL returns the earlier capture of url stored by StorePriorURLs; ok is false when there
// is none. Its errors are the store's.
func (f *Frontier) PriorURL(url string) (p Prior, ok bool, err error) {
	v, ok, err := f.getPrior(prefixPriorURL, url)
	if err != nil || !ok {
		return Prior{}, false, err
	}
	p, err = decodePrior(v)
	if err != nil {
		return Prior{}, false, fmt.Errorf("frontier: earlier capture of %.100q: %w", url, err)
	}
	p.Key = url
	return p, true, nil
}

func (f *Frontier) getPrior(prefix, key string) (val []byte, ok bool, err error) {
	if err := f.enter(); err != nil {
		return nil, false, err
	}
	defer f.exit()
	err = f.db.View(func(txn *badger.Txn) error {
		val, ok, err = getLong(txn, prefixed(prefix, key), key)
		return err
	})
	if err != nil {
		return nil, false, fmt.Errorf("frontier: look up earlier capture: %w", err)
	}
	return val, ok, nil
}

// encodePrior is the value of a p/ entry: captured and date (varint unix nanos), then URI,
// digest, ETag, Last-Modified and media type. An entry written before the media type was
// stored ends after Last-Modified: its media type is "".
func encodePrior(p *Prior) []byte {
	b := make([]byte, 0, 2*binary.MaxVarintLen64+len(p.URI)+len(p.Digest)+len(p.ETag)+len(p.LastModified)+len(p.Mime)+5*binary.MaxVarintLen64)
	b = binary.AppendVarint(b, p.Captured.UnixNano())
	b = binary.AppendVarint(b, p.Date.UnixNano())
	b = varrec.AppendString(b, p.URI)
	b = varrec.AppendString(b, p.Digest)
	b = varrec.AppendString(b, p.ETag)
	b = varrec.AppendString(b, p.LastModified)
	return varrec.AppendString(b, p.Mime)
}

func decodePrior(b []byte) (Prior, error) {
	d := varrec.NewDecoder(b, errCorrupt)
	captured, date := d.Varint(), d.Varint()
	p := Prior{Captured: time.Unix(0, captured).UTC(), Date: time.Unix(0, date).UTC()}
	p.URI, p.Digest, p.ETag, p.LastModified = d.Str(), d.Str(), d.Str(), d.Str()
	if d.Err() == nil && len(d.Rest()) > 0 {
		p.Mime = d.Str()
	}
	if err := d.Err(); err != nil {
		return Prior{}, err
	}
	return p, nil
}
