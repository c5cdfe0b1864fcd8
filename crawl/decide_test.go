package crawl

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/chain"
	"github.com/amber-crawler/amber/extract"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/hop"
	"github.com/amber-crawler/amber/scope"
	"github.com/amber-crawler/amber/warc"
)

func TestKeep(t *testing.T) {
	link := func(u string) extract.Outlink { return extract.Outlink{URL: u, Hop: hop.Link} }
	embed := func(u string) extract.Outlink { return extract.Outlink{URL: u, Hop: hop.Embed} }
	tests := []struct {
		name  string
		links []extract.Outlink
		max   int
		want  []string
	}{
		{name: "under the cap", links: []extract.Outlink{link("a"), embed("b")}, max: 3, want: []string{"a", "b"}},
		{name: "links in document order", links: []extract.Outlink{link("a"), link("b"), link("c")}, max: 2, want: []string{"a", "b"}},
		{name: "embeds first", links: []extract.Outlink{link("a"), link("b"), embed("c"), link("d")}, max: 2, want: []string{"a", "c"}},
		{name: "redirect and inferred first", links: []extract.Outlink{link("a"), {URL: "r", Hop: hop.Redirect}, {URL: "i", Hop: hop.Inferred}}, max: 2, want: []string{"i", "r"}},
		{name: "a URL counts once", links: []extract.Outlink{link("a"), embed("a"), link("a"), link("b"), link("c")}, max: 2, want: []string{"a", "b"}},
		{name: "more embeds than the cap", links: []extract.Outlink{link("a"), embed("b"), embed("c"), embed("d")}, max: 2, want: []string{"b", "c"}},
		{name: "uncanonicalisable skipped", links: []extract.Outlink{link(""), link("b")}, max: 1, want: []string{"b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			canon := make([]string, len(tt.links))
			for i, l := range tt.links {
				canon[i] = l.URL
			}
			got := map[string]bool{}
			keepInto(got, tt.links, canon, tt.max)
			want := map[string]bool{}
			for _, u := range tt.want {
				want[u] = true
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("kept (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDecideMaxOutlinks checks that the cap counts distinct canonical URLs, keeps the embeds,
// and leaves what it drops out of the queue, the rejections and the metadata record alike.
func TestDecideMaxOutlinks(t *testing.T) {
	sc, err := scope.New(scope.Config{Seeds: []scope.Seed{{URL: "http://example.com/"}}})
	if err != nil {
		t.Fatal(err)
	}
	o := &outlinks{max: 3, scope: &liveScope{}}
	o.scope.cur.Store(sc)
	links := []extract.Outlink{
		{URL: "http://example.com/a", Hop: hop.Link, Context: "a/@href"},
		{URL: "HTTP://EXAMPLE.COM:80/a", Hop: hop.Link, Context: "a/@href"}, // the same canonical URL
		{URL: "http://other.org/b", Hop: hop.Link, Context: "a/@href"},
		{URL: "http://example.com/c", Hop: hop.Link, Context: "a/@href"},
		{URL: "http://example.com/d", Hop: hop.Link, Context: "a/@href"},
		{URL: "http://example.com/i.png", Hop: hop.Embed, Context: "img/@src"},
	}
	d := o.decide(frontier.URL{URL: "http://example.com/", Seed: "http://example.com/"}, chain.Content{Links: links})
	var in, out []string
	for _, u := range d.in {
		in = append(in, u.URL)
	}
	for _, o := range d.out {
		out = append(out, o.url.URL)
	}
	if diff := cmp.Diff([]string{"http://example.com/a", "http://example.com/i.png"}, in); diff != "" {
		t.Errorf("queued (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"http://other.org/b"}, out); diff != "" {
		t.Errorf("rejected (-want +got):\n%s", diff)
	}
	wantMeta := []warc.Outlink{
		{URL: "http://example.com/a", Hop: "L", Context: "a/@href"},
		{URL: "http://example.com/a", Hop: "L", Context: "a/@href"},
		{URL: "http://other.org/b", Hop: "L", Context: "a/@href"},
		{URL: "http://example.com/i.png", Hop: "E", Context: "img/@src"},
	}
	if diff := cmp.Diff(wantMeta, d.metadata); diff != "" {
		t.Errorf("metadata outlinks (-want +got):\n%s", diff)
	}
	if d.dropped != 2 {
		t.Errorf("dropped = %d, want 2", d.dropped)
	}
}

func TestAnnotate(t *testing.T) {
	meta := []warc.Outlink{{URL: "http://example.com/a", Hop: "L", Context: "a/@href"}}
	browserEmbed := warc.Outlink{URL: "http://example.com/x.js", Hop: "E", Context: "browser"}
	tests := []struct {
		name               string
		dropped, extracted int
		wantFields         []warc.Field
		wantAnn            []string
	}{
		{name: "nothing dropped", wantAnn: []string{"browser"}},
		{name: "dropped by the cap", dropped: 2, wantFields: []warc.Field{{Name: "outlinksDropped", Value: "2"}},
			wantAnn: []string{"browser", "outlinks-capped:2"}},
		{name: "dropped by extraction too", dropped: 2, extracted: 5, wantFields: []warc.Field{{Name: "outlinksDropped", Value: "7"}},
			wantAnn: []string{"browser", "outlinks-capped:7"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			shared := make([]string, 1, 4)
			shared[0] = "browser"
			other := chain.Capture{Annotations: shared}
			k := chain.Capture{Annotations: shared, Outlinks: []warc.Outlink{browserEmbed}}
			got := decided{metadata: meta, dropped: tt.dropped}.annotate(k, tt.extracted)
			if diff := cmp.Diff(append(meta, browserEmbed), got.Outlinks); diff != "" {
				t.Errorf("outlinks (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantFields, got.Fields); diff != "" {
				t.Errorf("fields (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantAnn, got.Annotations); diff != "" {
				t.Errorf("annotations (-want +got):\n%s", diff)
			}
			// Another capture sharing the annotations' array must not see the page's.
			other.Annotations = append(other.Annotations, "duplicate:digest")
			if diff := cmp.Diff(tt.wantAnn, got.Annotations); diff != "" {
				t.Errorf("annotations after another capture's append (-want +got):\n%s", diff)
			}
		})
	}
}
