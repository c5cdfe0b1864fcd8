package wacz

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"

	"github.com/klauspost/compress/gzip"
)

// maxLine bounds one line of the files the package reads (CDXJ, crawl.log, documents.jsonl).
const maxLine = 64 << 20

// indexResult says what writeIndex wrote.
type indexResult struct {
	lines      int  // CDXJ lines written
	dropped    int  // lines left out: unreadable, or their WARC file is not in the package
	compressed bool // index.cdx.gz + index.idx
}

// cdxjRecord is what the package reads of a CDXJ line's JSON block.
type cdxjRecord struct {
	Filename string `json:"filename"`
}

// writeIndex streams the sorted CDXJ file src into the package: as indexes/index.cdxj, or when
// src is larger than opts.IndexThreshold, as indexes/index.cdx.gz (gzip members of
// opts.IndexBlockLines lines each) and indexes/index.idx (the first key of each member and
// where it is). Lines that do not parse, and lines whose filename is not a packaged WARC
// file, are left out, so every line of the package points into archive/. Sorted in, sorted
// out: lines are only dropped.
func writeIndex(ctx context.Context, z *pkg, src string, packaged map[string]bool, opts Options) (indexResult, error) {
	f, err := os.Open(src)
	if err != nil {
		return indexResult{}, fmt.Errorf("wacz: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return indexResult{}, fmt.Errorf("wacz: %w", err)
	}
	res := indexResult{compressed: opts.IndexThreshold < 0 || st.Size() > opts.IndexThreshold}
	name := IndexCDXJ
	if res.compressed {
		name = IndexCDXGZ
	}
	e, err := z.create(name, z.created)
	if err != nil {
		return indexResult{}, err
	}
	var blocks *blockWriter
	if res.compressed {
		blocks = newBlockWriter(e, opts.IndexBlockLines, path.Base(IndexCDXGZ))
	}
	err = eachLine(ctx, f, src, func(line []byte) error {
		// A line that does not parse is the torn last line of a killed crawl's live.cdxj,
		// which sorting gave a "\n" and put anywhere.
		fn, err := cdxjFilename(line)
		if err != nil || !packaged[fn] {
			res.dropped++
			return nil
		}
		res.lines++
		if blocks != nil {
			return blocks.add(line)
		}
		_, err = e.Write(line)
		return err
	})
	if err == nil && blocks != nil {
		err = blocks.flush()
	}
	if err != nil {
		return indexResult{}, fmt.Errorf("wacz: index: %w", err)
	}
	z.finish(e)
	if blocks == nil {
		return res, nil
	}
	idx, err := z.create(IndexIDX, z.created)
	if err != nil {
		return indexResult{}, err
	}
	if _, err := idx.Write(blocks.idx.Bytes()); err != nil {
		return indexResult{}, fmt.Errorf("wacz: index: %w", err)
	}
	z.finish(idx)
	return res, nil
}

// cdxjFilename returns the filename field of a CDXJ line ("KEY TIMESTAMP {json}\n").
func cdxjFilename(line []byte) (string, error) {
	i := bytes.Index(line, []byte(" {"))
	if i <= 0 || bytes.IndexByte(line[:i], ' ') <= 0 {
		return "", fmt.Errorf("%w: CDXJ line %.200q: want KEY TIMESTAMP {json}", ErrMalformed, line)
	}
	var r cdxjRecord
	if err := json.Unmarshal(line[i+1:], &r); err != nil {
		return "", fmt.Errorf("%w: CDXJ line %.200q: %v", ErrMalformed, line, err)
	}
	return r.Filename, nil
}

// blockWriter writes CDXJ lines as gzip members of n lines each (the last one may be shorter)
// and keeps the IDX of cdxj-gzip-1.0: a !meta line, then per member the KEY TIMESTAMP of its
// first line and {"offset", "length", "digest", "filename"}, as browsertrix-crawler writes it
// and ReplayWeb.page reads it (a digest is "sha256:" and the hex of the member's bytes). The
// IDX is small (one line per member) and is kept in memory; the members are not.
type blockWriter struct {
	w        io.Writer
	n        int
	filename string
	lines    int          // lines in the current block
	first    []byte       // KEY TIMESTAMP of the current block's first line
	raw      bytes.Buffer // the current block, uncompressed
	gz       *gzip.Writer
	member   bytes.Buffer // the current block, compressed
	offset   int64
	idx      bytes.Buffer
}

func newBlockWriter(w io.Writer, n int, filename string) *blockWriter {
	b := &blockWriter{w: w, n: n, filename: filename}
	meta, _ := json.Marshal(struct {
		Format   string `json:"format"`
		Filename string `json:"filename"`
	}{idxFormat, filename})
	fmt.Fprintf(&b.idx, "!meta 0 %s\n", meta)
	return b
}

// add appends one line (ending in "\n") to the current block.
func (b *blockWriter) add(line []byte) error {
	if b.lines == 0 {
		b.first = append(b.first[:0], line[:bytes.Index(line, []byte(" {"))]...)
	}
	b.raw.Write(line)
	b.lines++
	if b.lines == b.n {
		return b.flush()
	}
	return nil
}

// flush compresses the current block, writes it and its IDX line.
func (b *blockWriter) flush() error {
	if b.lines == 0 {
		return nil
	}
	b.member.Reset()
	if b.gz == nil {
		b.gz = gzip.NewWriter(&b.member)
	}
	b.gz.Reset(&b.member)
	if _, err := b.gz.Write(b.raw.Bytes()); err != nil {
		return err
	}
	if err := b.gz.Close(); err != nil {
		return err
	}
	sum := sha256.Sum256(b.member.Bytes())
	if _, err := b.w.Write(b.member.Bytes()); err != nil {
		return err
	}
	loc, err := json.Marshal(struct {
		Offset   int64  `json:"offset"`
		Length   int    `json:"length"`
		Digest   string `json:"digest"`
		Filename string `json:"filename"`
	}{b.offset, b.member.Len(), hashPrefix + hex.EncodeToString(sum[:]), b.filename})
	if err != nil {
		return err
	}
	b.idx.Write(b.first)
	b.idx.WriteByte(' ')
	b.idx.Write(loc)
	b.idx.WriteByte('\n')
	b.offset += int64(b.member.Len())
	b.raw.Reset()
	b.lines = 0
	return nil
}

// eachLine calls fn with every line of r that ends in "\n" (the "\n" included), checking ctx
// every few thousand lines. A last line without "\n" is a torn line left by a killed process
// and is skipped. name is for errors.
func eachLine(ctx context.Context, r io.Reader, name string, fn func(line []byte) error) error {
	br := bufio.NewReaderSize(r, 256<<10)
	var long []byte
	for n := 0; ; n++ {
		if n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A line longer than the buffer: gather it.
			long = append(long[:0], line...)
			for err == bufio.ErrBufferFull {
				if len(long) > maxLine {
					return fmt.Errorf("%w: %s: a line longer than %d bytes", ErrMalformed, name, maxLine)
				}
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", name, err)
		}
		if err := fn(line); err != nil {
			return err
		}
	}
}
