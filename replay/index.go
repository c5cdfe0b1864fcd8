package replay

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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

// bisectWindow is the span below which search stops bisecting and reads on.
const bisectWindow = 32 << 10

func (f *sortedFile) search(prefix []byte, fn func([]byte) bool) error {
	// Every line that starts before lo is below prefix; hi only bounds the bisection, the
	// final scan goes on from lo as far as it needs.
	lo, hi := int64(0), f.size
	for hi-lo > bisectWindow {
		mid := lo + (hi-lo)/2
		start, line, err := f.lineAfter(mid)
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
	return scanLines(io.NewSectionReader(f.r, lo, f.size-lo), func(line []byte) (bool, error) {
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
	return scanLines(io.NewSectionReader(f.r, 0, f.size), func(line []byte) (bool, error) { return fn(line), nil })
}

// lineAfter returns the first line that starts at pos or after it, and where it starts; -1
// when none does.
func (f *sortedFile) lineAfter(pos int64) (int64, []byte, error) {
	start := pos
	if pos > 0 {
		// The line starts after the first newline at pos-1 or later.
		br := bufio.NewReaderSize(io.NewSectionReader(f.r, pos-1, f.size-pos+1), 4096)
		n, err := skipLine(br)
		if err == io.EOF {
			return -1, nil, nil
		}
		if err != nil {
			return 0, nil, err
		}
		start = pos - 1 + n
	}
	if start >= f.size {
		return -1, nil, nil
	}
	var line []byte
	err := scanLines(io.NewSectionReader(f.r, start, f.size-start), func(l []byte) (bool, error) {
		line = append([]byte(nil), l...)
		return false, nil
	})
	return start, line, err
}

// skipLine reads up to and including the next newline and returns how many bytes that was;
// io.EOF when there is no newline.
func skipLine(br *bufio.Reader) (int64, error) {
	var n int64
	for {
		b, err := br.ReadSlice('\n')
		n += int64(len(b))
		switch err {
		case nil:
			return n, nil
		case bufio.ErrBufferFull:
			continue
		default:
			return n, err
		}
	}
}

// scanLines calls fn with each line of r, without its newline, until fn returns false or an
// error. A last line without a newline (torn by a killed crawl) counts as a line.
func scanLines(r io.Reader, fn func(line []byte) (bool, error)) error {
	br := bufio.NewReaderSize(r, 64<<10)
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
	err := scanLines(r, func(line []byte) (bool, error) {
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
	return scanLines(zr, fn)
}
