package content

import (
	"net/http"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/extract"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/hop"
)

// TestRelNoFollowOnly: the main frame's robots meta nofollow is taken out of a rendered
// page's links; rel=nofollow and links of other frames keep theirs.
func TestRelNoFollowOnly(t *testing.T) {
	link := func(u string, nf bool) extract.Outlink {
		return extract.Outlink{URL: u, Hop: hop.Link, Context: "a/@href", NoFollow: nf}
	}
	rendered := []extract.Outlink{
		link("http://e.com/a", true),     // meta nofollow only
		link("http://e.com/rel", true),   // rel=nofollow in the main frame
		link("http://e.com/frame", true), // only in another frame
		link("http://e.com/b", false),
	}
	parsed := []extract.Outlink{
		link("http://e.com/a", false),
		link("http://e.com/rel", true),
		link("http://e.com/b", false),
		{URL: "http://e.com/img.png", Hop: hop.Embed, Context: "img/@src"},
	}
	want := []extract.Outlink{
		link("http://e.com/a", false),
		link("http://e.com/rel", true),
		link("http://e.com/frame", true),
		link("http://e.com/b", false),
	}
	got := relNoFollowOnly(rendered, parsed)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("relNoFollowOnly (-want +got):\n%s", diff)
	}
	if !rendered[0].NoFollow {
		t.Error("relNoFollowOnly changed its argument")
	}
}

// TestRenderedFavicon: a rendered page's host gets its /favicon.ico inferred once, unless the
// page load asked for it itself (the browser has it archived with the page).
func TestRenderedFavicon(t *testing.T) {
	page := func(u string, loaded ...string) (*fetch.Exchange, []*fetch.Exchange) {
		ex := &fetch.Exchange{URL: u, StatusCode: 200, Header: http.Header{"Content-Type": {"text/html"}}}
		exs := []*fetch.Exchange{ex}
		for _, l := range loaded {
			exs = append(exs, &fetch.Exchange{URL: l, StatusCode: 200})
		}
		return ex, exs
	}
	tests := []struct {
		name   string
		pages  [][]string // each page: its URL, then the other URLs its load asked for
		wantOn []bool     // whether each page infers the favicon
	}{
		{"not loaded: inferred with the host's first page", [][]string{
			{"http://e.com/", "http://e.com/style.css"}, {"http://e.com/b"}}, []bool{true, false}},
		{"loaded by the first page", [][]string{
			{"http://e.com/", "http://e.com/style.css", "http://e.com/favicon.ico"}, {"http://e.com/b"}}, []bool{false, false}},
		{"another host's favicon loaded", [][]string{
			{"http://e.com/", "http://cdn.e.com/favicon.ico"}}, []bool{true}},
		{"a favicon elsewhere on the host", [][]string{
			{"http://e.com:8080/", "http://e.com:8080/img/favicon.ico"}}, []bool{true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rd := New(Config{MaxOutlinks: 100}, nil)
			for i, p := range tt.pages {
				ex, loaded := page(p[0], p[1:]...)
				got := rd.analyseRendered(ex, &fetch.Render{FinalURL: p[0], HTML: "<html><body>x</body></html>"}, loaded)
				inferred := slices.ContainsFunc(got.Links, func(o extract.Outlink) bool {
					return o.Hop == hop.Inferred && o.URL == extract.Favicon(p[0]).URL
				})
				if inferred != tt.wantOn[i] {
					t.Errorf("page %s: favicon inferred %v, want %v (links %+v)", p[0], inferred, tt.wantOn[i], got.Links)
				}
			}
		})
	}
}
