package documents

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/amber-crawler/amber/extract"
)

// memStore is a Store in memory; metaErr and putErr, when set, make Meta and PutMeta fail.
type memStore struct {
	mu      sync.Mutex // guards the fields below
	m       map[string][]byte
	puts    int
	metaErr error
	putErr  error
}

func newStore() *memStore { return &memStore{m: map[string][]byte{}} }

func (s *memStore) Meta(key string) ([]byte, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.metaErr != nil {
		return nil, false, s.metaErr
	}
	v, ok := s.m[key]
	return bytes.Clone(v), ok, nil
}

func (s *memStore) PutMeta(key string, value []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.putErr != nil {
		return s.putErr
	}
	s.m[key] = bytes.Clone(value)
	s.puts++
	return nil
}

var errStore = errors.New("store broken")

// t0 is the capture time of the first page; page i of a test is captured i minutes later.
var t0 = time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)

func at(i int) time.Time { return t0.Add(time.Duration(i) * time.Minute) }

// page returns the document of a page with the given title and body; pages with equal
// title and body have the same content hash under the default DocConfig.
func page(title, body string) *extract.Document {
	return &extract.Document{
		Title:           title,
		Body:            body,
		Headings:        []string{"Heading"},
		Links:           []string{"https://example.com/link"},
		MetaDescription: "description",
		MetaKeywords:    "keywords",
	}
}

// canonical returns d naming the canonical URL c.
func canonical(d *extract.Document, c string) *extract.Document {
	d.Canonical = c
	return d
}

// readDocs reads path back as documents.jsonl: whole lines only, each a search document.
func readDocs(t *testing.T, path string) []extract.SearchDocument {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) == 0 {
		return nil
	}
	if b[len(b)-1] != '\n' {
		t.Fatalf("%s ends with a torn line: %q", filepath.Base(path), b[bytes.LastIndexByte(b, '\n')+1:])
	}
	var docs []extract.SearchDocument
	for i, line := range bytes.Split(b[:len(b)-1], []byte("\n")) {
		var sd extract.SearchDocument
		if err := json.Unmarshal(line, &sd); err != nil {
			t.Fatalf("line %d: %v: %s", i+1, err, line)
		}
		docs = append(docs, sd)
	}
	return docs
}

// line is the JSON line of the document of d at pageURL, as another crawl wrote it.
func line(pageURL string, d *extract.Document) string {
	return string(extract.NewSearchDocument(pageURL, d, extract.DocConfig{}, t0).AppendJSON(nil)) + "\n"
}

