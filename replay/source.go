package replay

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/amber-crawler/amber/crawldir"
	"github.com/amber-crawler/amber/wacz"
	"github.com/amber-crawler/amber/warc"
)

// source is one crawl directory or WACZ file opened for replay: its indexes, its WARC files
// by the names the indexes give, and its pages.
type source struct {
	path    string
	indexes []searcher
	open    func(name string) (io.ReaderAt, io.Closer, error) // a WARC file by name
	pages   func(ctx context.Context) ([]wacz.Page, error)
	close   func() error

	mu    sync.Mutex // guards files
	files map[string]openFile
}

type openFile struct {
	r   io.ReaderAt
	c   io.Closer
	err error
}

// warc returns the WARC file called name, opened once.
func (s *source) warc(name string) (io.ReaderAt, error) {
	if name == "" || name != path.Base(name) || strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
		return nil, fmt.Errorf("replay: %s: WARC file name %q", s.path, name)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if f, ok := s.files[name]; ok {
		return f.r, f.err
	}
	if s.files == nil {
		s.files = map[string]openFile{}
	}
	// Opening is quick (a file, or a place in the WACZ); holding mu keeps one open per name.
	r, c, err := s.open(name)
	s.files[name] = openFile{r, c, err}
	return r, err
}

// closeAll closes the WARC files and the source.
func (s *source) closeAll() error {
	s.mu.Lock()
	for _, f := range s.files {
		if f.c != nil {
			f.c.Close()
		}
	}
	s.files = nil
	s.mu.Unlock()
	if s.close != nil {
		return s.close()
	}
	return nil
}

// ErrNotArchive wraps the error of Open for a source that is neither a crawl directory nor a
// WACZ file.
var ErrNotArchive = errors.New("replay: not a crawl directory or WACZ file")

// openSource opens a crawl directory or a WACZ file. work is a directory for what must be
// made to replay it (the index of a crawl that did not finish, sorted).
func openSource(ctx context.Context, p, work string) (*source, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotArchive, err)
	}
	if fi.IsDir() {
		return openCrawlDir(p, work)
	}
	return openWACZ(ctx, p, work)
}

// openCrawlDir opens a crawl directory: its sorted index (indexes/index.cdxj) when it is up to
// date, else its live index sorted into work (a crawl that was killed, or runs), and the WARC
// files in warcs/ (closed or .open).
func openCrawlDir(dir, work string) (*source, error) {
	if _, err := os.Stat(filepath.Join(dir, crawldir.WARCDir)); err != nil {
		return nil, fmt.Errorf("%w: %s (no %s/)", ErrNotArchive, dir, crawldir.WARCDir)
	}
	index, err := crawlIndex(dir, work)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(index)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("replay: %w", err)
	}
	s := &source{
		path:    dir,
		indexes: []searcher{&sortedFile{r: f, size: fi.Size()}},
		close:   f.Close,
		pages: func(ctx context.Context) ([]wacz.Page, error) {
			return wacz.ListPages(ctx, []string{dir})
		},
	}
	s.open = func(name string) (io.ReaderAt, io.Closer, error) {
		var err error
		for _, p := range []string{filepath.Join(crawldir.WARCDir, name), filepath.Join(crawldir.WARCDir, name+".open"), filepath.Join("archive", name)} {
			var f *os.File
			if f, err = os.Open(filepath.Join(dir, p)); err == nil {
				return f, f, nil
			}
		}
		return nil, nil, fmt.Errorf("replay: WARC file %s not in %s: %w", name, filepath.Join(dir, crawldir.WARCDir), err)
	}
	return s, nil
}

// crawlIndex returns the sorted index of a crawl directory: indexes/index.cdxj, which every
// run that ends sorts, unless it is older than indexes/live.cdxj or a WARC file is still .open
// (the crawl was killed or runs); then live.cdxj is sorted into work, and the crawl directory
// is left as it is.
func crawlIndex(dir, work string) (string, error) {
	sorted := filepath.Join(dir, crawldir.CDXJFile)
	live := filepath.Join(dir, crawldir.LiveCDXJFile)
	st, serr := os.Stat(sorted)
	lt, lerr := os.Stat(live)
	open, _ := filepath.Glob(filepath.Join(dir, crawldir.WARCDir, "*.open"))
	if serr == nil && (lerr != nil || len(open) == 0 && !st.ModTime().Before(lt.ModTime())) {
		return sorted, nil
	}
	if lerr != nil {
		return "", fmt.Errorf("%w: %s: neither %s nor %s", ErrNotArchive, dir, crawldir.CDXJFile, crawldir.LiveCDXJFile)
	}
	out, err := os.CreateTemp(work, "index-*.cdxj")
	if err != nil {
		return "", fmt.Errorf("replay: %w", err)
	}
	out.Close()
	if err := warc.SortCDXJ(live, out.Name()); err != nil {
		return "", fmt.Errorf("replay: sort %s: %w", live, err)
	}
	return out.Name(), nil
}

