package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// IndexFile is the record, in a crawl directory, of what a search index acknowledged of the
// crawl's documents.jsonl (IndexRecord; written by package searchindex).
const IndexFile = "documents.index.json"

// IndexMaxFailures bounds the documents an IndexRecord lists as refused; events.jsonl lists
// them all.
const IndexMaxFailures = 100

// IndexRecord is what a search index acknowledged of a crawl's documents.jsonl, over every
// run that sent them to that index (URL and Index).
type IndexRecord struct {
	URL   string `json:"url"`   // the server's base URL
	Index string `json:"index"` // the index name
	// Offset is the bytes of documents.jsonl done: every line before it was acknowledged by
	// the index or refused by it for good (and reported).
	Offset       int64 `json:"offset"`
	Sent         int64 `json:"sent"`         // documents sent, sent again included
	Acknowledged int64 `json:"acknowledged"` // documents the index acknowledged
	Failed       int64 `json:"failed"`       // documents the index refused for good
	// Backlog is the documents of documents.jsonl past Offset, not acknowledged yet, when the
	// record was written at the end of a run.
	Backlog int64 `json:"backlog"`
	// Error is what stopped the sending for good (credentials refused, ...); "" for none.
	Error    string         `json:"error,omitempty"`
	Failures []IndexFailure `json:"failures,omitempty"` // the first IndexMaxFailures refused
	Updated  time.Time      `json:"updated"`
}

// IndexFailure is a document the index refused for good.
type IndexFailure struct {
	ID     string `json:"id"`
	URL    string `json:"url"`
	Reason string `json:"reason"`
}

// ReadIndexRecord reads the record of dir's crawl; ok is false when there is none.
func ReadIndexRecord(dir string) (rec IndexRecord, ok bool, err error) {
	b, err := os.ReadFile(filepath.Join(dir, IndexFile))
	if errors.Is(err, fs.ErrNotExist) {
		return rec, false, nil
	}
	if err != nil {
		return rec, false, fmt.Errorf("report: read %s: %w", IndexFile, err)
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		return rec, false, fmt.Errorf("report: read %s: %w", IndexFile, err)
	}
	return rec, true, nil
}

// WriteIndexRecord writes the record of dir's crawl durably: a killed process leaves the
// record before or after the write, never a torn one.
func WriteIndexRecord(dir string, rec IndexRecord) error {
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return fmt.Errorf("report: write %s: %w", IndexFile, err)
	}
	path := filepath.Join(dir, IndexFile)
	tmp, err := os.CreateTemp(dir, "."+IndexFile+".tmp*")
	if err != nil {
		return fmt.Errorf("report: write %s: %w", IndexFile, err)
	}
	_, err = tmp.Write(append(b, '\n'))
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("report: write %s: %w", IndexFile, err)
	}
	return nil
}
