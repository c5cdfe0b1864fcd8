package testsite

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// Generated is a site of n small pages on one host, for resume tests and benchmarks. Page i
// (/p/i.html, page 0 is /) links to pages 2i+1 and 2i+2 and embeds a shared stylesheet and one
// of 50 images, so a crawl discovers it breadth-first and sees shared embeds. Every page's
// content is distinct.
type Generated struct {
	Pages int
}

var pixelPNG = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\xcf\xc0\xf0\x1f\x00\x05\x00\x01\xff\x89\x99=\x1d\x00\x00\x00\x00IEND\xaeB`\x82")

// PageURL is the path of page i.
func PageURL(i int) string {
	if i == 0 {
		return "/"
	}
	return "/p/" + strconv.Itoa(i) + ".html"
}

// ServeHTTP serves the generated pages, /style.css, /img/N.png and robots.txt.
func (g Generated) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	switch {
	case p == "/robots.txt":
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "User-agent: *\nDisallow: /nothing-here/\n")
		return
	case p == "/style.css":
		w.Header().Set("Content-Type", "text/css")
		fmt.Fprint(w, "body { background: url(/img/0.png) }\n")
		return
	case strings.HasPrefix(p, "/img/") && strings.HasSuffix(p, ".png"):
		n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(p, "/img/"), ".png"))
		if err != nil || n < 0 || n >= 50 {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "image/png")
		// Distinct bytes per image so each is its own payload.
		w.Write(append(append([]byte{}, pixelPNG...), byte(n)))
		return
	}
	i := 0
	if p != "/" {
		s, ok := strings.CutPrefix(p, "/p/")
		s, ok2 := strings.CutSuffix(s, ".html")
		n, err := strconv.Atoi(s)
		if !ok || !ok2 || err != nil || n <= 0 || n >= g.Pages {
			http.NotFound(w, r)
			return
		}
		i = n
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	var b strings.Builder
	fmt.Fprintf(&b, "<!doctype html><html><head><title>Page %d</title><link rel=stylesheet href=/style.css></head><body>\n", i)
	fmt.Fprintf(&b, "<h1>Page %d</h1><p>This is generated page number %d of %d.</p><img src=/img/%d.png>\n", i, i, g.Pages, i%50)
	for _, c := range []int{2*i + 1, 2*i + 2} {
		if c < g.Pages {
			fmt.Fprintf(&b, "<a href=%q>page %d</a>\n", PageURL(c), c)
		}
	}
	b.WriteString("</body></html>\n")
	w.Write([]byte(b.String()))
}
