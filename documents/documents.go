// Package documents writes a crawl's search-document stream, documents.jsonl (the Elastic
// web-crawler schema: extract.SearchDocument), one JSON object per line, each line one write,
// so that a kill loses at most the documents of the pages in flight. With deduplication there
// is one document per distinct content: a page whose content hash was seen adds its URL to
// the existing document's additional_urls, which is written again as a new line with the same
// id that supersedes the earlier one. The hash index lives in the crawl's frontier (its
// metadata store), so duplicates are recognised across resumes.
package documents

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/amber-crawler/amber/crawldir"
	"github.com/amber-crawler/amber/extract"
	"github.com/amber-crawler/amber/report"
)

// file names the stream in errors.
const file = crawldir.DocumentsFile

// ErrClosed is returned by Add after Close.
var ErrClosed = errors.New("documents: " + file + " closed")

// Store is where the hash index is kept: the frontier's metadata store.
type Store interface {
	Meta(key string) (value []byte, ok bool, err error)
	PutMeta(key string, value []byte) error
}

// metaDocHash maps a content hash to "OFFSET LENGTH" of the newest documents.jsonl line of the
// document with that content. It lives in the frontier's store, so duplicates are recognised
// across resumes.
const metaDocHash = "docs/hash/"

// Stream appends search documents to documents.jsonl. Its methods are safe for concurrent use.
type Stream struct {
	front Store
	cfg   extract.DocConfig
	dedup bool

	// open guards f against Close: Add holds it for reading throughout, Close for writing.
	open sync.RWMutex
	f    *os.File // nil after Close

	// hashes make "look up the hash, merge, append, record" one step for each content hash
	// (hashes[hashLock(hash)]), so that two pages with the same content at the same moment
	// make one document. Pages of other contents go on meanwhile: the step waits for a read
	// and a write of the store (the write a commit of the frontier's writer), and when one
	// lock served every page the crawl's workers queued behind it (make bench, 5 KB pages, 16
	// workers: 5 of them waiting at any moment, by a trace of 3 s).
	hashes [hashLocks]sync.Mutex

	mu   sync.Mutex // guards the file's end: size and the appends
	size int64
}

// hashLocks is the number of locks of content hashes.
const hashLocks = 64

// hashLock is the index of the lock of a content hash.
func hashLock(hash string) int { return int(maphash.String(lockSeed, hash) % hashLocks) }

var lockSeed = maphash.MakeSeed()

// Open opens the stream at path for appending, its hash index in front; dedup makes one
// document per distinct content. A torn last line left by a killed crawl is cut off
// (it was never recorded in the hash index, and a torn JSON object is of no use to anyone).
func Open(path string, front Store, cfg extract.DocConfig, dedup bool) (*Stream, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", file, err)
	}
	size, err := report.CutTornLine(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("repair %s: %w", file, err)
	}
	return &Stream{front: front, cfg: cfg, dedup: dedup, f: f, size: size}, nil
}

// Add writes the document of a page captured at pageURL (doc, as extract read it), whose
// response record is at warcOffset in warcFile. It returns the document written, or
// nil when nothing new was written (the URL already belongs to the document of its content).
func (d *Stream) Add(pageURL string, doc *extract.Document, warcFile string, warcOffset int64, at time.Time) (*extract.SearchDocument, error) {
	sd := extract.NewSearchDocument(pageURL, doc, d.cfg, at)
	sd.WARCFilename, sd.WARCOffset = warcFile, warcOffset
	d.open.RLock()
	defer d.open.RUnlock()
	if d.f == nil {
		return nil, ErrClosed
	}
	if !d.dedup {
		if _, _, err := d.append(sd); err != nil {
			return nil, err
		}
		return &sd, nil
	}
	l := &d.hashes[hashLock(sd.ContentHash)]
	l.Lock()
	defer l.Unlock()
	prev, ok, err := d.lookup(sd.ContentHash)
	if err != nil {
		return nil, err
	}
	if ok {
		merged, changed := mergeDuplicate(prev, sd, doc != nil && doc.Canonical != "")
		if !changed {
			return nil, nil
		}
		sd = merged
	}
	off, n, err := d.append(sd)
	if err != nil {
		return nil, err
	}
	if err := d.front.PutMeta(metaDocHash+sd.ContentHash, []byte(strconv.FormatInt(off, 10)+" "+strconv.FormatInt(n, 10))); err != nil {
		return nil, fmt.Errorf("store document hash: %w", err)
	}
	return &sd, nil
}

