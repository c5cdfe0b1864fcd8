package replay

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/warc"
)

// TestFuzzyMatch: each rule, on the keys of a request and a capture of the same path, with
// the traps: parameters that look like cache busters but are not, pages whose query matters.
func TestFuzzyMatch(t *testing.T) {
	key := func(u string) string { return warc.CDXKey(u) }
	for _, tc := range []struct {
		name      string
		req, cand string
		mime      string
		post      bool
		wantRules []string // nil: no match
		wantRank  int
	}{
		// cache-busting (pywb, wabac.js)
		{name: "_ with a time", req: "http://a.com/x.json?_=1712345678901", cand: "http://a.com/x.json?_=1700000000000", wantRules: []string{ruleCacheBusting}},
		{name: "_ asked, none captured", req: "http://a.com/api?_=17", cand: "http://a.com/api", wantRules: []string{ruleCacheBusting}},
		{name: "_ captured, none asked", req: "http://a.com/api", cand: "http://a.com/api?_=17", wantRules: []string{ruleCacheBusting}},
		{name: "cb and others kept", req: "http://a.com/api?id=3&cb=99", cand: "http://a.com/api?cb=12&id=3", wantRules: []string{ruleCacheBusting}},
		{name: "other parameters differ", req: "http://a.com/api?id=3&cb=99", cand: "http://a.com/api?cb=12&id=4"},
		{name: "uncache", req: "http://a.com/api?uncache=5", cand: "http://a.com/api?uncache=6", wantRules: []string{ruleCacheBusting}},
		{name: "name with cache, wabac.js", req: "http://a.com/api?nocache=0.123", cand: "http://a.com/api?nocache=0.456", wantRules: []string{ruleCacheBusting}},
		{name: "_ga", req: "http://a.com/p?_ga=2.1234.5678-90", cand: "http://a.com/p", wantRules: []string{ruleCacheBusting}},
		{name: "_ with a word is kept", req: "http://a.com/api?_=abc", cand: "http://a.com/api?_=def"},
		{name: "bust with a millisecond time", req: "http://a.com/api?cachebuster=1712345678901", cand: "http://a.com/api", wantRules: []string{ruleCacheBusting}},
		{name: "ts with a time", req: "http://a.com/api?ts=1712345678901", cand: "http://a.com/api?ts=1700000000000", wantRules: []string{ruleCacheBusting}},
		{name: "ts with a short number is kept", req: "http://a.com/api?ts=17", cand: "http://a.com/api?ts=18"},
		{name: "parts with a time is a cache buster too (pywb's \\w*ts\\w*)", req: "http://a.com/api?parts=1712345678901", cand: "http://a.com/api", wantRules: []string{ruleCacheBusting}},
		{name: "page number is kept", req: "http://a.com/list?page=2", cand: "http://a.com/list?page=1"},
		// tracking
		{name: "utm_", req: "http://a.com/article?id=5&utm_source=x&utm_medium=y", cand: "http://a.com/article?id=5", wantRules: []string{ruleTracking}},
		{name: "fbclid", req: "http://a.com/article?fbclid=IwAR0abc", cand: "http://a.com/article", wantRules: []string{ruleTracking}},
		{name: "utm alone is a name, kept", req: "http://a.com/article?utm=1", cand: "http://a.com/article"},
		// jsonp
		{name: "jsonp callback", req: "http://a.com/feed?callback=jsonp999&q=x", cand: "http://a.com/feed?q=x&callback=jsonp123", wantRules: []string{ruleJSONP}},
		{name: "jQuery callback", req: "http://a.com/feed?cb2=jQuery1234_5678", cand: "http://a.com/feed?cb2=jQuery99_11", wantRules: []string{ruleJSONP}},
		{name: "a callback that is not made up is kept", req: "http://a.com/feed?callback=render", cand: "http://a.com/feed?callback=show"},
		{name: "jsonp and cache-busting", req: "http://a.com/feed?callback=jsonp9&_=5", cand: "http://a.com/feed?callback=jsonp1", wantRules: []string{ruleCacheBusting, ruleJSONP}},
		// static-file
		{name: "css with a version", req: "http://a.com/s.css?v=2", cand: "http://a.com/s.css?v=1", wantRules: []string{ruleStaticFile}, wantRank: 1},
		{name: "js asked without the query", req: "http://a.com/app.js", cand: "http://a.com/app.js?build=77", wantRules: []string{ruleStaticFile}, wantRank: 1},
		{name: "image captured without", req: "http://a.com/i.PNG?w=300", cand: "http://a.com/i.PNG", wantRules: []string{ruleStaticFile}, wantRank: 1},
		{name: "html is a page: its query kept", req: "http://a.com/view.html?id=2", cand: "http://a.com/view.html?id=1"},
		{name: "php is a page", req: "http://a.com/index.php?id=2", cand: "http://a.com/index.php?id=1"},
		{name: "no extension", req: "http://a.com/img?id=2", cand: "http://a.com/img?id=1"},
		{name: "an HLS manifest by its type", req: "http://a.com/live?token=2", cand: "http://a.com/live?token=1", mime: "application/vnd.apple.mpegurl", wantRules: []string{ruleStaticFile}, wantRank: 1},
		{name: "not for a POST", req: "http://a.com/s.json?x=2", cand: "http://a.com/s.json?x=1", post: true},
		{name: "not a POST's capture", req: "http://a.com/s.json", cand: "http://a.com/s.json?__wb_method=post&a=1"},
		{name: "another path", req: "http://a.com/a.css?v=1", cand: "http://a.com/b.css?v=1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rules, rank, ok := fuzzyMatch(key(tc.req), key(tc.cand), tc.mime, !tc.post)
			if ok != (tc.wantRules != nil) {
				t.Fatalf("match %v (rules %v), want %v", ok, rules, tc.wantRules != nil)
			}
			if d := cmp.Diff(tc.wantRules, rules); d != "" || rank != tc.wantRank {
				t.Errorf("rules (-want +got):\n%s rank %d, want %d", d, rank, tc.wantRank)
			}
		})
	}
}