func openStream(t *testing.T, path string, front Store, cfg extract.DocConfig, dedup bool) *Stream {
	t.Helper()
	d, err := Open(path, front, cfg, dedup)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// summary is what the tests assert about a written document.
type summary struct {
	ID             string
	URL            string
	AdditionalURLs []string
	Domains        []string
	Title          string
	BodyContent    string
	URLHost        string
	URLPath        string
	WARCFilename   string
	WARCOffset     int64
	LastCrawledAt  time.Time
}

func summarize(docs []extract.SearchDocument) []summary {
	var s []summary
	for _, d := range docs {
		s = append(s, summary{
			ID: d.ID, URL: d.URL, AdditionalURLs: d.AdditionalURLs, Domains: d.Domains,
			Title: d.Title, BodyContent: d.BodyContent, URLHost: d.URLHost, URLPath: d.URLPath,
			WARCFilename: d.WARCFilename, WARCOffset: d.WARCOffset, LastCrawledAt: d.LastCrawledAt,
		})
	}
	return s
}

func id(u string) string { return extract.DocumentID(u) }

func TestOpen(t *testing.T) {
	a := line("https://example.com/a", page("A", "a"))
	b := line("https://example.com/b", page("B", "b"))
	tests := []struct {
		name    string
		content *string // nil: no file
		want    string  // the file after Open
	}{
		{name: "new file", content: nil, want: ""},
		{name: "empty file", content: ptr(""), want: ""},
		{name: "complete lines", content: ptr(a + b), want: a + b},
		{name: "torn last line", content: ptr(a + b[:len(b)/2]), want: a},
		{name: "torn line only", content: ptr(a[:10]), want: ""},
		{name: "torn line without its closing brace", content: ptr(a + b[:len(b)-2]), want: a},
		{name: "blank last line is whole", content: ptr(a + "\n"), want: a + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "documents.jsonl")
			if tt.content != nil {
				if err := os.WriteFile(path, []byte(*tt.content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			d := openStream(t, path, newStore(), extract.DocConfig{}, true)
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("after Open the file is\n%q\nwant\n%q", got, tt.want)
			}

			// The next document starts a line of its own after the whole lines.
			sd, err := d.Add("https://example.com/c", page("C", "c"), "x.warc.gz", 1, t0)
			if err != nil {
				t.Fatalf("Add: %v", err)
			}
			if err := d.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			got, err = os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if want := tt.want + string(sd.AppendJSON(nil)) + "\n"; string(got) != want {
				t.Errorf("after Add the file is\n%q\nwant\n%q", got, want)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestOpenError(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		path string
	}{
		{name: "directory", path: dir},
		{name: "missing directory", path: filepath.Join(dir, "missing", "documents.jsonl")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Open(tt.path, newStore(), extract.DocConfig{}, true)
			if err == nil {
				d.Close()
				t.Fatal("Open succeeded")
			}
		})
	}
}

// capture is one call of Add.
type capture struct {
	url     string
	doc     *extract.Document
	wantNil bool // Add writes nothing
}

func TestAdd(t *testing.T) {
	const (
		p1 = "https://example.com/p1"
		p2 = "https://example.com/p2"
		p3 = "https://example.com/p3"
		c  = "https://example.com/canonical/page"
		o  = "http://other.example:8080/x/y/z/w"
	)
	tests := []struct {
		name  string
		dedup bool
		cfg   extract.DocConfig
		adds  []capture
		want  []summary // the lines of the file; capture i is at(i), at offset i in w<i>.warc.gz
	}{
		{
			name: "no dedup: one line per page",
			adds: []capture{{url: p1, doc: page("A", "a")}, {url: p2, doc: page("A", "a")}, {url: p1, doc: page("A", "a")}},
			want: []summary{
				{ID: id(p1), URL: p1, Domains: []string{"https://example.com"}, Title: "A", BodyContent: "a", URLHost: "example.com", URLPath: "/p1", WARCFilename: "w0.warc.gz", WARCOffset: 0, LastCrawledAt: at(0)},
				{ID: id(p2), URL: p2, Domains: []string{"https://example.com"}, Title: "A", BodyContent: "a", URLHost: "example.com", URLPath: "/p2", WARCFilename: "w1.warc.gz", WARCOffset: 1, LastCrawledAt: at(1)},
				{ID: id(p1), URL: p1, Domains: []string{"https://example.com"}, Title: "A", BodyContent: "a", URLHost: "example.com", URLPath: "/p1", WARCFilename: "w2.warc.gz", WARCOffset: 2, LastCrawledAt: at(2)},
			},
		},
		{
			name: "no dedup: canonical URL is the url, the page an additional URL",
			adds: []capture{{url: p1, doc: canonical(page("A", "a"), c)}},
			want: []summary{
				{ID: id(c), URL: c, AdditionalURLs: []string{p1}, Domains: []string{"https://example.com"}, Title: "A", BodyContent: "a", URLHost: "example.com", URLPath: "/canonical/page", WARCFilename: "w0.warc.gz", LastCrawledAt: at(0)},
			},
		},
		{
			name:  "dedup: different content, different documents",
			dedup: true,
			adds:  []capture{{url: p1, doc: page("A", "a")}, {url: p2, doc: page("A", "b")}, {url: p3, doc: page("B", "a")}},
			want: []summary{
				{ID: id(p1), URL: p1, Domains: []string{"https://example.com"}, Title: "A", BodyContent: "a", URLHost: "example.com", URLPath: "/p1", WARCFilename: "w0.warc.gz", WARCOffset: 0, LastCrawledAt: at(0)},
				{ID: id(p2), URL: p2, Domains: []string{"https://example.com"}, Title: "A", BodyContent: "b", URLHost: "example.com", URLPath: "/p2", WARCFilename: "w1.warc.gz", WARCOffset: 1, LastCrawledAt: at(1)},
				{ID: id(p3), URL: p3, Domains: []string{"https://example.com"}, Title: "B", BodyContent: "a", URLHost: "example.com", URLPath: "/p3", WARCFilename: "w2.warc.gz", WARCOffset: 2, LastCrawledAt: at(2)},
			},
		},
		{
			name:  "dedup: same content adds the URL, written again under the same id; the same URL again adds nothing",
			dedup: true,
			adds:  []capture{{url: p1, doc: page("A", "a")}, {url: p2, doc: page("A", "a")}, {url: p2, doc: page("A", "a"), wantNil: true}, {url: p1, doc: page("A", "a"), wantNil: true}},
			want: []summary{
				{ID: id(p1), URL: p1, Domains: []string{"https://example.com"}, Title: "A", BodyContent: "a", URLHost: "example.com", URLPath: "/p1", WARCFilename: "w0.warc.gz", WARCOffset: 0, LastCrawledAt: at(0)},
				// The first capture's WARC record stays the document's.
				{ID: id(p1), URL: p1, AdditionalURLs: []string{p2}, Domains: []string{"https://example.com"}, Title: "A", BodyContent: "a", URLHost: "example.com", URLPath: "/p1", WARCFilename: "w0.warc.gz", WARCOffset: 0, LastCrawledAt: at(1)},
			},
		},
		{
			name:  "dedup: a recrawl of the same page writes nothing",
			dedup: true,
			adds:  []capture{{url: p1, doc: page("A", "a")}, {url: p1, doc: page("A", "a"), wantNil: true}},
			want: []summary{
				{ID: id(p1), URL: p1, Domains: []string{"https://example.com"}, Title: "A", BodyContent: "a", URLHost: "example.com", URLPath: "/p1", WARCFilename: "w0.warc.gz", LastCrawledAt: at(0)},
			},
		},
		{
			name:  "dedup: a URL of another origin joins domains",
			dedup: true,
			adds:  []capture{{url: p1, doc: page("A", "a")}, {url: o, doc: page("A", "a")}},
			want: []summary{
				{ID: id(p1), URL: p1, Domains: []string{"https://example.com"}, Title: "A", BodyContent: "a", URLHost: "example.com", URLPath: "/p1", WARCFilename: "w0.warc.gz", LastCrawledAt: at(0)},
				{ID: id(p1), URL: p1, AdditionalURLs: []string{o}, Domains: []string{"https://example.com", "http://other.example:8080"}, Title: "A", BodyContent: "a", URLHost: "example.com", URLPath: "/p1", WARCFilename: "w0.warc.gz", LastCrawledAt: at(1)},
			},
		},
		{
			name:  "dedup: a page naming a canonical URL makes it the url, the old url an additional URL",
			dedup: true,
			adds:  []capture{{url: p1, doc: page("A", "a")}, {url: p2, doc: canonical(page("A", "a"), o)}, {url: p3, doc: canonical(page("A", "a"), o)}, {url: p2, doc: canonical(page("A", "a"), o), wantNil: true}},
			want: []summary{
				{ID: id(p1), URL: p1, Domains: []string{"https://example.com"}, Title: "A", BodyContent: "a", URLHost: "example.com", URLPath: "/p1", WARCFilename: "w0.warc.gz", LastCrawledAt: at(0)},
				// The id stays that of the first URL, so that the line supersedes the first.
				{ID: id(p1), URL: o, AdditionalURLs: []string{p1, p2}, Domains: []string{"https://example.com", "http://other.example:8080"}, Title: "A", BodyContent: "a", URLHost: "other.example", URLPath: "/x/y/z/w", WARCFilename: "w0.warc.gz", LastCrawledAt: at(1)},
				{ID: id(p1), URL: o, AdditionalURLs: []string{p1, p2, p3}, Domains: []string{"https://example.com", "http://other.example:8080"}, Title: "A", BodyContent: "a", URLHost: "other.example", URLPath: "/x/y/z/w", WARCFilename: "w0.warc.gz", LastCrawledAt: at(2)},
			},
		},
		{
			name:  "dedup: a canonical URL already among the additional URLs moves to url",
			dedup: true,
			adds:  []capture{{url: p1, doc: page("A", "a")}, {url: c, doc: page("A", "a")}, {url: p3, doc: canonical(page("A", "a"), c)}},
			want: []summary{
				{ID: id(p1), URL: p1, Domains: []string{"https://example.com"}, Title: "A", BodyContent: "a", URLHost: "example.com", URLPath: "/p1", WARCFilename: "w0.warc.gz", LastCrawledAt: at(0)},
				{ID: id(p1), URL: p1, AdditionalURLs: []string{c}, Domains: []string{"https://example.com"}, Title: "A", BodyContent: "a", URLHost: "example.com", URLPath: "/p1", WARCFilename: "w0.warc.gz", LastCrawledAt: at(1)},
				{ID: id(p1), URL: c, AdditionalURLs: []string{p1, p3}, Domains: []string{"https://example.com"}, Title: "A", BodyContent: "a", URLHost: "example.com", URLPath: "/canonical/page", WARCFilename: "w0.warc.gz", LastCrawledAt: at(2)},
			},
		},
		{
			name:  "dedup: a self-canonical page becomes the url",
			dedup: true,
			adds:  []capture{{url: p1, doc: page("A", "a")}, {url: p2, doc: canonical(page("A", "a"), p2)}},
			want: []summary{
				{ID: id(p1), URL: p1, Domains: []string{"https://example.com"}, Title: "A", BodyContent: "a", URLHost: "example.com", URLPath: "/p1", WARCFilename: "w0.warc.gz", LastCrawledAt: at(0)},
				{ID: id(p1), URL: p2, AdditionalURLs: []string{p1}, Domains: []string{"https://example.com"}, Title: "A", BodyContent: "a", URLHost: "example.com", URLPath: "/p2", WARCFilename: "w0.warc.gz", LastCrawledAt: at(1)},
			},
		},
		{
			name:  "dedup: a page naming the document's url as canonical only adds itself",
			dedup: true,
			adds:  []capture{{url: p1, doc: page("A", "a")}, {url: p2, doc: canonical(page("A", "a"), p1)}, {url: p1, doc: canonical(page("A", "a"), p1), wantNil: true}},
			want: []summary{
				{ID: id(p1), URL: p1, Domains: []string{"https://example.com"}, Title: "A", BodyContent: "a", URLHost: "example.com", URLPath: "/p1", WARCFilename: "w0.warc.gz", LastCrawledAt: at(0)},
				{ID: id(p1), URL: p1, AdditionalURLs: []string{p2}, Domains: []string{"https://example.com"}, Title: "A", BodyContent: "a", URLHost: "example.com", URLPath: "/p1", WARCFilename: "w0.warc.gz", LastCrawledAt: at(1)},
			},
		},
		{
			name:  "dedup: the first page's canonical URL stays the url when a later page names none",
			dedup: true,
			adds:  []capture{{url: p1, doc: canonical(page("A", "a"), c)}, {url: p2, doc: page("A", "a")}, {url: c, doc: page("A", "a"), wantNil: true}},
			want: []summary{
				{ID: id(c), URL: c, AdditionalURLs: []string{p1}, Domains: []string{"https://example.com"}, Title: "A", BodyContent: "a", URLHost: "example.com", URLPath: "/canonical/page", WARCFilename: "w0.warc.gz", LastCrawledAt: at(0)},
				{ID: id(c), URL: c, AdditionalURLs: []string{p1, p2}, Domains: []string{"https://example.com"}, Title: "A", BodyContent: "a", URLHost: "example.com", URLPath: "/canonical/page", WARCFilename: "w0.warc.gz", LastCrawledAt: at(1)},
			},
		},
		{
			name:  "dedup: content_hash over the configured fields only",
			dedup: true,
			cfg:   extract.DocConfig{ContentHashFields: []string{"title"}},
			adds:  []capture{{url: p1, doc: page("A", "a")}, {url: p2, doc: page("A", "b")}},
			want: []summary{
				{ID: id(p1), URL: p1, Domains: []string{"https://example.com"}, Title: "A", BodyContent: "a", URLHost: "example.com", URLPath: "/p1", WARCFilename: "w0.warc.gz", LastCrawledAt: at(0)},
				{ID: id(p1), URL: p1, AdditionalURLs: []string{p2}, Domains: []string{"https://example.com"}, Title: "A", BodyContent: "a", URLHost: "example.com", URLPath: "/p1", WARCFilename: "w0.warc.gz", LastCrawledAt: at(1)},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "documents.jsonl")
			d := openStream(t, path, newStore(), tt.cfg, tt.dedup)
			for i, c := range tt.adds {
				before := readDocs(t, path)
				sd, err := d.Add(c.url, c.doc, fmt.Sprintf("w%d.warc.gz", i), int64(i), at(i))
				if err != nil {
					t.Fatalf("Add %d (%s): %v", i, c.url, err)
				}
				after := readDocs(t, path)
				if c.wantNil {
					if sd != nil {
						t.Errorf("Add %d (%s) = %+v, want nil", i, c.url, *sd)
					}
					if len(after) != len(before) {
						t.Errorf("Add %d (%s) returned nil but wrote a line", i, c.url)
					}
					continue
				}
				if sd == nil {
					t.Fatalf("Add %d (%s) = nil, want a document", i, c.url)
				}
				if len(after) != len(before)+1 {
					t.Fatalf("Add %d (%s) wrote %d lines, want 1", i, c.url, len(after)-len(before))
				}
				// Add returns the document it wrote.
				if diff := cmp.Diff(after[len(after)-1], *sd, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("Add %d (%s) returned a document other than the line written (-line +returned):\n%s", i, c.url, diff)
				}
			}
			got := readDocs(t, path)
			if diff := cmp.Diff(tt.want, summarize(got), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("documents.jsonl (-want +got):\n%s", diff)
			}
			if tt.dedup {
				// One content, one id: every line of a content hash has the same id.
				ids := map[string]string{}
				for _, sd := range got {
					if prev, ok := ids[sd.ContentHash]; ok && prev != sd.ID {
						t.Errorf("content %s has ids %s and %s", sd.ContentHash, prev, sd.ID)
					}
					ids[sd.ContentHash] = sd.ID
				}
			}
		})
	}
}

func TestAddMaxAdditionalURLs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "documents.jsonl")
	d := openStream(t, path, newStore(), extract.DocConfig{}, true)
	u := func(i int) string { return "https://example.com/p" + strconv.Itoa(i) }
	for i := 0; i <= extract.MaxAdditionalURLs+1; i++ {
		sd, err := d.Add(u(i), page("A", "a"), "w.warc.gz", 0, at(i))
		if err != nil {
			t.Fatalf("Add %d: %v", i, err)
		}
		// The first page and MaxAdditionalURLs more are written; the next adds nothing.
		if wantNil := i > extract.MaxAdditionalURLs; (sd == nil) != wantNil {
			t.Fatalf("Add %d returned %v, want nil: %v", i, sd, wantNil)
		}
	}
	docs := readDocs(t, path)
	if len(docs) != extract.MaxAdditionalURLs+1 {
		t.Fatalf("%d lines, want %d", len(docs), extract.MaxAdditionalURLs+1)
	}
	last := docs[len(docs)-1]
	if last.ID != id(u(0)) || last.URL != u(0) || len(last.AdditionalURLs) != extract.MaxAdditionalURLs {
		t.Errorf("last line: id %s url %s with %d additional URLs, want id %s url %s with %d", last.ID, last.URL, len(last.AdditionalURLs), id(u(0)), u(0), extract.MaxAdditionalURLs)
	}
}

func TestAddNilDocument(t *testing.T) {
	path := filepath.Join(t.TempDir(), "documents.jsonl")
	d := openStream(t, path, newStore(), extract.DocConfig{}, true)
	sd, err := d.Add("https://example.com/", nil, "w.warc.gz", 7, t0)
	if err != nil {
		t.Fatal(err)
	}
	want := []summary{{ID: id("https://example.com/"), URL: "https://example.com/", Domains: []string{"https://example.com"}, URLHost: "example.com", URLPath: "/", WARCFilename: "w.warc.gz", WARCOffset: 7, LastCrawledAt: t0}}
	if diff := cmp.Diff(want, summarize([]extract.SearchDocument{*sd}), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("Add (-want +got):\n%s", diff)
	}
}

// A document larger than the buffer the stream keeps between pages is written whole, and so
// is the next one.
func TestAddLargeDocument(t *testing.T) {
	path := filepath.Join(t.TempDir(), "documents.jsonl")
	d := openStream(t, path, newStore(), extract.DocConfig{}, true)
	big := strings.Repeat("body ", 1<<20/5+1)
	u := func(i int) string { return "https://example.com/" + strconv.Itoa(i) }
	for i, body := range []string{big, "small", big} {
		if _, err := d.Add(u(i), page("T", body), "w.warc.gz", 0, t0); err != nil {
			t.Fatalf("Add %d: %v", i, err)
		}
	}
	docs := readDocs(t, path)
	if len(docs) != 3 {
		t.Fatalf("%d lines, want 3", len(docs))
	}
	var got []string
	for _, sd := range docs {
		got = append(got, fmt.Sprintf("%s %d bytes %v", sd.URL, len(sd.BodyContent), sd.AdditionalURLs))
	}
	want := []string{
		fmt.Sprintf("%s %d bytes []", u(0), len(big)),
		fmt.Sprintf("%s 5 bytes []", u(1)),
		fmt.Sprintf("%s %d bytes [%s]", u(0), len(big), u(2)), // the first document, read back and merged
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("documents.jsonl (-want +got):\n%s", diff)
	}
}

// The hash index outlives the stream: a resumed crawl recognises the content of the earlier
// run.
func TestDedupAcrossReopen(t *testing.T) {
	const p1, p2 = "https://example.com/p1", "https://example.com/p2"
	path := filepath.Join(t.TempDir(), "documents.jsonl")
	front := newStore()
	d := openStream(t, path, front, extract.DocConfig{}, true)
	if _, err := d.Add(p1, page("A", "a"), "w.warc.gz", 0, at(0)); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	// A torn line from a kill after the close is cut off and does not disturb the index.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"id":"torn`); err != nil {
		t.Fatal(err)
	}
	f.Close()

	d = openStream(t, path, front, extract.DocConfig{}, true)
	sd, err := d.Add(p2, page("A", "a"), "w.warc.gz", 1, at(1))
	if err != nil {
		t.Fatal(err)
	}
	if sd == nil || sd.ID != id(p1) || sd.URL != p1 || !cmp.Equal(sd.AdditionalURLs, []string{p2}) {
		t.Fatalf("Add after reopen = %+v, want the document of %s with additional URL %s", sd, p1, p2)
	}
	if sd, err := d.Add(p2, page("A", "a"), "w.warc.gz", 2, at(2)); err != nil || sd != nil {
		t.Errorf("Add of a known URL after reopen = %v, %v; want nil, nil", sd, err)
	}
	if n := len(readDocs(t, path)); n != 2 {
		t.Errorf("%d lines, want 2", n)
	}
}

