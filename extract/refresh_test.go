package extract

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/hop"
)

func TestRefreshRedirectMax(t *testing.T) {
	n := func(v int) *int { return &v }
	meta := func(content string) string {
		return `<meta http-equiv="refresh" content="` + content + `">`
	}
	const target = "http://example.com/next"
	tests := []struct {
		name    string
		max     *int
		content string
		want    byte // hop of the target; 0: no outlink
	}{
		{"nil: a long delay is a redirect", nil, "3600; url=/next", hop.Redirect},
		{"at the threshold", n(3), "3; url=/next", hop.Redirect},
		{"below the threshold", n(3), "0;url=/next", hop.Redirect},
		{"above the threshold", n(3), "4; url=/next", hop.Link},
		{"fraction is cut", n(3), "3.9; url=/next", hop.Redirect},
		{"only a fraction", n(0), ".5, /next", hop.Redirect},
		{"huge delay", n(3), "99999999999999999999; url=/next", hop.Link},
		{"negative: always a link", n(-1), "0; url=/next", hop.Link},
		{"zero: only immediate ones", n(0), "1; url=/next", hop.Link},
		{"leading space", n(3), "  2 ; url=/next", hop.Redirect},
		{"no url", n(3), "2", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := ParseWith(page, "text/html", []byte(meta(tt.content)), Options{RefreshRedirectMax: tt.max})
			if err != nil {
				t.Fatal(err)
			}
			var want []Outlink
			if tt.want != 0 {
				want = []Outlink{{URL: target, Hop: tt.want, Context: "meta/@content"}}
			}
			if diff := cmp.Diff(want, res.Outlinks); diff != "" {
				t.Fatalf("outlinks (-want +got):\n%s", diff)
			}
		})
	}
}
