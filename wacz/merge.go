package wacz

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/amber-crawler/amber/report"
)

// mergeSorted merges the files srcs, each sorted in byte order line by line, into the file out,
// sorted in byte order: a k-way merge that holds one line of each file. A last line without
// its newline gets one (writeIndex drops it if it does not parse).
func mergeSorted(ctx context.Context, srcs []string, out string) error {
	type head struct {
		r    *bufio.Reader
		line []byte
		name string
	}
	var hs []*head
	next := func(h *head) error {
		line, err := h.r.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("wacz: read %s: %w", h.name, err)
		}
		if len(line) == 0 {
			h.line = nil
			return nil
		}
		if line[len(line)-1] != '\n' {
			line = append(line, '\n')
		}
		h.line = line
		return nil
	}
	for _, src := range srcs {
		f, err := os.Open(src)
		if err != nil {
			return fmt.Errorf("wacz: %w", err)
		}
		defer f.Close()
		h := &head{r: bufio.NewReaderSize(f, 256<<10), name: src}
		if err := next(h); err != nil {
			return err
		}
		hs = append(hs, h)
	}
	f, err := os.Create(out)
	if err != nil {
		return fmt.Errorf("wacz: %w", err)
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 256<<10)
	for n := 0; ; n++ {
		if n%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		var min *head
		for _, h := range hs {
			if h.line != nil && (min == nil || bytes.Compare(h.line, min.line) < 0) {
				min = h
			}
		}
		if min == nil {
			break
		}
		if _, err := w.Write(min.line); err != nil {
			return fmt.Errorf("wacz: merge index: %w", err)
		}
		if err := next(min); err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("wacz: merge index: %w", err)
	}
	return f.Close()
}

// mergeCrawlLogs writes the crawl.logs of dirs, merged in time order, to out.
func mergeCrawlLogs(dirs []string, out string) error {
	paths := make([]string, len(dirs))
	for i, d := range dirs {
		paths[i] = filepath.Join(d, crawlLogFile)
	}
	f, err := os.Create(out)
	if err != nil {
		return fmt.Errorf("wacz: %w", err)
	}
	defer f.Close()
	if err := report.MergeCrawlLogs(f, paths); err != nil {
		return fmt.Errorf("wacz: merge crawl.log: %w", err)
	}
	return f.Close()
}

// docSet holds the search documents of several crawl directories.
type docSet struct {
	all    []*documents
	byFile map[string]*documents // by the name of a WARC file: its directory's documents
}

// openDocSet opens the search documents (documents.jsonl) of each of dirs; warcDir maps the
// name of a WARC file to the index in dirs of the directory that holds it. The caller closes
// the set.
func openDocSet(ctx context.Context, dirs []string, warcDir map[string]int) (*docSet, error) {
	s := &docSet{byFile: make(map[string]*documents, len(warcDir))}
	for _, dir := range dirs {
		d, err := openDocuments(ctx, filepath.Join(dir, crawlDocuments))
		if err != nil {
			s.close()
			return nil, err
		}
		s.all = append(s.all, d)
	}
	for name, i := range warcDir {
		s.byFile[name] = s.all[i]
	}
	return s, nil
}

// find returns the search document of the page pageURL captured in the record at offset of
// file, from the documents of the directory that holds file.
func (s *docSet) find(pageURL, file string, offset int64) (document, bool, error) {
	d := s.byFile[file]
	if d == nil {
		return document{}, false, nil
	}
	return d.find(pageURL, file, offset)
}

func (s *docSet) close() {
	for _, d := range s.all {
		d.close()
	}
}