// A hash index entry that does not point at the document of its content (a documents.jsonl
// repaired or replaced while the frontier kept the index) is no duplicate: the page's
// document is written as new content.
func TestStaleHashIndex(t *testing.T) {
	const (
		p1 = "https://example.com/p1"
		p2 = "https://example.com/p2"
		pb = "https://example.com/pb"
	)
	// other is a line of another document, as long as the line of page("A", "a") at p1.
	other := line(pb, page("B", "a"))
	if n := len(line(p1, page("A", "a"))); len(other) != n {
		t.Fatalf("test lines differ in length: %d, %d", len(other), n)
	}
	tests := []struct {
		name    string
		content string // documents.jsonl before the stream opens
		entry   string // the index entry of the content of page("A", "a")
	}{
		{name: "beyond the file", content: "", entry: "0 100"},
		{name: "beyond the file's end", content: other, entry: strconv.Itoa(len(other)-10) + " 11"},
		{name: "at a cut torn line", content: other + `{"id":"torn`, entry: strconv.Itoa(len(other)) + " 11"},
		{name: "not numbers", content: other, entry: "x y"},
		{name: "no length", content: other, entry: "0"},
		{name: "negative offset", content: other, entry: "-1 10"},
		{name: "zero length", content: other, entry: "0 0"},
		{name: "not JSON", content: "not json\n", entry: "0 9"},
		{name: "inside a line", content: other, entry: "1 " + strconv.Itoa(len(other)-1)},
		{
			name: "another document's line", content: other, entry: "0 " + strconv.Itoa(len(other)),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "documents.jsonl")
			if err := os.WriteFile(path, []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			hash := extract.NewSearchDocument(p1, page("A", "a"), extract.DocConfig{}, t0).ContentHash
			front := newStore()
			front.m[metaDocHash+hash] = []byte(tt.entry)
			d := openStream(t, path, front, extract.DocConfig{}, true)
			sd, err := d.Add(p1, page("A", "a"), "w.warc.gz", 0, t0)
			if err != nil {
				t.Fatalf("Add: %v", err)
			}
			want := []summary{{ID: id(p1), URL: p1, Domains: []string{"https://example.com"}, Title: "A", BodyContent: "a", URLHost: "example.com", URLPath: "/p1", WARCFilename: "w.warc.gz", LastCrawledAt: t0}}
			if sd == nil {
				t.Fatal("Add = nil, want a new document")
			}
			if diff := cmp.Diff(want, summarize([]extract.SearchDocument{*sd}), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Add (-want +got):\n%s", diff)
			}
			// The index now points at the new line: the next page of the content joins it.
			sd, err = d.Add(p2, page("A", "a"), "w.warc.gz", 1, at(1))
			if err != nil {
				t.Fatalf("Add: %v", err)
			}
			if sd == nil || sd.ID != id(p1) || !cmp.Equal(sd.AdditionalURLs, []string{p2}) {
				t.Errorf("second Add = %+v, want the document of %s with additional URL %s", sd, p1, p2)
			}
		})
	}
}

