package report

import (
	"bufio"
	"bytes"
	"container/heap"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/amber-crawler/amber/internal/varrec"
)

// Memory bounds of the external sorts behind the reports.
const (
	// sortBudget is how many bytes of records a sorter holds in memory before it writes them,
	// sorted, to a run file. Small, as the reports of a crawl are written while its frontier
	// is still open: Write's Go heap peaked at 30 MB instead of 53 with 16 MiB, and its RSS at
	// 43 MB instead of 65 (BenchmarkWriteStreamed/1M). Up to 256 MiB of records (sortFanIn
	// runs) are merged in one pass; more take one more pass over the runs.
	sortBudget = 4 << 20
	// sortFanIn is how many run files a sorter merges at once (open files, 64 KiB buffer each).
	sortFanIn = 64
)

// maxRecord bounds the length of a record read back from a run file.
const maxRecord = 1 << 30

// errCorruptRun is returned when a run file does not read back as it was written.
var errCorruptRun = errors.New("report: corrupt sort run")

// sorter sorts records (byte strings, compared byte by byte) with bounded memory: records are
// buffered up to budget bytes, then sorted and written to a run file in dir; sorted returns
// the merged runs. With fewer than budget bytes in all, nothing is written to disk. Records
// meant to be sorted by several fields start with them encoded by appendKey.
type sorter struct {
	dir    string
	budget int
	fanIn  int
	arena  []byte // the buffered records, back to back
	spans  []span // where each buffered record is in arena
	runs   []string
}

// span is one record in a sorter's arena.
type span struct{ off, end int }

func newSorter(dir string, budget, fanIn int) *sorter {
	return &sorter{dir: dir, budget: max(budget, 1), fanIn: max(fanIn, 2)}
}

// add buffers a copy of rec, writing a run first when the buffer is full.
func (s *sorter) add(rec []byte) error {
	if len(s.arena) > 0 && len(s.arena)+len(rec) > s.budget {
		if err := s.spill(); err != nil {
			return err
		}
	}
	if need := len(s.arena) + len(rec); need > cap(s.arena) {
		// Grow by doubling, but never past the budget (unless one record is larger).
		a := make([]byte, len(s.arena), max(need, min(s.budget, max(2*cap(s.arena), 64<<10))))
		copy(a, s.arena)
		s.arena = a
	}
	off := len(s.arena)
	s.arena = append(s.arena, rec...)
	s.spans = append(s.spans, span{off, len(s.arena)})
	return nil
}

func (s *sorter) rec(sp span) []byte { return s.arena[sp.off:sp.end] }

func (s *sorter) sortBuffer() {
	slices.SortFunc(s.spans, func(a, b span) int { return bytes.Compare(s.rec(a), s.rec(b)) })
}

// spill writes the buffered records, sorted, to a new run file and empties the buffer.
func (s *sorter) spill() error {
	s.sortBuffer()
	f, err := os.CreateTemp(s.dir, "run-*")
	if err != nil {
		return fmt.Errorf("report: create sort run: %w", err)
	}
	s.runs = append(s.runs, f.Name())
	bw := bufio.NewWriterSize(f, 64<<10)
	for _, sp := range s.spans {
		if err = writeRecord(bw, s.rec(sp)); err != nil {
			break
		}
	}
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("report: write sort run: %w", err)
	}
	s.arena, s.spans = s.arena[:0], s.spans[:0]
	return nil
}

// sorted returns the records added so far in byte order. No record may be added after it.
// The caller closes the stream, which removes the sorter's run files.
func (s *sorter) sorted() (recordStream, error) {
	if len(s.runs) == 0 {
		s.sortBuffer()
		return &memStream{s: s}, nil
	}
	if len(s.spans) > 0 {
		if err := s.spill(); err != nil {
			s.remove()
			return nil, err
		}
	}
	s.arena, s.spans = nil, nil
	for len(s.runs) > s.fanIn {
		if err := s.mergeRuns(); err != nil {
			s.remove()
			return nil, err
		}
	}
	m, err := openMerge(s.runs)
	if err != nil {
		s.remove()
		return nil, err
	}
	m.remove = s.remove
	return m, nil
}

// mergeRuns merges the first fanIn runs into one new run.
func (s *sorter) mergeRuns() error {
	group := slices.Clone(s.runs[:s.fanIn])
	m, err := openMerge(group)
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(s.dir, "run-*")
	if err != nil {
		m.Close()
		return fmt.Errorf("report: create sort run: %w", err)
	}
	// The merged run goes to the end of the queue, so every record is merged about as often.
	s.runs = append(slices.Clone(s.runs[s.fanIn:]), f.Name())
	bw := bufio.NewWriterSize(f, 64<<10)
	for {
		rec, ok, err2 := m.next()
		if err = err2; err != nil || !ok {
			break
		}
		if err = writeRecord(bw, rec); err != nil {
			break
		}
	}
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	m.Close()
	for _, name := range group {
		os.Remove(name)
	}
	if err != nil {
		return fmt.Errorf("report: merge sort runs: %w", err)
	}
	return nil
}

// remove deletes the run files.
func (s *sorter) remove() {
	for _, name := range s.runs {
		os.Remove(name)
	}
	s.runs = nil
}

// recordStream is a sorter's output. The slice next returns is valid until the next call.
type recordStream interface {
	next() (rec []byte, ok bool, err error)
	Close() error
}

// memStream is the output of a sorter that never spilled.
type memStream struct {
	s *sorter
	i int
}

func (m *memStream) next() ([]byte, bool, error) {
	if m.i >= len(m.s.spans) {
		return nil, false, nil
	}
	m.i++
	return m.s.rec(m.s.spans[m.i-1]), true, nil
}

