package report

import (
	"bufio"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The crawl.log annotations of the content filters and of POST requests (crawl's content
// section and post_payloads): a response archived but not read for its type
// (type-excluded:TYPE) or a header field (header-excluded:NAME), a response whose body was
// not fetched for the type its head gave (type-not-fetched:TYPE, with
// bytes-not-fetched:N|unknown, the length its head declared), a page whose links were not
// searched for its type (links-not-searched:TYPE), a URL requested with a POST (post).
const (
	notePrefixTypeExcluded    = "type-excluded:"
	notePrefixHeaderExcluded  = "header-excluded:"
	notePrefixTypeNotFetched  = "type-not-fetched:"
	notePrefixBytesNotFetched = "bytes-not-fetched:"
	notePrefixLinksNotRead    = "links-not-searched:"
	notePost                  = "post"
)

// BodyNotFetched reports whether l is the line of a response whose body was not fetched for
// its type (annotation type-not-fetched:TYPE): only its request is archived, and there is no
// response to replay.
func (l Line) BodyNotFetched() bool {
	return slices.ContainsFunc(l.Annotations, func(a string) bool { return strings.HasPrefix(a, notePrefixTypeNotFetched) })
}

// ContentCounts counts the crawl.log lines of a host, a seed or the crawl that the content
// filters and POSTs annotate. Each counted line got a response, counted as captured too; a
// line may count in several (a POST whose answer is excluded).
type ContentCounts struct {
	TypeExcluded     int64 `json:"type_excluded"`      // archived, not read: content.types leaves its type out
	HeaderExcluded   int64 `json:"header_excluded"`    // archived, not read: a content.exclude_headers pattern matched
	LinksNotSearched int64 `json:"links_not_searched"` // read, but its links not followed: content.link_types leaves its type out
	Post             int64 `json:"post"`               // requested with a POST of a post_payloads body
	// TypeNotFetched counts the responses whose body was not fetched: content.types leaves
	// out the type their head gave, and only their request is archived. BytesNotFetched adds
	// up the lengths of those bodies their heads declared (Content-Length); SizeUnknown
	// counts those whose head declared none, which BytesNotFetched leaves out.
	TypeNotFetched  int64 `json:"type_not_fetched"`
	BytesNotFetched int64 `json:"bytes_not_fetched"`
	SizeUnknown     int64 `json:"not_fetched_size_unknown"`
}

// SeedContent is ContentCounts of the URLs of one seed.
type SeedContent struct {
	Seed string `json:"seed"`
	ContentCounts
}

func (c *ContentCounts) add(o ContentCounts) {
	c.TypeExcluded += o.TypeExcluded
	c.HeaderExcluded += o.HeaderExcluded
	c.LinksNotSearched += o.LinksNotSearched
	c.Post += o.Post
	c.TypeNotFetched += o.TypeNotFetched
	c.BytesNotFetched += o.BytesNotFetched
	c.SizeUnknown += o.SizeUnknown
}

func (c ContentCounts) isZero() bool { return c == ContentCounts{} }

// contentStats are the ContentCounts of the crawl, by host and by seed.
type contentStats struct {
	total ContentCounts
	hosts map[string]*ContentCounts
	seeds map[string]*ContentCounts
}

// lineContent is what a crawl.log line adds to ContentCounts.
func lineContent(l *Line) ContentCounts {
	var c ContentCounts
	for _, a := range l.Annotations {
		switch {
		case strings.HasPrefix(a, notePrefixTypeExcluded):
			c.TypeExcluded = 1
		case strings.HasPrefix(a, notePrefixHeaderExcluded):
			c.HeaderExcluded = 1
		case strings.HasPrefix(a, notePrefixLinksNotRead):
			c.LinksNotSearched = 1
		case a == notePost:
			c.Post = 1
		case strings.HasPrefix(a, notePrefixTypeNotFetched):
			c.TypeNotFetched = 1
		case strings.HasPrefix(a, notePrefixBytesNotFetched):
			if n, err := strconv.ParseInt(strings.TrimPrefix(a, notePrefixBytesNotFetched), 10, 64); err == nil && n >= 0 {
				c.BytesNotFetched = n
			} else {
				c.SizeUnknown = 1
			}
		}
	}
	return c
}

// addContent counts a crawl.log line in the content figures.
func (s *summary) addContent(l *Line) {
	c := lineContent(l)
	if c.isZero() {
		return
	}
	st := &s.content
	st.total.add(c)
	if st.hosts == nil {
		st.hosts, st.seeds = map[string]*ContentCounts{}, map[string]*ContentCounts{}
	}
	at := func(m map[string]*ContentCounts, k string) {
		if m[k] == nil {
			m[k] = &ContentCounts{}
		}
		m[k].add(c)
	}
	at(st.hosts, hostOf(l.URL, ""))
	if l.Seed != "" {
		at(st.seeds, l.Seed)
	}
}

// contentOf returns the content counts of a host, nil when it has none.
func (s *summary) contentOf(host string) *ContentCounts {
	if c := s.content.hosts[host]; c != nil {
		cp := *c
		return &cp
	}
	return nil
}

// contentTotal returns the crawl's content counts, nil when it has none.
func (s *summary) contentTotal() *ContentCounts {
	if s.content.total.isZero() {
		return nil
	}
	c := s.content.total
	return &c
}

// contentHosts are the hosts with content counts, in the order of the scope report (s.hosts),
// then any other host by name.
func (s *summary) contentHosts() []ScopeHost {
	var rows []ScopeHost
	seen := map[string]bool{}
	for _, h := range s.hosts {
		if c := s.contentOf(h.host); c != nil {
			rows = append(rows, ScopeHost{Host: h.host, ScopeCounts: ScopeCounts{Content: c}})
			seen[h.host] = true
		}
	}
	var rest []string
	for h := range s.content.hosts {
		if !seen[h] {
			rest = append(rest, h)
		}
	}
	slices.Sort(rest)
	for _, h := range rest {
		rows = append(rows, ScopeHost{Host: h, ScopeCounts: ScopeCounts{Content: s.contentOf(h)}})
	}
	return rows
}

// contentSeeds are the seeds with content counts, by seed.
func (s *summary) contentSeeds() []SeedContent {
	rows := make([]SeedContent, 0, len(s.content.seeds))
	for seed, c := range s.content.seeds {
		rows = append(rows, SeedContent{Seed: seed, ContentCounts: *c})
	}
	slices.SortFunc(rows, func(a, b SeedContent) int { return strings.Compare(a.Seed, b.Seed) })
	return rows
}

// contentHeader heads the content tables of scope-report.txt.
const contentHeader = "[#type-excluded] [#header-excluded] [#links-not-searched] [#post] [#type-not-fetched] [bytes-not-fetched] [#not-fetched-size-unknown]"

// writeContentText writes the content tables of scope-report.txt, by host and by seed, when
// the crawl has content counts.
func (s *summary) writeContentText(w *bufio.Writer) {
	if s.content.total.isZero() {
		return
	}
	row := func(name string, c ContentCounts) {
		fmt.Fprintf(w, "%s %d %d %d %d %d %d %d\n", field(name), c.TypeExcluded, c.HeaderExcluded, c.LinksNotSearched, c.Post,
			c.TypeNotFetched, c.BytesNotFetched, c.SizeUnknown)
	}
	w.WriteString("\ncontent filters and POSTs (crawl.log lines; bytes-not-fetched: the Content-Length of the bodies not fetched)\n[host] " + contentHeader + "\n")
	for _, h := range s.contentHosts() {
		row(h.Host, *h.Content)
	}
	row("total", s.content.total)
	w.WriteString("\n[seed] " + contentHeader + "\n")
	for _, r := range s.contentSeeds() {
		row(r.Seed, r.ContentCounts)
	}
}

// contentReportLines are the rows of crawl-report.txt for the content counts, none when
// the crawl has none.
func (s *summary) contentReportLines() []string {
	c := s.content.total
	if c.isZero() {
		return nil
	}
	return []string{
		fmt.Sprintf("type-excluded URIs: %d", c.TypeExcluded),
		fmt.Sprintf("header-excluded URIs: %d", c.HeaderExcluded),
		fmt.Sprintf("links-not-searched URIs: %d", c.LinksNotSearched),
		fmt.Sprintf("POST URIs: %d", c.Post),
		fmt.Sprintf("type-not-fetched URIs: %d", c.TypeNotFetched),
		fmt.Sprintf("bytes not fetched: %d", c.BytesNotFetched),
		fmt.Sprintf("type-not-fetched URIs of unknown size: %d", c.SizeUnknown),
	}
}

// htmlContentFigures are the headline figures of the content counts, none when the crawl
// has none.
func (s *summary) htmlContentFigures() []htmlFigure {
	c := s.content.total
	if c.isZero() {
		return nil
	}
	return []htmlFigure{
		{ID: "type-excluded", Label: "type excluded", Value: i64(c.TypeExcluded)},
		{ID: "header-excluded", Label: "header excluded", Value: i64(c.HeaderExcluded)},
		{ID: "links-not-searched", Label: "links not searched", Value: i64(c.LinksNotSearched)},
		{ID: "post", Label: "POST requests", Value: i64(c.Post)},
		{ID: "type-not-fetched", Label: "type not fetched", Value: i64(c.TypeNotFetched)},
		{ID: "bytes-not-fetched", Label: "bytes not fetched", Value: displayBytes(c.BytesNotFetched)},
	}
}