func TestStoreErrors(t *testing.T) {
	tests := []struct {
		name      string
		dedup     bool
		metaErr   error
		putErr    error
		wantErr   error
		wantLines int
	}{
		{name: "Meta fails", dedup: true, metaErr: errStore, wantErr: errStore, wantLines: 0},
		// The line is written before the index entry; the crawl stops on the error.
		{name: "PutMeta fails", dedup: true, putErr: errStore, wantErr: errStore, wantLines: 1},
		{name: "no dedup never asks the store", dedup: false, metaErr: errStore, putErr: errStore, wantLines: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "documents.jsonl")
			front := newStore()
			front.metaErr, front.putErr = tt.metaErr, tt.putErr
			d := openStream(t, path, front, extract.DocConfig{}, tt.dedup)
			sd, err := d.Add("https://example.com/", page("A", "a"), "w.warc.gz", 0, t0)
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("Add error = %v, want %v", err, tt.wantErr)
			}
			if err != nil && sd != nil {
				t.Errorf("Add returned a document with error %v", err)
			}
			if n := len(readDocs(t, path)); n != tt.wantLines {
				t.Errorf("%d lines, want %d", n, tt.wantLines)
			}
		})
	}
}

func TestClose(t *testing.T) {
	path := filepath.Join(t.TempDir(), "documents.jsonl")
	d, err := Open(path, newStore(), extract.DocConfig{}, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Add("https://example.com/a", page("A", "a"), "w.warc.gz", 0, t0); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := d.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if sd, err := d.Add("https://example.com/b", page("B", "b"), "w.warc.gz", 0, t0); !errors.Is(err, ErrClosed) || sd != nil {
		t.Errorf("Add after Close = %v, %v; want ErrClosed", sd, err)
	}
	if n := len(readDocs(t, path)); n != 1 {
		t.Errorf("%d lines, want 1", n)
	}
}

// Pages of the same content added at once make one document that ends up with all their URLs.
func TestAddConcurrent(t *testing.T) {
	const n = 20
	path := filepath.Join(t.TempDir(), "documents.jsonl")
	d := openStream(t, path, newStore(), extract.DocConfig{}, true)
	var wg sync.WaitGroup
	errs := make(chan error, 2*n)
	for i := range n {
		for _, content := range []string{"a", "b"} {
			wg.Go(func() {
				u := fmt.Sprintf("https://example.com/%s/%d", content, i)
				if _, err := d.Add(u, page("T", content), "w.warc.gz", int64(i), t0); err != nil {
					errs <- err
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	docs := readDocs(t, path)
	if len(docs) != 2*n {
		t.Fatalf("%d lines, want %d", len(docs), 2*n)
	}
	newest := map[string]extract.SearchDocument{} // by id
	for _, sd := range docs {
		newest[sd.ID] = sd
	}
	if len(newest) != 2 {
		t.Fatalf("%d ids, want 2", len(newest))
	}
	for _, sd := range newest {
		if got := 1 + len(sd.AdditionalURLs); got != n {
			t.Errorf("document %s (%s) has %d URLs, want %d", sd.ID, sd.BodyContent, got, n)
		}
		for _, u := range sd.AdditionalURLs {
			if !strings.HasPrefix(u, "https://example.com/"+sd.BodyContent+"/") {
				t.Errorf("document of content %q has URL %s", sd.BodyContent, u)
			}
		}
	}
}

// blockingStore is a memStore whose PutMeta of the key block waits until release is closed,
// and reports on blocked that it does.
type blockingStore struct {
	*memStore
	block   string
	blocked chan struct{}
	release chan struct{}
}

func (s *blockingStore) PutMeta(key string, value []byte) error {
	if key == s.block {
		close(s.blocked)
		<-s.release
	}
	return s.memStore.PutMeta(key, value)
}

// An Add waiting for the store (its PutMeta is a commit of the frontier's writer) holds up
// the Adds of the same content and no other: a page of another content is written meanwhile,
// and one of the same content, added then, joins the first page's document. An Add of another
// content that waits for the first fails the test after a minute rather than hanging it.
func TestAddWaitsOnlyForItsContent(t *testing.T) {
	hash := func(body string) string {
		return extract.NewSearchDocument("https://example.com/", page("T", body), extract.DocConfig{}, t0).ContentHash
	}
	// Another content whose hash has its own lock.
	other := ""
	for i := 0; other == ""; i++ {
		if b := fmt.Sprint("b", i); hashLock(hash(b)) != hashLock(hash("a")) {
			other = b
		}
	}
	front := &blockingStore{memStore: newStore(), block: metaDocHash + hash("a"),
		blocked: make(chan struct{}), release: make(chan struct{})}
	path := filepath.Join(t.TempDir(), "documents.jsonl")
	d := openStream(t, path, front, extract.DocConfig{}, true)
	first := make(chan error, 1)
	go func() {
		_, err := d.Add("https://example.com/a1", page("T", "a"), "w.warc.gz", 0, t0)
		first <- err
	}()
	<-front.blocked
	// The first page's line is written, its hash not yet recorded.
	second := make(chan error, 1)
	go func() {
		_, err := d.Add("https://example.com/other", page("T", other), "w.warc.gz", 1, t0)
		second <- err
	}()
	select {
	case err := <-second:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		close(front.release)
		t.Fatal("the Add of another content waited for the first page's store write")
	}
	same := make(chan error, 1)
	go func() {
		_, err := d.Add("https://example.com/a2", page("T", "a"), "w.warc.gz", 2, t0)
		same <- err
	}()
	front.block = "" // the second page of "a" goes through once it has the lock
	close(front.release)
	for _, c := range []chan error{first, same} {
		if err := <-c; err != nil {
			t.Fatal(err)
		}
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	docs := readDocs(t, path)
	if len(docs) != 3 {
		t.Fatalf("%d lines, want 3 (a1, other, a1 with a2)", len(docs))
	}
	if docs[0].URL != "https://example.com/a1" || docs[1].URL != "https://example.com/other" {
		t.Errorf("lines of %s, %s; want a1 then other", docs[0].URL, docs[1].URL)
	}
	if last := docs[2]; last.ID != docs[0].ID || !slices.Equal(last.AdditionalURLs, []string{"https://example.com/a2"}) {
		t.Errorf("third line: id %s, additional_urls %v; want the first page's document with a2", last.ID, last.AdditionalURLs)
	}
}

// A write that fails leaves the file as it was, records nothing in the index, and the next
// line goes where the failed one would have.
func TestAddWriteError(t *testing.T) {
	const p1, p2 = "https://example.com/p1", "https://example.com/p2"
	path := filepath.Join(t.TempDir(), "documents.jsonl")
	front := newStore()
	d := openStream(t, path, front, extract.DocConfig{}, true)
	if _, err := d.Add(p1, page("A", "a"), "w.warc.gz", 0, t0); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	puts := front.puts

	// Writes through a read-only descriptor of the file fail.
	ro, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	d.mu.Lock()
	rw := d.f
	d.f = ro
	d.mu.Unlock()
	sd, err := d.Add(p2, page("B", "b"), "w.warc.gz", 1, at(1))
	d.mu.Lock()
	d.f = rw
	d.mu.Unlock()
	ro.Close()
	if err == nil || sd != nil {
		t.Fatalf("Add with a failing write = %v, %v; want an error", sd, err)
	}
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(after, before) {
		t.Errorf("failed write changed the file:\n%q\nwant\n%q", after, before)
	}
	if front.puts != puts {
		t.Errorf("failed write recorded an index entry")
	}

	// The page's content is still new: the next Add writes it after the whole lines.
	sd, err = d.Add(p2, page("B", "b"), "w.warc.gz", 1, at(1))
	if err != nil || sd == nil || sd.ID != id(p2) {
		t.Fatalf("Add after the failure = %v, %v; want the document of %s", sd, err, p2)
	}
	if docs := readDocs(t, path); len(docs) != 2 {
		t.Errorf("%d lines, want 2", len(docs))
	}
}

// shortWriteEnv names the file TestShortWriteHelper writes to, in its own process.
const shortWriteEnv = "AMBER_DOCUMENTS_SHORT_WRITE_FILE"

// A write that the disk cuts short (here the file size limit of ulimit -f, as a full disk
// would) is cut off again: no torn line is left. The write runs in a child process, since a
// file size limit holds for the whole process.
func TestAddShortWrite(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("needs ulimit -f")
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("needs sh")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	path := filepath.Join(t.TempDir(), "documents.jsonl")
	first := line("https://example.com/p1", page("A", "a"))
	// ulimit -f 2 allows 1024 bytes (512-byte blocks) or 2048: room for the first line only.
	if len(first) >= 1024 {
		t.Fatalf("first line too long for the limit: %d bytes", len(first))
	}
	if err := os.WriteFile(path, []byte(first), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(sh, "-c", `ulimit -f 2 || exit 3; exec "$@"`, "sh", exe, "-test.run=^TestShortWriteHelper$", "-test.count=1")
	cmd.Env = append(os.Environ(), shortWriteEnv+"="+path)
	out, err := cmd.CombinedOutput()
	if cmd.ProcessState != nil && cmd.ProcessState.ExitCode() == 3 {
		t.Skipf("ulimit -f: %s", out)
	}
	if err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != first {
		t.Errorf("after the short write the file is %d bytes, want the %d of the first line; tail %q", len(got), len(first), got[min(len(got), len(first)):])
	}
}

// TestShortWriteHelper is TestAddShortWrite's child process; run otherwise it does nothing.
func TestShortWriteHelper(t *testing.T) {
	path := os.Getenv(shortWriteEnv)
	if path == "" {
		return
	}
	d, err := Open(path, newStore(), extract.DocConfig{}, true)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	big := page("B", strings.Repeat("body ", 64<<10/5))
	if sd, err := d.Add("https://example.com/big", big, "w.warc.gz", 0, t0); err == nil || sd != nil {
		t.Fatalf("Add beyond the file size limit = %v, %v; want an error", sd, err)
	}
}
