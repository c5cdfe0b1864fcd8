package sitemap_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/amber-crawler/amber/sitemap"
)

const ns = `xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"`

func gz(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func urlset(locs ...string) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n<urlset " + ns + ">\n")
	for _, l := range locs {
		fmt.Fprintf(&b, "  <url><loc>%s</loc><lastmod>2026-01-02</lastmod></url>\n", l)
	}
	b.WriteString("</urlset>\n")
	return b.String()
}

func TestParse(t *testing.T) {
	three := urlset("http://a.example/1", "http://a.example/2", "http://a.example/3")
	tests := []struct {
		name    string
		in      []byte
		limits  sitemap.Limits
		want    *sitemap.Result
		wantErr error
	}{
		{
			name: "urlset with the sitemaps.org namespace",
			in:   []byte(three),
			want: &sitemap.Result{Kind: sitemap.URLSet, URLs: []string{"http://a.example/1", "http://a.example/2", "http://a.example/3"}},
		},
		{
			name: "urlset without a namespace",
			in:   []byte(`<urlset><url><loc>https://a.example/</loc></url></urlset>`),
			want: &sitemap.Result{Kind: sitemap.URLSet, URLs: []string{"https://a.example/"}},
		},
		{
			name: "urlset with a namespace prefix",
			in: []byte(`<sm:urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9">
				<sm:url><sm:loc>http://a.example/p</sm:loc></sm:url></sm:urlset>`),
			want: &sitemap.Result{Kind: sitemap.URLSet, URLs: []string{"http://a.example/p"}},
		},
		{
			name: "element names in upper case",
			in:   []byte(`<URLSET><URL><LOC>http://a.example/u</LOC></URL></URLSET>`),
			want: &sitemap.Result{Kind: sitemap.URLSet, URLs: []string{"http://a.example/u"}},
		},
		{
			name: "sitemap index",
			in: []byte(`<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex ` + ns + `>
  <sitemap><loc>http://a.example/s1.xml.gz</loc><lastmod>2026-11-01</lastmod></sitemap>
  <sitemap><loc>http://a.example/s2.txt</loc></sitemap>
</sitemapindex>`),
			want: &sitemap.Result{Kind: sitemap.Index, URLs: []string{"http://a.example/s1.xml.gz", "http://a.example/s2.txt"}},
		},
		{
			name: "loc trimmed, entities decoded, CDATA read",
			in: []byte(`<urlset ` + ns + `>
<url><loc>
    http://a.example/?a=1&amp;b=2&#38;c=&quot;3&quot;
</loc></url>
<url><loc><![CDATA[http://a.example/cdata?x=1&y=2]]></loc></url>
<url><loc>http://a.example/&apos;q&apos;&nbsp;</loc></url>
</urlset>`),
			want: &sitemap.Result{Kind: sitemap.URLSet, URLs: []string{
				`http://a.example/?a=1&b=2&c="3"`, "http://a.example/cdata?x=1&y=2", "http://a.example/'q'"}},
		},
		{
			name: "an unescaped ampersand does not lose the rest of the file",
			in:   []byte(urlset("http://a.example/?a=1&b=2", "http://a.example/next")),
			want: &sitemap.Result{Kind: sitemap.URLSet, URLs: []string{"http://a.example/?a=1&b=2", "http://a.example/next"}},
		},
		{
			name: "image, video and alternate-language locs are not pages of the urlset",
			in: []byte(`<urlset ` + ns + ` xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" xmlns:xhtml="http://www.w3.org/1999/xhtml">
<url><loc>http://a.example/page</loc>
  <image:image><image:loc>http://a.example/pic.jpg</image:loc></image:image>
  <xhtml:link rel="alternate" hreflang="de" href="http://a.example/de/page"/>
</url>
<loc>http://a.example/loc-outside-url</loc>
<other><loc>http://a.example/loc-in-other</loc></other>
</urlset>`),
			want: &sitemap.Result{Kind: sitemap.URLSet, URLs: []string{"http://a.example/page"}},
		},
		{
			name: "an index's url elements are not its sitemaps",
			in:   []byte(`<sitemapindex><url><loc>http://a.example/page</loc></url><sitemap><loc>http://a.example/s.xml</loc></sitemap></sitemapindex>`),
			want: &sitemap.Result{Kind: sitemap.Index, URLs: []string{"http://a.example/s.xml"}},
		},
		{
			name: "empty and non-http locs skipped",
			in:   []byte(urlset("", "   ", "/relative.html", "ftp://a.example/f", "mailto:x@a.example", "http://", "HTTPS://A.EXAMPLE/Upper")),
			want: &sitemap.Result{Kind: sitemap.URLSet, URLs: []string{"HTTPS://A.EXAMPLE/Upper"}, Skipped: 6},
		},
		{
			name: "self-closing elements",
			in:   []byte(`<urlset><url/><url><loc/></url><url><loc>http://a.example/x</loc></url></urlset>`),
			want: &sitemap.Result{Kind: sitemap.URLSet, URLs: []string{"http://a.example/x"}, Skipped: 1},
		},
		{
			name: "what follows the root element is ignored",
			in:   []byte(`<urlset><url><loc>http://a.example/x</loc></url></urlset><url><loc>http://a.example/after</loc></url> garbage < & >`),
			want: &sitemap.Result{Kind: sitemap.URLSet, URLs: []string{"http://a.example/x"}},
		},
		{
			name: "byte order mark, comments and a doctype before the root",
			in:   []byte("\xef\xbb\xbf\n<?xml version=\"1.0\"?>\n<!-- made by hand -->\n<!DOCTYPE urlset>\n<urlset><url><loc>http://a.example/b</loc></url></urlset>"),
			want: &sitemap.Result{Kind: sitemap.URLSet, URLs: []string{"http://a.example/b"}},
		},
		{
			name: "ISO-8859-1 declared",
			in:   []byte("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><urlset><url><loc>http://a.example/caf\xe9</loc></url></urlset>"),
			want: &sitemap.Result{Kind: sitemap.URLSet, URLs: []string{"http://a.example/café"}},
		},
		{
			name: "gzip urlset, told by its magic bytes",
			in:   gz(t, []byte(three)),
			want: &sitemap.Result{Kind: sitemap.URLSet, URLs: []string{"http://a.example/1", "http://a.example/2", "http://a.example/3"}},
		},
		{
			name: "gzip text",
			in:   gz(t, []byte("http://a.example/1\nhttp://a.example/2\n")),
			want: &sitemap.Result{Kind: sitemap.Text, URLs: []string{"http://a.example/1", "http://a.example/2"}},
		},
		{
			name: "text: blank lines, surrounding whitespace, CRLF, other schemes",
			in:   []byte("\n  http://a.example/1  \r\n\r\n\thttps://a.example/2\r\nftp://a.example/3\n/relative\nhttp://a.example/4"),
			want: &sitemap.Result{Kind: sitemap.Text, URLs: []string{"http://a.example/1", "https://a.example/2", "http://a.example/4"}, Skipped: 2},
		},
		{
			name: "text with a byte order mark",
			in:   []byte("\xef\xbb\xbfhttp://a.example/1\n"),
			want: &sitemap.Result{Kind: sitemap.Text, URLs: []string{"http://a.example/1"}},
		},
		{
			name: "text line with a control character skipped",
			in:   []byte("http://a.example/1\nhttp://a.example/\x002\n"),
			want: &sitemap.Result{Kind: sitemap.Text, URLs: []string{"http://a.example/1"}, Skipped: 1},
		},
		{
			name: "text longer than the reader's buffer",
			in:   []byte("http://a.example/1\nhttp://a.example/" + strings.Repeat("x", 200<<10) + "\nhttp://a.example/3\n"),
			want: &sitemap.Result{Kind: sitemap.Text, URLs: []string{"http://a.example/1", "http://a.example/" + strings.Repeat("x", 200<<10), "http://a.example/3"}},
		},
		{
			name:   "URL limit: the first MaxURLs kept, the rest dropped",
			in:     []byte(three),
			limits: sitemap.Limits{MaxURLs: 2},
			want:   &sitemap.Result{Kind: sitemap.URLSet, URLs: []string{"http://a.example/1", "http://a.example/2"}, Truncated: sitemap.TruncatedURLs},
		},
		{
			name:   "URL limit reached exactly is not a truncation",
			in:     []byte(three),
			limits: sitemap.Limits{MaxURLs: 3},
			want:   &sitemap.Result{Kind: sitemap.URLSet, URLs: []string{"http://a.example/1", "http://a.example/2", "http://a.example/3"}},
		},
		{
			name:   "URL limit on text",
			in:     []byte("http://a.example/1\nhttp://a.example/2\nhttp://a.example/3\n"),
			limits: sitemap.Limits{MaxURLs: 1},
			want:   &sitemap.Result{Kind: sitemap.Text, URLs: []string{"http://a.example/1"}, Truncated: sitemap.TruncatedURLs},
		},
		{
			name:   "byte limit cuts XML: the URLs before the cut stand",
			in:     []byte(three),
			limits: sitemap.Limits{MaxBytes: int64(strings.Index(three, "http://a.example/3"))},
			want:   &sitemap.Result{Kind: sitemap.URLSet, URLs: []string{"http://a.example/1", "http://a.example/2"}, Truncated: sitemap.TruncatedBytes},
		},
		{
			name:   "byte limit cuts text: the cut line is dropped",
			in:     []byte("http://a.example/1\nhttp://a.example/22\n"),
			limits: sitemap.Limits{MaxBytes: 21},
			want:   &sitemap.Result{Kind: sitemap.Text, URLs: []string{"http://a.example/1"}, Truncated: sitemap.TruncatedBytes},
		},
		{
			name:   "byte limit equal to the document is not a truncation",
			in:     []byte("http://a.example/1\nhttp://a.example/2"),
			limits: sitemap.Limits{MaxBytes: int64(len("http://a.example/1\nhttp://a.example/2"))},
			want:   &sitemap.Result{Kind: sitemap.Text, URLs: []string{"http://a.example/1", "http://a.example/2"}},
		},
		{
			name:   "byte limit counts decompressed bytes",
			in:     gz(t, []byte(three)),
			limits: sitemap.Limits{MaxBytes: int64(strings.Index(three, "http://a.example/2"))},
			want:   &sitemap.Result{Kind: sitemap.URLSet, URLs: []string{"http://a.example/1"}, Truncated: sitemap.TruncatedBytes},
		},
		{
			name:   "gzip bomb stops at the byte limit",
			in:     gz(t, []byte("http://a.example/1\n"+strings.Repeat("\n", 20<<20))),
			limits: sitemap.Limits{MaxBytes: 1 << 20},
			want:   &sitemap.Result{Kind: sitemap.Text, URLs: []string{"http://a.example/1"}, Truncated: sitemap.TruncatedBytes},
		},
		{name: "HTML page", in: []byte("<!DOCTYPE html>\n<html lang=en><head><title>x</title></head><body><a href=http://a.example/>a</a></body></html>"), wantErr: sitemap.ErrNotSitemap},
		{name: "RSS feed", in: []byte(`<?xml version="1.0"?><rss version="2.0"><channel><item><link>http://a.example/</link></item></channel></rss>`), wantErr: sitemap.ErrNotSitemap},
		{name: "random bytes", in: []byte("\x00\x01\x02\xff\xfe binary \x89PNG"), wantErr: sitemap.ErrNotSitemap},
		{name: "empty", in: nil, wantErr: sitemap.ErrNotSitemap},
		{name: "only whitespace", in: []byte(" \n\t\r\n"), wantErr: sitemap.ErrNotSitemap},
		{name: "gzip of nothing", in: gz(t, nil), wantErr: sitemap.ErrNotSitemap},
		{name: "text whose first line is not a URL", in: []byte("User-agent: *\nhttp://a.example/\n"), wantErr: sitemap.ErrNotSitemap},
		{name: "JSON", in: []byte(`{"urls": ["http://a.example/"]}`), wantErr: sitemap.ErrNotSitemap},
		{name: "XML that breaks before its root", in: []byte(`<?xml version="1.0"?><<<`), wantErr: sitemap.ErrNotSitemap},
		{name: "text before the root element", in: []byte(`<?xml version="1.0"?>hello<urlset></urlset>`), wantErr: sitemap.ErrNotSitemap},
		{name: "an end tag before the root element", in: []byte(`</urlset><urlset><url><loc>http://a.example/</loc></url></urlset>`), wantErr: sitemap.ErrNotSitemap},
		{name: "gzip magic and a broken header", in: []byte("\x1f\x8bnot really gzip"), wantErr: sitemap.ErrNotSitemap},
		{
			name:    "malformed XML after some URLs",
			in:      []byte(`<urlset><url><loc>http://a.example/1</loc></url><url><loc>http://a.example/2</loc></url><url><<`),
			want:    &sitemap.Result{Kind: sitemap.URLSet, URLs: []string{"http://a.example/1", "http://a.example/2"}},
			wantErr: sitemap.ErrMalformed,
		},
		{
			name:    "root never closed",
			in:      []byte(`<urlset><url><loc>http://a.example/1</loc></url>`),
			want:    &sitemap.Result{Kind: sitemap.URLSet, URLs: []string{"http://a.example/1"}},
			wantErr: sitemap.ErrMalformed,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := sitemap.Parse(bytes.NewReader(tt.in), tt.limits)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
		})
	}
}

