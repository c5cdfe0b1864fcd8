package report

import (
	"bytes"
	"fmt"
	"io"
	"os"
)

// lineFile is an append-only file of whole lines (crawl.log, events.jsonl). A line is either
// written whole or not at all: a write the disk cuts short (ENOSPC) is cut back off, and a
// torn last line left by a killed process is cut off when the file is opened, so a reader
// never meets half a line.
type lineFile struct {
	f    *os.File
	size int64 // bytes of whole lines
}

// openLineFile opens (or creates) path for appending and cuts a torn last line.
func openLineFile(path string) (*lineFile, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	size, err := CutTornLine(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("repair %s: %w", path, err)
	}
	return &lineFile{f: f, size: size}, nil
}

// CutTornLine cuts f after its last newline, dropping a torn last line (a killed process, a
// short write on a full disk), and returns f's new size. Every append-only file of lines the
// crawl keeps (crawl.log, events, documents.jsonl) is repaired with it when opened.
func CutTornLine(f *os.File) (int64, error) {
	size, err := wholeLines(f)
	if err != nil {
		return 0, err
	}
	if st, err := f.Stat(); err == nil && st.Size() == size {
		return size, nil
	}
	return size, f.Truncate(size)
}

// wholeLines returns the length of f up to and including its last newline.
func wholeLines(f *os.File) (int64, error) {
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	end := st.Size()
	buf := make([]byte, 64<<10)
	for end > 0 {
		n := int64(len(buf))
		if n > end {
			n = end
		}
		if _, err := f.ReadAt(buf[:n], end-n); err != nil && err != io.EOF {
			return 0, err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			return end - n + int64(i) + 1, nil
		}
		end -= n
	}
	return 0, nil
}

// writeLine appends b, which ends with a newline. On a short write the file is cut back to
// its last whole line and the error returned.
func (l *lineFile) writeLine(b []byte) error {
	n, err := l.f.Write(b)
	if err != nil {
		if n > 0 {
			if terr := l.f.Truncate(l.size); terr != nil {
				return fmt.Errorf("%w (and cut back: %w)", err, terr)
			}
		}
		return err
	}
	l.size += int64(n)
	return nil
}

// close syncs and closes the file.
func (l *lineFile) close() error {
	err := l.f.Sync()
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	return err
}
