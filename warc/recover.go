package warc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	gowarc "github.com/nlnwa/gowarc/v2"
)

// Recovered describes what Recover did to one file.
type Recovered struct {
	Path         string // the file handled: a WARC file (final name unless Removed) or the CDXJ index
	KeptRecords  int    // WARC records kept
	KeptBytes    int64  // bytes kept
	DroppedBytes int64  // bytes cut off a damaged or incomplete tail
	DroppedLines int    // CDXJ lines removed (torn last line, lines pointing at data that is gone)
	Removed      bool   // the .open file held nothing but (at most) a warcinfo record and was deleted
}

// Recover closes out files left as NAME.warc.gz.open in dir by a process that was killed.
// For each one it keeps the longest prefix of complete, readable gzip members (one WARC record
// each) that ends with a whole capture (the metadata record that ends a capture, a resource or
// the warcinfo record), cuts the rest, and renames the file to NAME.warc.gz; a file left with no
// record besides its header (warcinfo and crawl-config) is deleted. Then, if cdxjPath is not empty and exists, it removes a
// torn last line and every line that points at a WARC file that does not exist in dir or past
// the end of one. It returns what it changed; nil when nothing needed doing.
func Recover(dir, cdxjPath string) ([]Recovered, error) {
	var out []Recovered
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("list warc dir: %w", err)
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), warcSuffix+openSuffix) {
			continue
		}
		r, err := recoverFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	if cdxjPath != "" {
		r, changed, err := recoverCDXJ(dir, cdxjPath)
		if err != nil {
			return out, err
		}
		if changed {
			out = append(out, r)
		}
	}
	return out, nil
}

// recoverFile truncates an .open file to its last complete capture and renames it.
func recoverFile(path string) (Recovered, error) {
	final := strings.TrimSuffix(path, openSuffix)
	info, err := os.Stat(path)
	if err != nil {
		return Recovered{}, fmt.Errorf("recover %s: %w", path, err)
	}
	recs, _, err := scanRecords(path)
	if err != nil {
		return Recovered{}, fmt.Errorf("recover %s: %w", path, err)
	}
	// Keep whole captures only: cut back to just after the last record that ends one.
	keep, kept := int64(0), 0
	onlyInfo := true
	for i, r := range recs {
		switch r.typ {
		case gowarc.Warcinfo, gowarc.Metadata, gowarc.Resource:
			keep, kept = r.offset+r.length, i+1
		}
	}
	infoID := ""
	for _, r := range recs[:kept] {
		switch {
		case r.typ == gowarc.Warcinfo:
			infoID = r.id
		case r.typ == gowarc.Metadata && r.refersTo != "" && r.refersTo == infoID:
			// The crawl-config record is part of the file's header, not a capture.
		default:
			onlyInfo = false
		}
	}
	res := Recovered{Path: final, KeptRecords: kept, KeptBytes: keep, DroppedBytes: info.Size() - keep}
	if onlyInfo {
		if err := os.Remove(path); err != nil {
			return Recovered{}, fmt.Errorf("recover %s: %w", path, err)
		}
		res.Path, res.Removed, res.KeptRecords, res.KeptBytes, res.DroppedBytes = path, true, 0, 0, info.Size()
		return res, nil
	}
	if _, err := os.Lstat(final); err == nil {
		return Recovered{}, fmt.Errorf("recover %s: %s already exists", path, filepath.Base(final))
	}
	if keep < info.Size() {
		if err := os.Truncate(path, keep); err != nil {
			return Recovered{}, fmt.Errorf("recover %s: %w", path, err)
		}
	}
	if f, err := os.OpenFile(path, os.O_WRONLY, 0); err == nil {
		_ = f.Sync()
		_ = f.Close()
	}
	if err := os.Rename(path, final); err != nil {
		return Recovered{}, fmt.Errorf("recover %s: %w", path, err)
	}
	return res, nil
}

type scanned struct {
	typ      gowarc.RecordType
	id       string // WARC-Record-ID
	refersTo string // WARC-Refers-To
	offset   int64
	length   int64
}

// scanRecords reads path record by record with gowarc and returns the records read without
// error and the offset where reading stopped (end of file or the first damaged record).
// Nothing in the file can make it panic or fail: damage just ends the scan.
func scanRecords(path string) (recs []scanned, end int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	recs, end = scanStream(f)
	return recs, end, nil
}

