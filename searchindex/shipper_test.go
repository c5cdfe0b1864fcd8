package searchindex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/crawldir"
	"github.com/amber-crawler/amber/internal/zinctest"
	"github.com/amber-crawler/amber/report"
)

// server is the ZincSearch the tests of the package share (nil without bin/zincsearch).
var server *zinctest.Server

func TestMain(m *testing.M) {
	var dir string
	if _, err := zinctest.Path(); err == nil {
		dir, err = os.MkdirTemp("", "zinc")
		if err == nil {
			server, err = zinctest.Start(dir)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	code := m.Run()
	if server != nil {
		server.Close()
		os.RemoveAll(dir)
	}
	os.Exit(code)
}

// zinc returns the shared server, or skips t without it (fails it in CI).
func zinc(t *testing.T) *zinctest.Server {
	t.Helper()
	zinctest.Require(t)
	if server == nil {
		t.Fatal("zinctest: the shared server did not start")
	}
	return server
}

// indexName is an index of t's own.
func indexName(t *testing.T) string {
	return strings.ToLower(strings.NewReplacer("/", "-", "_", "-").Replace(t.Name()))
}

func testConfig(s *zinctest.Server, index string) Config {
	return Config{URL: s.URL, Index: index, Username: zinctest.User, Password: zinctest.Password,
		Retries: 1, RetryDelay: 10 * time.Millisecond, RequestTimeout: 5 * time.Second}
}

func doc(id, url, body string) string {
	return fmt.Sprintf(`{"id":%q,"url":%q,"title":"page %s","body_content":%q}`+"\n", id, url, id, body)
}

func writeDocs(t *testing.T, dir string, lines ...string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, crawldir.DocumentsFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(strings.Join(lines, "")); err != nil {
		t.Fatal(err)
	}
}

// ids returns the ids of the documents of index the query matches, sorted, once the server
// has them all (want of them), or after 10 s.
func ids(t *testing.T, s *zinctest.Server, index, query string, want int) []string {
	t.Helper()
	var got []string
	for deadline := time.Now().Add(10 * time.Second); ; {
		hits, err := s.Search(index, query)
		if err != nil && !strings.Contains(err.Error(), "does not exist") {
			t.Fatal(err)
		}
		got = got[:0]
		for _, h := range hits {
			got = append(got, h.ID)
		}
		if len(got) >= want || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	sort.Strings(got)
	return got
}

func ship(t *testing.T, cfg Config, dir string) (*Shipper, error) {
	t.Helper()
	sink, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	sh, err := Open(sink, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	return sh, sh.Ship(context.Background())
}

func TestShipOnceInFileOrder(t *testing.T) {
	s := zinc(t)
	dir, index := t.TempDir(), indexName(t)
	// b is written again later (a duplicate's URL added); the last line is being written.
	writeDocs(t, dir, doc("a", "http://x.test/a", "alpha words"), doc("b", "http://x.test/b", "bravo words"),
		doc("c", "http://x.test/c", "charlie words"),
		`{"id":"b","url":"http://x.test/b","additional_urls":["http://x.test/b2"],"body_content":"bravo words again"}`+"\n",
		`{"id":"d","url":"http://x.test/d","body_`)
	cfg := testConfig(s, index)
	cfg.BulkMaxItems = 2
	cfg.PipelineParams = map[string]any{"_reduce_whitespace": true}
	sh, err := ship(t, cfg, dir)
	if err != nil {
		t.Fatal(err)
	}
	rec := sh.Record()
	if rec.Acknowledged != 4 || rec.Failed != 0 || rec.Sent != 4 {
		t.Errorf("record = %+v, want 4 sent and acknowledged (a, b, c, b again)", rec)
	}
	if got, want := ids(t, s, index, "words", 3), []string{"a", "b", "c"}; !cmp.Equal(got, want) {
		t.Errorf("indexed %v, want %v", got, want)
	}
	if got := ids(t, s, index, "again", 1); !cmp.Equal(got, []string{"b"}) {
		t.Errorf("b's last line indexed: %v, want [b]", got)
	}
	hits, _ := s.Search(index, "alpha")
	if len(hits) != 1 || hits[0].Source["_reduce_whitespace"] != true {
		t.Errorf("pipeline params not in the document: %+v", hits)
	}

	// The whole line of d arrives; a second shipper goes on from the record.
	writeDocs(t, dir, `content":"delta words"}`+"\n")
	sh2, err := ship(t, cfg, dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := sh2.Record(); got.Sent != 5 || got.Acknowledged != 5 {
		t.Errorf("record after the second ship = %+v, want only d sent", got)
	}
	if got, want := ids(t, s, index, "words", 4), []string{"a", "b", "c", "d"}; !cmp.Equal(got, want) {
		t.Errorf("indexed %v, want %v", got, want)
	}
	fin, err := sh2.Finish()
	if err != nil || fin.Backlog != 0 {
		t.Errorf("Finish = %+v, %v; want no backlog", fin, err)
	}
	if rec, ok, err := report.ReadIndexRecord(dir); err != nil || !ok || rec.Offset != fin.Offset {
		t.Errorf("record on disk = %+v, %v, %v", rec, ok, err)
	}
}

func TestReadBatches(t *testing.T) {
	dir := t.TempDir()
	writeDocs(t, dir, doc("a", "u:a", "x"), doc("a", "u:a", "y"), doc("b", "u:b", "x"), doc("c", "u:c", "x"), "not json\n", doc("d", "u:d", "x"), doc("c", "u:c", "z"))
	sink, err := New(Config{URL: "http://127.0.0.1:1", Index: "i", BulkMaxItems: 2})
	if err != nil {
		t.Fatal(err)
	}
	sh, err := Open(sink, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, crawldir.DocumentsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var got [][]string
	for {
		b, err := sh.read(f)
		if err != nil {
			t.Fatal(err)
		}
		if b.end == sh.rec.Offset {
			break
		}
		var batch []string
		for _, d := range b.docs {
			src := string(d.Source)
			batch = append(batch, d.ID+"="+src[len(src)-3:len(src)-2])
		}
		got = append(got, batch)
		sh.rec.Offset = b.end
	}
	// Two documents a batch; a's second line replaces its first in the same batch; the
	// line that is not a document is refused and reported.
	// c's second line is in another batch: sent after the first.
	want := [][]string{{"a=y", "b=x"}, {"c=x", "d=x"}, {"c=z"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("batches (-want +got):\n%s", diff)
	}
	if sh.rec.Failed != 1 || len(sh.rec.Failures) != 1 {
		t.Errorf("record = %+v, want the line that is not a document failed", sh.rec)
	}
}

func TestShipWrongPassword(t *testing.T) {
	s := zinc(t)
	dir := t.TempDir()
	writeDocs(t, dir, doc("a", "http://x.test/first", "x"))
	cfg := testConfig(s, indexName(t))
	cfg.Password = "wrong"
	sh, err := ship(t, cfg, dir)
	if !errors.Is(err, ErrRefused) {
		t.Fatalf("Ship = %v, want ErrRefused", err)
	}
	for _, want := range []string{"401", "http://x.test/first"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %s", err, want)
		}
	}
	rec, _, _ := report.ReadIndexRecord(dir)
	if rec.Offset != 0 || rec.Error == "" || sh.Record().Acknowledged != 0 {
		t.Errorf("record = %+v, want nothing acknowledged and the error", rec)
	}
}

func TestShipRefusedDocument(t *testing.T) {
	s := zinc(t)
	dir, index := t.TempDir(), indexName(t)
	// The index maps title as a number: the titles are not.
	if err := s.Do(http.MethodPut, "/"+index, map[string]any{"mappings": map[string]any{"properties": map[string]any{
		"title": map[string]any{"type": "numeric"}, "body_content": map[string]any{"type": "text"}}}}, nil); err != nil {
		t.Fatal(err)
	}
	writeDocs(t, dir, `{"id":"a","url":"http://x.test/a","title":12,"body_content":"fine"}`+"\n",
		doc("b", "http://x.test/b", "refused"),
		`{"id":"c","url":"http://x.test/c","title":13,"body_content":"fine"}`+"\n")
	sh, err := ship(t, testConfig(s, index), dir)
	if err != nil {
		t.Fatal(err)
	}
	rec := sh.Record()
	if rec.Acknowledged != 2 || rec.Failed != 1 || len(rec.Failures) != 1 || rec.Failures[0].URL != "http://x.test/b" {
		t.Errorf("record = %+v, want a and c acknowledged, b refused with its URL", rec)
	}
	if got := ids(t, s, index, "fine", 2); !cmp.Equal(got, []string{"a", "c"}) {
		t.Errorf("indexed %v, want [a c]", got)
	}
}

func TestShipServerDown(t *testing.T) {
	dir := t.TempDir()
	writeDocs(t, dir, doc("a", "http://x.test/a", "x"))
	_, err := ship(t, Config{URL: "http://127.0.0.1:1/es", Index: "i", Retries: 1, RetryDelay: time.Millisecond}, dir)
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Ship = %v, want ErrUnavailable", err)
	}
	if rec, _, _ := report.ReadIndexRecord(dir); rec.Offset != 0 {
		t.Errorf("record = %+v, want nothing done", rec)
	}
}

func TestShipGzipToZincSearch(t *testing.T) {
	s := zinc(t)
	dir := t.TempDir()
	writeDocs(t, dir, doc("a", "http://x.test/a", "x"))
	cfg := testConfig(s, indexName(t))
	cfg.Compression = true
	// ZincSearch answers a gzipped bulk request with no items: never taken as acknowledged.
	if _, err := ship(t, cfg, dir); !errors.Is(err, ErrRefused) {
		t.Fatalf("Ship = %v, want ErrRefused", err)
	}
}

func TestDocKeys(t *testing.T) {
	for _, tc := range []struct {
		name, line string
		want       docID
		ok         bool
	}{
		{"amber's order", `{"id":"abc","url":"http://h/p","title":"t"}`, docID{"abc", "http://h/p"}, true},
		{"escaped url", `{"id":"abc","url":"http://h/p?a=1\u0026b=\"2\"\\x","body_content":"b"}`, docID{"abc", `http://h/p?a=1&b="2"\x`}, true},
		{"escaped quote only", `{"id":"abc","url":"http://h/\"","x":1}`, docID{"abc", `http://h/"`}, true},
		{"other order", `{"url":"http://h/","title":"t","id":"abc"}`, docID{"abc", "http://h/"}, true},
		{"spaces", `{ "id" : "abc" , "url" : "http://h/" }`, docID{"abc", "http://h/"}, true},
		{"id only", `{"id":"abc"}`, docID{"abc", ""}, true},
		{"no id", `{"url":"http://h/"}`, docID{"", "http://h/"}, false},
		{"empty id", `{"id":"","url":"http://h/"}`, docID{"", "http://h/"}, false},
		{"id not a string", `{"id":7,"url":"http://h/"}`, docID{}, false},
		{"torn after the keys", `{"id":"abc","url":"http://h/","body_content":"wor`, docID{}, false},
		{"key order and torn", `{"title":"t","id":"abc","url":"http://h/","body_content":"wor`, docID{}, false},
		{"not an object", `["abc"]`, docID{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := docKeys([]byte(tc.line))
			if ok != tc.ok || (ok && got != tc.want) {
				t.Errorf("docKeys(%s) = %+v, %v; want %+v, %v", tc.line, got, ok, tc.want, tc.ok)
			}
			if !tc.ok {
				return
			}
			var ref docID // encoding/json's reading, for every line that is a document
			if err := json.Unmarshal([]byte(tc.line), &ref); err != nil || ref != got {
				t.Errorf("json.Unmarshal = %+v, %v; docKeys = %+v", ref, err, got)
			}
		})
	}
}

func TestFlushBytes(t *testing.T) {
	docs := []Doc{{ID: "a", Source: make([]byte, 1000)}, {ID: "bb", Source: make([]byte, 2000)}}
	if got, want := flushBytes(docs, 5<<20), 1024+1000+1+128+2000+2+128; got != want {
		t.Errorf("flushBytes = %d, want %d", got, want)
	}
	if got := flushBytes(docs, 2000); got != 2000 {
		t.Errorf("flushBytes with max 2000 = %d, want 2000", got)
	}
	if got := flushBytes(nil, 5<<20); got != 1024 {
		t.Errorf("flushBytes of none = %d, want 1024", got)
	}
}
