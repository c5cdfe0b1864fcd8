package content

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/extract"
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