// TestParseGzipCut: a gzip stream cut short ends the parse with ErrMalformed and the URLs
// decompressed before the cut.
func TestParseGzipCut(t *testing.T) {
	var locs []string
	for i := range 1000 {
		locs = append(locs, fmt.Sprintf("http://a.example/%d", i))
	}
	whole := gz(t, []byte(urlset(locs...)))
	got, err := sitemap.Parse(bytes.NewReader(whole[:len(whole)/2]), sitemap.Limits{})
	if !errors.Is(err, sitemap.ErrMalformed) {
		t.Fatalf("err = %v, want ErrMalformed", err)
	}
	if got == nil || got.Kind != sitemap.URLSet || len(got.URLs) == 0 || len(got.URLs) >= len(locs) {
		t.Fatalf("got %+v, want some of the URLs", got)
	}
	if diff := cmp.Diff(locs[:len(got.URLs)], got.URLs); diff != "" {
		t.Errorf("URLs are not the document's first ones (-want +got):\n%s", diff)
	}
}

// TestParseReadError: an error of the reader is returned as it is, with what was read before
// it once the document is recognised.
func TestParseReadError(t *testing.T) {
	boom := errors.New("connection reset")
	tests := []struct {
		name string
		r    io.Reader
		want *sitemap.Result
	}{
		{"before anything", iotest.ErrReader(boom), nil},
		{"inside a urlset", io.MultiReader(strings.NewReader(`<urlset><url><loc>http://a.example/1</loc></url>`), iotest.ErrReader(boom)),
			&sitemap.Result{Kind: sitemap.URLSet, URLs: []string{"http://a.example/1"}}},
		{"inside a text sitemap", io.MultiReader(strings.NewReader("http://a.example/1\n"), iotest.ErrReader(boom)),
			&sitemap.Result{Kind: sitemap.Text, URLs: []string{"http://a.example/1"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := sitemap.Parse(tt.r, sitemap.Limits{})
			if !errors.Is(err, boom) || errors.Is(err, sitemap.ErrMalformed) || errors.Is(err, sitemap.ErrNotSitemap) {
				t.Fatalf("err = %v, want %v alone", err, boom)
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
		})
	}
}

// TestParseTestdata parses the sitemaps of the test sites as they are served.
func TestParseTestdata(t *testing.T) {
	root := filepath.Join("..", "testdata", "sites", "elastic", "www.example.com")
	tests := []struct {
		file string
		want sitemap.Result
	}{
		{"sitemap_index.xml", sitemap.Result{Kind: sitemap.Index, URLs: []string{
			"http://www.example.com/sitemaps/pages.dat", "http://www.example.com/sitemaps/extra.txt"}}},
		{"sitemaps/pages.dat", sitemap.Result{Kind: sitemap.URLSet, URLs: []string{
			"http://www.example.com/only-in-sitemap.html", "http://www.example.com/about.html", "http://www.example.com/blog/2021/post.html"}}},
		{"sitemaps/extra.txt", sitemap.Result{Kind: sitemap.Text, URLs: []string{
			"http://www.example.com/also-only-in-sitemap.html", "http://elsewhere.example.net/from-sitemap.html"}}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			f, err := os.Open(filepath.Join(root, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			got, err := sitemap.Parse(f, sitemap.DefaultLimits())
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(&tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
		})
	}
}

func TestKindString(t *testing.T) {
	for k, want := range map[sitemap.Kind]string{sitemap.URLSet: "urlset", sitemap.Index: "index", sitemap.Text: "text", 0: "unknown"} {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d).String() = %q, want %q", int(k), got, want)
		}
	}
}

func TestDefaultLimits(t *testing.T) {
	want := sitemap.Limits{MaxURLs: 50_000, MaxBytes: 50 << 20}
	if got := sitemap.DefaultLimits(); got != want {
		t.Errorf("DefaultLimits() = %+v, want %+v", got, want)
	}
	// The zero Limits are the protocol's: 50,001 URLs keep 50,000.
	var b strings.Builder
	for i := range 50_001 {
		fmt.Fprintf(&b, "http://a.example/%d\n", i)
	}
	res, err := sitemap.Parse(strings.NewReader(b.String()), sitemap.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.URLs) != 50_000 || res.Truncated != sitemap.TruncatedURLs || res.URLs[49_999] != "http://a.example/49999" {
		t.Errorf("zero Limits: %d URLs, truncated %q", len(res.URLs), res.Truncated)
	}
}
