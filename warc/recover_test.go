package warc_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/internal/warccheck"
	"github.com/amber-crawler/amber/internal/warctest"
	"github.com/amber-crawler/amber/warc"
)

// killedCrawl is the state a kill -9 leaves: an .open WARC holding its header (warcinfo and
// crawl-config), three whole captures, and the CDXJ index naming the crawl-config and captures, plus the offsets of every record (from the cleanly closed twin).
type killedCrawl struct {
	open    []byte // the .open file's bytes
	name    string // its base name without ".open"
	cdxj    []byte
	records []warccheck.Record
}

func newKilledCrawl(t *testing.T) killedCrawl {
	t.Helper()
	dir := t.TempDir()
	cdxj := filepath.Join(dir, "index.cdxj")
	w := newWriter(t, warc.Config{Dir: dir, CDXJPath: cdxj})
	for i := range 3 {
		body := []byte(fmt.Sprintf("<html>page %d %s</html>", i, strings.Repeat("z", 100*i)))
		resp := warctest.RawResponse(200, "OK", [][2]string{{"Content-Type", "text/html"}}, body)
		if _, err := w.WriteCapture(capture(fmt.Sprintf("http://example.com/%d", i), t0, resp)); err != nil {
			t.Fatal(err)
		}
	}
	open, err := filepath.Glob(filepath.Join(dir, "*.open"))
	if err != nil || len(open) != 1 {
		t.Fatalf("open files %v %v", open, err)
	}
	// Everything is flushed after each capture, so this is what a kill -9 would leave.
	k := killedCrawl{name: strings.TrimSuffix(filepath.Base(open[0]), ".open")}
	if k.open, err = os.ReadFile(open[0]); err != nil {
		t.Fatal(err)
	}
	if k.cdxj, err = os.ReadFile(cdxj); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rep, err := warccheck.Validate(filepath.Join(dir, k.name))
	if err != nil {
		t.Fatal(err)
	}
	k.records = rep.Records
	if len(k.records) != 11 {
		t.Fatalf("%d records, want 11", len(k.records))
	}
	return k
}

