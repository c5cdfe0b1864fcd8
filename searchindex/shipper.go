package searchindex

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/amber-crawler/amber/crawldir"
	"github.com/amber-crawler/amber/report"
)

// Shipper sends the documents of one crawl directory's documents.jsonl to a Sink, in file
// order, and keeps the record of what the index acknowledged (report.IndexRecord in
// report.IndexFile). It is for one goroutine at a time.
type Shipper struct {
	sink   *Sink
	dir    string
	events *report.Events // nil: none
	rec    report.IndexRecord
	params []byte // the pipeline params as JSON object members, with a trailing comma
}

// Open returns a Shipper of the crawl in dir, going on from the record left there for the
// same index; a record of another index, or one past the end of documents.jsonl (a file
// written anew), starts from the beginning. events, when not nil, gets an event for each
// document refused and for each outage.
func Open(sink *Sink, dir string, events *report.Events) (*Shipper, error) {
	sh := &Shipper{sink: sink, dir: dir, events: events}
	rec, ok, err := report.ReadIndexRecord(dir)
	if err != nil {
		return nil, fmt.Errorf("searchindex: %w", err)
	}
	cfg := sink.cfg
	if ok && rec.URL == cfg.URL && rec.Index == cfg.Index {
		sh.rec = rec
	} else {
		sh.rec = report.IndexRecord{URL: cfg.URL, Index: cfg.Index}
	}
	sh.rec.Error = ""
	if st, err := os.Stat(sh.docsPath()); err == nil && st.Size() < sh.rec.Offset {
		sh.rec.Offset = 0
	}
	if len(cfg.PipelineParams) > 0 {
		for _, k := range slices.Sorted(maps.Keys(cfg.PipelineParams)) {
			kb, _ := json.Marshal(k)
			vb, err := json.Marshal(cfg.PipelineParams[k])
			if err != nil {
				return nil, fmt.Errorf("searchindex: pipeline_params.%s: %w", k, err)
			}
			sh.params = append(append(append(append(sh.params, kb...), ':'), vb...), ',')
		}
	}
	return sh, nil
}

func (sh *Shipper) docsPath() string { return filepath.Join(sh.dir, crawldir.DocumentsFile) }

// Record is the record as it stands.
func (sh *Shipper) Record() report.IndexRecord { return sh.rec }

// batch is documents read from documents.jsonl, in file order, one per id (the last line of
// an id in the batch), and the offset after its last line.
type batch struct {
	docs []Doc
	end  int64
	full bool // it stopped at BulkMaxItems or BulkMaxBytes, not at the end of the file
}

// Ship sends the documents past the record's offset until the end of documents.jsonl (as far
// as its last whole line), batch by batch, recording each batch once it is done. A batch the
// server cannot take for now is sent again Config.Retries times, with backoff; then Ship
// returns an error wrapping ErrUnavailable, and the next Ship starts again from it. An error
// wrapping ErrRefused stops the sending for good (the record keeps it: Record().Error).
func (sh *Shipper) Ship(ctx context.Context) error { return sh.ship(ctx, false) }

// shipFull is Ship for a crawl that is still writing: it stops after the first batch that is
// not full (BulkMaxItems documents or BulkMaxBytes), which has reached the end of what the crawl
// had written, so that the next call (a PollInterval later) sends what came meanwhile as one
// request, not as many small ones sent as the documents trickle in: a server indexes a few large
// bulk requests faster than many small ones.
func (sh *Shipper) shipFull(ctx context.Context) error { return sh.ship(ctx, true) }

func (sh *Shipper) ship(ctx context.Context, fullOnly bool) error {
	f, err := os.Open(sh.docsPath())
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("searchindex: %w", err)
	}
	defer f.Close()
	for {
		b, err := sh.read(f)
		if err != nil {
			return err
		}
		if b.end == sh.rec.Offset {
			return nil
		}
		if err := sh.shipBatch(ctx, b); err != nil {
			if errors.Is(err, ErrRefused) {
				sh.rec.Error = err.Error()
				if werr := report.WriteIndexRecord(sh.dir, sh.rec); werr != nil {
					return errors.Join(err, werr)
				}
			}
			return err
		}
		if fullOnly && !b.full {
			return nil
		}
	}
}

