package warccheck

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// IABinary is where `make tools` builds internetarchive/gowarc's `warc` command (v0.8.101, from
// the tools module internal/tools), relative to the module root.
const IABinary = "bin/gowarc-ia"

// IAReport is what internetarchive/gowarc's `warc verify` said about one WARC file.
//
// `warc verify` reads every record (gzip members, WARC headers, Content-Length). For records
// that are not revisits and whose Content-Type contains "msgtype=response" it checks that the
// WARC version is WARC/1.0 or WARC/1.1, that WARC-Block-Digest is present, of a supported
// algorithm and matches the block, and, when WARC-Payload-Digest is present, that it matches
// the SHA-1 of the HTTP body as net/http reads it: de-chunked, content coding kept, an error
// reading it (such as a body shorter than its Content-Length) being invalid. Other records
// (warcinfo, request, metadata, resource, revisit) are only read. It exits 0 whatever it finds.
type IAReport struct {
	File           string
	Valid          bool     // `warc verify`'s verdict
	Records        int      // records read
	Errors         int      // problems counted
	AllRecordsRead bool     // the reader reached the end of the file
	Problems       []string // every error it logged for the file, "msg key=value ..."
}

// OK reports whether `warc verify` found the file valid and logged no error about it.
func (r IAReport) OK() bool {
	return r.Valid && r.AllRecordsRead && r.Errors == 0 && r.Records > 0 && len(r.Problems) == 0
}

// iaLine is one JSON log line of `warc --json verify`.
type iaLine struct {
	Level          string `json:"level"`
	Msg            string `json:"msg"`
	File           string `json:"file"`
	RecordID       string `json:"recordID"`
	Expected       string `json:"expected"`
	Got            string `json:"got"`
	Found          string `json:"found"`
	Err            string `json:"err"`
	Error          string `json:"error"`
	Valid          *bool  `json:"valid"`
	Errors         int    `json:"errors"`
	Count          int    `json:"count"`
	AllRecordsRead bool   `json:"allRecordsRead"`
}

func (l iaLine) problem() string {
	var b strings.Builder
	b.WriteString(l.Msg)
	for _, kv := range [][2]string{{"recordID", l.RecordID}, {"expected", l.Expected}, {"got", l.Got},
		{"found", l.Found}, {"err", l.Err}, {"error", l.Error}} {
		if kv[1] != "" {
			fmt.Fprintf(&b, " %s=%s", kv[0], kv[1])
		}
	}
	return b.String()
}

// RunIA runs `BIN --json verify FILES...` and returns one report per file, in the order given.
// The error is non-nil only when the command cannot be run or its output cannot be read; what
// it found wrong with the files is in the reports.
func RunIA(bin string, files ...string) ([]IAReport, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, append([]string{"--json", "verify"}, files...)...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("run %s verify: %w: %s", bin, err, stderr.String())
	}
	reps := make([]IAReport, len(files))
	index := map[string]int{}
	for i, f := range files {
		reps[i].File = f
		index[f] = i
	}
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l iaLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return reps, fmt.Errorf("read %s verify output %q: %w", bin, sc.Text(), err)
		}
		i, ok := index[l.File]
		if !ok {
			return reps, fmt.Errorf("read %s verify output: line about unknown file %q", bin, l.File)
		}
		switch {
		case strings.HasPrefix(l.Msg, "checked in") && l.Valid != nil:
			reps[i].Valid, reps[i].Records, reps[i].Errors, reps[i].AllRecordsRead = *l.Valid, l.Count, l.Errors, l.AllRecordsRead
		case l.Level == "ERROR":
			reps[i].Problems = append(reps[i].Problems, l.problem())
		}
	}
	if err := sc.Err(); err != nil {
		return reps, fmt.Errorf("read %s verify output: %w", bin, err)
	}
	return reps, nil
}

// VerifyIA runs internetarchive/gowarc's `warc verify` (IABinary) on WARC files and fails the
// test for each file it does not find valid, listing what it logged. When the binary has not
// been built the test is skipped, except in CI (CI=true), where that is a failure: run
// `make tools`. It returns the reports.
func VerifyIA(t testing.TB, files ...string) []IAReport {
	t.Helper()
	bin := IAPath(t)
	reps, err := RunIA(bin, files...)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range reps {
		if !r.OK() {
			t.Errorf("warc verify %s: valid=%v records=%d errors=%d allRecordsRead=%v:\n  %s",
				r.File, r.Valid, r.Records, r.Errors, r.AllRecordsRead, strings.Join(r.Problems, "\n  "))
		}
	}
	return reps
}

// IAPath returns the absolute path of IABinary, or skips the test when it is missing (failing
// it instead when CI=true).
func IAPath(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(moduleRoot(), filepath.FromSlash(IABinary))
	if _, err := os.Stat(bin); err != nil {
		msg := fmt.Sprintf("internetarchive/gowarc's warc command not built (%v); run `make tools`", err)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return bin
}
