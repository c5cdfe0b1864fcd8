package warc

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/klauspost/compress/gzip"
	gowarc "github.com/nlnwa/gowarc/v2"

	"github.com/amber-crawler/amber/internal/gzfixed"
)

const (
	defaultPrefix  = "amber"
	defaultMaxSize = int64(1e9)
	openSuffix     = ".open"
	warcSuffix     = ".warc.gz"
	// dateLayout is the WARC-Date layout: WARC 1.1 allows fractions of a second.
	dateLayout = "2006-01-02T15:04:05.000000Z"
	// profileRevisit is the revisit profile written on revisit records of a payload captured
	// before; profileNotModified that of a 304 to a conditional request.
	profileRevisit     = gowarc.ProfileIdenticalPayloadDigestV1_1
	profileNotModified = gowarc.ProfileServerNotModifiedV1_1
	conformsTo         = "http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/"

	contentTypeResponse = "application/http; msgtype=response"
	contentTypeRequest  = "application/http; msgtype=request"
)

// Writer writes captures into size-rotated WARC files and appends their CDXJ lines.
// It is safe for concurrent use: records are built and compressed by the calling goroutine,
// and only the append to the file (and to the CDXJ index) happens under the Writer's mutex.
//
// A capture or resource is written whole or not at all. When an append fails (a full disk:
// the error then matches syscall.ENOSPC) the file is cut back to the end of the last whole
// capture and closed (renamed away from ".open", so it validates), and the index keeps no part
// of the capture's line; the next write starts a new file.
type Writer struct {
	cfg      Config
	hostname string
	now      func() time.Time

	// dedupMu guards pending: payload digests whose first capture is being written right now,
	// so that a second capture of the same payload at the same moment becomes a revisit of it
	// instead of a second full response.
	dedupMu sync.Mutex
	pending map[string]dedupRef

	// heldMu guards holding: the held keys (Config.Held) of the captures being written right
	// now, each with a channel closed once its capture is written and stored, or has failed,
	// so that a capture marked Once waits for it rather than writing the same capture again.
	heldMu  sync.Mutex
	holding map[string]chan struct{}

	// create opens a file for writing (os.OpenFile); tests replace it to make writes fail.
	create func(name string, flag int, perm os.FileMode) (file, error)

	mu      sync.Mutex // guards the fields below: the open WARC file, its bookkeeping and the CDXJ file
	closed  bool
	serial  int           // serial number of the next file
	f       file          // the current NAME.warc.gz.open, nil when none is open
	bw      *bufio.Writer // buffers f; flushed at the end of every capture
	name    string        // base name of f without ".open"
	size    int64         // bytes written to f, buffered ones included
	infoID  string        // WARC-Record-ID of f's warcinfo record
	writes  int           // captures and resources written to f
	cdx     file          // CDXJ index opened for appending, nil without an index
	cdxSize int64         // bytes in cdx: where a failed append is cut back to
}

// file is what the Writer needs of an open file; *os.File implements it.
type file interface {
	io.Writer
	Seek(offset int64, whence int) (int64, error)
	Truncate(size int64) error
	Sync() error
	Close() error
	Name() string
}

func openFile(name string, flag int, perm os.FileMode) (file, error) {
	f, err := os.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err // not a typed nil in the interface
	}
	return f, nil
}

// NewWriter creates Dir (and the CDXJ file's directory) and returns a Writer whose file serial
// numbers continue after the highest serial found in Dir for the prefix. No file is created
// before the first write. It leaves alone files an earlier process left open: call Recover on
// Dir and CDXJPath before NewWriter to close them out.
func NewWriter(cfg Config) (*Writer, error) {
	return newWriter(cfg, openFile)
}