func scanStream(r io.Reader) (recs []scanned, end int64) {
	var pending *scanned
	defer func() {
		if p := recover(); p != nil {
			// gowarc panicked on malformed input. Where the record before the bad one ends is
			// unknown, so it goes too.
			end = 0
			if len(recs) > 0 {
				last := recs[len(recs)-1]
				end = last.offset + last.length
			}
		}
	}()
	rd, err := newWarcReader(r,
		gowarc.WithSyntaxErrorPolicy(gowarc.ErrFail), // no skipping over garbage to a later record
		gowarc.WithSpecViolationPolicy(gowarc.ErrIgnore),
		gowarc.WithUnknownRecordTypePolicy(gowarc.ErrIgnore),
		gowarc.WithSkipParseBlock(),
		gowarc.WithFixSyntaxErrors(false),
		gowarc.WithFixDigest(false),
		gowarc.WithFixContentLength(false),
		gowarc.WithAddMissingDigest(false),
	)
	if err != nil {
		return nil, 0
	}
	defer rd.Close()
	for {
		rec, off, _, err := rd.Next()
		if pending != nil {
			// A record ends where the next read starts, whatever that read finds.
			pending.length = off - pending.offset
			recs = append(recs, *pending)
			pending = nil
		}
		if rec != nil {
			_ = rec.Close()
		}
		if err != nil {
			return recs, off
		}
		h := rec.WarcHeader()
		pending = &scanned{typ: rec.Type(), id: h.Get(gowarc.WarcRecordID), refersTo: h.Get(gowarc.WarcRefersTo), offset: off}
	}
}

// recoverCDXJ drops a torn last line and lines pointing at missing data.
func recoverCDXJ(dir, path string) (Recovered, bool, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return Recovered{}, false, nil
	}
	if err != nil {
		return Recovered{}, false, fmt.Errorf("recover cdxj: %w", err)
	}
	sizes := map[string]int64{}
	sizeOf := func(name string) int64 {
		if s, ok := sizes[name]; ok {
			return s
		}
		s := int64(-1)
		if name != "" && !strings.ContainsAny(name, `/\`) {
			if fi, err := os.Stat(filepath.Join(dir, name)); err == nil && fi.Mode().IsRegular() {
				s = fi.Size()
			}
		}
		sizes[name] = s
		return s
	}
	var out bytes.Buffer
	out.Grow(len(data))
	dropped := 0
	rest := data
	for len(rest) > 0 {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			dropped++ // torn last line
			break
		}
		line := rest[:i+1]
		rest = rest[i+1:]
		if ok, known := cdxjLineValid(line, sizeOf); known && !ok {
			dropped++
			continue
		}
		out.Write(line)
	}
	if dropped == 0 {
		return Recovered{}, false, nil
	}
	tmp := path + ".recover"
	if err := os.WriteFile(tmp, out.Bytes(), 0o644); err != nil {
		return Recovered{}, false, fmt.Errorf("recover cdxj: %w", err)
	}
	if f, err := os.Open(tmp); err == nil {
		_ = f.Sync()
		_ = f.Close()
	}
	if err := os.Rename(tmp, path); err != nil {
		return Recovered{}, false, fmt.Errorf("recover cdxj: %w", err)
	}
	return Recovered{Path: path, KeptBytes: int64(out.Len()), DroppedBytes: int64(len(data) - out.Len()), DroppedLines: dropped}, true, nil
}

// cdxjLineValid checks a CDXJ line against the WARC files. known is false for lines this
// package cannot interpret (they are kept as they are).
func cdxjLineValid(line []byte, sizeOf func(string) int64) (ok, known bool) {
	s := strings.TrimRight(string(line), "\r\n")
	if strings.TrimSpace(s) == "" {
		return false, true
	}
	i := strings.IndexByte(s, '{')
	if i < 0 {
		return false, false
	}
	var f struct {
		Offset   json.RawMessage `json:"offset"`
		Length   json.RawMessage `json:"length"`
		Filename string          `json:"filename"`
	}
	if err := json.Unmarshal([]byte(s[i:]), &f); err != nil {
		// A line damaged in the middle of the file.
		return false, true
	}
	if f.Filename == "" {
		return false, false
	}
	off, err1 := jsonInt(f.Offset)
	n, err2 := jsonInt(f.Length)
	if err1 != nil || err2 != nil {
		return false, true
	}
	size := sizeOf(f.Filename)
	return size >= 0 && off >= 0 && n > 0 && off+n <= size, true
}

// jsonInt reads an integer written as a JSON string ("123", as pywb writes) or number.
func jsonInt(raw json.RawMessage) (int64, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return strconv.ParseInt(s, 10, 64)
	}
	var n int64
	err := json.Unmarshal(raw, &n)
	return n, err
}
