// Package prior reads earlier crawls that a crawl builds on into its state (the frontier's
// store, on disk): their captures by payload digest, for deduplication (DedupFrom), and for a
// recrawl (RecrawlOf) their captures by URL with the validators (ETag, Last-Modified) and
// media type of each response. It gives the crawl's WARC writer the digest index that looks
// in them after the crawl's own (Index), and the chain the processor that makes a recrawl's
// requests conditional and reads back, for a page or a style sheet that answers 304, the
// earlier crawl's capture of it (Recrawl).
package prior

import (
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/amber-crawler/amber/chain"
	"github.com/amber-crawler/amber/crawldir"
	"github.com/amber-crawler/amber/extract"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/replay"
	"github.com/amber-crawler/amber/wacz"
	"github.com/amber-crawler/amber/warc"
)

// A crawl that builds on earlier crawls (Config.DedupFrom, Config.RecrawlOf) reads their
// indexes once into its state (the frontier's store, on disk): their captures by payload
// digest, from the CDXJ lines alone, and for a recrawl their captures by URL with the
// validators (ETag, Last-Modified) of each response, which CDXJ lines do not have: those are
// read from the head of each 2xx response and each revisit record, by its offset in the WARC
// files of the crawl directory or the WACZ. A crawl directory is read in the order of its live
// index, which is the order of its WARC files, so the heads are read front to back.
//
// A recrawl asks for everything it has validators of conditionally (Recrawl), pages and style
// sheets too, and keeps the media type of each capture for it: a 304 has no body, so the
// content of a page or a style sheet that answers 304 is read back from the earlier crawl's
// record of it, found through its index (replay.Archive), and read as the 200 would have been.
//
// Keys of what was loaded, in the meta store, + the earlier crawl's path: a resumed crawl does
// not read it again. Loading is idempotent (the last capture of a payload read, the latest
// capture of a URL is kept), so a run stopped while loading loads again from the start.
const (
	metaPriorDigests = "crawl/prior/digests/"
	metaPriorURLs    = "crawl/prior/urls/"
)

// emptyPayload is the digest of an empty payload: never deduplicated.
const emptyPayload = "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ"

// Bounds of loading: CDXJ lines longer than maxPriorLine are skipped; captures are stored
// priorBatch at a time; headReaders heads are read at once.
const (
	maxPriorLine = 1 << 20
	priorBatch   = 4096
	headReaders  = 4
)

// ErrNoWARCs is returned for a recrawl of an earlier crawl given as a CDXJ file alone.
var ErrNoWARCs = errors.New("prior: a recrawl reads the validators (ETag, Last-Modified) from the earlier crawl's WARC files: give its crawl directory or WACZ file, not its index")

// priorSource is an earlier crawl opened for reading: its CDXJ lines and, unless it is a CDXJ
// file alone, its WARC files by name.
type priorSource struct {
	index io.Reader
	warcs *warcFiles // nil for a CDXJ file
	close func() error
}

