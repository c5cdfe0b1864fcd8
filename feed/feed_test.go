package feed

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

const rss2 = `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0">
<channel>
  <title>News</title>
  <link>http://example.com/</link>
  <item><title>One</title><link> http://example.com/1?a=1&amp;b=2 </link><guid>http://example.com/g1</guid></item>
  <item><title>Two</title><guid>http://example.com/2</guid></item>
  <item><title>Three</title><guid isPermaLink="false">tag:example.com,2026:3</guid></item>
  <item><title>Four</title><link>/4</link></item>
</channel>
</rss>`

const atom = `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title>Blog</title>
  <link href="http://example.com/"/>
  <link rel="self" href="http://example.com/atom.xml"/>
  <entry><title>A</title><link rel="edit" href="/edit/a"/><link href="http://example.com/a"/><link rel="alternate" href="/a2"/></entry>
  <entry><title>B</title><link rel="Alternate" type="text/html" href="b.html"/></entry>
  <entry><title>C</title><link rel="enclosure" href="/c.mp3"/></entry>
  <entry><title>D</title><link rel="alternate" href="  "/></entry>
</feed>`

const rdf = `<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/">
  <channel rdf:about="http://example.com/"><link>http://example.com/</link></channel>
  <item rdf:about="http://example.com/x"><link>http://example.com/x</link></item>
</rdf:RDF>`

func gz(s string) string {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(s))
	w.Close()
	return b.String()
}

func TestParse(t *testing.T) {
	tests := []struct {
		name   string
		doc    string
		limits Limits
		want   *Result
	}{
		{name: "rss 2.0", doc: rss2, want: &Result{Kind: RSS, Skipped: 1,
			Links: []string{"http://example.com/1?a=1&b=2", "http://example.com/2", "/4"}}},
		{name: "atom", doc: atom, want: &Result{Kind: Atom, Skipped: 2,
			Links: []string{"http://example.com/a", "b.html"}}},
		{name: "rss 1.0", doc: rdf, want: &Result{Kind: RSS, Links: []string{"http://example.com/x"}}},
		{name: "gzip", doc: gz(rss2), want: &Result{Kind: RSS, Skipped: 1,
			Links: []string{"http://example.com/1?a=1&b=2", "http://example.com/2", "/4"}}},
		{name: "max links", doc: rss2, limits: Limits{MaxLinks: 2}, want: &Result{Kind: RSS,
			Links: []string{"http://example.com/1?a=1&b=2", "http://example.com/2"}, Skipped: 1, Truncated: TruncatedLinks}},
		{name: "max bytes", doc: rss2, limits: Limits{MaxBytes: int64(strings.Index(rss2, "<item><title>Two"))},
			want: &Result{Kind: RSS, Links: []string{"http://example.com/1?a=1&b=2"}, Truncated: TruncatedBytes}},
		{name: "exactly max bytes", doc: rdf, limits: Limits{MaxBytes: int64(len(rdf))},
			want: &Result{Kind: RSS, Links: []string{"http://example.com/x"}}},
		{name: "latin-1", doc: "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><rss><channel><item><link>http://example.com/caf\xe9</link></item></channel></rss>",
			want: &Result{Kind: RSS, Links: []string{"http://example.com/café"}}},
		{name: "html entity and bare ampersand", doc: `<rss><channel><item><link>http://e.com/?a=1&b=2&nbsp;</link></item></channel></rss>`,
			want: &Result{Kind: RSS, Links: []string{"http://e.com/?a=1&b=2"}}},
		{name: "uppercase names", doc: `<RSS><CHANNEL><ITEM><LINK>http://e.com/u</LINK></ITEM></CHANNEL></RSS>`,
			want: &Result{Kind: RSS, Links: []string{"http://e.com/u"}}},
		{name: "link of the channel is not an item", doc: `<rss><channel><link>http://e.com/</link></channel></rss>`,
			want: &Result{Kind: RSS}},
		{name: "nested link is not the item's", doc: `<rss><channel><item><source><link>http://e.com/s</link></source><link>http://e.com/i</link></item></channel></rss>`,
			want: &Result{Kind: RSS, Links: []string{"http://e.com/i"}}},
		{name: "after the root", doc: `<feed><entry><link href="/a"/></entry></feed><feed><entry><link href="/b"/></entry></feed>`,
			want: &Result{Kind: Atom, Links: []string{"/a"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(strings.NewReader(tt.doc), tt.limits)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name  string
		doc   string
		want  error
		links []string // the links returned with an ErrMalformed
	}{
		{name: "empty", doc: "", want: ErrNotFeed},
		{name: "html", doc: "<!DOCTYPE html><html><head><title>x</title></head></html>", want: ErrNotFeed},
		{name: "sitemap", doc: `<urlset><url><loc>http://e.com/</loc></url></urlset>`, want: ErrNotFeed},
		{name: "text", doc: "http://e.com/\n", want: ErrNotFeed},
		{name: "corrupt gzip", doc: "\x1f\x8bnot gzip at all", want: ErrNotFeed},
		{name: "end tag first", doc: "</rss>", want: ErrNotFeed},
		{name: "broken off", doc: `<rss><channel><item><link>http://e.com/1</link></item><item><link>http://e.com/2`, want: ErrMalformed,
			links: []string{"http://e.com/1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(strings.NewReader(tt.doc), Limits{})
			if !errors.Is(err, tt.want) {
				t.Fatalf("error %v, want %v", err, tt.want)
			}
			if tt.want == ErrNotFeed {
				if got != nil {
					t.Fatalf("result %+v with ErrNotFeed", got)
				}
				return
			}
			if got == nil || !cmp.Equal(got.Links, tt.links) {
				t.Fatalf("links %v, want %v", got, tt.links)
			}
		})
	}
}

func TestParseReadError(t *testing.T) {
	r := io.MultiReader(strings.NewReader("<rss><channel><item><link>http://e.com/1</link></item>"), iotest.ErrReader(io.ErrClosedPipe))
	got, err := Parse(r, Limits{})
	if !errors.Is(err, io.ErrClosedPipe) || errors.Is(err, ErrMalformed) {
		t.Fatalf("error %v, want the reader's", err)
	}
	if got == nil || !cmp.Equal(got.Links, []string{"http://e.com/1"}) {
		t.Fatalf("result %+v", got)
	}
}

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{RSS: "rss", Atom: "atom", 0: "unknown"} {
		if got := k.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", k, got, want)
		}
	}
}

func TestDefaultLimits(t *testing.T) {
	if got := DefaultLimits(); got != (Limits{MaxLinks: 128, MaxBytes: 10 << 20}) {
		t.Fatalf("DefaultLimits() = %+v", got)
	}
}

func TestParseGzipBrokenOff(t *testing.T) {
	var b strings.Builder
	b.WriteString("<rss><channel>")
	for i := range 2000 {
		fmt.Fprintf(&b, "<item><title>%d %x</title><link>http://example.com/%d</link></item>", i, i*7919, i)
	}
	b.WriteString("</channel></rss>")
	z := gz(b.String())
	got, err := Parse(strings.NewReader(z[:len(z)/2]), Limits{MaxLinks: 5000})
	if !errors.Is(err, ErrMalformed) {
		t.Fatalf("error %v, want ErrMalformed", err)
	}
	if got == nil || len(got.Links) == 0 || len(got.Links) == 2000 || got.Links[0] != "http://example.com/0" {
		t.Fatalf("links of a stream broken off halfway: %v", got)
	}
}
