package warc

import (
	"bufio"
	"bytes"
	"container/heap"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
)

const (
	// defaultSortRun is how many bytes of lines SortCDXJ sorts in memory at a time.
	defaultSortRun = 4 << 20
	// defaultSortFanIn is how many sorted runs SortCDXJ merges at once (open files).
	defaultSortFanIn = 64
)

// SortCDXJ writes dst as the lines of src sorted in byte order, as `LC_ALL=C sort` sorts them:
// lines are compared byte by byte without their "\n", a line that is a prefix of another comes
// first. Every line is kept, duplicates included; a last line without "\n" gets one. src is
// not changed; dst is written to a temporary file in its directory, synced and renamed over
// dst, so readers see the old index or the new one, never a part. Memory stays bounded
// whatever the size of src: runs of a few MiB are sorted in memory, spilled to temporary
// files next to dst, and merged. A missing src is an error wrapping os.ErrNotExist.
func SortCDXJ(src, dst string) error {
	return sortLines(src, dst, defaultSortRun, defaultSortFanIn)
}

// sortLines is SortCDXJ with the run size (bytes) and merge fan-in (runs) as parameters.
func sortLines(src, dst string, runSize, fanIn int) (err error) {
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("sort cdxj: %w", err)
	}
	defer in.Close()
	s := &lineSorter{dir: filepath.Dir(dst), base: filepath.Base(dst), fanIn: max(fanIn, 2)}
	defer s.cleanup()
	lines, err := s.spillRuns(in, max(runSize, 1))
	if err != nil {
		return fmt.Errorf("sort %s: %w", src, err)
	}
	out, err := os.CreateTemp(s.dir, "."+s.base+".tmp-*")
	if err != nil {
		return fmt.Errorf("sort %s: %w", src, err)
	}
	defer func() {
		if err != nil {
			_ = out.Close()
			_ = os.Remove(out.Name())
		}
	}()
	bw := bufio.NewWriterSize(out, 256<<10)
	if len(s.runs) == 0 {
		// Everything fitted in one run: no temporary files.
		err = writeLines(bw, lines)
	} else {
		err = s.mergeAll(bw)
	}
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = out.Sync()
	}
	if err == nil {
		err = out.Chmod(0o644)
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write sorted %s: %w", dst, err)
	}
	if err := os.Rename(out.Name(), dst); err != nil {
		return fmt.Errorf("replace %s: %w", dst, err)
	}
	return nil
}

// lineSorter holds the sorted runs of one sortLines call.
type lineSorter struct {
	dir, base string   // where temporary files go, and the name they are derived from
	fanIn     int      // runs merged at once
	runs      []string // sorted run files not merged yet
	temps     []string // every temporary file made, removed by cleanup
}

// spillRuns reads r line by line, sorting each runSize bytes of lines and writing them to a
// run file. When all of r fits in one run it writes nothing and returns the sorted lines.
func (s *lineSorter) spillRuns(r io.Reader, runSize int) ([][]byte, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	arena := make([]byte, 0, runSize)
	var lines [][]byte
	for {
		start := len(arena)
		var err error
		for {
			var frag []byte
			frag, err = br.ReadSlice('\n')
			arena = append(arena, frag...)
			if err != bufio.ErrBufferFull {
				break
			}
		}
		if err != nil && err != io.EOF {
			return nil, err
		}
		if len(arena) > start {
			line := arena[start:len(arena):len(arena)]
			if line[len(line)-1] == '\n' {
				line = line[:len(line)-1]
			}
			lines = append(lines, line)
		}
		if err == io.EOF {
			break
		}
		if len(arena) >= runSize {
			if err := s.writeRun(lines); err != nil {
				return nil, err
			}
			// The lines were written out: the arena can be reused from its start.
			arena, lines = arena[:0], lines[:0]
		}
	}
	slices.SortFunc(lines, bytes.Compare)
	if len(s.runs) == 0 {
		return lines, nil
	}
	if len(lines) > 0 {
		if err := s.writeRun(lines); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

// writeRun sorts lines and writes them to a new run file.
func (s *lineSorter) writeRun(lines [][]byte) error {
	slices.SortFunc(lines, bytes.Compare)
	f, err := s.create()
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 256<<10)
	err = writeLines(bw, lines)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write sort run: %w", err)
	}
	s.runs = append(s.runs, f.Name())
	return nil
}