// TestByteRange reads Range fields against a body of 10 bytes.
func TestByteRange(t *testing.T) {
	for _, tc := range []struct {
		field       string
		first, last int64
		ok          bool
	}{
		{"bytes=0-3", 0, 3, true},
		{"bytes=4-", 4, 9, true},
		{"bytes=5-100", 5, 9, true},
		{"bytes=-4", 6, 9, true},
		{"bytes=-40", 0, 9, true},
		{"bytes=10-", 10, 0, false},
		{"bytes=-0", 0, 0, false},
		{"bytes=3-2", -1, 0, false},
		{"bytes=0-1,3-4", -1, 0, false},
		{"items=0-1", -1, 0, false},
		{"bytes=x-", -1, 0, false},
	} {
		first, last, ok := byteRange(tc.field, 10)
		if first != tc.first || ok != tc.ok || ok && last != tc.last {
			t.Errorf("byteRange(%q) = %d, %d, %v; want %d, %d, %v", tc.field, first, last, ok, tc.first, tc.last, tc.ok)
		}
	}
}

// indexLines makes n sorted CDXJ lines with keys that are prefixes of each other ("k/a",
// "k/a?x", "k/ab"), several lines per key, and long lines.
func indexLines(n int) []string {
	r := rand.New(rand.NewPCG(1, 2))
	var lines []string
	for i := 0; i < n; i++ {
		k := fmt.Sprintf("com,example)/%d", r.IntN(n/3+1))
		switch r.IntN(4) {
		case 0:
			k += "?q=" + fmt.Sprint(r.IntN(5))
		case 1:
			k += "a"
		}
		pad := ""
		if r.IntN(50) == 0 {
			pad = strings.Repeat("x", 70<<10) // past the bisection window and the read buffer
		}
		lines = append(lines, fmt.Sprintf("%s 2024%010d {\"url\":\"http://example.com/%s\",\"pad\":\"%s\"}", k, r.IntN(1e9), k, pad))
	}
	sort.Strings(lines)
	return lines
}

