package replay

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
)

// maxIndexLine bounds one CDXJ line (a POST's key holds its body, up to 4,096 characters of
// query in warcio.js's keys, escaped: far below this).
const maxIndexLine = 1 << 20

// searcher finds the lines of a CDXJ index sorted in byte order (as amber, pywb and
// py-wacz sort them) without holding it in memory.
type searcher interface {
	// search calls fn with each line that starts with prefix, without its newline, in index
	// order, until fn returns false. The line is only valid during the call.
	search(prefix []byte, fn func(line []byte) bool) error
	// each calls fn with every line, as search does.
	each(fn func(line []byte) bool) error
}

// sortedFile is a plain CDXJ file, searched by bisecting it.
type sortedFile struct {
	r    io.ReaderAt
	size int64
}

// bisectWindow is the span below which search stops bisecting and reads on; readChunk is
// what one read of the file takes.
const (
	bisectWindow = 4 << 10
	readChunk    = 4 << 10
)

func (f *sortedFile) search(prefix []byte, fn func([]byte) bool) error {
	// Every line that starts before lo is below prefix; hi only bounds the bisection, the
	// final scan goes on from lo as far as it needs.
	lo, hi := int64(0), f.size
	buf := make([]byte, 0, readChunk)
	for hi-lo > bisectWindow {
		mid := lo + (hi-lo)/2
		start, line, err := f.lineAfter(mid, buf)
		if err != nil {
			return err
		}
		if start < 0 || start >= hi {
			hi = mid
			continue
		}
		if bytes.Compare(line, prefix) < 0 {
			lo = start + int64(len(line)) + 1
		} else {
			hi = start
		}
	}
	return scanLines(io.NewSectionReader(f.r, lo, f.size-lo), 2*readChunk, func(line []byte) (bool, error) {
		if bytes.Compare(line, prefix) < 0 {
			return true, nil
		}
		if !bytes.HasPrefix(line, prefix) {
			return false, nil
		}
		return fn(line), nil
	})
}

func (f *sortedFile) each(fn func([]byte) bool) error {
	return scanLines(io.NewSectionReader(f.r, 0, f.size), 64<<10, func(line []byte) (bool, error) { return fn(line), nil })
}

// lineAfter returns the first line that starts at pos or after it (without its newline, in
// buf's array when it fits), and where it starts; -1 when none does.
func (f *sortedFile) lineAfter(pos int64, buf []byte) (int64, []byte, error) {
	// The line starts after the first newline at pos-1 or later (at 0 for pos 0).
	from := max(pos-1, 0)
	buf = buf[:0]
	start := int64(-1)
	if pos == 0 {
		start = 0
	}
	for {
		if from >= f.size && len(buf) == 0 {
			return -1, nil, nil
		}
		if start < 0 {
			if i := bytes.IndexByte(buf, '\n'); i >= 0 {
				start = from - int64(len(buf)) + int64(i) + 1
				buf = append(buf[:0], buf[i+1:]...)
			} else {
				buf = buf[:0]
			}
		}
		if start >= 0 {
			if i := bytes.IndexByte(buf, '\n'); i >= 0 {
				return start, bytes.TrimRight(buf[:i], "\r"), nil
			}
			if from >= f.size {
				if len(buf) == 0 {
					return -1, nil, nil
				}
				return start, buf, nil // a last line without a newline
			}
			if len(buf) > maxIndexLine {
				return 0, nil, fmt.Errorf("replay: index line over %d bytes", maxIndexLine)
			}
		}
		if from >= f.size {
			return -1, nil, nil
		}
		n := min(int64(readChunk), f.size-from)
		buf = slices.Grow(buf, int(n))
		m, err := f.r.ReadAt(buf[len(buf):len(buf)+int(n)], from)
		if err != nil && !(err == io.EOF && int64(m) == n) {
			return 0, nil, fmt.Errorf("replay: read index: %w", err)
		}
		buf = buf[:len(buf)+m]
		from += int64(m)
	}
}

