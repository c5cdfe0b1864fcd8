package warccheck

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// WarcioDir is where the tests' warcio.js (the npm package warcio, pinned in package.json) is
// installed, relative to the module root.
const WarcioDir = "node_modules/warcio"

// WarcioPayload is what warcio.js makes of the payload of one response record.
//
// warcio.js has no validator: this is the payload as its WARCRecord reads it for replay
// (ReplayWeb.page serves it so), with content decoding left out. It de-chunks the body when
// the record's HTTP Transfer-Encoding is exactly "chunked" (its _createDecodingReader) with
// AsyncIterReader's decoder, which reads each chunk-size line 64 bytes at most and its size
// with parseInt(line, 16), wants CRLF after each chunk's data and right after the last chunk,
// and, when the framing breaks, passes the rest of the body through as it is: all of it when
// the first chunk breaks, after the chunks it decoded (and without the broken chunk's size
// line, except for a size that does not parse) otherwise, setting its errored flag then.
type WarcioPayload struct {
	File      string
	RecordID  string
	TargetURI string
	Declared  string // WARC-Payload-Digest of the record
	Computed  string // "sha1:BASE32" of the payload as warcio.js reads it
	Dechunked bool   // warcio.js read the body with its chunked decoder
	Errored   bool   // the decoder met a framing error after the first chunk
}

// OK reports whether the record's payload digest is the one warcio.js computes.
func (p WarcioPayload) OK() bool { return p.Declared == p.Computed }

// warcioScript reads the WARC files named after the warcio.js package directory and prints one
// JSON line per response record (WarcioPayload's fields).
const warcioScript = `
const [pkg, ...files] = process.argv.slice(1);
const {WARCParser, AsyncIterReader} = await import(pkg + "/dist/index.js");
const {createReadStream} = await import("node:fs");
const {createHash} = await import("node:crypto");
const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
function base32(buf) {
  let bits = 0, value = 0, out = "";
  for (const b of buf) {
    value = (value << 8) | b; bits += 8;
    while (bits >= 5) { out += alphabet[(value >>> (bits - 5)) & 31]; bits -= 5; }
  }
  if (bits > 0) out += alphabet[(value << (5 - bits)) & 31];
  while (out.length % 8) out += "=";
  return out;
}
for (const file of files) {
  for await (const record of new WARCParser(createReadStream(file))) {
    if (record.warcType !== "response" || !record.httpHeaders) continue;
    // WARCRecord._createDecodingReader's test, without the content decoding.
    const chunked = record.httpHeaders.headers.get("Transfer-Encoding") === "chunked";
    const reader = new AsyncIterReader(record.reader, null, chunked);
    const h = createHash("sha1");
    for await (const chunk of reader) h.update(chunk);
    console.log(JSON.stringify({File: file, RecordID: record.warcHeader("WARC-Record-ID"),
      TargetURI: record.warcTargetURI, Declared: record.warcPayloadDigest || "",
      Computed: "sha1:" + base32(h.digest()), Dechunked: chunked, Errored: reader.errored}));
  }
}
`

// RunWarcio reads WARC files with warcio.js (node, and the package directory pkg) and returns
// what it makes of the payload of each response record, in file order. The error is non-nil
// when node fails (an unreadable file, say) or its output cannot be read.
func RunWarcio(node, pkg string, files ...string) ([]WarcioPayload, error) {
	return runNode[WarcioPayload](node, pkg, warcioScript, files)
}

// WarcioRecord is one record as warcio.js's WARCParser reads it.
type WarcioRecord struct {
	File         string
	Type         string // WARC-Type
	TargetURI    string
	RecordID     string
	ConcurrentTo string // WARC-Concurrent-To, the first one
	ContentType  string // the record's Content-Type
}

// warcioRecordsScript reads the WARC files named after the warcio.js package directory and
// prints one JSON line per record (WarcioRecord's fields).
const warcioRecordsScript = `
const [pkg, ...files] = process.argv.slice(1);
const {WARCParser} = await import(pkg + "/dist/index.js");
const {createReadStream} = await import("node:fs");
for (const file of files) {
  for await (const record of new WARCParser(createReadStream(file))) {
    await record.readFully();
    console.log(JSON.stringify({File: file, Type: record.warcType, TargetURI: record.warcTargetURI || "",
      RecordID: record.warcHeader("WARC-Record-ID") || "", ConcurrentTo: record.warcHeader("WARC-Concurrent-To") || "",
      ContentType: record.warcContentType || ""}));
  }
}
`

// RunWarcioRecords reads WARC files with warcio.js (node, and the package directory pkg) and
// returns every record it reads, in file order; errors as RunWarcio's.
func RunWarcioRecords(node, pkg string, files ...string) ([]WarcioRecord, error) {
	return runNode[WarcioRecord](node, pkg, warcioRecordsScript, files)
}

// runNode runs a warcio.js script with node on files and reads a T from each line it prints.
func runNode[T any](node, pkg, script string, files []string) ([]T, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(node, append([]string{"--input-type=module", "-e", script, pkg}, files...)...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("run warcio.js: %w: %s", err, stderr.String())
	}
	var out []T
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			return out, fmt.Errorf("read warcio.js output %q: %w", sc.Text(), err)
		}
		out = append(out, v)
	}
	return out, sc.Err()
}

// WarcioPayloads runs RunWarcio on WARC files with the node on PATH and the module's warcio.js
// (WarcioDir), failing the test when it cannot. Without node or warcio.js the test is skipped,
// except in CI (CI=true), where that is a failure: run `make tools` (npm install).
func WarcioPayloads(t testing.TB, files ...string) []WarcioPayload {
	t.Helper()
	node, pkg := warcioJS(t)
	out, err := RunWarcio(node, pkg, files...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// WarcioRecords runs RunWarcioRecords on WARC files as WarcioPayloads runs RunWarcio.
func WarcioRecords(t testing.TB, files ...string) []WarcioRecord {
	t.Helper()
	node, pkg := warcioJS(t)
	out, err := RunWarcioRecords(node, pkg, files...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// warcioJS returns the node on PATH and the module's warcio.js package directory, skipping
// the test without them (failing it in CI).
func warcioJS(t testing.TB) (node, pkg string) {
	t.Helper()
	pkg = filepath.Join(moduleRoot(), filepath.FromSlash(WarcioDir))
	node, nodeErr := exec.LookPath("node")
	_, pkgErr := os.Stat(filepath.Join(pkg, "dist", "index.js"))
	if nodeErr != nil || pkgErr != nil {
		msg := fmt.Sprintf("warcio.js check needs node and %s (node: %v, warcio: %v); run `make tools`", WarcioDir, nodeErr, pkgErr)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return node, pkg
}

// moduleRoot is the directory of amber's go.mod, found from this file's place in it.
func moduleRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}
