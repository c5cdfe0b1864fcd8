package wacz

import (
	"archive/zip"
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ErrNotWACZ is returned by Open for a file that is not a ZIP file.
var ErrNotWACZ = errors.New("wacz: not a WACZ file")

// ErrCompressed is returned by Reader.Section for an entry that is compressed in the package,
// so that its bytes are not at a place in the file (WACZ stores WARC files as they are).
var ErrCompressed = errors.New("wacz: entry compressed in the package")

// Reader reads a WACZ package: its entries by name, the WARC files by random access. It is
// safe for concurrent use.
type Reader struct {
	path    string
	f       *os.File
	entries map[string]*zip.File
	names   []string // entry names, in the package's order
}

// Open opens the WACZ file at path for reading. The caller closes the Reader.
func Open(path string) (*Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("wacz: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("wacz: %w", err)
	}
	zr, err := zip.NewReader(f, fi.Size())
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%w: %s: %v", ErrNotWACZ, path, err)
	}
	r := &Reader{path: path, f: f, entries: make(map[string]*zip.File, len(zr.File))}
	for _, e := range zr.File {
		if _, dup := r.entries[e.Name]; !dup {
			r.entries[e.Name] = e
			r.names = append(r.names, e.Name)
		}
	}
	return r, nil
}

// Path returns the path the Reader was opened with.
func (r *Reader) Path() string { return r.path }

// Close closes the file.
func (r *Reader) Close() error { return r.f.Close() }

// Names returns the names of the entries, in the package's order.
func (r *Reader) Names() []string { return slices.Clone(r.names) }

// Has reports whether the package has an entry called name.
func (r *Reader) Has(name string) bool { _, ok := r.entries[name]; return ok }

// OpenEntry returns a reader of the entry called name, decompressed. An entry that is not
// there is an error wrapping os.ErrNotExist.
func (r *Reader) OpenEntry(name string) (io.ReadCloser, error) {
	e, ok := r.entries[name]
	if !ok {
		return nil, fmt.Errorf("wacz: %s: no %s: %w", r.path, name, os.ErrNotExist)
	}
	rc, err := e.Open()
	if err != nil {
		return nil, fmt.Errorf("wacz: %s: %s: %w", r.path, name, err)
	}
	return rc, nil
}

// Section returns the bytes of the stored entry called name where they are in the file, for
// reading at any offset: a WARC file under archive/, a plain index. An entry that is not there
// is an error wrapping os.ErrNotExist; one that is compressed wraps ErrCompressed.
func (r *Reader) Section(name string) (*io.SectionReader, error) {
	e, ok := r.entries[name]
	if !ok {
		return nil, fmt.Errorf("wacz: %s: no %s: %w", r.path, name, os.ErrNotExist)
	}
	if e.Method != zip.Store {
		return nil, fmt.Errorf("%w: %s: %s", ErrCompressed, r.path, name)
	}
	off, err := e.DataOffset()
	if err != nil {
		return nil, fmt.Errorf("wacz: %s: %s: %w", r.path, name, err)
	}
	return io.NewSectionReader(r.f, off, int64(e.CompressedSize64)), nil
}

// Pages returns the pages the package lists, in pages/pages.jsonl and then
// pages/extraPages.jsonl, in their order; a package without them lists none. Lines that are
// not pages (the first, which names the format) are skipped.
func (r *Reader) Pages() ([]Page, error) {
	var pages []Page
	for _, name := range []string{PagesFile, ExtraPagesFile} {
		if !r.Has(name) {
			continue
		}
		rc, err := r.OpenEntry(name)
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(rc)
		sc.Buffer(nil, 64<<20)
		for lineNo := 1; sc.Scan(); lineNo++ {
			line := sc.Bytes()
			if len(strings.TrimSpace(string(line))) == 0 {
				continue
			}
			var p Page
			if err := json.Unmarshal(line, &p); err != nil {
				rc.Close()
				return nil, fmt.Errorf("%w: %s: %s:%d: %v", ErrMalformed, r.path, name, lineNo, err)
			}
			if p.URL != "" {
				pages = append(pages, p)
			}
		}
		err = sc.Err()
		rc.Close()
		if err != nil {
			return nil, fmt.Errorf("wacz: %s: %s: %w", r.path, name, err)
		}
	}
	return pages, nil
}

// ListPages returns the pages of crawl directories, as a package of them (WriteDirs) would
// list them in pages.jsonl and extraPages.jsonl, the seeds first, with their titles but not
// their text: every captured page of crawl.log (several directories' crawl.logs merged in time
// order) whose WARC file is in warcs/, closed or still .open. Unlike WriteDirs it takes no
// lock: a crawl may be running in a directory, and a torn last line of its crawl.log is
// ignored.
func ListPages(ctx context.Context, dirs []string) ([]Page, error) {
	if len(dirs) == 0 {
		return nil, fmt.Errorf("%w: no crawl directory", ErrNotCrawlDir)
	}
	var seeds []string
	warcDir := map[string]int{}
	for i, dir := range dirs {
		if err := checkCrawlDir(dir); err != nil {
			return nil, err
		}
		cfg, err := readCrawlConfig(filepath.Join(dir, crawlConfigFile))
		if err != nil {
			return nil, err
		}
		seeds = append(seeds, cfg.seeds()...)
		closed, open, err := listWARCs(filepath.Join(dir, crawlWARCDir))
		if err != nil {
			return nil, err
		}
		for _, w := range append(closed, open...) {
			name := strings.TrimSuffix(filepath.Base(w), ".open")
			if _, dup := warcDir[name]; !dup {
				warcDir[name] = i
			}
		}
	}
	docs, err := openDocSet(ctx, dirs, warcDir)
	if err != nil {
		return nil, err
	}
	defer docs.close()
	logPath := filepath.Join(dirs[0], crawlLogFile)
	if len(dirs) > 1 {
		work, err := os.MkdirTemp("", "amber-pages-")
		if err != nil {
			return nil, fmt.Errorf("wacz: %w", err)
		}
		defer os.RemoveAll(work)
		logPath = filepath.Join(work, "crawl.log")
		if err := mergeCrawlLogs(dirs, logPath); err != nil {
			return nil, err
		}
	}
	listed := make(map[string]bool, len(warcDir))
	for name := range warcDir {
		listed[name] = true
	}
	var seedPages, rest []Page
	pl := newPageList(seeds, listed, docs, func(p Page, seed bool) error {
		p.Text = ""
		if seed {
			seedPages = append(seedPages, p)
		} else {
			rest = append(rest, p)
		}
		return nil
	})
	if err := pl.readLog(ctx, logPath); err != nil {
		return nil, err
	}
	return append(seedPages, rest...), nil
}
