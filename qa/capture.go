package qa

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/amber-crawler/amber/extract"
	"github.com/amber-crawler/amber/replay"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/warc"
)

// maxCapture bounds what is read of one capture (an archived page, a screenshot) to compare.
const maxCapture = 32 << 20

// docIndex finds the search document of a page in a crawl's documents.jsonl without holding
// the documents: for each URL asked for, where the last line that names it (url or
// additional_urls) is, read back when the page is checked.
type docIndex struct {
	f    *os.File
	refs map[string]lineRef
}

type lineRef struct {
	off int64
	n   int
}

// openDocIndex indexes the lines of documents.jsonl at path that name one of urls. A crawl
// without documents.jsonl (documents off) has none.
func openDocIndex(path string, urls map[string]bool) (*docIndex, error) {
	d := &docIndex{refs: map[string]lineRef{}}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return d, nil
	}
	if err != nil {
		return nil, fmt.Errorf("qa: %w", err)
	}
	d.f = f
	br := bufio.NewReaderSize(f, 256<<10)
	var off int64
	for {
		line, rerr := br.ReadBytes('\n')
		if len(line) > 0 {
			var doc struct {
				URL            string   `json:"url"`
				AdditionalURLs []string `json:"additional_urls"`
			}
			// A line that does not parse (torn by a kill) names nothing.
			if json.Unmarshal(line, &doc) == nil {
				for _, u := range append([]string{doc.URL}, doc.AdditionalURLs...) {
					if urls[u] {
						d.refs[u] = lineRef{off: off, n: len(line)}
					}
				}
			}
			off += int64(len(line))
		}
		if errors.Is(rerr, io.EOF) {
			return d, nil
		}
		if rerr != nil {
			f.Close()
			return nil, fmt.Errorf("qa: %s: %w", path, rerr)
		}
	}
}

