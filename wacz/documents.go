package wacz

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"os"
	"slices"
	"strconv"
)

// documents finds the search document of a page in documents.jsonl without holding the
// documents in memory: it keeps, for each URL a document names (url and additional_urls) and
// for each WARC record one was extracted from, where the newest line of that document is, and
// reads the line back when a page asks. A document written again (deduplication added a URL)
// supersedes its earlier lines, and names every URL they did.
type documents struct {
	f    *os.File
	path string
	seed maphash.Seed
	refs map[uint64]docRef // maphash of a URL or a "FILE OFFSET" location -> its document's line
	buf  []byte
}

// docRef is where one line of documents.jsonl is.
type docRef struct {
	off int64
	n   int
}

// document is what the package reads of a search document.
type document struct {
	URL            string   `json:"url"`
	AdditionalURLs []string `json:"additional_urls"`
	Title          string   `json:"title"`
	BodyContent    string   `json:"body_content"`
	WARCFilename   string   `json:"warc_filename"`
	WARCOffset     int64    `json:"warc_offset"`
}

// openDocuments indexes documents.jsonl. A crawl without one (documents off) gives a
// documents that finds nothing.
func openDocuments(ctx context.Context, path string) (*documents, error) {
	d := &documents{path: path, seed: maphash.MakeSeed(), refs: make(map[uint64]docRef)}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return d, nil
	}
	if err != nil {
		return nil, fmt.Errorf("wacz: %w", err)
	}
	d.f = f
	var off int64
	lineNo := 0
	err = eachLine(ctx, f, path, func(line []byte) error {
		lineNo++
		ref := docRef{off: off, n: len(line)}
		off += int64(len(line))
		var doc document
		if err := json.Unmarshal(line, &doc); err != nil {
			return fmt.Errorf("%w: %s:%d: %v", ErrMalformed, path, lineNo, err)
		}
		for _, u := range append([]string{doc.URL}, doc.AdditionalURLs...) {
			d.refs[d.key(u)] = ref
		}
		if doc.WARCFilename != "" {
			d.refs[d.key(location(doc.WARCFilename, doc.WARCOffset))] = ref
		}
		return nil
	})
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("wacz: documents: %w", err)
	}
	return d, nil
}

func (d *documents) key(s string) uint64 { return maphash.String(d.seed, s) }

// location is the key of a WARC record.
func location(file string, offset int64) string {
	return file + " " + strconv.FormatInt(offset, 10)
}

// find returns the search document of the page pageURL captured in the record at offset of
// file: the document that names the URL, else the one extracted from that record.
func (d *documents) find(pageURL, file string, offset int64) (document, bool, error) {
	if d.f == nil {
		return document{}, false, nil
	}
	for _, k := range []string{pageURL, location(file, offset)} {
		ref, ok := d.refs[d.key(k)]
		if !ok {
			continue
		}
		doc, err := d.read(ref)
		if err != nil {
			return document{}, false, err
		}
		// Keys are hashes: make sure the line is this page's.
		if doc.URL == pageURL || slices.Contains(doc.AdditionalURLs, pageURL) ||
			(doc.WARCFilename == file && doc.WARCOffset == offset) {
			return doc, true, nil
		}
	}
	return document{}, false, nil
}

// read reads back one line.
func (d *documents) read(ref docRef) (document, error) {
	if cap(d.buf) < ref.n {
		d.buf = make([]byte, ref.n)
	}
	b := d.buf[:ref.n]
	if _, err := d.f.ReadAt(b, ref.off); err != nil {
		return document{}, fmt.Errorf("wacz: read %s: %w", d.path, err)
	}
	var doc document
	if err := json.Unmarshal(b, &doc); err != nil {
		return document{}, fmt.Errorf("%w: %s at byte %d: %v", ErrMalformed, d.path, ref.off, err)
	}
	return doc, nil
}

// close closes documents.jsonl.
func (d *documents) close() {
	if d.f != nil {
		d.f.Close()
	}
}
