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
	"strings"

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

// page is one line of pages.jsonl.
type page struct {
	ID    string `json:"id"`
	URL   string `json:"url"`
	TS    string `json:"ts"`
	Title string `json:"title,omitempty"`
	Text  string `json:"text,omitempty"`
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
// inferred URL; noindex pages included, since a page list is not a search index. The first
// capture of a URL counts. title and text come from the page's search document when there is
// one. seeds are crawl.yaml's, in order, for mainPageUrl.
//
// Up to limit pages, pages/pages.jsonl lists them all, the seeds first. Above it, it lists the
// seeds and pages/extraPages.jsonl the other pages (the WACZ specification's "main pages" and
// "additional pages"): ReplayWeb.page loads pages.jsonl into its database before it shows
// anything, about 0.65 ms a page (a minute and a half for 100,000), and reads extraPages.jsonl
// only when searched. The pages that are not seeds wait in a file in work meanwhile.
func writePages(ctx context.Context, z *pkg, logPath string, packaged map[string]bool, docs *docSet, seeds []string, limit int, work string) (pagesResult, error) {
	var res pagesResult
	e, err := z.create(PagesFile, z.created)
	if err != nil {
		return res, err
	}
	if _, err := e.Write([]byte(pagesHeader)); err != nil {
		return res, fmt.Errorf("wacz: pages: %w", err)
	}
	rest, err := os.CreateTemp(work, "pages-*.jsonl")
	if err != nil {
		return res, fmt.Errorf("wacz: %w", err)
	}
	defer rest.Close()
	restBuf := bufio.NewWriterSize(rest, 256<<10)
	seedRank := make(map[string]int, len(seeds))
	for i, s := range seeds {
		if k := normURL(s); k != "" {
			if _, ok := seedRank[k]; !ok {
				seedRank[k] = i
			}
		}
	}
	mainRank := len(seeds) + 1 // len(seeds): a seed that is not in crawl.yaml; +1: not a seed
	seed := maphash.MakeSeed()
	seen := make(map[uint64]struct{})
	seedEnc, restEnc := json.NewEncoder(e), json.NewEncoder(restBuf)
	seedEnc.SetEscapeHTML(false)
	restEnc.SetEscapeHTML(false)

	f, err := os.Open(logPath)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return res, fmt.Errorf("wacz: %w", err)
	}
	if f != nil {
		defer f.Close()
		lineNo := 0
		err = eachLine(ctx, f, logPath, func(text []byte) error {
			lineNo++
			s := strings.TrimRight(string(text), "\r\n")
			if strings.TrimSpace(s) == "" {
				return nil
			}
			l, err := report.ParseLine(s)
			if err != nil {
				return fmt.Errorf("%w: %s:%d: %v", ErrMalformed, logPath, lineNo, err)
			}
			file, offset, ok := warcLocation(l)
			if !ok || !packaged[file] || !isPage(l) {
				return nil
			}
			k := maphash.String(seed, l.URL)
			if _, dup := seen[k]; dup {
				return nil
			}
			seen[k] = struct{}{}
			at := l.FetchStart
			if at.IsZero() {
				at = l.Time
			}
			p := page{URL: l.URL, TS: at.UTC().Format(pageTime)}
			sum := sha256.Sum256([]byte(p.TS + " " + p.URL))
			p.ID = hex.EncodeToString(sum[:16])
			if d, ok, err := docs.find(l.URL, file, offset); err != nil {
				return err
			} else if ok {
				p.Title, p.Text = d.Title, d.BodyContent
			}
			enc, rank := restEnc, len(seeds)+1
			if l.Hops == "" {
				enc, rank = seedEnc, len(seeds)
				if r, ok := seedRank[normURL(l.URL)]; ok {
					rank = r
				}
			} else {
				res.extra++
			}
			if err := enc.Encode(p); err != nil {
				return err
			}
			res.count++
			if rank < mainRank || res.mainURL == "" {
				mainRank, res.mainURL, res.mainTS = rank, p.URL, p.TS
			}
			return nil
		})
		if err != nil {
			return res, fmt.Errorf("wacz: pages: %w", err)
		}
	}
	if err := restBuf.Flush(); err != nil {
		return res, fmt.Errorf("wacz: pages: %w", err)
	}
	if _, err := rest.Seek(0, io.SeekStart); err != nil {
		return res, fmt.Errorf("wacz: pages: %w", err)
	}
	if res.extra == 0 || limit >= 0 && res.count <= limit {
		res.extra = 0
	} else {
		z.finish(e)
		if e, err = z.create(ExtraPagesFile, z.created); err != nil {
			return res, err
		}
		if _, err := e.Write([]byte(extraPagesHeader)); err != nil {
			return res, fmt.Errorf("wacz: pages: %w", err)
		}
	}
	if _, err := io.CopyBuffer(e, ctxReader{ctx, rest}, z.buf); err != nil {
		return res, fmt.Errorf("wacz: pages: %w", err)
	}
	z.finish(e)
	return res, nil
}

// isPage reports whether a captured crawl.log line is a page of pages.jsonl.
func isPage(l report.Line) bool {
	if l.Status <= 0 {
		return false
	}
	if l.Hops == "" {
		return true // a seed
	}
	switch l.Hops[len(l.Hops)-1] {
	case hop.Embed, hop.Prerequisite, hop.Inferred:
		return false
	}
	return l.Status >= 200 && l.Status < 300 && (l.MIME == "text/html" || l.MIME == "application/xhtml+xml")
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