// text returns the body_content of the search document of the page u; ok is false when
// there is none.
func (d *docIndex) text(u string) (text string, ok bool, err error) {
	ref, found := d.refs[u]
	if !found || d.f == nil {
		return "", false, nil
	}
	b := make([]byte, ref.n)
	if _, err := d.f.ReadAt(b, ref.off); err != nil {
		return "", false, fmt.Errorf("qa: read documents: %w", err)
	}
	var doc struct {
		BodyContent string `json:"body_content"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return "", false, fmt.Errorf("qa: read documents: %w", err)
	}
	return doc.BodyContent, true, nil
}

func (d *docIndex) close() {
	if d.f != nil {
		d.f.Close()
	}
}

// captured is where the capture-time material of pages comes from: a crawl directory's
// replay (its screenshots, its archived pages) and search documents.
type captured struct {
	srv  *replay.Server
	docs *docIndex
	doc  extract.DocConfig
	ref  bool // the --reference crawl's
	// redirects are the URLs that redirected to each page (redirectSources).
	redirects map[string][]string
}

// text returns the text a page had at capture and where it came from: the page's search
// document, else the text of its archived response when that is HTML (for a page without a
// document: noindex, documents off). at aims at the capture of the page (zero: the crawl's
// time). "" and source "none" when there is neither.
func (c *captured) text(urls []string, at time.Time) (text, source string, err error) {
	prefix := ""
	if c.ref {
		prefix = "reference-"
	}
	for _, u := range urls {
		t, ok, err := c.docs.text(u)
		if err != nil {
			return "", "", err
		}
		if ok {
			if c.ref {
				return t, "reference", nil
			}
			return t, "document", nil
		}
	}
	if len(urls) == 0 {
		return "", "none", nil
	}
	cp, err := c.srv.Capture(urls[0], at, maxCapture)
	if err != nil {
		if errors.Is(err, replay.ErrNotFound) || errors.Is(err, replay.ErrTooLarge) {
			return "", "none", nil
		}
		return "", "", err
	}
	ct := cp.Header.Get("Content-Type")
	if !extract.IsHTML(extract.MediaType(ct)) {
		return "", "none", nil
	}
	body, ok := decoded(cp.Body, cp.Header.Values("Content-Encoding"))
	if !ok {
		return "", "none", nil
	}
	res, err := extract.ParseDocument(cp.URL, ct, body, c.doc)
	if err != nil || res.Document == nil {
		return "", "none", nil
	}
	return res.Document.Body, prefix + "response", nil
}

// screenshot returns the screenshot taken at capture of the first of urls that has one (a
// page, then the URLs that redirected to it); nil when none has.
func (c *captured) screenshot(urls []string, at time.Time) ([]byte, error) {
	for _, u := range urls {
		cp, err := c.srv.Capture(screenshotURI(u), at, maxCapture)
		if errors.Is(err, replay.ErrNotFound) || errors.Is(err, replay.ErrTooLarge) {
			continue
		}
		if err != nil {
			return nil, err
		}
		return cp.Body, nil
	}
	return nil, nil
}

// screenshotURI is the URI of the resource record of a page's screenshot (crawl/records.go).
func screenshotURI(page string) string { return "urn:screenshot:" + page }

// decoded removes the content codings gzip and deflate; ok is false for another (br, say)
// or a body that does not decode.
func decoded(body []byte, codings []string) ([]byte, bool) {
	var cs []string
	for _, v := range codings {
		for _, c := range strings.Split(v, ",") {
			if c = strings.ToLower(strings.TrimSpace(c)); c != "" && c != "identity" {
				cs = append(cs, c)
			}
		}
	}
	for i := len(cs) - 1; i >= 0; i-- {
		var r io.Reader
		switch cs[i] {
		case "gzip", "x-gzip":
			zr, err := gzip.NewReader(bytes.NewReader(body))
			if err != nil {
				return nil, false
			}
			r = zr
		case "deflate":
			r = flate.NewReader(bytes.NewReader(body))
		default:
			return nil, false
		}
		out, err := io.ReadAll(io.LimitReader(r, maxCapture+1))
		if err != nil || len(out) > maxCapture {
			return nil, false
		}
		body = out
	}
	return body, true
}

// crawlOutcomes returns what the crawl.log at path says of the URLs whose CDX keys are in
// keys: for each key, its status and annotations ("-5000 scope:out-of-scope"), the line of a
// capture first, else the last line. A crawl without a crawl.log says nothing.
func crawlOutcomes(path string, keys map[string]bool) (map[string]string, error) {
	out := map[string]string{}
	if len(keys) == 0 {
		return out, nil
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, fmt.Errorf("qa: %w", err)
	}
	defer f.Close()
	captured := map[string]bool{}
	br := bufio.NewReaderSize(f, 256<<10)
	for {
		line, rerr := br.ReadString('\n')
		if s := strings.TrimRight(line, "\r\n"); strings.TrimSpace(s) != "" {
			if l, err := report.ParseLine(s); err == nil {
				k := warc.CDXKey(l.URL)
				if keys[k] && !captured[k] {
					v := fmt.Sprint(l.Status)
					if len(l.Annotations) > 0 {
						v += " " + strings.Join(l.Annotations, ",")
					}
					out[k] = v
					captured[k] = l.Status > 0
				}
			}
		}
		if errors.Is(rerr, io.EOF) {
			return out, nil
		}
		if rerr != nil {
			return nil, fmt.Errorf("qa: %s: %w", path, rerr)
		}
	}
}

// redirectSources returns, for each of pages that the crawl reached by a redirect (its
// crawl.log line's hop path ends in R), the URLs it was redirected from, nearest first: a
// browser crawl names a page's screenshot by the URL it loaded, which redirected to the page
// listed. A crawl without a crawl.log has none.
func redirectSources(path string, pages map[string]bool) (map[string][]string, error) {
	via := map[string]string{} // redirect target -> its source, for every R line
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("qa: %w", err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 256<<10)
	for {
		line, rerr := br.ReadString('\n')
		if s := strings.TrimRight(line, "\r\n"); strings.TrimSpace(s) != "" {
			if l, err := report.ParseLine(s); err == nil && strings.HasSuffix(l.Hops, "R") && l.Via != "" {
				if _, ok := via[l.URL]; !ok {
					via[l.URL] = l.Via
				}
			}
		}
		if errors.Is(rerr, io.EOF) {
			break
		}
		if rerr != nil {
			return nil, fmt.Errorf("qa: %s: %w", path, rerr)
		}
	}
	out := map[string][]string{}
	for p := range pages {
		seen := map[string]bool{p: true}
		for u := via[p]; u != "" && !seen[u] && len(out[p]) < 20; u = via[u] {
			seen[u] = true
			out[p] = append(out[p], u)
		}
	}
	return out, nil
}