// mergeDuplicate adds the new capture's URLs to the document already written for the same
// content. The document keeps its id (it is the id of the first URL the content was found
// at). <link rel=canonical> decides which URL is `url`: when the new page names a canonical
// URL, that becomes `url` and the old `url` moves to additional_urls.
func mergeDuplicate(prev, cur extract.SearchDocument, curCanonical bool) (extract.SearchDocument, bool) {
	changed := false
	urls := append([]string{cur.URL}, cur.AdditionalURLs...)
	if curCanonical && cur.URL != prev.URL {
		old := prev.URL
		prev.URL = cur.URL
		prev.URLScheme, prev.URLHost, prev.URLPort = cur.URLScheme, cur.URLHost, cur.URLPort
		prev.URLPath, prev.URLPathDir1, prev.URLPathDir2, prev.URLPathDir3 = cur.URLPath, cur.URLPathDir1, cur.URLPathDir2, cur.URLPathDir3
		prev.AdditionalURLs = slices.DeleteFunc(prev.AdditionalURLs, func(u string) bool { return u == cur.URL })
		prev.AddURL(old)
		for _, d := range cur.Domains {
			if !slices.Contains(prev.Domains, d) {
				prev.Domains = append(prev.Domains, d)
			}
		}
		changed = true
		urls = urls[1:]
	}
	for _, u := range urls {
		if u == prev.URL || slices.Contains(prev.AdditionalURLs, u) {
			continue
		}
		if prev.AddURL(u) {
			changed = true
		}
	}
	if changed {
		prev.LastCrawledAt = cur.LastCrawledAt
	}
	return prev, changed
}

// lookup reads back the newest line of the document with this content hash.
func (d *Stream) lookup(hash string) (extract.SearchDocument, bool, error) {
	v, ok, err := d.front.Meta(metaDocHash + hash)
	if err != nil {
		return extract.SearchDocument{}, false, fmt.Errorf("look up document hash: %w", err)
	}
	if !ok {
		return extract.SearchDocument{}, false, nil
	}
	offS, nS, _ := strings.Cut(string(v), " ")
	off, err1 := strconv.ParseInt(offS, 10, 64)
	n, err2 := strconv.ParseInt(nS, 10, 64)
	d.mu.Lock()
	size := d.size
	d.mu.Unlock()
	if err1 != nil || err2 != nil || off < 0 || n <= 0 || off+n > size {
		// The line it points at is gone (a repaired file): treat the content as new.
		return extract.SearchDocument{}, false, nil
	}
	buf := make([]byte, n)
	if _, err := d.f.ReadAt(buf, off); err != nil {
		return extract.SearchDocument{}, false, fmt.Errorf("read %s: %w", file, err)
	}
	var sd extract.SearchDocument
	if err := json.Unmarshal(bytes.TrimSpace(buf), &sd); err != nil || sd.ContentHash != hash {
		// Not a document, or another content's (the file was cut back and written again
		// while the index kept its entry): the content is new.
		return extract.SearchDocument{}, false, nil
	}
	return sd, true, nil
}

// append writes one line and returns its offset and length. A line that could not be written
// whole (a full disk) is cut off again. The caller holds d.open.
func (d *Stream) append(sd extract.SearchDocument) (int64, int64, error) {
	bp := lineBufs.Get().(*[]byte)
	line := append(sd.AppendJSON((*bp)[:0]), '\n')
	defer func() {
		if cap(line) <= 1<<20 { // keep no huge buffer between pages
			*bp = line
			lineBufs.Put(bp)
		}
	}()
	d.mu.Lock()
	defer d.mu.Unlock()
	off := d.size
	n, err := d.f.WriteAt(line, off)
	if err != nil {
		// size stays at off: the next line is written over what was torn here (and a reopen
		// cuts a torn last line), even when the cut fails.
		// The cut is made whatever n says: os.File.WriteAt reports 0 bytes when pwrite fails
		// after writing part of the line (a full disk, a file size limit).
		err = fmt.Errorf("write %s: %w", file, err)
		if terr := d.f.Truncate(off); terr != nil {
			return 0, 0, errors.Join(err, fmt.Errorf("truncate %s: %w", file, terr))
		}
		return 0, 0, err
	}
	d.size += int64(n)
	return off, int64(n), nil
}

// lineBufs hold the buffers the lines are written from.
var lineBufs = sync.Pool{New: func() any { return new([]byte) }}

// Close syncs and closes the stream; Add fails after it.
func (d *Stream) Close() error {
	d.open.Lock()
	defer d.open.Unlock()
	if d.f == nil {
		return nil
	}
	err := d.f.Sync()
	if cerr := d.f.Close(); err == nil {
		err = cerr
	}
	d.f = nil
	return err
}
