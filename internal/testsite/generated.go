package testsite

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// Generated is a site of n pages on one host, for resume tests and benchmarks. Page i
// (/p/i.html, page 0 is /) links to pages 2i+1 and 2i+2 and embeds a shared stylesheet and one
// of 50 images, so a crawl discovers it breadth-first and sees shared embeds. Every page's
// content is distinct.
//
// With PageSize 0 the pages are small (about 250 bytes, two links). With PageSize n each page
// is an HTML page of about n bytes as a site's are: a title and description, a navigation of
// ten links (its two children, its parent and seven other pages of the site), a heading,
// paragraphs of varied text that compress about as written English does (see text.go) under
// subheadings, and a footer; the stylesheet is a few kilobytes and the images 2 to 10 KB of
// incompressible bytes.
type Generated struct {
	Pages    int
	PageSize int
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
		if g.PageSize > 0 {
			io.WriteString(w, styleSheet())
			return
		}
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
		img := append(append([]byte{}, pixelPNG...), byte(n))
		if g.PageSize > 0 {
			img = append(img, imageBytes(n)...)
		}
		w.Write(img)
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
	if g.PageSize > 0 {
		io.WriteString(w, g.page(i))
		return
	}
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

// page is page i of a site with PageSize > 0.
func (g Generated) page(i int) string {
	text()
	r := rng(uint64(i)*0x2545f4914f6cdd1d + 7)
	title := words(&r, 2+r.intn(4))
	var b strings.Builder
	b.Grow(g.PageSize + 1024)
	fmt.Fprintf(&b, "<!doctype html>\n<html lang=en>\n<head>\n<meta charset=utf-8>\n<title>Page %d: %s</title>\n", i, title)
	fmt.Fprintf(&b, "<meta name=description content=\"%s\">\n<meta name=viewport content=\"width=device-width, initial-scale=1\">\n", words(&r, 10+r.intn(10)))
	b.WriteString("<link rel=stylesheet href=/style.css>\n</head>\n<body>\n<header class=site-header><nav class=main-nav><ul>\n")
	links := []int{2*i + 1, 2*i + 2}
	if i > 0 {
		links = append(links, (i-1)/2)
	}
	for len(links) < 10 {
		links = append(links, r.intn(g.Pages))
	}
	for _, c := range links {
		if c < g.Pages {
			fmt.Fprintf(&b, "<li><a href=\"%s\">%s</a></li>\n", PageURL(c), words(&r, 1+r.intn(3)))
		}
	}
	b.WriteString("</ul></nav></header>\n<main>\n<article>\n")
	fmt.Fprintf(&b, "<h1>Page %d: %s</h1>\n<p class=lead>This is generated page number %d of %d.</p>\n", i, title, i, g.Pages)
	fmt.Fprintf(&b, "<figure><img src=\"/img/%d.png\" alt=\"%s\" width=640 height=480><figcaption>%s</figcaption></figure>\n",
		i%50, words(&r, 3), words(&r, 6))
	const tail = "</article>\n</main>\n<footer class=site-footer><p>Generated test site. <a href=\"/\">Home</a></p></footer>\n</body>\n</html>\n"
	for n := 0; b.Len()+len(tail) < g.PageSize; n++ {
		if n > 0 && n%3 == 0 {
			fmt.Fprintf(&b, "<h2>%s</h2>\n", words(&r, 2+r.intn(4)))
		}
		b.WriteString("<p>")
		b.WriteString(paragraphs[r.intn(len(paragraphs))])
		b.WriteString("</p>\n")
	}
	b.WriteString(tail)
	return b.String()
}

var (
	styleOnce sync.Once
	style     string
)

// styleSheet is the stylesheet of a site with PageSize > 0: about 3 KB of rules, one of which
// loads image 0.
func styleSheet() string {
	styleOnce.Do(func() {
		var b strings.Builder
		b.WriteString("body { margin: 0; font: 16px/1.5 Georgia, serif; color: #222; background: #fff url(/img/0.png) repeat-x; }\n")
		r := rng(99)
		props := []string{"margin: 0 auto", "padding: 0.5em 1em", "color: #333", "font-size: 1.1em",
			"border-bottom: 1px solid #ddd", "display: flex", "max-width: 48rem", "line-height: 1.6",
			"text-decoration: none", "font-weight: 600", "background: #f7f7f7", "list-style: none"}
		sels := []string{"header", "nav", "nav ul", "nav li", "nav a", "main", "article", "h1", "h2",
			"p", "p.lead", "figure", "figcaption", "footer", "footer p", "a:hover", ".site-header", ".main-nav"}
		for b.Len() < 3000 {
			fmt.Fprintf(&b, "%s .%s {", sels[r.intn(len(sels))], vocabularyWord(&r))
			for range 2 + r.intn(4) {
				fmt.Fprintf(&b, " %s;", props[r.intn(len(props))])
			}
			b.WriteString(" }\n")
		}
		style = b.String()
	})
	return style
}

// vocabularyWord is one word of the vocabulary.
func vocabularyWord(r *rng) string {
	text()
	return vocabulary[r.zipf(vocabSize)]
}

// imageBytes is what follows the PNG header of image n of a site with PageSize > 0: 2 to 10 KB
// of pseudo-random bytes, as incompressible as a real image's.
func imageBytes(n int) []byte {
	r := rng(uint64(n) + 1000)
	out := make([]byte, 2048+r.intn(8192))
	for i := range out {
		out[i] = byte(r.next())
	}
	return out
}