// openPrior opens an earlier crawl: a crawl directory (its live index, in WARC order, else its
// sorted index; WARC files in warcs/; an unpacked WACZ is read as one), a WACZ file (indexes/*.cdxj or indexes/index.cdx.gz;
// WARC files in archive/, stored), or a CDXJ file (gzip-compressed or not).
func openPrior(p string) (*priorSource, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		return openPriorDir(p)
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	var magic [4]byte
	n, _ := io.ReadFull(f, magic[:])
	if n == 4 && string(magic[:]) == "PK\x03\x04" {
		src, err := openWACZ(f, fi.Size())
		if err != nil {
			f.Close()
			return nil, err
		}
		return src, nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	index, err := maybeGzip(f)
	if err != nil {
		f.Close()
		return nil, err
	}
	return &priorSource{index: index, close: f.Close}, nil
}

func openPriorDir(dir string) (*priorSource, error) {
	var f *os.File
	var err error
	for _, name := range []string{crawldir.LiveCDXJFile, crawldir.CDXJFile} {
		if f, err = os.Open(filepath.Join(dir, name)); err == nil {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("no index (%s or %s): %w", crawldir.LiveCDXJFile, crawldir.CDXJFile, err)
	}
	w := &warcFiles{open: func(name string) (io.ReaderAt, io.Closer, error) {
		var err error
		// warcs/NAME, or NAME.open of a crawl that was not closed, or archive/NAME of an
		// unpacked WACZ.
		for _, p := range []string{filepath.Join(crawldir.WARCDir, name), filepath.Join(crawldir.WARCDir, name+".open"), filepath.Join("archive", name)} {
			var f *os.File
			if f, err = os.Open(filepath.Join(dir, p)); err == nil {
				return f, f, nil
			}
		}
		return nil, nil, err
	}}
	return &priorSource{index: f, warcs: w, close: func() error { w.closeAll(); return f.Close() }}, nil
}

// openWACZ reads a WACZ package (WACZ 1.1.1): a zip whose WARC files are stored, so that a
// record is read at its offset in the zip.
func openWACZ(f *os.File, size int64) (*priorSource, error) {
	zr, err := zip.NewReader(f, size)
	if err != nil {
		return nil, fmt.Errorf("read wacz: %w", err)
	}
	var index *zip.File
	entries := map[string]*zip.File{}
	for _, e := range zr.File {
		entries[e.Name] = e
		if dir, name := path.Split(e.Name); dir == "indexes/" && (index == nil || preferIndex(name, path.Base(index.Name))) &&
			(strings.HasSuffix(name, ".cdxj") || strings.HasSuffix(name, ".cdx.gz")) {
			index = e
		}
	}
	if index == nil {
		return nil, errors.New("read wacz: no index (indexes/*.cdxj or indexes/*.cdx.gz)")
	}
	rc, err := index.Open()
	if err != nil {
		return nil, fmt.Errorf("read wacz %s: %w", index.Name, err)
	}
	lines, err := maybeGzip(rc)
	if err != nil {
		rc.Close()
		return nil, fmt.Errorf("read wacz %s: %w", index.Name, err)
	}
	w := &warcFiles{open: func(name string) (io.ReaderAt, io.Closer, error) {
		e, ok := entries["archive/"+name]
		if !ok {
			return nil, nil, fmt.Errorf("no archive/%s in the wacz: %w", name, os.ErrNotExist)
		}
		if e.Method != zip.Store {
			return nil, nil, fmt.Errorf("archive/%s is compressed in the wacz (WACZ stores WARC files as they are)", name)
		}
		off, err := e.DataOffset()
		if err != nil {
			return nil, nil, err
		}
		return io.NewSectionReader(f, off, int64(e.CompressedSize64)), io.NopCloser(nil), nil
	}}
	return &priorSource{index: lines, warcs: w, close: func() error { rc.Close(); return f.Close() }}, nil
}

// preferIndex orders the index files of a WACZ: index.cdxj, then other .cdxj, then .cdx.gz.
func preferIndex(name, than string) bool {
	rank := func(n string) int {
		switch {
		case n == "index.cdxj":
			return 0
		case strings.HasSuffix(n, ".cdxj"):
			return 1
		}
		return 2
	}
	return rank(name) < rank(than)
}

// maybeGzip returns r decompressed when it starts as gzip does (a compressed index is gzip
// members one after the other), else r as it is.
func maybeGzip(r io.Reader) (io.Reader, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	if magic, err := br.Peek(2); err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		return gzip.NewReader(br)
	}
	return br, nil
}

// warcFiles opens the WARC files of an earlier crawl by the names its index gives, once each.
type warcFiles struct {
	open func(name string) (io.ReaderAt, io.Closer, error)

	mu    sync.Mutex // guards files
	files map[string]warcFile
}

type warcFile struct {
	r   io.ReaderAt
	c   io.Closer
	err error
}

func (w *warcFiles) get(name string) (io.ReaderAt, error) {
	if name == "" || name != filepath.Base(name) || strings.ContainsAny(name, `/\`) {
		return nil, fmt.Errorf("WARC file name %q", name)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if f, ok := w.files[name]; ok {
		return f.r, f.err
	}
	if w.files == nil {
		w.files = map[string]warcFile{}
	}
	// Opening is quick (a file, or a zip entry's offset); holding mu keeps one open per name.
	r, c, err := w.open(name)
	w.files[name] = warcFile{r, c, err}
	return r, err
}

func (w *warcFiles) closeAll() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, f := range w.files {
		if f.c != nil {
			f.c.Close()
		}
	}
	w.files = nil
}

// priorCounts is what loading an earlier crawl found.
type priorCounts struct {
	lines      int64 // index lines read
	bad        int64 // lines that do not parse
	digests    int64 // captures stored by payload digest
	urls       int64 // captures stored by URL (with validators)
	unreadable int64 // records whose head could not be read
}

// Config says which earlier crawls a crawl builds on, and where it keeps what it reads.
type Config struct {
	// DedupFrom lists earlier crawls whose captures the crawl does not store again: crawl
	// directories, CDXJ index files (gzip-compressed or not) or WACZ files. Their indexes are
	// read once into the crawl's state, by the first run that names them.
	DedupFrom []string
	// RecrawlOf is an earlier crawl of the same sites, a crawl directory or a WACZ file: its
	// captures with validators are asked for conditionally (Recrawl); they deduplicate as
	// DedupFrom's do.
	RecrawlOf string
	// Dir is the crawl directory: the spool files of a load are written there (and those a
	// killed run left are removed). Empty: the system's temporary directory.
	Dir string
	// Front is the crawl's frontier: what is read is stored in it, and it records which
	// earlier crawls were read.
	Front frontier.Store
	// Canonical returns the canonical form of a URL the earlier crawl captured, as the crawl
	// has its URLs (the key of a recrawl's captures).
	Canonical func(raw string) (string, error)
	// Log receives progress.
	Log *slog.Logger
}

// Load reads the earlier crawls of cfg into the crawl's state, those that no earlier run of
// the crawl read (a run stopped while loading loads again from the start: loading is
// idempotent). An error wraps the earlier crawl's path; a recrawl of a CDXJ file alone is
// ErrNoWARCs.
func Load(ctx context.Context, cfg Config) error {
	type want struct{ digests, urls bool }
	var order []string
	wants := map[string]*want{}
	add := func(p string) *want {
		if wants[p] == nil {
			wants[p] = &want{}
			order = append(order, p)
		}
		return wants[p]
	}
	for _, p := range cfg.DedupFrom {
		add(p).digests = true
	}
	if p := cfg.RecrawlOf; p != "" {
		w := add(p)
		w.digests, w.urls = true, true
	}
	for _, p := range order {
		w := wants[p]
		digests, err := wanted(cfg.Front, metaPriorDigests+p, w.digests)
		if err != nil {
			return err
		}
		urls, err := wanted(cfg.Front, metaPriorURLs+p, w.urls)
		if err != nil {
			return err
		}
		if !digests && !urls {
			continue
		}
		if cfg.Dir != "" {
			if err := removeSpools(cfg.Dir); err != nil {
				return fmt.Errorf("remove what an earlier run left: %w", err)
			}
		}
		start := time.Now()
		cfg.Log.Info("reading earlier crawl", "path", p, "digests", digests, "urls", urls)
		n, err := load(ctx, cfg, p, digests, urls)
		if err != nil {
			return fmt.Errorf("read earlier crawl %s: %w", p, err)
		}
		note := []byte(fmt.Sprintf("%s lines=%d bad=%d digests=%d urls=%d unreadable=%d",
			time.Now().UTC().Format(time.RFC3339), n.lines, n.bad, n.digests, n.urls, n.unreadable))
		for _, k := range []struct {
			key string
			on  bool
		}{{metaPriorDigests + p, digests}, {metaPriorURLs + p, urls}} {
			if k.on {
				if err := cfg.Front.PutMeta(k.key, note); err != nil {
					return fmt.Errorf("record earlier crawl %s: %w", p, err)
				}
			}
		}
		cfg.Log.Info("read earlier crawl", "path", p, "lines", n.lines, "bad", n.bad, "digests", n.digests,
			"urls", n.urls, "unreadable", n.unreadable, "dur", time.Since(start).Round(time.Millisecond))
	}
	return nil
}

// removeSpools removes the spool files (and the sort's temporary files) that a run killed while
// loading left in the crawl directory.
func removeSpools(dir string) error {
	for _, pat := range []string{spoolPattern + "*", "." + spoolPattern + "*"} {
		stale, err := filepath.Glob(filepath.Join(dir, pat))
		if err != nil {
			return err
		}
		for _, f := range stale {
			if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
		}
	}
	return nil
}

// wanted reports whether what key records must be loaded: it is wanted and not loaded yet.
func wanted(front frontier.Store, key string, want bool) (bool, error) {
	if !want {
		return false, nil
	}
	_, loaded, err := front.Meta(key)
	if err != nil {
		return false, fmt.Errorf("read crawl state: %w", err)
	}
	return !loaded, nil
}

// load reads one earlier crawl, p: its captures by digest when digests is set (2xx responses
// with a payload), by URL when urls is set (2xx responses and revisits whose record gives an
// ETag or a Last-Modified).
func load(ctx context.Context, cfg Config, p string, digests, urls bool) (priorCounts, error) {
	var n priorCounts
	src, err := openPrior(p)
	if err != nil {
		return n, err
	}
	defer src.close()
	if urls && src.warcs == nil {
		return n, ErrNoWARCs
	}
	spool, err := newPriorSpool(cfg.Dir)
	if err != nil {
		return n, fmt.Errorf("spool earlier captures: %w", err)
	}
	defer spool.close()
	// Lines are parsed by one goroutine while another spools the captures of the last batch
	// (reading their record heads for a recrawl).
	g, gctx := errgroup.WithContext(ctx)
	batches := make(chan []warc.IndexEntry, 2)
	var lines, bad int64
	g.Go(func() error {
		defer close(batches)
		var perr error
		lines, bad, perr = parseIndex(gctx, src.index, batches)
		return perr
	})
	l := &priorLoader{canonical: cfg.Canonical, src: src, digests: digests, urls: urls, n: &n, spool: spool}
	g.Go(func() error {
		for batch := range batches {
			for _, e := range batch {
				if err := l.add(e); err != nil {
					return err
				}
			}
		}
		if err := gctx.Err(); err != nil {
			return err
		}
		return l.flush()
	})
	err = g.Wait()
	n.lines, n.bad = lines, bad
	if err == nil {
		err = ctx.Err() // cancelled after the last line
	}
	if err != nil {
		return n, err
	}
	cfg.Log.Info("storing earlier captures", "path", p, "lines", n.lines)
	return n, spool.store(ctx, cfg.Front, &n)
}

// parseIndex reads and parses CDXJ lines into batches of the entries of http and https URLs,
// sent on out. It counts the lines and those that do not parse (or are longer than
// maxPriorLine).
func parseIndex(ctx context.Context, index io.Reader, out chan<- []warc.IndexEntry) (lines, bad int64, err error) {
	rd := bufio.NewReaderSize(index, 256<<10)
	batch := make([]warc.IndexEntry, 0, priorBatch)
	for {
		line, err := readIndexLine(rd)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return lines, bad, fmt.Errorf("read index: %w", err)
		}
		lines++
		if line == nil {
			bad++
			continue
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		e, err := warc.ParseIndexLine(line)
		if err != nil {
			bad++
			continue
		}
		if !strings.HasPrefix(e.URL, "http://") && !strings.HasPrefix(e.URL, "https://") {
			continue
		}
		batch = append(batch, e)
		if len(batch) == priorBatch {
			select {
			case out <- batch:
			case <-ctx.Done():
				return lines, bad, ctx.Err()
			}
			batch = make([]warc.IndexEntry, 0, priorBatch)
		}
	}
	if len(batch) > 0 {
		select {
		case out <- batch:
		case <-ctx.Done():
			return lines, bad, ctx.Err()
		}
	}
	return lines, bad, nil
}

// readIndexLine returns the next line of rd, nil for a line longer than maxPriorLine (which
// it skips), io.EOF at the end.
func readIndexLine(rd *bufio.Reader) ([]byte, error) {
	var long []byte
	tooLong := false
	for {
		frag, err := rd.ReadSlice('\n')
		switch {
		case err == nil || (errors.Is(err, io.EOF) && len(frag) > 0):
			if tooLong || len(long)+len(bytes.TrimRight(frag, "\r\n")) > maxPriorLine {
				return nil, nil
			}
			if long != nil {
				return append(long, frag...), nil
			}
			return frag, nil
		case errors.Is(err, bufio.ErrBufferFull):
			if !tooLong {
				long = append(long, frag...)
				if len(long) > maxPriorLine {
					tooLong, long = true, nil
				}
			}
		default:
			return nil, err
		}
	}
}

// priorLoader takes the index entries of one earlier crawl and spools the captures they give.
type priorLoader struct {
	canonical     func(raw string) (string, error)
	src           *priorSource
	digests, urls bool
	n             *priorCounts
	spool         *priorSpool
	pending       []warc.IndexEntry // lines whose record heads are still to be read
	heads         []headResult
}

type headResult struct {
	h   warc.RecordHead
	err error
}

// add takes the entry of one index line (an http or https URL).
func (l *priorLoader) add(e warc.IndexEntry) error {
	revisit := e.Mime == "warc/revisit"
	ok2xx := e.Status >= 200 && e.Status <= 299
	if l.urls {
		if (revisit || ok2xx) && e.Filename != "" {
			l.pending = append(l.pending, e)
			if len(l.pending) >= priorBatch {
				return l.readHeads()
			}
		}
		return nil
	}
	if l.digests && !revisit && ok2xx && e.Digest != "" && e.Digest != emptyPayload {
		return l.addDigest(frontier.Prior{Key: e.Digest, URI: e.URL, Date: e.Time})
	}
	return nil
}

func (l *priorLoader) addDigest(p frontier.Prior) error { return l.spool.add('d', p) }

// readHeads reads the record heads of the pending lines, headReaders at once, and takes the
// captures they give in the order of the lines.
func (l *priorLoader) readHeads() error {
	if len(l.pending) == 0 {
		return nil
	}
	l.heads = append(l.heads[:0], make([]headResult, len(l.pending))...)
	var wg sync.WaitGroup
	next := make(chan int)
	for range headReaders {
		wg.Go(func() {
			for i := range next {
				e := l.pending[i]
				r, err := l.src.warcs.get(e.Filename)
				if err == nil {
					l.heads[i].h, err = warc.ReadRecordHead(r, e.Offset, e.Length)
				}
				l.heads[i].err = err
			}
		})
	}
	for i := range l.pending {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, e := range l.pending {
		if err := l.takeHead(e, l.heads[i]); err != nil {
			return err
		}
	}
	l.pending = l.pending[:0]
	return nil
}

// takeHead takes the capture of a line whose record head was read.
func (l *priorLoader) takeHead(e warc.IndexEntry, r headResult) error {
	if r.err != nil {
		l.n.unreadable++
		// The line alone still gives the capture of its digest.
		if l.digests && e.Mime != "warc/revisit" && e.Digest != "" && e.Digest != emptyPayload && e.Status >= 200 && e.Status <= 299 {
			return l.addDigest(frontier.Prior{Key: e.Digest, URI: e.URL, Date: e.Time})
		}
		return nil
	}
	h := r.h
	p := frontier.Prior{Captured: h.Date, Digest: h.PayloadDigest, ETag: validator(h.ETag), LastModified: validator(h.LastModified), Mime: h.Mime}
	ok2xx := h.Status >= 200 && h.Status <= 299
	switch {
	case h.Type == "response" && ok2xx:
		p.URI, p.Date = h.TargetURI, h.Date
		if l.digests && h.PayloadDigest != "" && h.PayloadDigest != emptyPayload {
			if err := l.addDigest(frontier.Prior{Key: h.PayloadDigest, URI: h.TargetURI, Date: h.Date}); err != nil {
				return err
			}
		}
	case h.Type == "revisit" && isKnownRevisit(h.Profile) && (ok2xx || h.Status == 0):
		// A revisit stands for the record it refers to, which holds the payload.
		p.URI, p.Date = h.RefersToURI, h.RefersToDate
	default:
		return nil
	}
	if p.URI == "" || p.Date.IsZero() || (p.ETag == "" && p.LastModified == "") {
		return nil
	}
	key, err := l.canonical(h.TargetURI)
	if err != nil {
		return nil // never a URL this crawl fetches
	}
	p.Key = key
	return l.spool.add('u', p)
}

// flush reads the heads still pending.
func (l *priorLoader) flush() error { return l.readHeads() }

// priorSpool gathers the captures an earlier crawl gives in a file, one line each, which is
// then sorted (warc.SortCDXJ, in bounded memory) and stored in key order: badger then writes
// tables that barely overlap, and its compactions rewrite each key a few times instead of
// once per overlapping table, which made loading 10 million digests in the order of the
// index several times slower. Lines are "d" or "u" (by digest, by URL), the key, then the
// other fields (date, captured, URI, digest, ETag, Last-Modified, media type), separated by
// 0x1f.
type priorSpool struct {
	f   *os.File
	w   *bufio.Writer
	buf []byte
}

const spoolSep = '\x1f'

// spoolPattern names the spool files in the crawl directory; the sort's own temporary files
// are named after them, with a dot more in front.
const spoolPattern = ".prior-*.spool"

func newPriorSpool(dir string) (*priorSpool, error) {
	f, err := os.CreateTemp(dir, spoolPattern)
	if err != nil {
		return nil, err
	}
	return &priorSpool{f: f, w: bufio.NewWriterSize(f, 256<<10)}, nil
}

// add spools one capture (kind 'd' or 'u'); one with a field that cannot be written on one line
// is left out (no URL, digest or validator has a newline).
func (s *priorSpool) add(kind byte, p frontier.Prior) error {
	fields := []string{p.Key, p.URI, p.Digest, p.ETag, p.LastModified, p.Mime}
	for _, f := range fields {
		if strings.ContainsAny(f, "\n\x1f") {
			return nil
		}
	}
	b := append(s.buf[:0], kind)
	b = append(b, p.Key...)
	b = append(b, spoolSep)
	b = strconv.AppendInt(b, p.Date.UnixNano(), 10)
	b = append(b, spoolSep)
	b = strconv.AppendInt(b, p.Captured.UnixNano(), 10)
	for _, f := range fields[1:] {
		b = append(b, spoolSep)
		b = append(b, f...)
	}
	b = append(b, '\n')
	s.buf = b
	_, err := s.w.Write(b)
	return err
}

// store sorts the spooled captures and stores them in the frontier, counting them in n.
func (s *priorSpool) store(ctx context.Context, front frontier.Store, n *priorCounts) error {
	if err := s.w.Flush(); err != nil {
		return fmt.Errorf("spool earlier captures: %w", err)
	}
	sorted := s.f.Name() + ".sorted"
	defer os.Remove(sorted)
	if err := warc.SortCDXJ(s.f.Name(), sorted); err != nil {
		return err
	}
	f, err := os.Open(sorted)
	if err != nil {
		return err
	}
	defer f.Close()
	var byDigest, byURL []frontier.Prior
	flush := func() error {
		if err := front.StorePriorDigests(byDigest); err != nil && !errors.Is(err, frontier.ErrURL) {
			return err
		}
		if err := front.StorePriorURLs(byURL); err != nil && !errors.Is(err, frontier.ErrURL) {
			return err
		}
		n.digests += int64(len(byDigest))
		n.urls += int64(len(byURL))
		byDigest, byURL = byDigest[:0], byURL[:0]
		return nil
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 4*maxPriorLine)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		parts := strings.Split(line[1:], string(spoolSep))
		if len(parts) != 8 {
			return fmt.Errorf("spool line %.80q", line)
		}
		date, err1 := strconv.ParseInt(parts[1], 10, 64)
		captured, err2 := strconv.ParseInt(parts[2], 10, 64)
		if err1 != nil || err2 != nil {
			return fmt.Errorf("spool line %.80q", line)
		}
		p := frontier.Prior{Key: parts[0], Date: time.Unix(0, date).UTC(), URI: parts[3], Digest: parts[4], ETag: parts[5], LastModified: parts[6], Mime: parts[7]}
		if line[0] == 'd' {
			byDigest = append(byDigest, p)
		} else {
			p.Captured = time.Unix(0, captured).UTC()
			byURL = append(byURL, p)
		}
		if len(byDigest)+len(byURL) >= priorBatch {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read sorted earlier captures: %w", err)
	}
	return flush()
}

// close removes the spool file.
func (s *priorSpool) close() {
	s.f.Close()
	os.Remove(s.f.Name())
}

// isKnownRevisit reports whether a revisit profile is one of WARC 1.0's and 1.1's.
func isKnownRevisit(profile string) bool {
	return strings.HasSuffix(profile, "/revisit/identical-payload-digest") ||
		strings.HasSuffix(profile, "/revisit/server-not-modified")
}

// validator returns v when it can be sent as a header value, else "".
func validator(v string) string {
	for i := 0; i < len(v); i++ {
		if b := v[i]; b < 0x20 && b != '\t' || b == 0x7f {
			return ""
		}
	}
	return strings.TrimSpace(v)
}

// Index is the crawl's payload digest index (warc.DedupIndex): the frontier's, and with
// earlier crawls to build on (Priors), theirs after it.
type Index struct {
	Front  frontier.Store
	Priors bool
}

// LookupDigest returns the capture a payload digest was first seen at: in this crawl, else
// (Priors) in an earlier one.
func (d Index) LookupDigest(digest string) (string, time.Time, bool, error) {
	uri, date, ok, err := d.Front.LookupDigest(digest)
	if err != nil || ok || !d.Priors {
		return uri, date, ok, err
	}
	return d.Front.PriorDigest(digest)
}

// StoreDigest records the capture of a payload digest in this crawl.
func (d Index) StoreDigest(digest, uri string, date time.Time) error {
	return d.Front.StoreDigest(digest, uri, date)
}

// Recrawl is the chain's step of a recrawl (Config.RecrawlOf): the request of a URL the earlier
// crawl captured (2xx) with an ETag or a Last-Modified is made conditional (If-None-Match,
// If-Modified-Since), and a 304 is written as a server-not-modified revisit of that capture.
// The crawl reads the content of a page or a style sheet (whatever its Reader reads, Reads):
// for those the earlier capture is read back first, from the earlier crawls' WARC files through
// their indexes (replay.Archive.Original: the earlier crawl, those deduplicated against and
// those they built on; see NewRecrawl), and on a 304 the crawl reads it in the 304's place
// (chain.Record.Earlier), so that the links followed and the search document are those a 200
// would have given. A page whose earlier capture cannot be read back (not in the earlier crawls
// given, a WARC file missing) is asked for unconditionally, as is a page the browser loads,
// which it renders, and a capture of no known type whose original cannot be read back (a
// server-not-modified revisit has the type of its original: it may be a page). The content of
// anything else that answers 304 is not read (an image, a script; Heritrix extracts nothing
// from a 304). Listing documents (sitemap files, feeds: frontier.URL.Sitemap) are never asked
// for conditionally: a 304 would hide the URLs they list, which the listing step reads from the
// response itself (robots.txt files are fetched elsewhere, never conditionally either). It is
// safe for concurrent use; Close closes the earlier crawls.
type Recrawl struct {
	front   frontier.Store
	archive *replay.Archive // the earlier crawls, read back; nil when they could not be opened
	reads   func(mediaType string) bool
	log     *slog.Logger
	types   sync.Map // *frontier.Claim -> string: the media type of the earlier capture asked about
}

// NewRecrawl returns the step of the recrawl of cfg.RecrawlOf, whose captures cfg.Front holds
// (Load). reads says whether the crawl reads the content of a response of a media type
// (lowercase, without parameters). The earlier crawls are opened to read back what they
// captured: RecrawlOf, the crawl directories and WACZ files of DedupFrom, and the crawls that
// the crawl directories among them built on in turn (their crawl.yaml's recrawl_of and
// dedup_from, those still there), which hold the originals of their revisits (a recrawl of a
// recrawl: the pages that came back 304 to the last one are revisits of the one before).
// When they cannot be opened (a resumed run's earlier crawl was moved away), a warning is
// logged and pages and style sheets are asked for unconditionally. The caller closes it.
func NewRecrawl(ctx context.Context, cfg Config, reads func(mediaType string) bool) *Recrawl {
	p := &Recrawl{front: cfg.Front, reads: reads, log: cfg.Log}
	if p.log == nil {
		p.log = slog.New(slog.DiscardHandler)
	}
	var paths []string
	add := func(s string) {
		if s != "" && !slices.Contains(paths, s) && isArchive(s) {
			paths = append(paths, s)
		}
	}
	for _, s := range append([]string{cfg.RecrawlOf}, cfg.DedupFrom...) {
		add(s)
	}
	given := len(paths)
	for i := 0; i < len(paths); i++ {
		earlier, err := wacz.EarlierCrawls(paths[i])
		if err != nil {
			p.log.Debug("earlier crawl's own earlier crawls not read", "path", paths[i], "err", err)
		}
		for _, s := range earlier {
			add(s)
		}
	}
	a, err := replay.OpenArchive(ctx, paths)
	if err != nil && len(paths) > given {
		p.log.Debug("earlier crawls of the earlier crawl cannot be read back", "paths", paths[given:], "err", err)
		a, err = replay.OpenArchive(ctx, paths[:given])
	}
	if err != nil {
		p.log.Warn("earlier crawl cannot be read back: pages and style sheets are asked for unconditionally", "path", cfg.RecrawlOf, "err", err)
		return p
	}
	p.archive = a
	return p
}

// isArchive reports whether p is a crawl directory or a WACZ file (a zip), not an index.
func isArchive(p string) bool {
	fi, err := os.Stat(p)
	if err != nil || fi.IsDir() {
		return err == nil
	}
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	var magic [4]byte
	n, _ := io.ReadFull(f, magic[:])
	return n == 4 && string(magic[:]) == "PK\x03\x04"
}

// Close closes the earlier crawls.
func (p *Recrawl) Close() error {
	if p.archive == nil {
		return nil
	}
	return p.archive.Close()
}

func (*Recrawl) Name() string { return "recrawl_of" }

// Before makes the request conditional on the earlier capture of the URL, when there is one
// and, for content the crawl reads, it was read back (Record.Earlier).
func (p *Recrawl) Before(ctx context.Context, r *chain.Record) (chain.Verdict, error) {
	u := r.URL()
	if u.Sitemap {
		return chain.Proceed, nil
	}
	e, ok, err := p.front.PriorURL(u.URL)
	if err != nil {
		return chain.Verdict{}, fmt.Errorf("look up earlier capture: %w", err)
	}
	if !ok {
		return chain.Proceed, nil
	}
	earlier, mt, conditional := p.readBack(ctx, r, e)
	if !conditional {
		return chain.Proceed, nil
	}
	p.types.Store(r.Claim, mt)
	req := &r.Request
	if req.Header == nil {
		req.Header = http.Header{}
	}
	if e.ETag != "" {
		req.Header.Set("If-None-Match", e.ETag)
	}
	if e.LastModified != "" {
		req.Header.Set("If-Modified-Since", e.LastModified)
	}
	r.NotModified = &warc.Original{URI: e.URI, Date: e.Date, PayloadDigest: e.Digest, ETag: e.ETag, LastModified: e.LastModified}
	r.Earlier = earlier
	return chain.Proceed, nil
}

// readBack says whether the request for the earlier capture e may be conditional, and returns
// the capture's media type and, when a 304's content is to be read in its place, the capture
// read back: when the crawl reads content of e's type (or of no known type), e is read back,
// and without it the request is not conditional.
func (p *Recrawl) readBack(ctx context.Context, r *chain.Record, e frontier.Prior) (earlier *fetch.Exchange, mt string, conditional bool) {
	mt = e.Mime
	switch {
	case mt != "" && !p.reads(mt):
		return nil, mt, true
	case mt != "" && r.Rendered(), p.archive == nil:
		return nil, mt, false
	}
	u := r.URL().URL
	orig, err := p.archive.Original(e.URI, e.Date, e.Digest)
	if err != nil {
		p.log.Debug("earlier capture not read back: asked for unconditionally", "url", u, "err", err)
		return nil, mt, false
	}
	if mt == "" {
		// A server-not-modified revisit has no type of its own: its original's is the type.
		if mt = extract.MediaType(orig.HTTP.Get("Content-Type")); mt != "" && !p.reads(mt) {
			return nil, mt, true
		}
	}
	if r.Rendered() {
		return nil, mt, false
	}
	ex, err := r.Settings.Client.ReadResponse(ctx, u, recordedResponse(orig), orig.Truncated)
	if err != nil {
		p.log.Debug("earlier capture not read back: asked for unconditionally", "url", u, "err", err)
		return nil, mt, false
	}
	return ex, mt, true
}

// recordedResponse returns the response a response record holds, as it crossed the wire: its
// HTTP head as recorded (the fields in their order, each on a line of its own), then its body.
func recordedResponse(rec *warc.Record) io.Reader {
	h := rec.HTTP
	var b bytes.Buffer
	b.WriteString(h.Proto + " " + strconv.Itoa(h.Status))
	if h.Reason != "" {
		b.WriteString(" " + h.Reason)
	}
	b.WriteString("\r\n")
	for _, f := range h.Fields {
		b.WriteString(f.Name + ": " + f.Value + "\r\n")
	}
	b.WriteString("\r\n")
	return io.MultiReader(&b, rec.Body())
}

// After makes a 304 to a conditional request a revisit of the earlier capture, of its type
// (chain.Capture.Type), whose content read back, if any, is read in the 304's place; any
// other response is read as usual.
func (p *Recrawl) After(_ context.Context, r *chain.Record) (chain.Verdict, error) {
	if r.NotModified == nil {
		return chain.Proceed, nil
	}
	mt, _ := p.types.LoadAndDelete(r.Claim)
	if r.Result.Exchanges[0].StatusCode != http.StatusNotModified {
		p.Release(r)
		return chain.Proceed, nil
	}
	k := &r.Captures[0]
	k.NotModified, k.Type = r.NotModified, mt.(string)
	if r.Earlier == nil {
		r.Content.Unread = true
	}
	return chain.Proceed, nil
}

// Release closes the earlier capture read back.
func (p *Recrawl) Release(r *chain.Record) {
	p.types.Delete(r.Claim)
	if r.Earlier != nil {
		r.Earlier.Close()
		r.Earlier = nil
	}
}

// NoteNotModified is the crawl.log annotation of a server-not-modified revisit, Heritrix's.
const NoteNotModified = "duplicate:server-not-modified"