func (m *memStream) Close() error {
	m.s.arena, m.s.spans = nil, nil
	return nil
}

// writeRecord writes rec with its length in front.
func writeRecord(w *bufio.Writer, rec []byte) error {
	if _, err := w.Write(binary.AppendUvarint(w.AvailableBuffer(), uint64(len(rec)))); err != nil {
		return err
	}
	_, err := w.Write(rec)
	return err
}

// runReader reads the records of one run file.
type runReader struct {
	f   *os.File
	r   *bufio.Reader
	rec []byte
}

// read reads the next record into rec; ok is false at the end of the run.
func (rr *runReader) read() (ok bool, err error) {
	n, err := binary.ReadUvarint(rr.r)
	if errors.Is(err, io.EOF) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("%w: %w", errCorruptRun, err)
	}
	if n > maxRecord {
		return false, fmt.Errorf("%w: record of %d bytes", errCorruptRun, n)
	}
	if uint64(cap(rr.rec)) < n {
		rr.rec = make([]byte, n)
	}
	rr.rec = rr.rec[:n]
	if _, err := io.ReadFull(rr.r, rr.rec); err != nil {
		return false, fmt.Errorf("%w: %w", errCorruptRun, err)
	}
	return true, nil
}

// mergeStream merges sorted run files. Its heap holds the runs that have a current record.
type mergeStream struct {
	readers []*runReader
	h       []*runReader
	top     *runReader // the run whose record next returned last; advanced on the next call
	remove  func()
}

func openMerge(names []string) (*mergeStream, error) {
	m := &mergeStream{}
	for _, name := range names {
		f, err := os.Open(name)
		if err != nil {
			m.Close()
			return nil, fmt.Errorf("report: open sort run: %w", err)
		}
		rr := &runReader{f: f, r: bufio.NewReaderSize(f, 64<<10)}
		m.readers = append(m.readers, rr)
		ok, err := rr.read()
		if err != nil {
			m.Close()
			return nil, err
		}
		if ok {
			m.h = append(m.h, rr)
		}
	}
	heap.Init(m)
	return m, nil
}

func (m *mergeStream) next() ([]byte, bool, error) {
	if m.top != nil {
		ok, err := m.top.read()
		if err != nil {
			return nil, false, err
		}
		if ok {
			heap.Fix(m, 0)
		} else {
			heap.Pop(m)
		}
		m.top = nil
	}
	if len(m.h) == 0 {
		return nil, false, nil
	}
	m.top = m.h[0]
	return m.top.rec, true, nil
}

// Close closes the run files and, for a sorter's final merge, removes them.
func (m *mergeStream) Close() error {
	for _, rr := range m.readers {
		rr.f.Close()
	}
	m.readers, m.h = nil, nil
	if m.remove != nil {
		m.remove()
		m.remove = nil
	}
	return nil
}

// heap.Interface over the runs with a current record.
func (m *mergeStream) Len() int           { return len(m.h) }
func (m *mergeStream) Less(i, j int) bool { return bytes.Compare(m.h[i].rec, m.h[j].rec) < 0 }
func (m *mergeStream) Swap(i, j int)      { m.h[i], m.h[j] = m.h[j], m.h[i] }
func (m *mergeStream) Push(x any)         { m.h = append(m.h, x.(*runReader)) }
func (m *mergeStream) Pop() any {
	x := m.h[len(m.h)-1]
	m.h = m.h[:len(m.h)-1]
	return x
}

// appendKey appends s so that records starting with keys compare byte by byte as their keys
// do, field by field: each 0x00 of s is written 0x00 0xFF, and the key ends with 0x00 0x01.
func appendKey(b []byte, s string) []byte {
	for {
		i := strings.IndexByte(s, 0)
		if i < 0 {
			break
		}
		b = append(b, s[:i+1]...)
		b = append(b, 0xFF)
		s = s[i+1:]
	}
	b = append(b, s...)
	return append(b, 0x00, 0x01)
}

// cutKey splits a key written by appendKey off the front of b. ok is false when b does not
// start with one.
func cutKey(b []byte) (key, rest []byte, ok bool) {
	i := bytes.IndexByte(b, 0)
	if i < 0 || i+1 >= len(b) {
		return nil, nil, false
	}
	if b[i+1] == 0x01 {
		return b[:i], b[i+2:], true
	}
	// An escaped 0x00: rare, so copied.
	var k []byte
	for {
		if i < 0 || i+1 >= len(b) {
			return nil, nil, false
		}
		switch b[i+1] {
		case 0x01:
			return append(k, b[:i]...), b[i+2:], true
		case 0xFF:
			k = append(k, b[:i+1]...)
			b = b[i+2:]
		default:
			return nil, nil, false
		}
		i = bytes.IndexByte(b, 0)
	}
}

// readKey reads a key written by appendKey.
func readKey(d *varrec.Decoder) string {
	rest := d.Rest()
	k, after, ok := cutKey(rest)
	if !ok {
		d.Fail()
		return ""
	}
	d.Next(len(rest) - len(after))
	return string(k)
}

// maxInterned bounds the strings an interner keeps.
const maxInterned = 4096

// interner shares equal strings: it keeps the first maxInterned distinct ones it is given.
type interner map[string]string

// str reads a string field (varrec.AppendString) shared through in.
func (in interner) str(d *varrec.Decoder) string {
	b := d.Bytes()
	if len(b) == 0 {
		return ""
	}
	return in.get(b)
}

func (in interner) get(b []byte) string {
	if s, ok := in[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(in) < maxInterned {
		in[s] = s
	}
	return s
}
