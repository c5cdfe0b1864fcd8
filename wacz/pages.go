package wacz

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/amber-crawler/amber/hop"
	"github.com/amber-crawler/amber/report"
)

// The first lines of pages.jsonl and extraPages.jsonl (WACZ 1.1.1, "pages.jsonl"; the second
// as browsertrix-crawler names it).
const (
	pagesHeader      = `{"format": "` + pagesFormat + `", "id": "pages", "title": "All Pages"}` + "\n"
	extraPagesHeader = `{"format": "` + pagesFormat + `", "id": "extra-pages", "title": "Extra Pages"}` + "\n"
)

// pageTime is the layout of a page's ts: RFC 3339 in UTC to the millisecond, the precision of
// crawl.log's fetch times.
const pageTime = "2006-01-02T15:04:05.000Z07:00"

// Page is one page of a crawl's page list: a line of pages.jsonl (WACZ 1.1.1).
type Page struct {
	ID    string `json:"id"`              // derived from TS and URL
	URL   string `json:"url"`             // the page's URL as captured
	TS    string `json:"ts"`              // when it was captured: RFC 3339, UTC, milliseconds
	Title string `json:"title,omitempty"` // the title of its search document, if any
	Text  string `json:"text,omitempty"`  // the text of its search document, if any
}

// Time returns TS as a time; zero when it does not parse.
func (p Page) Time() time.Time {
	t, err := time.Parse(time.RFC3339Nano, p.TS)
	if err != nil {
		return time.Time{}
	}
	return t
}

// pagesResult says what writePages wrote.
type pagesResult struct {
	count   int    // pages listed, in both files
	extra   int    // of which in extraPages.jsonl
	mainURL string // the first seed's page (crawl.yaml's order), else the first seed captured, else the first page
	mainTS  string
}

// writePages writes the page list from crawl.log: one line per URL captured into a packaged
// WARC file that is a seed (whatever its status and type: the archivist chose it) or an HTML
// page with a 2xx status that is not an embed (an iframe's document), a prerequisite or an
// inferred URL, and whose body was fetched (content.types: a response not fetched has only
// its request archived); noindex pages included, since a page list is not a search index.
// The first capture of a URL counts. title and text come from the page's search document when there is
// one. seeds are crawl.yaml's, in order, for mainPageUrl.
//
// Up to limit pages, pages/pages.jsonl lists them all, the seeds first. Above it, it lists the
// seeds and pages/extraPages.jsonl the other pages (the WACZ specification's "main pages" and
// "additional pages"): ReplayWeb.page loads pages.jsonl into its database before it shows
// anything, about 0.65 ms a page (a minute and a half for 100,000), and reads extraPages.jsonl
// only when searched. The pages that are not seeds wait in a file in work meanwhile.
func writePages(ctx context.Context, z *pkg, logPath string, packaged map[string]bool, docs *docSet, seeds []string, limit int, work string) (pagesResult, error) {
	e, err := z.create(PagesFile, z.created)
	if err != nil {
		return pagesResult{}, err
	}
	if _, err := e.Write([]byte(pagesHeader)); err != nil {
		return pagesResult{}, fmt.Errorf("wacz: pages: %w", err)
	}
	rest, err := os.CreateTemp(work, "pages-*.jsonl")
	if err != nil {
		return pagesResult{}, fmt.Errorf("wacz: %w", err)
	}
	defer rest.Close()
	restBuf := bufio.NewWriterSize(rest, 256<<10)
	seedOut, restOut := json.NewEncoder(e), json.NewEncoder(restBuf)
	seedOut.SetEscapeHTML(false)
	restOut.SetEscapeHTML(false)
	pl := newPageList(seeds, packaged, docs, func(p Page, seed bool) error {
		if seed {
			return seedOut.Encode(p)
		}
		return restOut.Encode(p)
	})
	if err := pl.readLog(ctx, logPath); err != nil {
		return pagesResult{}, err
	}
	if err := restBuf.Flush(); err != nil {
		return pagesResult{}, fmt.Errorf("wacz: pages: %w", err)
	}
	if _, err := rest.Seek(0, io.SeekStart); err != nil {
		return pagesResult{}, fmt.Errorf("wacz: pages: %w", err)
	}
	res := pl.res
	if res.extra > 0 && (limit < 0 || res.count > limit) {
		z.finish(e)
		if e, err = z.create(ExtraPagesFile, z.created); err != nil {
			return pagesResult{}, err
		}
		if _, err := e.Write([]byte(extraPagesHeader)); err != nil {
			return pagesResult{}, fmt.Errorf("wacz: pages: %w", err)
		}
	} else {
		res.extra = 0
	}
	if _, err := io.CopyBuffer(e, ctxReader{ctx, rest}, z.buf); err != nil {
		return pagesResult{}, fmt.Errorf("wacz: pages: %w", err)
	}
	z.finish(e)
	return res, nil
}

// pageList lists the pages of a crawl.log as writePages wants them: each page once, given to
// a function that is told whether it is a seed's, and it picks the main page.
type pageList struct {
	packaged map[string]bool // the names of the WARC files packaged: pages in others are left out
	docs     *docSet
	seedRank map[string]int // normURL of a seed -> its first place in crawl.yaml's seeds
	// unlisted is the rank of a seed that crawl.yaml does not list; a page that is not a seed
	// ranks after it.
	unlisted int
	hash     maphash.Seed
	seen     map[uint64]struct{} // maphash of the URLs listed
	emit     func(p Page, seed bool) error
	mainRank int // the rank of res.mainURL
	res      pagesResult
}

