package content

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/amber-crawler/amber/chain"
	"github.com/amber-crawler/amber/extract"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/novelty"
)

// TestNovelty: the step measures a page's document and the words of a 2xx response in a
// machine-readable text format (a REST API's copy of an article is no new content); images,
// errors and pages without a document are not measured.
func TestNovelty(t *testing.T) {
	words := strings.Fields("the harbour of old town was built grey stone by monks island river bridge mill north south gate wall church market")
	var b strings.Builder
	for i := range 600 {
		b.WriteString(words[(i*7+i*i/3)%len(words)] + " ")
	}
	article := b.String()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/post.json":
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			fmt.Fprintf(w, `{"title":"Harbour","content":%q}`, article)
		case "/feed":
			w.Header().Set("Content-Type", "application/rss+xml")
			fmt.Fprintf(w, `<rss><channel><item><description>%s</description></item></channel></rss>`, article)
		case "/img.png":
			w.Header().Set("Content-Type", "image/png")
			w.Write([]byte(article))
		case "/missing.json":
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprintf(w, `{"error":%q}`, article)
		default:
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<html></html>")
		}
	}))
	defer srv.Close()
	c, err := fetch.NewClient(fetch.Config{UserAgent: "amber-test/1.0", AllowPrivate: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	n := NewNovelty()
	tests := []struct {
		path string
		doc  *extract.Document
		want *novelty.Measure
	}{
		{path: "/article", doc: &extract.Document{Title: "Harbour", Body: article}, want: &novelty.Measure{Shingles: 1, New: 1}},
		{path: "/api/post.json", want: &novelty.Measure{}},
		{path: "/feed", want: &novelty.Measure{}},
		{path: "/img.png"},
		{path: "/missing.json"},
		{path: "/no-document"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			ex, err := c.Do(t.Context(), fetch.Request{URL: srv.URL + tt.path})
			if err != nil {
				t.Fatal(err)
			}
			defer ex.Close()
			r := &chain.Record{Claim: frontier.NewClaim(frontier.URL{URL: srv.URL + tt.path}, nil),
				Result: &fetch.Result{Exchanges: []*fetch.Exchange{ex}}, Captures: []chain.Capture{{}}}
			r.Content.Document = tt.doc
			if _, err := n.After(t.Context(), r); err != nil {
				t.Fatal(err)
			}
			got := r.Captures[0].Text
			switch {
			case tt.want == nil && got != nil:
				t.Errorf("measured %+v, want not measured", *got)
			case tt.want != nil && got == nil:
				t.Errorf("not measured")
			case tt.want != nil && tt.want.Shingles > 0 && (got.Shingles == 0 || got.New*5 < got.Shingles*4):
				t.Errorf("the first copy: %+v, want mostly new", *got)
			case tt.want != nil && tt.want.Shingles == 0 && (got.Shingles == 0 || !got.Little()):
				t.Errorf("a later copy: %+v, want little new", *got)
			}
		})
	}
}