// scanLines calls fn with each line of r, without its newline, until fn returns false or an
// error, reading bufSize bytes at a time. A last line without a newline (torn by a killed
// crawl) counts as a line.
func scanLines(r io.Reader, bufSize int, fn func(line []byte) (bool, error)) error {
	br := bufio.NewReaderSize(r, bufSize)
	var long []byte
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long[:0], line...)
			for err == bufio.ErrBufferFull {
				if len(long) > maxIndexLine {
					return fmt.Errorf("replay: index line over %d bytes", maxIndexLine)
				}
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if err != nil && err != io.EOF {
			return fmt.Errorf("replay: read index: %w", err)
		}
		if l := bytes.TrimRight(line, "\r\n"); len(l) > 0 {
			more, ferr := fn(l)
			if ferr != nil || !more {
				return ferr
			}
		}
		if err == io.EOF {
			return nil
		}
	}
}

// blockIndex is a compressed CDXJ index (cdxj-gzip-1.0, as WACZ packages hold it above a
// size): gzip members of sorted lines, and an IDX that gives the first key and timestamp of
// each member and where it is.
type blockIndex struct {
	blocks []idxBlock
	open   func(filename string) (io.ReaderAt, error) // the file of the members, by the IDX's name
}

// idxBlock is one line of an IDX.
type idxBlock struct {
	first    []byte // KEY TIMESTAMP of the member's first line
	offset   int64
	length   int64
	filename string
}

// ErrIDX wraps the problems of an IDX file that does not parse.
var errIDX = errors.New("replay: invalid index.idx")

// readIDX reads an IDX (cdxj-gzip-1.0): a "!meta" line, then per member "KEY TIMESTAMP
// {offset, length, filename, ...}", in key order.
func readIDX(r io.Reader) ([]idxBlock, error) {
	var blocks []idxBlock
	err := scanLines(r, 64<<10, func(line []byte) (bool, error) {
		if bytes.HasPrefix(line, []byte("!")) {
			return true, nil
		}
		i := bytes.Index(line, []byte(" {"))
		if i < 0 {
			return false, fmt.Errorf("%w: line %.80q", errIDX, line)
		}
		var loc struct {
			Offset   json.Number `json:"offset"`
			Length   json.Number `json:"length"`
			Filename string      `json:"filename"`
		}
		if err := json.Unmarshal(line[i+1:], &loc); err != nil {
			return false, fmt.Errorf("%w: line %.80q: %v", errIDX, line, err)
		}
		off, err1 := strconv.ParseInt(string(loc.Offset), 10, 64)
		n, err2 := strconv.ParseInt(string(loc.Length), 10, 64)
		if err1 != nil || err2 != nil || off < 0 || n <= 0 {
			return false, fmt.Errorf("%w: line %.80q: offset or length", errIDX, line)
		}
		blocks = append(blocks, idxBlock{first: append([]byte(nil), line[:i]...), offset: off, length: n, filename: loc.Filename})
		return true, nil
	})
	return blocks, err
}

func (b *blockIndex) search(prefix []byte, fn func([]byte) bool) error {
	// The first member whose first line is at or above prefix; lines with prefix may start
	// in the member before it.
	i := sort.Search(len(b.blocks), func(i int) bool { return bytes.Compare(b.blocks[i].first, prefix) >= 0 })
	if i > 0 {
		i--
	}
	for ; i < len(b.blocks); i++ {
		done := false
		err := b.scanBlock(b.blocks[i], func(line []byte) (bool, error) {
			if bytes.Compare(line, prefix) < 0 {
				return true, nil
			}
			if !bytes.HasPrefix(line, prefix) || !fn(line) {
				done = true
				return false, nil
			}
			return true, nil
		})
		if err != nil || done {
			return err
		}
	}
	return nil
}

func (b *blockIndex) each(fn func([]byte) bool) error {
	for _, blk := range b.blocks {
		done := false
		err := b.scanBlock(blk, func(line []byte) (bool, error) {
			done = !fn(line)
			return !done, nil
		})
		if err != nil || done {
			return err
		}
	}
	return nil
}

// scanBlock decompresses one member and scans its lines.
func (b *blockIndex) scanBlock(blk idxBlock, fn func(line []byte) (bool, error)) error {
	r, err := b.open(blk.filename)
	if err != nil {
		return err
	}
	zr, err := gzip.NewReader(io.NewSectionReader(r, blk.offset, blk.length))
	if err != nil {
		return fmt.Errorf("replay: index block at %d of %s: %w", blk.offset, blk.filename, err)
	}
	return scanLines(zr, 16<<10, fn)
}