// mergeAll merges the runs into w, first merging groups of fanIn runs into longer runs while
// there are more than fanIn of them.
func (s *lineSorter) mergeAll(w *bufio.Writer) error {
	for len(s.runs) > s.fanIn {
		f, err := s.create()
		if err != nil {
			return err
		}
		bw := bufio.NewWriterSize(f, 256<<10)
		err = s.merge(bw, s.runs[:s.fanIn])
		if err == nil {
			err = bw.Flush()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("merge sort runs: %w", err)
		}
		for _, r := range s.runs[:s.fanIn] {
			_ = os.Remove(r)
		}
		s.runs = append(s.runs[s.fanIn:], f.Name())
	}
	return s.merge(w, s.runs)
}

// merge writes the lines of the sorted run files in byte order.
func (s *lineSorter) merge(w *bufio.Writer, runs []string) error {
	h := make(mergeHeap, 0, len(runs))
	for _, name := range runs {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		defer f.Close()
		src := &mergeSource{r: bufio.NewReaderSize(f, 64<<10)}
		ok, err := src.next()
		if err != nil {
			return fmt.Errorf("read sort run: %w", err)
		}
		if ok {
			h = append(h, src)
		}
	}
	heap.Init(&h)
	for len(h) > 0 {
		src := h[0]
		if _, err := w.Write(src.line); err != nil {
			return err
		}
		if err := w.WriteByte('\n'); err != nil {
			return err
		}
		ok, err := src.next()
		if err != nil {
			return fmt.Errorf("read sort run: %w", err)
		}
		if ok {
			heap.Fix(&h, 0)
		} else {
			heap.Pop(&h)
		}
	}
	return nil
}

// create makes a temporary file next to the destination and remembers it for cleanup.
func (s *lineSorter) create() (*os.File, error) {
	f, err := os.CreateTemp(s.dir, "."+s.base+".run-*")
	if err != nil {
		return nil, fmt.Errorf("create sort run: %w", err)
	}
	s.temps = append(s.temps, f.Name())
	return f, nil
}

// cleanup removes the temporary run files still there (merged runs are already gone).
func (s *lineSorter) cleanup() {
	for _, name := range s.temps {
		_ = os.Remove(name)
	}
}

// writeLines writes each line followed by "\n".
func writeLines(w *bufio.Writer, lines [][]byte) error {
	for _, l := range lines {
		if _, err := w.Write(l); err != nil {
			return err
		}
		if err := w.WriteByte('\n'); err != nil {
			return err
		}
	}
	return nil
}

// mergeSource is one sorted run being merged; line is its current line, without "\n".
type mergeSource struct {
	r    *bufio.Reader
	line []byte
}

// next reads the next line into line, reusing its buffer; ok is false at the end of the run.
func (m *mergeSource) next() (ok bool, err error) {
	m.line = m.line[:0]
	for {
		frag, err := m.r.ReadSlice('\n')
		m.line = append(m.line, frag...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF {
			// Runs are written by writeRun: every line ends with "\n".
			return false, nil
		}
		if err != nil {
			return false, err
		}
		m.line = m.line[:len(m.line)-1]
		return true, nil
	}
}

// mergeHeap orders merge sources by their current line.
type mergeHeap []*mergeSource

func (h mergeHeap) Len() int           { return len(h) }
func (h mergeHeap) Less(i, j int) bool { return bytes.Compare(h[i].line, h[j].line) < 0 }
func (h mergeHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *mergeHeap) Push(x any)        { *h = append(*h, x.(*mergeSource)) }
func (h *mergeHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
