package wacz

import (
	"bytes"
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
		doc, err := docKeys(line)
		if err != nil {
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

// docKeys returns the URLs and the WARC location a line of documents.jsonl names, without
// decoding the rest: amber writes id, url and additional_urls first, and warc_filename and
// warc_offset after the text. The head is decoded up to ,"title": and the location read from
// the last "warc_filename":" on (neither can be inside a JSON string, whose quotes are
// escaped). A line in another order is decoded whole.
func docKeys(line []byte) (document, error) {
	whole := func() (document, error) {
		var doc document
		err := json.Unmarshal(line, &doc)
		return doc, err
	}
	var doc document
	head, _, ok := bytes.Cut(line, []byte(`,"title":`))
	if !ok || !bytes.Contains(head, []byte(`"additional_urls":`)) ||
		json.Unmarshal(append(head[:len(head):len(head)], '}'), &doc) != nil || doc.URL == "" {
		return whole()
	}
	const fileKey, offsetKey = `"warc_filename":"`, `,"warc_offset":`
	i := bytes.LastIndex(line, []byte(fileKey))
	if i < 0 {
		return doc, nil
	}
	rest := line[i+len(fileKey):]
	j := bytes.IndexByte(rest, '"')
	if j < 0 || bytes.IndexByte(rest[:j], '\\') >= 0 {
		return whole() // an escaped name: not one amber writes
	}
	after, ok := bytes.CutPrefix(rest[j+1:], []byte(offsetKey))
	k := 0
	if k < len(after) && after[k] == '-' {
		k++
	}
	for k < len(after) && after[k] >= '0' && after[k] <= '9' {
		k++
	}
	off, err := strconv.ParseInt(string(after[:k]), 10, 64)
	if !ok || err != nil {
		return whole()
	}
	doc.WARCFilename, doc.WARCOffset = string(rest[:j]), off
	return doc, nil
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
	doc, err := docKeys(b)
	if err == nil {
		doc.Title, doc.BodyContent, err = docText(b)
	}
	if err != nil {
		return document{}, fmt.Errorf("%w: %s at byte %d: %v", ErrMalformed, d.path, ref.off, err)
	}
	return doc, nil
}

// docText returns the title and body_content of a line of documents.jsonl, decoding only the
// head of the line up to ,"headings": (amber writes the two before it; the key cannot be
// inside a JSON string). A line in another order is decoded whole.
func docText(line []byte) (title, body string, err error) {
	var t struct {
		Title       *string `json:"title"`
		BodyContent *string `json:"body_content"`
	}
	head, _, ok := bytes.Cut(line, []byte(`,"headings":`))
	if !ok || json.Unmarshal(append(head[:len(head):len(head)], '}'), &t) != nil || t.Title == nil || t.BodyContent == nil {
		t.Title, t.BodyContent = nil, nil
		if err := json.Unmarshal(line, &t); err != nil {
			return "", "", err
		}
	}
	if t.Title != nil {
		title = *t.Title
	}
	if t.BodyContent != nil {
		body = *t.BodyContent
	}
	return title, body, nil
}

// close closes documents.jsonl.
func (d *documents) close() {
	if d.f != nil {
		d.f.Close()
	}
}
