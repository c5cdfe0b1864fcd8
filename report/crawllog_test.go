package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestLineRoundTrip(t *testing.T) {
	at := time.Date(2026, 11, 22, 3, 4, 5, 678e6, time.UTC)
	tests := []Line{
		{Time: at, Status: 200, Size: 1349, URL: "http://www.example.com/", Via: "", Hops: "", MIME: "text/html", Thread: 7,
			FetchStart: at.Add(-time.Second), FetchDur: 137 * time.Millisecond, Digest: "sha1:ZOHC4JL6G5UG2HUAKVSQM3BYEBXUBO3N",
			Seed: "http://www.example.com/", Extra: map[string]any{"warcFilename": "a.warc.gz", "warcFileOffset": float64(1234)}},
		{Time: at, Status: StatusOutOfScope, Size: -1, URL: "http://other.example.org/", Hops: "L", Via: "http://www.example.com/",
			Thread: 1, Seed: "http://www.example.com/", Annotations: []string{"scope:out-of-scope"}},
		{Time: at, Status: StatusRobots, Size: -1, URL: "http://www.example.com/private/x y.html", Hops: "LL", Via: "http://www.example.com/", Thread: 12,
			Annotations: []string{"robots", "3t"}},
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
	if len(ls) != 2 {
		t.Fatalf("lines = %q", ls)
	}
	if _, err := ParseLine(ls[1]); err != nil {
		t.Errorf("appended line does not parse: %v", err)
	}
}

func FuzzParseLine(f *testing.F) {
	f.Add(`2011-09-14T17:42:46.419Z   200       1349 http://www.archive.org/ - - text/html #042 20110914174246281+137 sha1:Z - - {}`)
	f.Fuzz(func(t *testing.T, s string) {
		l, err := ParseLine(s)
		if err != nil {
			return
		}
		if _, err := ParseLine(l.Format()); err != nil {
			t.Fatalf("reformatted line does not parse: %v\n%q", err, l.Format())
		}
	})
}
