package crawl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/amber-crawler/amber/crawldir"
	"github.com/amber-crawler/amber/extract"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/report"
)

// DocumentsFile is the search-document stream inside the crawl directory.
const DocumentsFile = crawldir.DocumentsFile

// metaDocHash maps a content hash to "OFFSET LENGTH" of the newest documents.jsonl line of the
// document with that content. It lives in the frontier's store, so duplicates are recognised
// across resumes.
const metaDocHash = "docs/hash/"

// docStream appends search documents to documents.jsonl, one JSON object per line, each line
// one write (a kill loses at most the documents of pages in flight). With deduplication, a page
// whose content hash was seen does not make a new document: the existing one gains the URL in
// additional_urls and is written again as a new line with the same id, which supersedes the
// earlier line.
type docStream struct {
	front frontier.Store
	cfg   extract.DocConfig
	dedup bool

	// mu guards f and makes "look up the hash, merge, append, record" one step, so two pages
	// with the same content at the same moment make one document. It is held across a local
	// file append and a store read/write: that is the whole point of it.
	mu   sync.Mutex
	f    *os.File
	size int64
	buf  []byte // the line being written
}

// openDocStream opens path for appending. A torn last line left by a killed crawl is cut off
// (it was never recorded in the hash index, and a torn JSON object is of no use to anyone).
func openDocStream(path string, front frontier.Store, cfg extract.DocConfig, dedup bool) (*docStream, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", DocumentsFile, err)
	}
	size, err := report.CutTornLine(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("repair %s: %w", DocumentsFile, err)
	}
	return &docStream{front: front, cfg: cfg, dedup: dedup, f: f, size: size}, nil
}

// add writes the document of a page captured at pageURL. It returns the document written, or
// nil when nothing new was written (the URL already belongs to the document of its content).
func (d *docStream) add(pageURL string, doc *extract.Document, warcFile string, warcOffset int64, at time.Time) (*extract.SearchDocument, error) {
	sd := extract.NewSearchDocument(pageURL, doc, d.cfg, at)
	sd.WARCFilename, sd.WARCOffset = warcFile, warcOffset
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.f == nil {
		return nil, fmt.Errorf("crawl: %s closed", DocumentsFile)
	}
	if d.dedup {
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
	}
	off, n, err := d.append(sd)
	if err != nil {
		return nil, err
	}
	if d.dedup {
		if err := d.front.PutMeta(metaDocHash+sd.ContentHash, []byte(strconv.FormatInt(off, 10)+" "+strconv.FormatInt(n, 10))); err != nil {
			return nil, fmt.Errorf("store document hash: %w", err)
		}
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
func (d *docStream) lookup(hash string) (extract.SearchDocument, bool, error) {
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
	if err1 != nil || err2 != nil || off < 0 || n <= 0 || off+n > d.size {
		// The line it points at is gone (a repaired file): treat the content as new.
		return extract.SearchDocument{}, false, nil
	}
	buf := make([]byte, n)
	if _, err := d.f.ReadAt(buf, off); err != nil {
		return extract.SearchDocument{}, false, fmt.Errorf("read %s: %w", DocumentsFile, err)
	}
	var sd extract.SearchDocument
	if err := json.Unmarshal(bytes.TrimSpace(buf), &sd); err != nil {
		return extract.SearchDocument{}, false, nil
	}
	return sd, true, nil
}

// append writes one line and returns its offset and length. A line that could not be written
// whole (a full disk) is cut off again.
func (d *docStream) append(sd extract.SearchDocument) (int64, int64, error) {
	d.buf = append(sd.AppendJSON(d.buf[:0]), '\n')
	if cap(d.buf) > 1<<20 {
		defer func() { d.buf = nil }() // keep no huge buffer between pages
	}
	off := d.size
	n, err := d.f.WriteAt(d.buf, off)
	if err != nil {
		// size stays at off: the next line is written over what was torn here (and a reopen
		// cuts a torn last line), even when the cut fails.
		err = fmt.Errorf("write %s: %w", DocumentsFile, err)
		if n > 0 {
			if terr := d.f.Truncate(off); terr != nil {
				return 0, 0, errors.Join(err, fmt.Errorf("truncate %s: %w", DocumentsFile, terr))
			}
		}
		return 0, 0, err
	}
	d.size += int64(n)
	return off, int64(n), nil
}

func (d *docStream) close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
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