func TestRecover(t *testing.T) {
	k := newKilledCrawl(t)
	endOf := func(i int) int64 { return k.records[i].Offset + k.records[i].Length }
	size := int64(len(k.open))
	tests := []struct {
		name      string
		warc      func() []byte // .open content; nil = no WARC file at all
		cdxj      func() []byte
		want      []warc.Recovered // with Path relative to the crawl dir
		wantFiles []string
		wantLines int
	}{
		{
			name:      "complete",
			warc:      func() []byte { return k.open },
			want:      []warc.Recovered{{Path: "warcs/" + k.name, KeptRecords: 11, KeptBytes: size}},
			wantFiles: []string{k.name}, wantLines: 4,
		},
		{
			name: "truncated mid-record",
			warc: func() []byte { return k.open[:k.records[9].Offset+k.records[9].Length/2] }, // inside the 3rd response
			want: []warc.Recovered{
				{Path: "warcs/" + k.name, KeptRecords: 8, KeptBytes: endOf(7), DroppedBytes: k.records[9].Offset + k.records[9].Length/2 - endOf(7)},
				{Path: "index.cdxj", DroppedLines: 1},
			},
			wantFiles: []string{k.name}, wantLines: 3,
		},
		{
			name: "metadata torn",
			warc: func() []byte { return k.open[:size-3] },
			want: []warc.Recovered{
				{Path: "warcs/" + k.name, KeptRecords: 8, KeptBytes: endOf(7), DroppedBytes: size - 3 - endOf(7)},
				{Path: "index.cdxj", DroppedLines: 1},
			},
			wantFiles: []string{k.name}, wantLines: 3,
		},
		{
			name:      "garbage appended",
			warc:      func() []byte { return append(bytes.Clone(k.open), "garbage\x1f\x8b\x08more garbage"...) },
			want:      []warc.Recovered{{Path: "warcs/" + k.name, KeptRecords: 11, KeptBytes: size, DroppedBytes: 22}},
			wantFiles: []string{k.name}, wantLines: 4,
		},
		{
			name:      "a gzip member that is no WARC record appended",
			warc:      func() []byte { return append(bytes.Clone(k.open), warctest.Gzip(t, []byte("hello\r\n"))...) },
			want:      []warc.Recovered{{Path: "warcs/" + k.name, KeptRecords: 11, KeptBytes: size, DroppedBytes: int64(len(warctest.Gzip(t, []byte("hello\r\n"))))}},
			wantFiles: []string{k.name}, wantLines: 4,
		},
		{
			name: "empty .open",
			warc: func() []byte { return []byte{} },
			cdxj: func() []byte { return nil },
			want: []warc.Recovered{{Path: "warcs/" + k.name + ".open", Removed: true}},
		},
		{
			name: "only warcinfo",
			warc: func() []byte { return k.open[:endOf(0)] },
			cdxj: func() []byte { return nil },
			want: []warc.Recovered{{Path: "warcs/" + k.name + ".open", Removed: true, DroppedBytes: endOf(0)}},
		},
		{
			name: "only the header",
			warc: func() []byte { return k.open[:endOf(1)] }, // warcinfo and crawl-config
			want: []warc.Recovered{
				{Path: "warcs/" + k.name + ".open", Removed: true, DroppedBytes: endOf(1)},
				{Path: "index.cdxj", DroppedLines: 4},
			},
		},
		{
			name: "torn CDXJ line",
			warc: func() []byte { return k.open },
			cdxj: func() []byte {
				return append(bytes.Clone(k.cdxj), `com,example)/3 20240506070809 {"url":"http://exa`...)
			},
			want: []warc.Recovered{
				{Path: "warcs/" + k.name, KeptRecords: 11, KeptBytes: size},
				{Path: "index.cdxj", DroppedLines: 1},
			},
			wantFiles: []string{k.name}, wantLines: 4,
		},
		{
			name: "CDXJ lines for a file that is gone",
			warc: nil,
			want: []warc.Recovered{{Path: "index.cdxj", DroppedLines: 4}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			warcs := filepath.Join(dir, "warcs")
			if err := os.Mkdir(warcs, 0o755); err != nil {
				t.Fatal(err)
			}
			if tt.warc != nil {
				if err := os.WriteFile(filepath.Join(warcs, k.name+".open"), tt.warc(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cdxj := k.cdxj
			if tt.cdxj != nil {
				cdxj = tt.cdxj()
			}
			cdxjPath := filepath.Join(dir, "index.cdxj")
			if cdxj != nil {
				if err := os.WriteFile(cdxjPath, cdxj, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := warc.Recover(warcs, cdxjPath)
			if err != nil {
				t.Fatal(err)
			}
			for i := range got {
				rel, _ := filepath.Rel(dir, got[i].Path)
				got[i].Path = filepath.ToSlash(rel)
				if got[i].Path == "index.cdxj" { // byte counts of the index are not the point here
					got[i].KeptBytes, got[i].DroppedBytes = 0, 0
				}
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("Recover (-want +got):\n%s", d)
			}
			var files []string
			for _, f := range warcFiles(t, warcs) {
				files = append(files, filepath.Base(f))
			}
			if d := cmp.Diff(tt.wantFiles, files); d != "" {
				t.Errorf("files (-want +got):\n%s", d)
			}
			if _, err := warccheck.ValidateDir(warcs); err != nil {
				t.Errorf("ValidateDir after Recover: %v", err)
			}
			if _, err := os.Stat(cdxjPath); err == nil {
				if err := warccheck.CheckCDXJ(cdxjPath, warcs); err != nil {
					t.Errorf("CheckCDXJ after Recover: %v", err)
				}
				data, _ := os.ReadFile(cdxjPath)
				if n := bytes.Count(data, []byte("\n")); n != tt.wantLines {
					t.Errorf("%d CDXJ lines, want %d", n, tt.wantLines)
				}
			}
			// Recover is idempotent.
			if again, err := warc.Recover(warcs, cdxjPath); err != nil || len(again) != 0 {
				t.Errorf("second Recover = %+v, %v; want nothing to do", again, err)
			}
			// A writer resumes on the recovered directory and continues the serial.
			w := newWriter(t, warc.Config{Dir: warcs, CDXJPath: cdxjPath})
			res, err := w.WriteCapture(capture("http://example.com/after", t0, warctest.RawResponse(200, "OK", nil, []byte("after"))))
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if len(files) > 0 && res.Filename <= files[len(files)-1] {
				t.Errorf("new file %s does not sort after %s", res.Filename, files[len(files)-1])
			}
			if err := warccheck.CheckCDXJ(cdxjPath, warcs); err != nil {
				t.Errorf("CheckCDXJ after resume: %v", err)
			}
		})
	}
}

// FuzzRecover feeds arbitrary bytes as an .open WARC file and a CDXJ index to Recover: it
// must not panic or fail, must only shorten the WARC, and must leave nothing to do on a second run.
func FuzzRecover(f *testing.F) {
	dir := f.TempDir()
	cdxj := filepath.Join(dir, "index.cdxj")
	w := newWriter(f, warc.Config{Dir: dir, CDXJPath: cdxj})
	for i := range 2 {
		resp := warctest.RawResponse(200, "OK", [][2]string{{"Transfer-Encoding", "chunked"}}, warctest.Chunk([]byte("hello world"), 4))
		if _, err := w.WriteCapture(capture(fmt.Sprintf("http://example.com/%d", i), t0, resp)); err != nil {
			f.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		f.Fatal(err)
	}
	valid, err := os.ReadFile(warcFiles(f, dir)[0])
	if err != nil {
		f.Fatal(err)
	}
	index, _ := os.ReadFile(cdxj)
	f.Add(valid, index)
	f.Add(valid[:len(valid)/2], index[:len(index)/2])
	f.Add(append(bytes.Clone(valid), 0x1f, 0x8b, 0x08), []byte("x 1 {\"filename\":\"a\",\"offset\":\"1\",\"length\":\"1\"}\n"))
	f.Add([]byte("WARC/\n"), []byte{})
	f.Add([]byte("WARC/1.1\r\nWARC-Type: warcinfo\r\nContent-Length: 5\r\n\r\n"), []byte("\n\n"))
	f.Add(warctest.Gzip(f, []byte("WARC/\n")), []byte("{"))
	f.Fuzz(func(t *testing.T, data, cdx []byte) {
		dir := memTempDir(t)
		name := "amber-20240101000000000-00000-h.warc.gz"
		if err := os.WriteFile(filepath.Join(dir, name+".open"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		cdxjPath := filepath.Join(dir, "index.cdxj")
		if err := os.WriteFile(cdxjPath, cdx, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := warc.Recover(dir, cdxjPath); err != nil {
			t.Fatalf("Recover: %v", err)
		}
		if _, err := os.Stat(filepath.Join(dir, name+".open")); err == nil {
			t.Fatal(".open file left behind")
		}
		if fi, err := os.Stat(filepath.Join(dir, name)); err == nil && fi.Size() > int64(len(data)) {
			t.Fatalf("recovered file grew from %d to %d bytes", len(data), fi.Size())
		}
		if again, err := warc.Recover(dir, cdxjPath); err != nil || len(again) != 0 {
			t.Fatalf("second Recover = %+v, %v", again, err)
		}
	})
}