// searchAll collects what a searcher gives for prefix.
func searchAll(t *testing.T, s searcher, prefix string) []string {
	t.Helper()
	var out []string
	if err := s.search([]byte(prefix), func(line []byte) bool { out = append(out, string(line)); return true }); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSearchers: a plain sorted index bisected, and a compressed one read through its IDX,
// give every line with a prefix and nothing else, as a scan of all lines does.
func TestSearchers(t *testing.T) {
	lines := indexLines(3000)
	plain := []byte(strings.Join(lines, "\n") + "\n")
	// The compressed form: members of 7 lines, and their IDX.
	var members, idx bytes.Buffer
	idx.WriteString("!meta 0 {\"format\": \"cdxj-gzip-1.0\", \"filename\": \"index.cdx.gz\"}\n")
	for i := 0; i < len(lines); i += 7 {
		block := lines[i:min(i+7, len(lines))]
		off := members.Len()
		zw := gzip.NewWriter(&members)
		io.WriteString(zw, strings.Join(block, "\n")+"\n")
		zw.Close()
		first := block[0][:strings.Index(block[0], " {")]
		fmt.Fprintf(&idx, "%s {\"offset\":%d,\"length\":%d,\"filename\":\"index.cdx.gz\"}\n", first, off, members.Len()-off)
	}
	blocks, err := readIDX(&idx)
	if err != nil {
		t.Fatal(err)
	}
	searchers := map[string]searcher{
		"plain":       &sortedFile{r: bytes.NewReader(plain), size: int64(len(plain))},
		"plain, torn": &sortedFile{r: bytes.NewReader(plain[:len(plain)-1]), size: int64(len(plain) - 1)},
		"compressed": &blockIndex{blocks: blocks, open: func(name string) (io.ReaderAt, error) {
			if name != "index.cdx.gz" {
				return nil, fmt.Errorf("no %s", name)
			}
			return bytes.NewReader(members.Bytes()), nil
		}},
	}
	prefixes := []string{"", "a", "com,example)/0 ", "com,example)/1", "com,example)/1?", "com,example)/999 ", "zzz", lines[0][:20], lines[len(lines)-1][:30]}
	for i := 0; i < 200; i++ {
		l := lines[(i*7919)%len(lines)]
		k := l[:strings.IndexByte(l, ' ')]
		prefixes = append(prefixes, k+" ", k+"?", k)
	}
	for name, s := range searchers {
		t.Run(name, func(t *testing.T) {
			for _, p := range prefixes {
				var want []string
				for _, l := range lines {
					if strings.HasPrefix(l, p) {
						want = append(want, l)
					}
				}
				if d := cmp.Diff(want, searchAll(t, s, p)); d != "" {
					t.Fatalf("search(%q) (-want +got):\n%.2000s", p, d)
				}
			}
			var all []string
			if err := s.each(func(l []byte) bool { all = append(all, string(l)); return true }); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(all, lines) {
				t.Errorf("each gave %d lines, want %d", len(all), len(lines))
			}
			// Stopping early.
			n := 0
			if err := s.search([]byte("com,example)/"), func([]byte) bool { n++; return n < 3 }); err != nil || n != 3 {
				t.Errorf("search stopped after %d lines (err %v), want 3", n, err)
			}
		})
	}
}

// FuzzNormalizeKey: the parameter rules are idempotent and keep what they do not drop in
// order; a key never fuzzily matches itself.
func FuzzNormalizeKey(f *testing.F) {
	f.Add("com,example)/api?_=1712345678901&callback=jsonp12&utm_source=x&id=3")
	f.Add("com,example)/feed?cb2=jquery12_34")
	f.Add("com,example)/a.css?v=1")
	f.Fuzz(func(t *testing.T, key string) {
		n, rules := normalizeKey(key)
		if again, more := normalizeKey(n); again != n || len(more) > 0 && len(rules) == 0 {
			t.Errorf("normalizeKey(%q) = %q, then %q (rules %v, then %v)", key, n, again, rules, more)
		}
		if len(rules) == 0 && n != key {
			t.Errorf("normalizeKey(%q) = %q without a rule", key, n)
		}
		if _, _, ok := fuzzyMatch(key, key, "", true); ok && len(rules) == 0 && !staticFile(key) {
			t.Errorf("%q matches itself fuzzily", key)
		}
	})
}

// FuzzByteRange: a range that can be satisfied lies within the body.
func FuzzByteRange(f *testing.F) {
	f.Add("bytes=0-3", int64(10))
	f.Add("bytes=-5", int64(3))
	f.Fuzz(func(t *testing.T, field string, size int64) {
		if size < 0 {
			return
		}
		first, last, ok := byteRange(field, size)
		if ok && (first < 0 || last < first || last >= size) {
			t.Errorf("byteRange(%q, %d) = %d-%d", field, size, first, last)
		}
	})
}