// newPageList returns a pageList that gives each page to emit; seeds are crawl.yaml's, in
// order, for the main page.
func newPageList(seeds []string, packaged map[string]bool, docs *docSet, emit func(p Page, seed bool) error) *pageList {
	pl := &pageList{
		packaged: packaged,
		docs:     docs,
		seedRank: make(map[string]int, len(seeds)),
		unlisted: len(seeds),
		hash:     maphash.MakeSeed(),
		seen:     make(map[uint64]struct{}),
		emit:     emit,
		mainRank: len(seeds) + 1,
	}
	for i, s := range seeds {
		if k := normURL(s); k != "" {
			if _, ok := pl.seedRank[k]; !ok {
				pl.seedRank[k] = i
			}
		}
	}
	return pl
}

// readLog lists the pages of the crawl.log at path, in its order; a crawl without a
// crawl.log has none. A line that cannot be read is an error wrapping ErrMalformed.
func (pl *pageList) readLog(ctx context.Context, path string) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("wacz: %w", err)
	}
	defer f.Close()
	lineNo := 0
	err = eachLine(ctx, f, path, func(text []byte) error {
		lineNo++
		s := strings.TrimRight(string(text), "\r\n")
		if strings.TrimSpace(s) == "" {
			return nil
		}
		l, err := report.ParseLine(s)
		if err != nil {
			return fmt.Errorf("%w: %s:%d: %v", ErrMalformed, path, lineNo, err)
		}
		return pl.add(l)
	})
	if err != nil {
		return fmt.Errorf("wacz: pages: %w", err)
	}
	return nil
}

// add lists the page of crawl.log line l, if it is one (see writePages) and its URL was not
// listed yet, with the title and text of its search document.
func (pl *pageList) add(l report.Line) error {
	file, offset, ok := warcLocation(l)
	if !ok || !pl.packaged[file] || !isPage(l) {
		return nil
	}
	k := maphash.String(pl.hash, l.URL)
	if _, dup := pl.seen[k]; dup {
		return nil
	}
	pl.seen[k] = struct{}{}
	p := newPage(l)
	if d, ok, err := pl.docs.find(l.URL, file, offset); err != nil {
		return err
	} else if ok {
		p.Title, p.Text = d.Title, d.BodyContent
	}
	seed, rank := l.Hops == "", pl.unlisted+1
	if seed {
		rank = pl.unlisted
		if r, ok := pl.seedRank[normURL(l.URL)]; ok {
			rank = r
		}
	} else {
		pl.res.extra++
	}
	if err := pl.emit(p, seed); err != nil {
		return err
	}
	pl.res.count++
	if rank < pl.mainRank || pl.res.mainURL == "" {
		pl.mainRank, pl.res.mainURL, pl.res.mainTS = rank, p.URL, p.TS
	}
	return nil
}

// newPage returns the page of crawl.log line l, without title and text: its time is the
// fetch's start (the line's time when crawl.log has none), its ID derived from time and URL.
func newPage(l report.Line) Page {
	at := l.FetchStart
	if at.IsZero() {
		at = l.Time
	}
	p := Page{URL: l.URL, TS: at.UTC().Format(pageTime)}
	sum := sha256.Sum256([]byte(p.TS + " " + p.URL))
	p.ID = hex.EncodeToString(sum[:16])
	return p
}

// isPage reports whether a captured crawl.log line is a page of pages.jsonl: a seed, or what
// a browser navigates to (not an embed, a prerequisite or an inferred URL) that is an HTML
// page answered 2xx, or answered 304 to a recrawl that wrote it as a revisit of the earlier
// capture (crawl.log gives it that capture's type); not one whose body was not
// fetched (only its request is archived: there is nothing to replay).
func isPage(l report.Line) bool {
	if l.Status <= 0 || l.BodyNotFetched() {
		return false
	}
	if l.Hops == "" {
		return true // a seed
	}
	switch l.Hops[len(l.Hops)-1] {
	case hop.Embed, hop.Prerequisite, hop.Inferred:
		return false
	}
	return (l.Status >= 200 && l.Status < 300 || notModified(l)) && (l.MIME == "text/html" || l.MIME == "application/xhtml+xml")
}

// notModified reports whether a crawl.log line is a recrawl's 304, written as a revisit of the
// earlier capture (annotated as prior.NoteNotModified), which replays as that capture.
func notModified(l report.Line) bool {
	return l.Status == 304 && slices.Contains(l.Annotations, "duplicate:server-not-modified")
}

// warcLocation returns the WARC file name and offset of a crawl.log line's record.
func warcLocation(l report.Line) (file string, offset int64, ok bool) {
	file, _ = l.Extra["warcFilename"].(string)
	off, okOff := l.Extra["warcFileOffset"].(float64)
	if file == "" || !okOff {
		return "", 0, false
	}
	return file, int64(off), true
}

// normURL is an absolute URL in the form in which a seed of crawl.yaml and the crawl.log line
// of its capture agree: scheme and host lower case, no default port, "/" for an empty path.
// It is "" for what does not parse.
func normURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return ""
	}
	scheme := strings.ToLower(u.Scheme)
	host := strings.ToLower(u.Hostname())
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if p := u.Port(); p != "" && !(scheme == "http" && p == "80") && !(scheme == "https" && p == "443") {
		host += ":" + p
	}
	p := u.EscapedPath()
	if p == "" {
		p = "/"
	}
	out := scheme + "://" + host + p
	if u.RawQuery != "" || u.ForceQuery {
		out += "?" + u.RawQuery
	}
	return out
}
