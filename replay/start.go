package replay

import (
	"context"
	"html/template"
	"net"
	"net/http"
	"os"
	"strconv"
)

// pagesPerPage is how many pages one start page lists.
const pagesPerPage = 1000

// startPage is the start page: the sources, how to browse them, their pages.
var startPage = template.Must(template.New("start").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>amber replay</title>
<style>
body { font-family: sans-serif; margin: 2em; }
table { border-collapse: collapse; }
td, th { padding: 0.2em 0.8em; text-align: left; vertical-align: top; }
tr:nth-child(even) { background: #f3f3f3; }
td.url { word-break: break-all; }
code { word-break: break-all; }
</style></head>
<body>
<h1>amber replay</h1>
<p>Replaying {{range $i, $s := .Sources}}{{if $i}}, {{end}}<code>{{$s}}</code>{{end}}.
Of the captures of a URL, the one closest to <b>{{.At}}</b> is served{{if .AtDefault}} (the
crawl's earliest capture; <code>amber replay --at</code> chooses another time){{end}}; a
request's Accept-Datetime chooses its own.</p>
<p>Browse the archive in a browser whose HTTP and HTTPS proxy is <code>{{.Proxy}}</code>; for
https it must trust the certificate authority <a href="http://` + StartHost + `/ca.pem">ca.pem</a>
(<code>{{.CAPath}}</code>; for Chromium <code>--ignore-certificate-errors-spki-list={{.SPKI}}</code>).
Nothing is fetched from the live web: what the archive does not hold is answered 404 and
recorded in <code>{{.MissesPath}}</code>.</p>
{{if .Err}}<p><b>The page list cannot be read:</b> {{.Err}}</p>{{end}}
<h2>Pages ({{.Total}})</h2>
{{if .Pages}}<table>
<tr><th>Captured (UTC)</th><th>Page</th><th>Title</th></tr>
{{range .Pages}}<tr><td>{{.When}}</td><td class="url"><a href="{{.URL}}">{{.URL}}</a></td><td>{{.Title}}</td></tr>
{{end}}</table>{{else}}<p>None listed.</p>{{end}}
{{if or .Prev .Next}}<p>{{if .Prev}}<a href="{{.Prev}}">previous {{.PerPage}}</a> {{end}}{{if .Next}}<a href="{{.Next}}">next {{.PerPage}}</a>{{end}}</p>{{end}}
<h2>Not in the archive ({{.MissCount}})</h2>
{{if .Misses}}<table>
<tr><th>Asked (UTC)</th><th>URL</th><th>By</th></tr>
{{range .Misses}}<tr><td>{{.Time.Format "2006-01-02 15:04:05"}}</td><td class="url">{{.URL}}</td><td class="url">{{.Referer}}</td></tr>
{{end}}</table>{{else}}<p>Nothing asked for so far was missing.</p>{{end}}
</body></html>
`))

// startView is what startPage shows.
type startView struct {
	Sources    []string
	At         string
	AtDefault  bool
	Proxy      string
	CAPath     string
	SPKI       string
	MissesPath string
	Err        error
	Total      int
	Pages      []pageView
	PerPage    int
	Prev, Next string
	MissCount  int
	Misses     []Miss // the latest, newest first
}

type pageView struct {
	When, URL, Title string
}

// own answers a request to the Server itself: the start page at /, the authority's
// certificate at /ca.pem.
func (s *Server) own(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/", "":
		s.start(w, r)
	case "/" + CAFile:
		b, err := os.ReadFile(s.ca.path)
		if err != nil {
			http.Error(w, "amber replay: "+err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/x-x509-ca-cert")
		w.Header().Set("Content-Disposition", `attachment; filename="amber-replay-ca.pem"`)
		_, _ = w.Write(b)
	default:
		http.Error(w, "amber replay: nothing here; this is a proxy (start page: http://"+StartHost+"/)", http.StatusNotFound)
	}
}

// start writes the start page.
func (s *Server) start(w http.ResponseWriter, r *http.Request) {
	v := startView{
		At:         s.At().Format("2006-01-02 15:04:05 UTC"),
		AtDefault:  s.at.IsZero(),
		CAPath:     s.ca.path,
		SPKI:       s.CASPKI(),
		MissesPath: s.stateDir + string(os.PathSeparator) + MissesFile,
		PerPage:    pagesPerPage,
	}
	for _, src := range s.archive.sources {
		v.Sources = append(v.Sources, src.path)
	}
	if a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
		v.Proxy = "http://" + a.String()
	}
	pages, err := s.loadPages(context.WithoutCancel(r.Context()))
	v.Err, v.Total = err, len(pages)
	n, _ := strconv.Atoi(r.URL.Query().Get("page"))
	n = max(n, 0)
	from := min(n*pagesPerPage, len(pages))
	to := min(from+pagesPerPage, len(pages))
	for _, p := range pages[from:to] {
		when := p.TS
		if !p.at.IsZero() {
			when = p.at.UTC().Format("2006-01-02 15:04:05")
		}
		v.Pages = append(v.Pages, pageView{When: when, URL: p.URL, Title: p.Title})
	}
	if n > 0 {
		v.Prev = "?page=" + strconv.Itoa(n-1)
	}
	if to < len(pages) {
		v.Next = "?page=" + strconv.Itoa(n+1)
	}
	misses := s.Misses()
	v.MissCount = len(misses)
	for i := len(misses) - 1; i >= 0 && len(v.Misses) < 50; i-- {
		v.Misses = append(v.Misses, misses[i])
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Amber-Replay", "start")
	if r.Method == http.MethodHead {
		return
	}
	_ = startPage.Execute(w, v)
}