// read reads the next batch: at most BulkMaxItems whole lines from the record's offset, and
// about BulkMaxBytes.
func (sh *Shipper) read(f *os.File) (batch, error) {
	cfg := sh.sink.cfg
	b := batch{end: sh.rec.Offset}
	r := bufio.NewReaderSize(io.NewSectionReader(f, sh.rec.Offset, 1<<62), 64<<10)
	at := map[string]int{}
	size := 0
	for len(b.docs) < cfg.BulkMaxItems && size < cfg.BulkMaxBytes {
		line, err := r.ReadBytes('\n')
		if err == io.EOF {
			break // a line being written, or none
		}
		if err != nil {
			return b, fmt.Errorf("searchindex: read %s: %w", crawldir.DocumentsFile, err)
		}
		b.end += int64(len(line))
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		d, ok := docKeys(line)
		if !ok {
			sh.refused(Doc{URL: d.URL}, fmt.Sprintf("%s line at offset %d is not a document", crawldir.DocumentsFile, b.end-int64(len(line))))
			continue
		}
		doc := Doc{ID: d.ID, URL: d.URL, Source: sh.source(line)}
		size += len(doc.Source)
		if i, ok := at[d.ID]; ok {
			b.docs[i] = doc // a later line of the document supersedes the earlier one
			continue
		}
		at[d.ID] = len(b.docs)
		b.docs = append(b.docs, doc)
	}
	b.full = len(b.docs) >= cfg.BulkMaxItems || size >= cfg.BulkMaxBytes
	return b, nil
}

// docID is the id and url of a document line.
type docID struct {
	ID  string `json:"id"`
	URL string `json:"url"`
}

// docKeys reads the id and url of a line of documents.jsonl; ok is false when the line is not
// a JSON object with an id. Lines as amber writes them (extract.Document's order, whole lines:
// the documents stream never leaves a torn line before a whole one) begin with the two,
// `{"id":"…","url":"…"`, and end with `}`: those are read from that prefix alone, as scanning
// every document's body again would cost the crawl a few percent of its CPU. Any other line is
// decoded whole, and refused when it is not JSON (one such line in a bulk request would have
// the server refuse the whole request).
func docKeys(line []byte) (d docID, ok bool) {
	if line[len(line)-1] == '}' {
		if id, rest, ok := jsonStringAfter(line, `{"id":`); ok && id != "" {
			if url, _, ok := jsonStringAfter(rest, `,"url":`); ok {
				return docID{ID: id, URL: url}, true
			}
		}
	}
	if err := json.Unmarshal(line, &d); err != nil || d.ID == "" {
		return d, false
	}
	return d, true
}

// jsonStringAfter reads the JSON string that follows prefix at the start of b (b valid JSON
// from there on), and returns it and what follows it.
func jsonStringAfter(b []byte, prefix string) (string, []byte, bool) {
	if !bytes.HasPrefix(b, []byte(prefix)) || len(b) <= len(prefix) || b[len(prefix)] != '"' {
		return "", nil, false
	}
	b = b[len(prefix):]
	escaped := false
	for i := 1; i < len(b); i++ {
		switch b[i] {
		case '\\':
			escaped = true
			i++ // the escaped character: never the closing quote
		case '"':
			if !escaped {
				return string(b[1:i]), b[i+1:], true
			}
			var s string
			if err := json.Unmarshal(b[:i+1], &s); err != nil {
				return "", nil, false
			}
			return s, b[i+1:], true
		}
	}
	return "", nil, false
}