// openWACZ opens a WACZ file: every index under indexes/ (a plain CDXJ file, searched in
// place when it is stored, else unpacked into work; a compressed index through its IDX) and
// the WARC files under archive/.
func openWACZ(ctx context.Context, p, work string) (*source, error) {
	r, err := wacz.Open(p)
	if err != nil {
		if errors.Is(err, wacz.ErrNotWACZ) {
			return nil, fmt.Errorf("%w: %s", ErrNotArchive, p)
		}
		return nil, err
	}
	s := &source{path: p, close: r.Close, pages: func(context.Context) ([]wacz.Page, error) { return r.Pages() }}
	s.open = func(name string) (io.ReaderAt, io.Closer, error) {
		sec, err := r.Section(wacz.ArchiveDir + name)
		if err != nil {
			return nil, nil, fmt.Errorf("replay: %w", err)
		}
		return sec, nil, nil
	}
	var extracted []*os.File
	for _, name := range r.Names() {
		dir, base := path.Split(name)
		if dir != "indexes/" {
			continue
		}
		switch {
		case strings.HasSuffix(base, ".cdxj"):
			if sec, err := r.Section(name); err == nil {
				s.indexes = append(s.indexes, &sortedFile{r: sec, size: sec.Size()})
				continue
			}
			f, err := unpack(r, name, work)
			if err != nil {
				closeFiles(extracted)
				r.Close()
				return nil, err
			}
			extracted = append(extracted, f)
			fi, err := f.Stat()
			if err != nil {
				closeFiles(extracted)
				r.Close()
				return nil, fmt.Errorf("replay: %w", err)
			}
			s.indexes = append(s.indexes, &sortedFile{r: f, size: fi.Size()})
		case strings.HasSuffix(base, ".idx"):
			rc, err := r.OpenEntry(name)
			if err != nil {
				closeFiles(extracted)
				r.Close()
				return nil, err
			}
			blocks, err := readIDX(rc)
			rc.Close()
			if err != nil {
				closeFiles(extracted)
				r.Close()
				return nil, fmt.Errorf("%w: %s: %s", err, p, name)
			}
			s.indexes = append(s.indexes, &blockIndex{blocks: blocks, open: func(filename string) (io.ReaderAt, error) {
				sec, err := r.Section(dir + filename)
				if err != nil {
					return nil, fmt.Errorf("replay: %w", err)
				}
				return sec, nil
			}})
		}
	}
	if len(s.indexes) == 0 {
		r.Close()
		return nil, fmt.Errorf("%w: %s has no index (indexes/*.cdxj or indexes/*.idx)", ErrNotArchive, p)
	}
	s.close = func() error {
		closeFiles(extracted)
		return r.Close()
	}
	return s, ctx.Err()
}

// unpack copies the compressed entry name of r to a file in work, opened for reading.
func unpack(r *wacz.Reader, name, work string) (*os.File, error) {
	rc, err := r.OpenEntry(name)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	f, err := os.CreateTemp(work, "wacz-*.cdxj")
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	if _, err := io.Copy(f, rc); err != nil {
		f.Close()
		return nil, fmt.Errorf("replay: unpack %s: %w", name, err)
	}
	return f, nil
}

func closeFiles(fs []*os.File) {
	for _, f := range fs {
		f.Close()
	}
}

// earliest returns the time of the earliest capture of a URL in the source's indexes, zero
// when they have none.
func (s *source) earliest() (time.Time, error) {
	var min []byte
	for _, ix := range s.indexes {
		err := ix.each(func(line []byte) bool {
			i := bytes.IndexByte(line, ' ')
			if i < 0 || bytes.HasPrefix(line, []byte("urn:")) {
				return true
			}
			ts := line[i+1:]
			if j := bytes.IndexByte(ts, ' '); j >= 0 {
				ts = ts[:j]
			}
			if len(ts) >= 14 && (min == nil || bytes.Compare(ts[:14], min) < 0) {
				min = append(min[:0], ts[:14]...)
			}
			return true
		})
		if err != nil {
			return time.Time{}, err
		}
	}
	if min == nil {
		return time.Time{}, nil
	}
	return time.Parse("20060102150405", string(min))
}