func newWriter(cfg Config, create func(string, int, os.FileMode) (file, error)) (*Writer, error) {
	if cfg.Dir == "" {
		return nil, fmt.Errorf("%w: empty Dir", ErrConfig)
	}
	if cfg.Prefix == "" {
		cfg.Prefix = defaultPrefix
	}
	if strings.ContainsAny(cfg.Prefix, `/\`) {
		return nil, fmt.Errorf("%w: prefix %q contains a path separator", ErrConfig, cfg.Prefix)
	}
	if cfg.MaxSize <= 0 {
		cfg.MaxSize = defaultMaxSize
	}
	if cfg.TempDir == "" {
		cfg.TempDir = os.TempDir()
	}
	host := cfg.Hostname
	if host == "" {
		h, err := os.Hostname()
		if err != nil || h == "" {
			h = "localhost"
		}
		host = h
	}
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("create warc dir: %w", err)
	}
	serial, err := nextSerial(cfg.Dir, cfg.Prefix)
	if err != nil {
		return nil, err
	}
	w := &Writer{
		cfg:      cfg,
		create:   create,
		hostname: sanitizeHostname(host),
		now:      time.Now,
		serial:   serial,
	}
	if cfg.CDXJPath != "" {
		if err := os.MkdirAll(filepath.Dir(cfg.CDXJPath), 0o755); err != nil {
			return nil, fmt.Errorf("create cdxj dir: %w", err)
		}
		if err := w.openCDXJ(); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// openCDXJ opens the CDXJ index for appending and notes its size.
func (w *Writer) openCDXJ() error {
	f, err := w.create(w.cfg.CDXJPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("open cdxj: %w", err)
	}
	end, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		_ = f.Close()
		return fmt.Errorf("open cdxj: %w", err)
	}
	w.cdx, w.cdxSize = f, end
	return nil
}

// prepared is a built record and its compressed gzip member.
type prepared struct {
	rec *record
	sp  *spool
}

func (w *Writer) closePrepared(ps []*prepared) {
	for _, p := range ps {
		if p == nil {
			continue
		}
		if p.rec != nil {
			p.rec.close()
		}
		if p.sp != nil {
			_ = p.sp.Close()
		}
	}
}

// WriteResource writes a resource record (e.g. a screenshot: uri "urn:screenshot:<page URL>")
// and its CDXJ line. concurrentTo, if not empty, is the WARC-Record-ID of a related record
// (the page's response); it may be in another file. contentType "" is written as
// application/octet-stream. Safe for concurrent use.
func (w *Writer) WriteResource(uri, contentType string, date time.Time, body []byte, concurrentTo string) (Result, error) {
	if uri == "" {
		return Result{}, fmt.Errorf("%w: empty resource URI", ErrInvalid)
	}
	if contentType == "" {
		contentType = "application/octet-stream"
	}
	if strings.ContainsAny(contentType, "\r\n") {
		return Result{}, fmt.Errorf("%w: content type %q", ErrInvalid, contentType)
	}
	infoID, err := w.currentInfoID()
	if err != nil {
		return Result{}, err
	}
	if date.IsZero() {
		date = w.now()
	}
	id := newRecordID()
	fields := commonFields(id, date.UTC().Format(dateLayout), uri, "", infoID)
	if concurrentTo != "" {
		if !strings.HasPrefix(concurrentTo, "<") {
			concurrentTo = "<" + concurrentTo + ">"
		}
		fields = append(fields, field{gowarc.WarcConcurrentTo, cleanValue(concurrentTo)})
	}
	fields = append(fields, field{gowarc.ContentType, contentType})
	d := digestBytes(body)
	ps := []*prepared{{rec: &record{typ: "resource", fields: fields, block: bytesBlock(body), blockDigest: d, payloadDigest: d}}}
	defer w.closePrepared(ps)

	res := Result{RecordID: id, PayloadDigest: d}
	mime := contentType
	line := cdxLine{
		key:    CDXKey(uri),
		date:   date,
		URL:    uri,
		Mime:   &mime,
		Digest: strings.TrimPrefix(res.PayloadDigest, "sha1:"),
	}
	if err := w.commit(ps, infoID, 0, &res, &line); err != nil {
		return Result{}, err
	}
	return res, nil
}

// Close finishes the current file (flush, fsync, rename away ".open") and closes the CDXJ
// index. Later writes return ErrClosed; a second Close returns nil.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil
	}
	w.closed = true
	var errs []error
	if err := w.closeFileLocked(); err != nil {
		errs = append(errs, err)
	}
	if w.cdx != nil {
		if err := w.cdx.Sync(); err != nil {
			errs = append(errs, fmt.Errorf("sync cdxj: %w", err))
		}
		if err := w.cdx.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close cdxj: %w", err))
		}
		w.cdx = nil
	}
	return errors.Join(errs...)
}

// commonFields returns the fields every capture record starts with, in a readable order.
func commonFields(id, date, uri, ip, infoID string) []field {
	f := make([]field, 0, 10)
	f = append(f, field{gowarc.WarcRecordID, id}, field{gowarc.WarcDate, date}, field{gowarc.WarcTargetURI, cleanValue(uri)})
	if ip != "" {
		f = append(f, field{gowarc.WarcIPAddress, cleanValue(ip)})
	}
	return append(f, field{gowarc.WarcWarcinfoID, infoID})
}

// currentInfoID opens a file if none is open (or rotates a full one) and returns its warcinfo ID.
func (w *Writer) currentInfoID() (string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.ensureFileLocked(); err != nil {
		return "", err
	}
	return w.infoID, nil
}

// commit appends the prepared records (compressing them first when needed) to the current
// file and the CDXJ line for ps[mainIdx] (none when line is nil); res gets ps[mainIdx]'s place. It is all or nothing: when a write fails (a full disk)
// the file is cut back to where the capture started and closed, and the index keeps no part of
// the line (see failLocked).
func (w *Writer) commit(ps []*prepared, infoID string, mainIdx int, res *Result, line *cdxLine) error {
	// Compress outside the lock with the warcinfo ID seen so far; redo it under the lock in the
	// rare case another capture rotated the file in between.
	var n int64
	for _, p := range ps {
		if err := w.compress(p); err != nil {
			return err
		}
		n += p.sp.Size()
	}
	if w.cfg.BeforeWrite != nil {
		w.cfg.BeforeWrite(n)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.ensureFileLocked(); err != nil {
		return err
	}
	if w.infoID != infoID {
		for _, p := range ps {
			p.rec.set(gowarc.WarcWarcinfoID, w.infoID)
			if err := w.compress(p); err != nil {
				return err
			}
		}
	}
	start := w.size
	offsets := make([]int64, len(ps))
	for i, p := range ps {
		offsets[i] = w.size
		n, err := p.sp.WriteTo(w.bw)
		w.size += n
		if err != nil {
			return w.failLocked(start, fmt.Errorf("write %s: %w", w.name, err))
		}
	}
	if err := w.bw.Flush(); err != nil {
		return w.failLocked(start, fmt.Errorf("write %s: %w", w.name, err))
	}
	name, offset, length := w.name, offsets[mainIdx], ps[mainIdx].sp.Size()
	if line != nil {
		if err := w.appendCDXLocked(line, name, offset, length); err != nil {
			return w.failLocked(start, err)
		}
	}
	w.writes++
	res.Filename, res.Offset, res.Length = name, offset, length
	return nil
}

// appendCDXLocked completes line with the place of its record and appends it to the CDXJ
// index, if there is one. A failed append is cut off the index again.
func (w *Writer) appendCDXLocked(line *cdxLine, filename string, offset, length int64) error {
	if w.cdx == nil {
		return nil
	}
	line.Filename = filename
	line.Offset = strconv.FormatInt(offset, 10)
	line.Length = strconv.FormatInt(length, 10)
	b, err := line.marshal()
	if err != nil {
		return fmt.Errorf("encode cdxj line: %w", err)
	}
	n, err := w.cdx.Write(b)
	if err != nil {
		err = fmt.Errorf("append cdxj: %w", err)
		if n > 0 {
			// A torn line would make the rest of the index unreadable to binary search.
			if terr := w.cdx.Truncate(w.cdxSize); terr != nil {
				return errors.Join(err, fmt.Errorf("truncate cdxj: %w", terr))
			}
		}
		return err
	}
	w.cdxSize += int64(n)
	return nil
}

// failLocked handles a write to the current file that failed with cause (typically ENOSPC): it
// cuts the file back to start, the end of the last whole capture, and closes it, so the file
// on disk validates and loses its ".open" whatever happens next (a disk that stays full, a
// kill); the next write opens a new file. When the cut fails the file is closed but keeps its
// ".open" name: Recover cuts it on the next run. It returns cause with what else failed.
func (w *Writer) failLocked(start int64, cause error) error {
	w.bw.Reset(w.f)
	if err := w.f.Truncate(start); err != nil {
		name := w.name
		_ = w.f.Close()
		w.f, w.bw, w.name, w.size, w.infoID = nil, nil, "", 0, ""
		return errors.Join(cause, fmt.Errorf("truncate %s: %w", name, err))
	}
	w.size = start
	if err := w.closeFileLocked(); err != nil {
		return errors.Join(cause, err)
	}
	return cause
}

// gzipLevel is the compression level of the records: klauspost/compress level 2. On the
// short records of a crawl (request, metadata, small pages) the cost is per gzip member (about
// 12 µs, building its Huffman tables), the same at every level; on 16 KB of HTML it took 44 µs
// where the default level took 61, for output 6% larger (measured 2026-11, see issue 11).
// Records of at most textMax bytes are compressed with codes set in advance instead (gzfixed).
const gzipLevel = 2

// fixedMax is the largest record written as a gzip member with fixed Huffman codes
// (internal/gzfixed) rather than by klauspost/compress: the requests, metadata, revisits and
// small responses of a crawl. On such records the fixed codes take 5 to 6 times less CPU for
// output 6 to 11% larger (go test -bench Append ./internal/gzfixed/, 128 different records of
// each kind: a request of about 570 bytes 2.1 µs and 433 bytes against 11.7 µs and 391; a
// metadata record 1.4 µs and 252 bytes against 8.8 µs and 237); on a 5 KB page 35 µs and 31%
// larger against 40 µs, so larger records take the text codes.
const fixedMax = 2048

// textMax is the largest record written as a gzip member with the text codes of gzfixed,
// dynamic codes built once from a corpus of HTML, when AppendText takes it (HTML and text in
// the Latin script; other records go to klauspost/compress). On 5 KB pages of make bench's
// site they take 38 µs for 2,609 bytes against klauspost's 40 µs and 2,491 (5% larger; go
// test -bench Append ./internal/gzfixed/), and in a crawl of 10,000 such pages amber took
// 5.6% less CPU (about 19 µs a page: in a crawl klauspost costs more than in its benchmark). The
// encoder gains on the table klauspost builds for every member and loses on each byte: on 30
// KB pages it took as long (190 µs against 187) for output 9% larger, so larger records stay
// with klauspost/compress.
const textMax = 16 << 10

var gzipPool = sync.Pool{New: func() any {
	zw, _ := gzip.NewWriterLevel(io.Discard, gzipLevel)
	return zw
}}

// fixedCoder is a gzfixed encoder with its buffers, pooled.
type fixedCoder struct {
	enc gzfixed.Encoder
	in  bytes.Buffer
	out []byte
}

var fixedPool = sync.Pool{New: func() any { return new(fixedCoder) }}

// compress (re)writes p.rec as one gzip member into p.sp.
func (w *Writer) compress(p *prepared) error {
	if p.sp == nil {
		p.sp = &spool{dir: w.cfg.TempDir}
	} else if err := p.sp.Reset(); err != nil {
		return err
	}
	if p.rec.block.Size() > textMax {
		return gzipTo(p.sp, p.rec.marshal)
	}
	fc := fixedPool.Get().(*fixedCoder)
	defer func() {
		if fc.in.Cap() <= 2*textMax { // not the buffer of a record with a long header
			fixedPool.Put(fc)
		}
	}()
	fc.in.Reset()
	if err := p.rec.marshal(&fc.in); err != nil {
		return fmt.Errorf("write record: %w", err)
	}
	switch n := fc.in.Len(); {
	case n <= fixedMax:
		fc.out = fc.enc.Append(fc.out[:0], fc.in.Bytes())
	case n <= gzfixed.MaxInput:
		var ok bool
		if fc.out, ok = fc.enc.AppendText(fc.out[:0], fc.in.Bytes()); ok {
			break
		}
		fallthrough
	default:
		return gzipTo(p.sp, func(zw io.Writer) error { _, err := zw.Write(fc.in.Bytes()); return err })
	}
	if _, err := p.sp.Write(fc.out); err != nil {
		return fmt.Errorf("compress record: %w", err)
	}
	return nil
}

// gzipTo writes one gzip member to dst, with dynamic codes, of what write writes.
func gzipTo(dst io.Writer, write func(io.Writer) error) error {
	zw := gzipPool.Get().(*gzip.Writer)
	defer gzipPool.Put(zw)
	zw.Reset(dst)
	if err := write(zw); err != nil {
		return fmt.Errorf("write record: %w", err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("compress record: %w", err)
	}
	return nil
}

// ensureFileLocked rotates a full file and opens a new one when none is open.
func (w *Writer) ensureFileLocked() error {
	if w.closed {
		return ErrClosed
	}
	// A file holds at least one capture, however small MaxSize is.
	if w.f != nil && w.writes > 0 && w.size >= w.cfg.MaxSize {
		if err := w.closeFileLocked(); err != nil {
			return fmt.Errorf("rotate warc: %w", err)
		}
	}
	if w.f == nil {
		return w.openFileLocked()
	}
	return nil
}

// openFileLocked creates the next NAME.warc.gz.open and writes its warcinfo record.
func (w *Writer) openFileLocked() error {
	var f file
	var name string
	for {
		ts := w.now().UTC()
		name = fmt.Sprintf("%s-%s%03d-%05d-%s%s", w.cfg.Prefix, ts.Format("20060102150405"),
			ts.Nanosecond()/int(time.Millisecond), w.serial, w.hostname, warcSuffix)
		w.serial++
		path := filepath.Join(w.cfg.Dir, name)
		if _, err := os.Lstat(path); err == nil {
			continue
		}
		var err error
		f, err = w.create(path+openSuffix, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("create warc: %w", err)
		}
		break
	}
	date := w.now()
	ps, line, err := w.fileHeader(name, date)
	defer w.closePrepared(ps)
	if err != nil {
		return w.abandon(f, err)
	}
	bw := bufio.NewWriterSize(f, 256<<10)
	size := int64(0)
	offsets := make([]int64, len(ps))
	for i, p := range ps {
		offsets[i] = size
		n, err := p.sp.WriteTo(bw)
		size += n
		if err != nil {
			return w.abandon(f, fmt.Errorf("write warcinfo: %w", err))
		}
	}
	if err := bw.Flush(); err != nil {
		return w.abandon(f, fmt.Errorf("write warcinfo: %w", err))
	}
	if line != nil {
		if err := w.appendCDXLocked(line, name, offsets[1], ps[1].sp.Size()); err != nil {
			return w.abandon(f, err)
		}
	}
	w.f, w.bw, w.name, w.size, w.infoID, w.writes = f, bw, name, size, ps[0].rec.get(gowarc.WarcRecordID), 0
	return nil
}

// fileHeader builds and compresses the records that start every file: the warcinfo record
// and, when Info.Config is set, the crawl-config metadata record (returned with its CDXJ line).
func (w *Writer) fileHeader(name string, date time.Time) ([]*prepared, *cdxLine, error) {
	dateStr := date.UTC().Format(dateLayout)
	infoID := newRecordID()
	info := w.warcinfoBlock()
	ps := []*prepared{{rec: &record{typ: "warcinfo", fields: []field{
		{gowarc.WarcRecordID, infoID},
		{gowarc.WarcDate, dateStr},
		{gowarc.WarcFilename, name},
		{gowarc.ContentType, gowarc.ApplicationWarcFields},
	}, block: bytesBlock(info), blockDigest: digestBytes(info)}}}
	var line *cdxLine
	if cfg := w.cfg.Info.Config; len(cfg) > 0 {
		ps = append(ps, &prepared{rec: &record{typ: "metadata", fields: []field{
			{gowarc.WarcRecordID, newRecordID()},
			{gowarc.WarcDate, dateStr},
			{gowarc.WarcTargetURI, ConfigURI},
			{gowarc.WarcRefersTo, infoID},
			{gowarc.WarcWarcinfoID, infoID},
			{gowarc.ContentType, ConfigContentType},
		}, block: bytesBlock(cfg), blockDigest: digestBytes(cfg)}})
		mime := ConfigContentType
		line = &cdxLine{key: CDXKey(ConfigURI), date: date, URL: ConfigURI, Mime: &mime}
	}
	for _, p := range ps {
		if err := w.compress(p); err != nil {
			return ps, nil, err
		}
	}
	return ps, line, nil
}

// abandon closes and removes a new file whose header could not be written.
func (w *Writer) abandon(f file, cause error) error {
	name := f.Name()
	_ = f.Close()
	_ = os.Remove(name)
	return cause
}

// closeFileLocked flushes, syncs and closes the current file and renames it away from ".open".
func (w *Writer) closeFileLocked() error {
	if w.f == nil {
		return nil
	}
	f, name := w.f, w.name
	w.f, w.bw, w.name, w.size, w.infoID = nil, nil, "", 0, ""
	var errs []error
	if err := f.Sync(); err != nil {
		errs = append(errs, fmt.Errorf("sync %s: %w", name, err))
	}
	if err := f.Close(); err != nil {
		errs = append(errs, fmt.Errorf("close %s: %w", name, err))
	}
	path := filepath.Join(w.cfg.Dir, name)
	if len(errs) == 0 {
		if err := os.Rename(path+openSuffix, path); err != nil {
			errs = append(errs, fmt.Errorf("rename %s: %w", name, err))
		}
	}
	return errors.Join(errs...)
}

// warcinfoBlock renders the warcinfo content as application/warc-fields, with Heritrix's field
// names where Heritrix has one.
func (w *Writer) warcinfoBlock() []byte {
	var b bytes.Buffer
	add := func(name, value string) {
		if value = cleanValue(value); value != "" {
			b.WriteString(name)
			b.WriteString(": ")
			b.WriteString(value)
			b.WriteString("\r\n")
		}
	}
	in := w.cfg.Info
	add("software", in.Software)
	add("hostname", w.hostname)
	add("operator", in.Operator)
	add("isPartOf", in.Collection)
	add("collection", in.Collection)
	add("description", in.Description)
	add("robots", in.Robots)
	add("http-header-user-agent", in.UserAgent)
	add("format", "WARC File Format 1.1")
	add("conformsTo", conformsTo)
	return b.Bytes()
}

// metadataBlock renders the capture's metadata record content as application/warc-fields.
func metadataBlock(c Capture) ([]byte, error) {
	// Sized at once for the usual fields (growing it was 3% of a crawl's allocation).
	n := 64 + len(c.Via) + len(c.Hops) + len(c.Seed)
	for _, o := range c.Outlinks {
		n += 16 + len(o.URL) + len(o.Hop) + len(o.Context)
	}
	for _, f := range c.Extra {
		n += 4 + len(f.Name) + len(f.Value)
	}
	b := bytes.NewBuffer(make([]byte, 0, n))
	add := func(name, value string) {
		b.WriteString(name)
		b.WriteString(": ")
		b.WriteString(value)
		b.WriteString("\r\n")
	}
	if v := cleanValue(c.Via); v != "" {
		add("via", v)
	}
	hops := cleanValue(c.Hops)
	if hops == "" {
		hops = "-"
	}
	add("hopsFromSeed", hops)
	if v := cleanValue(c.Seed); v != "" {
		add("sourceSeed", v)
	}
	for _, o := range c.Outlinks {
		u := strings.ReplaceAll(cleanValue(o.URL), " ", "%20")
		if u == "" {
			continue
		}
		hop := strings.ReplaceAll(cleanValue(o.Hop), " ", "")
		if hop == "" {
			hop = "-"
		}
		ctx := cleanValue(o.Context)
		if ctx == "" {
			ctx = "-"
		}
		b.WriteString("outlink: ")
		b.WriteString(u)
		b.WriteByte(' ')
		b.WriteString(hop)
		b.WriteByte(' ')
		b.WriteString(ctx)
		b.WriteString("\r\n")
	}
	for _, f := range c.Extra {
		if !isToken(f.Name) {
			return nil, fmt.Errorf("%w: metadata field name %q", ErrInvalid, f.Name)
		}
		add(f.Name, cleanValue(f.Value))
	}
	return b.Bytes(), nil
}

// cleanValue makes s fit on one warc-fields line.
func cleanValue(s string) string {
	if strings.ContainsAny(s, "\r\n\t") {
		s = strings.NewReplacer("\r\n", " ", "\r", " ", "\n", " ", "\t", " ").Replace(s)
	}
	return strings.TrimSpace(s)
}

func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// gowarcMu serialises the construction of gowarc readers: gowarc v2.0.1 calls
// uuid.EnableRandPool, an unsynchronised write to a global, every time it builds options.
var gowarcMu sync.Mutex

func newWarcReader(r io.Reader, opts ...gowarc.WarcRecordOption) (*gowarc.WarcFileReader, error) {
	gowarcMu.Lock()
	defer gowarcMu.Unlock()
	return gowarc.NewWarcFileReaderFromStream(r, 0, opts...)
}

// newRecordID returns a fresh "<urn:uuid:...>" (version 4).
func newRecordID() string {
	var u [16]byte
	_, _ = rand.Read(u[:]) // crypto/rand.Read never fails on supported platforms
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return formatRecordID(u)
}

// formatRecordID writes the UUID u as a WARC-Record-ID, <urn:uuid:8-4-4-4-12 hex digits>,
// with one allocation (fmt.Sprintf took seven, three records a page).
func formatRecordID(u [16]byte) string {
	const prefix = "<urn:uuid:"
	var b [len(prefix) + 36 + 1]byte
	n := copy(b[:], prefix)
	for i, c := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b[n] = '-'
			n++
		}
		b[n], b[n+1] = hexDigits[c>>4], hexDigits[c&0xf]
		n += 2
	}
	b[n] = '>'
	return string(b[:])
}

const hexDigits = "0123456789abcdef"

func sanitizeHostname(h string) string {
	b := []byte(h)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-') {
			b[i] = '-'
		}
	}
	return string(b)
}

// nextSerial returns one more than the highest serial of PREFIX-TIMESTAMP-SERIAL-HOST.warc.gz[.open]
// files in dir, or 0.
func nextSerial(dir, prefix string) (int, error) {
	re := regexp.MustCompile(`^` + regexp.QuoteMeta(prefix) + `-\d{17}-(\d+)-.*\.warc(\.gz)?(\.open)?$`)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, fmt.Errorf("list warc dir: %w", err)
	}
	next := 0
	for _, e := range entries {
		m := re.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		n, err := strconv.Atoi(m[1])
		if err == nil && n+1 > next {
			next = n + 1
		}
	}
	return next, nil
}

// spool holds one compressed record: in memory up to spoolMem bytes, then in a temp file.
type spool struct {
	dir string
	buf []byte // from spoolPool; nil once released
	f   *os.File
	n   int64
}

const spoolMem = 4 << 20

// spoolPool keeps the memory of released spools for the next records.
var spoolPool = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

func (s *spool) Write(p []byte) (int, error) {
	if s.buf == nil && s.f == nil {
		s.buf = (*spoolPool.Get().(*[]byte))[:0]
	}
	if s.f == nil && len(s.buf)+len(p) > spoolMem {
		f, err := os.CreateTemp(s.dir, "amber-warc-*")
		if err != nil {
			return 0, fmt.Errorf("spool record: %w", err)
		}
		s.f = f
		if _, err := f.Write(s.buf); err != nil {
			return 0, fmt.Errorf("spool record: %w", err)
		}
		s.release()
	}
	var n int
	var err error
	if s.f != nil {
		n, err = s.f.Write(p)
	} else {
		s.buf = append(s.buf, p...)
		n = len(p)
	}
	s.n += int64(n)
	return n, err
}

// Size is the number of bytes held.
func (s *spool) Size() int64 { return s.n }

// WriteTo copies everything held to dst; it may be called several times.
func (s *spool) WriteTo(dst io.Writer) (int64, error) {
	if s.f == nil {
		n, err := dst.Write(s.buf)
		return int64(n), err
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return 0, err
	}
	return io.Copy(dst, s.f)
}

// Reset empties the spool for reuse.
func (s *spool) Reset() error {
	err := s.Close()
	s.buf = s.buf[:0]
	s.n = 0
	return err
}

// release gives the memory back to spoolPool (unless it grew past 1 MiB).
func (s *spool) release() {
	if s.buf != nil && cap(s.buf) <= 1<<20 {
		b := s.buf[:0]
		spoolPool.Put(&b)
	}
	s.buf = nil
}

// Close releases the memory and the temp file, if any.
func (s *spool) Close() error {
	s.release()
	if s.f == nil {
		return nil
	}
	name := s.f.Name()
	err := s.f.Close()
	if rerr := os.Remove(name); err == nil {
		err = rerr
	}
	s.f = nil
	return err
}