// source is a document's line with the pipeline params added. line is the caller's own (read
// with ReadBytes), kept as it is when there are no params.
func (sh *Shipper) source(line []byte) []byte {
	if len(sh.params) > 0 && len(line) > 1 && line[0] == '{' {
		return slices.Concat([]byte{'{'}, sh.params, line[1:])
	}
	return line
}

// shipBatch sends one batch until every document is acknowledged or refused for good, and
// records it. What a batch that does not finish did counts for nothing: it is sent again.
func (sh *Shipper) shipBatch(ctx context.Context, b batch) error {
	cfg := sh.sink.cfg
	pending := b.docs
	delay := cfg.RetryDelay
	var refused []report.IndexFailure
	for attempt := 0; ; attempt++ {
		sh.rec.Sent += int64(len(pending))
		res, err := sh.sink.send(ctx, pending)
		var again []Doc
		why := ""
		for i, r := range res {
			switch r.state {
			case acked:
			case rejected:
				refused = append(refused, report.IndexFailure{ID: pending[i].ID, URL: pending[i].URL, Reason: r.reason})
			default:
				again = append(again, pending[i])
				if why == "" {
					why = r.reason
				}
			}
		}
		if err != nil && !errors.Is(err, ErrUnavailable) {
			return fmt.Errorf("sending %s: %w", pending[0].URL, err)
		}
		if len(again) == 0 {
			break
		}
		if err == nil {
			err = fmt.Errorf("%w: %s: %s", ErrUnavailable, again[0].URL, why)
		}
		if attempt >= cfg.Retries || ctx.Err() != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w: %w", ErrUnavailable, ctx.Err())
		case <-time.After(delay):
		}
		delay *= 2
		pending = again
	}
	sh.rec.Acknowledged += int64(len(b.docs) - len(refused))
	for _, f := range refused {
		sh.refused(Doc{ID: f.ID, URL: f.URL}, f.Reason)
	}
	sh.rec.Offset = b.end
	sh.rec.Updated = time.Now().UTC()
	if err := report.WriteIndexRecord(sh.dir, sh.rec); err != nil {
		return fmt.Errorf("searchindex: %w", err)
	}
	return nil
}

// Finish counts the backlog (the documents past the offset) and writes the record.
func (sh *Shipper) Finish() (report.IndexRecord, error) {
	n, err := countLines(sh.docsPath(), sh.rec.Offset)
	if err != nil {
		return sh.rec, err
	}
	sh.rec.Backlog = n
	sh.rec.Updated = time.Now().UTC()
	if err := report.WriteIndexRecord(sh.dir, sh.rec); err != nil {
		return sh.rec, fmt.Errorf("searchindex: %w", err)
	}
	return sh.rec, nil
}

// countLines counts the whole lines of path after offset.
func countLines(path string, offset int64) (int64, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("searchindex: %w", err)
	}
	defer f.Close()
	var n int64
	buf := make([]byte, 64<<10)
	r := io.NewSectionReader(f, offset, 1<<62)
	for {
		k, err := r.Read(buf)
		n += int64(bytes.Count(buf[:k], []byte{'\n'}))
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, fmt.Errorf("searchindex: %w", err)
		}
	}
}

// refused records a document the index refused for good: in the record, the events and the
// log.
func (sh *Shipper) refused(d Doc, reason string) {
	sh.rec.Failed++
	if len(sh.rec.Failures) < report.IndexMaxFailures {
		sh.rec.Failures = append(sh.rec.Failures, report.IndexFailure{ID: d.ID, URL: d.URL, Reason: reason})
	}
	sh.sink.cfg.Logger.Error("search index refused a document", "url", d.URL, "reason", reason)
	if sh.events != nil {
		ev := report.Event{Action: "index-document", Type: "error", Outcome: "failure", Reason: reason,
			Message: "the search index refused the document", Labels: map[string]string{"document_id": d.ID, "index": sh.rec.Index}}
		if d.URL != "" {
			ev.URL = &report.URLInfo{URL: d.URL}
		}
		_ = sh.events.Event(ev)
	}
}
