package report

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/novelty"
	"github.com/amber-crawler/amber/status"
)

func TestLineRoundTrip(t *testing.T) {
	at := time.Date(2026, 11, 22, 3, 4, 5, 678e6, time.UTC)
	tests := []Line{
		{Time: at, Status: 200, Size: 1349, URL: "http://www.example.com/", Via: "", Hops: "", MIME: "text/html", Thread: 7,
			FetchStart: at.Add(-time.Second), FetchDur: 137 * time.Millisecond, Digest: "sha1:ZOHC4JL6G5UG2HUAKVSQM3BYEBXUBO3N",
			Seed: "http://www.example.com/", Extra: map[string]any{"warcFilename": "a.warc.gz", "warcFileOffset": float64(1234)}},
		{Time: at, Status: status.OutOfScope, Size: -1, URL: "http://other.example.org/", Hops: "L", Via: "http://www.example.com/",
			Thread: 1, Seed: "http://www.example.com/", Annotations: []string{"scope:out-of-scope"}},
		{Time: at, Status: status.Robots, Size: -1, URL: "http://www.example.com/private/x y.html", Hops: "LL", Via: "http://www.example.com/", Thread: 12,
			Annotations: []string{"robots", "3t"}},
		{Time: at, Status: 301, Size: 0, URL: "http://www.example.com/moved", Hops: "LR", Via: "http://www.example.com/", MIME: "text/html",
			FetchStart: at, Seed: "http://www.example.com/", Extra: map[string]any{ExtraContentSize: float64(180)}},
	}
	for _, want := range tests {
		t.Run(want.URL, func(t *testing.T) {
			s := want.Format()
			if strings.Contains(s, "\n") {
				t.Fatalf("line has a newline: %q", s)
			}
			if n := len(strings.Fields(s)); n != 13 {
				t.Fatalf("%d columns, want 13: %q", n, s)
			}
			got, err := ParseLine(s)
			if err != nil {
				t.Fatal(err)
			}
			want.URL = strings.ReplaceAll(want.URL, " ", "%20")
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("round trip (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFormatHeritrix writes lines as Heritrix 3's UriProcessingFormatter does: size "-"
// without a response and the body length with one (0 included), hop paths "-" and "N+<last
// 50>", MimetypeUtils.truncate's MIME ("no-type" without a response, "unknown" for a response
// without a Content-Type), "-" for an empty via, digest, seed and annotations, "{}" for no
// extra info.
func TestFormatHeritrix(t *testing.T) {
	at := time.Date(2011, 9, 14, 17, 42, 46, 419e6, time.UTC)
	l50 := strings.Repeat("L", 50)
	tests := []struct {
		name string
		line Line
		want string
	}{
		{"robots.txt, Heritrix's documentation example",
			Line{Time: at, Status: 200, Size: 1349, URL: "http://www.archive.org/robots.txt", Hops: "P", Via: "http://www.archive.org/",
				MIME: "text/plain", Thread: 42, FetchStart: time.Date(2011, 9, 14, 17, 42, 46, 281e6, time.UTC), FetchDur: 137 * time.Millisecond,
				Digest: "sha1:ZOHC4JL6G5UG2HUAKVSQM3BYEBXUBO3N", Extra: map[string]any{"warcFilename": "x.warc.gz", "warcFileOffset": 33}},
			`2011-09-14T17:42:46.419Z   200       1349 http://www.archive.org/robots.txt P http://www.archive.org/ text/plain #042 20110914174246281+137 sha1:ZOHC4JL6G5UG2HUAKVSQM3BYEBXUBO3N - - {"warcFileOffset":33,"warcFilename":"x.warc.gz"}`},
		{"seed with an empty body",
			Line{Time: at, Status: 301, Size: 0, URL: "http://example.com/", MIME: "text/html", Thread: 1, Seed: "http://example.com/"},
			`2011-09-14T17:42:46.419Z   301          0 http://example.com/ - - text/html #001 - - http://example.com/ - {}`},
		{"response without a Content-Type",
			Line{Time: at, Status: 200, Size: 5, URL: "http://example.com/x", Hops: "L", Via: "http://example.com/", Thread: 3},
			`2011-09-14T17:42:46.419Z   200          5 http://example.com/x L http://example.com/ unknown #003 - - - - {}`},
		{"no response",
			Line{Time: at, Status: status.OutOfScope, Size: -1, URL: "http://other.org/", Hops: "L", Via: "http://example.com/", Thread: 4,
				Seed: "http://example.com/", Annotations: []string{"scope:out-of-scope"}},
			`2011-09-14T17:42:46.419Z -5000          - http://other.org/ L http://example.com/ no-type #004 - - http://example.com/ scope:out-of-scope {}`},
		{"parameters and collapsed headers cut",
			Line{Time: at, Status: 200, Size: 9, URL: "http://example.com/a", Hops: "E", MIME: "text/css,text/plain; charset=utf-8", Thread: 12},
			`2011-09-14T17:42:46.419Z   200          9 http://example.com/a E - text/css #012 - - - - {}`},
		{"a Content-Type with no type",
			Line{Time: at, Status: 200, Size: 9, URL: "http://example.com/b", MIME: "; charset=utf-8"},
			`2011-09-14T17:42:46.419Z   200          9 http://example.com/b - - no-type #000 - - - - {}`},
		{"50 hops written whole",
			Line{Time: at, Status: 200, Size: 1, URL: "http://example.com/c", Hops: l50, MIME: "text/html"},
			`2011-09-14T17:42:46.419Z   200          1 http://example.com/c ` + l50 + ` - text/html #000 - - - - {}`},
		{"51 hops abbreviated",
			Line{Time: at, Status: 200, Size: 1, URL: "http://example.com/d", Hops: "R" + l50[1:] + "E", MIME: "text/html"},
			`2011-09-14T17:42:46.419Z   200          1 http://example.com/d 1+` + l50[1:] + `E - text/html #000 - - - - {}`},
		{"an abbreviated path kept",
			Line{Time: at, Status: 200, Size: 1, URL: "http://example.com/e", Hops: "100+" + l50, MIME: "text/html"},
			`2011-09-14T17:42:46.419Z   200          1 http://example.com/e 100+` + l50 + ` - text/html #000 - - - - {}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.line.Format(); got != tt.want {
				t.Errorf("Format:\n got %s\nwant %s", got, tt.want)
			}
			back, err := ParseLine(tt.want)
			if err != nil {
				t.Fatal(err)
			}
			if got := back.Format(); got != tt.want {
				t.Errorf("Format(ParseLine(line)):\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

// TestParseColumns reads what Format writes in Heritrix's way back into a Line: "-",
// "no-type" and "unknown" as empty, an abbreviated hop path as it is.
func TestParseColumns(t *testing.T) {
	l50 := strings.Repeat("L", 50)
	tests := []struct {
		line            string
		size            int64
		hops, via, mime string
		annotations     []string
	}{
		{`2011-09-14T17:42:46.419Z -5000          - http://other.org/ L http://example.com/ no-type #004 - - - - {}`, -1, "L", "http://example.com/", "", nil},
		{`2011-09-14T17:42:46.419Z   200          0 http://example.com/ - - unknown #001 - - - - {}`, 0, "", "", "", nil},
		{`2011-09-14T17:42:46.419Z   200         12 http://example.com/ 7+` + l50 + ` - text/html #001 - - - 3t,duplicate:digest {}`, 12, "7+" + l50, "", "text/html", []string{"3t", "duplicate:digest"}},
	}
	for _, tt := range tests {
		got, err := ParseLine(tt.line)
		if err != nil {
			t.Fatalf("%s: %v", tt.line, err)
		}
		if got.Size != tt.size || got.Hops != tt.hops || got.Via != tt.via || got.MIME != tt.mime || !cmp.Equal(got.Annotations, tt.annotations) {
			t.Errorf("%s:\ngot size %d hops %q via %q mime %q annotations %q", tt.line, got.Size, got.Hops, got.Via, got.MIME, got.Annotations)
		}
	}
}

func TestContentSize(t *testing.T) {
	tests := []struct {
		name string
		line Line
		want int64
	}{
		{"from extra info, as read back", Line{Size: 100, Extra: map[string]any{ExtraContentSize: float64(350)}}, 350},
		{"from extra info, as written", Line{Size: 100, Extra: map[string]any{ExtraContentSize: int64(350)}}, 350},
		{"no extra info", Line{Size: 100}, 100},
		{"not a number", Line{Size: 100, Extra: map[string]any{ExtraContentSize: "350"}}, 100},
		{"no response", Line{Size: -1}, -1},
	}
	for _, tt := range tests {
		if got := tt.line.ContentSize(); got != tt.want {
			t.Errorf("%s: ContentSize() = %d, want %d", tt.name, got, tt.want)
		}
	}
}

// TestLineText: the text measure of a line, as written by the crawl and as read back; lines
// without one, or with numbers that cannot be a measure, have none.
func TestLineText(t *testing.T) {
	written := Line{Status: 200, Size: 10, URL: "http://example.com/", Extra: map[string]any{ExtraTextShingles: 40, ExtraTextNew: 3}}
	read, err := ParseLine(written.Format())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		line   Line
		want   novelty.Measure
		wantOK bool
	}{
		{"as written", written, novelty.Measure{Shingles: 40, New: 3}, true},
		{"as read back", read, novelty.Measure{Shingles: 40, New: 3}, true},
		{"none", Line{Extra: map[string]any{ExtraContentSize: 5}}, novelty.Measure{}, false},
		{"one of two", Line{Extra: map[string]any{ExtraTextShingles: 40}}, novelty.Measure{}, false},
		{"more new than shingles", Line{Extra: map[string]any{ExtraTextShingles: 4, ExtraTextNew: 5}}, novelty.Measure{}, false},
		{"not whole", Line{Extra: map[string]any{ExtraTextShingles: 4.5, ExtraTextNew: float64(1)}}, novelty.Measure{}, false},
		{"a string", Line{Extra: map[string]any{ExtraTextShingles: "4", ExtraTextNew: 1}}, novelty.Measure{}, false},
	}
	for _, tt := range tests {
		got, ok := tt.line.Text()
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("%s: Text() = %+v, %v, want %+v, %v", tt.name, got, ok, tt.want, tt.wantOK)
		}
	}
}

// TestParseHeritrixLine reads lines written by Heritrix 3 (column layout of its documentation).
func TestParseHeritrixLine(t *testing.T) {
	lines := []string{
		`2011-09-14T17:42:46.419Z   200       1349 http://www.archive.org/robots.txt P http://www.archive.org/ text/plain #042 20110914174246281+137 sha1:ZOHC4JL6G5UG2HUAKVSQM3BYEBXUBO3N - - {"warcFilename":"x.warc.gz","warcFileOffset":33}`,
		`2011-09-14T17:42:46.419Z -5000          - http://other.org/ L http://www.archive.org/ unknown #004 - - http://www.archive.org/ - -`,
		`2011-09-14T17:42:47.002Z   404        321 http://www.archive.org/gone.html L http://www.archive.org/ text/html #001 20110914174246990+12 sha1:AAAA - 3t,duplicate:digest {}`,
	}
	wantStatus := []int{200, -5000, 404}
	for i, s := range lines {
		l, err := ParseLine(s)
		if err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		if l.Status != wantStatus[i] {
			t.Errorf("line %d: status %d, want %d", i, l.Status, wantStatus[i])
		}
	}
	l, _ := ParseLine(lines[0])
	if l.FetchStart != time.Date(2011, 9, 14, 17, 42, 46, 281e6, time.UTC) || l.FetchDur != 137*time.Millisecond || l.Hops != "P" {
		t.Errorf("fetch time = %v + %v, hops %q", l.FetchStart, l.FetchDur, l.Hops)
	}
	l, _ = ParseLine(lines[2])
	if diff := cmp.Diff([]string{"3t", "duplicate:digest"}, l.Annotations); diff != "" {
		t.Error(diff)
	}
	for _, bad := range []string{"", "x y z", strings.Replace(lines[0], "  200", " OK", 1)} {
		if _, err := ParseLine(bad); err == nil {
			t.Errorf("ParseLine(%q) accepted", bad)
		}
	}
}

func TestCrawlLogRepairsTornLine(t *testing.T) {
	p := filepath.Join(t.TempDir(), "crawl.log")
	os.WriteFile(p, []byte("2026-01-01T00:00:00.000Z   200 half a li"), 0o644)
	cl, err := OpenCrawlLog(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := cl.Write(Line{Time: time.Unix(0, 0), Status: 200, Size: 1, URL: "http://a/"}); err != nil {
		t.Fatal(err)
	}
	cl.Close()
	data, _ := os.ReadFile(p)
	ls := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(ls) != 1 {
		t.Fatalf("lines = %q, want the torn line cut and the new one", ls)
	}
	if _, err := ParseLine(ls[0]); err != nil {
		t.Errorf("appended line does not parse: %v", err)
	}
}

// TestCrawlLogStampsInOrder: lines without a time are stamped as they are written, so the
// lines of concurrent writers are in time order in the file; a line with a time keeps it.
func TestCrawlLogStampsInOrder(t *testing.T) {
	p := filepath.Join(t.TempDir(), "crawl.log")
	cl, err := OpenCrawlLog(p)
	if err != nil {
		t.Fatal(err)
	}
	before := time.Now().Add(-time.Millisecond)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 300 {
				if err := cl.Write(Line{Status: 200, Size: int64(i), URL: fmt.Sprintf("http://a/%d/%d", w, i), Thread: w}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	given := time.Date(2011, 9, 14, 17, 42, 46, 281e6, time.UTC)
	if err := cl.Write(Line{Time: given, Status: 200, URL: "http://a/given"}); err != nil {
		t.Fatal(err)
	}
	cl.Close()
	data, _ := os.ReadFile(p)
	ls := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(ls) != 8*300+1 {
		t.Fatalf("%d lines", len(ls))
	}
	prev := before
	for i, s := range ls[:len(ls)-1] {
		l, err := ParseLine(s)
		if err != nil {
			t.Fatal(err)
		}
		if l.Time.Before(prev.Truncate(time.Millisecond)) || l.Time.After(time.Now()) {
			t.Fatalf("line %d: time %v after %v: not in order, or not the time written", i, l.Time, prev)
		}
		prev = l.Time
	}
	if l, _ := ParseLine(ls[len(ls)-1]); !l.Time.Equal(given) {
		t.Errorf("a line's own time %v written as %v", given, l.Time)
	}
}

// TestLineFileWholeLines: opening cuts a torn tail back to the last newline, wherever it is.
func TestLineFileWholeLines(t *testing.T) {
	long := strings.Repeat("x", 100<<10) // longer than one read block
	tests := []struct{ name, in, want string }{
		{"empty", "", ""},
		{"whole", "a\nb\n", "a\nb\n"},
		{"torn", "a\nb", "a\n"},
		{"only torn", "abc", ""},
		{"long torn tail", "a\n" + long, "a\n"},
		{"long whole", long + "\n", long + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "f")
			os.WriteFile(p, []byte(tt.in), 0o644)
			l, err := openLineFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if l.size != int64(len(tt.want)) {
				t.Errorf("size %d, want %d", l.size, len(tt.want))
			}
			if err := l.close(); err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(p); string(got) != tt.want {
				t.Errorf("file %.40q, want %.40q", got, tt.want)
			}
		})
	}
}

func FuzzParseLine(f *testing.F) {
	f.Add(`2011-09-14T17:42:46.419Z   200       1349 http://www.archive.org/ - - text/html #042 20110914174246281+137 sha1:Z - - {}`)
	f.Fuzz(func(t *testing.T, s string) {
		l, err := ParseLine(s)
		if err != nil {
			return
		}
		formatted := l.Format()
		back, err := ParseLine(formatted)
		if err != nil {
			t.Fatalf("reformatted line does not parse: %v\n%q", err, formatted)
		}
		if again := back.Format(); again != formatted {
			t.Fatalf("Format(ParseLine(Format(l))) changed the line:\n%q\n%q", formatted, again)
		}
	})
}
