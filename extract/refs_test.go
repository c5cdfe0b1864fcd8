package extract

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMaxOutlinks(t *testing.T) {
	const root = "http://example.com/"
	tests := []struct {
		name        string
		ct          string // default text/html
		body        string
		max         int
		want        []Outlink
		wantDropped int
	}{
		{name: "no bound", body: `<a href=/a>a</a><a href=/b>b</a><a href=/c>c</a>`,
			want: []Outlink{l(root+"a", "a/@href"), l(root+"b", "a/@href"), l(root+"c", "a/@href")}},
		{name: "within the bound", body: `<a href=/a>a</a><a href=/b>b</a>`, max: 2,
			want: []Outlink{l(root+"a", "a/@href"), l(root+"b", "a/@href")}},
		{name: "links past the bound dropped in document order", max: 2,
			body: `<a href=/a>a</a><a href=/b>b</a><a href=/c>c</a><a href=/d>d</a>`,
			want: []Outlink{l(root+"a", "a/@href"), l(root+"b", "a/@href")}, wantDropped: 2},
		{name: "a dropped link repeated counts once", max: 1,
			body: `<a href=/a>a</a><a href=/b>b</a><a href=/b>b</a><area href=/b>`,
			want: []Outlink{l(root+"a", "a/@href")}, wantDropped: 1},
		{name: "exact repeats take no room", max: 2,
			body: `<a href=/a>a</a><a href=/a>a</a><a href=/a>a</a><a href=/b>b</a>`,
			want: []Outlink{l(root+"a", "a/@href"), l(root+"b", "a/@href")}},
		{name: "an embed takes the place of the latest link", max: 3,
			body: `<a href=/a>a</a><a href=/b>b</a><a href=/c>c</a><img src=/i.png>`,
			want: []Outlink{l(root+"a", "a/@href"), l(root+"b", "a/@href"), e(root+"i.png", "img/@src")}, wantDropped: 1},
		{name: "redirect kept before links", max: 1,
			body: `<a href=/a>a</a><meta http-equiv=refresh content="0; url=/r">`,
			want: []Outlink{r(root+"r", "meta/@content")}, wantDropped: 1},
		{name: "embeds past the bound when only embeds are kept", max: 2,
			body: `<img src=/1.png><img src=/2.png><img src=/3.png><a href=/a>a</a>`,
			want: []Outlink{e(root+"1.png", "img/@src"), e(root+"2.png", "img/@src")}, wantDropped: 2},
		{name: "every link evicted by embeds", max: 3,
			body: `<a href=/a>a</a><a href=/b>b</a><a href=/c>c</a><img src=/1.png><img src=/2.png><img src=/3.png><img src=/4.png><a href=/d>d</a>`,
			want: []Outlink{e(root+"1.png", "img/@src"), e(root+"2.png", "img/@src"), e(root+"3.png", "img/@src")}, wantDropped: 5},
		{name: "evicted link found again is dropped once", max: 1,
			body: `<a href=/a>a</a><img src=/i.png><a href=/a>a</a>`,
			want: []Outlink{e(root+"i.png", "img/@src")}, wantDropped: 1},
		{name: "a kept link found again past the bound clears nofollow", max: 1,
			body: `<a href=/a rel=nofollow>a</a><a href=/b>b</a><area href=/a>`,
			want: []Outlink{l(root+"a", "a/@href")}, wantDropped: 1},
		{name: "css bound", ct: "text/css", max: 1,
			body: `a{background:url(/1.png)} b{background:url(/2.png)} c{background:url(/1.png)}`,
			want: []Outlink{e(root+"1.png", "css/url()")}, wantDropped: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ct := tt.ct
			if ct == "" {
				ct = "text/html"
			}
			res, err := ParseWith(root, ct, []byte(tt.body), Options{MaxOutlinks: tt.max})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, res.Outlinks); diff != "" {
				t.Errorf("outlinks (-want +got):\n%s", diff)
			}
			if res.OutlinksDropped != tt.wantDropped {
				t.Errorf("OutlinksDropped = %d, want %d", res.OutlinksDropped, tt.wantDropped)
			}
		})
	}
}

// TestMaxOutlinksMany checks the bound on a page of many links and embeds: the embeds are all
// kept, the links kept are the first ones, and the search document's links are among them.
func TestMaxOutlinksMany(t *testing.T) {
	const root = "http://example.com/"
	var b strings.Builder
	for i := range 10000 {
		fmt.Fprintf(&b, "<a href=/l%d>%d</a>", i, i)
		if i%100 == 0 {
			fmt.Fprintf(&b, "<img src=/i%d.png>", i)
		}
	}
	cfg := DefaultDocConfig()
	res, err := ParseWith(root, "text/html", []byte(b.String()), Options{Document: &cfg, MaxOutlinks: 500})
	if err != nil {
		t.Fatal(err)
	}
	var links, embeds int
	for i, o := range res.Outlinks {
		switch o.Hop {
		case 'E':
			embeds++
		case 'L':
			if want := fmt.Sprintf("%sl%d", root, links); o.URL != want {
				t.Fatalf("outlink %d = %s, want %s", i, o.URL, want)
			}
			links++
		}
	}
	if embeds != 100 || links != 400 {
		t.Errorf("kept %d embeds and %d links, want 100 and 400", embeds, links)
	}
	if res.OutlinksDropped != 9600 {
		t.Errorf("OutlinksDropped = %d, want 9600", res.OutlinksDropped)
	}
	if got := len(res.Document.Links); got != DefaultMaxIndexedLinksCount || res.Document.Links[0] != root+"l0" {
		t.Errorf("document links = %v, want the first %d", res.Document.Links, DefaultMaxIndexedLinksCount)
	}
}
