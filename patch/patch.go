// Package patch is a patch crawl's part of the chain (amber crawl --patch, docs/qa.md): the
// URLs a replay of the crawl asked for that the archive lacked, as amber qa found them
// (Read), each with the page that needed it; and the processor that makes a captured URL of
// a patch crawl give the crawl its redirects only (Links), so that the crawl captures the
// URLs it was given and the resources they redirect to, and nothing they link to or embed.
package patch

import (
	"context"
	"fmt"

	"github.com/amber-crawler/amber/chain"
	"github.com/amber-crawler/amber/hop"
	"github.com/amber-crawler/amber/report"
)

// URL is a URL a patch crawl captures: a resource a replayed page asked for that the archive
// could not answer.
type URL struct {
	URL  string // the URL, as the browser asked for it
	Page string // the page that needed it, a page of the crawl
	Type string // the kind of request (Chromium's resource type), for the record
}

// Result is what a patch crawl made of its URLs: Asked is the distinct URLs given; Queued
// those queued to be captured; Known those in scope that the crawl already knew (captured,
// failed or refused before: not captured again); OutOfScope those its scope leaves out
// (recorded with their reason, as a page's embeds are); NoPage those whose page the crawl
// does not know (not queued).
type Result struct {
	Asked, Queued, Known, OutOfScope, NoPage int
}

// Read returns the missing URLs of the qa file at path (report.QAFile), each with the first
// page that needed it, in the file's order; ok is false when there is no such file.
func Read(path string) (urls []URL, ok bool, err error) {
	seen := map[string]bool{}
	ok, err = report.EachQAPage(path, func(p report.QAPage) error {
		for _, m := range p.Missing {
			if !seen[m.URL] {
				seen[m.URL] = true
				urls = append(urls, URL{URL: m.URL, Page: p.URL, Type: m.Type})
			}
		}
		return nil
	})
	if err != nil {
		return nil, ok, fmt.Errorf("patch: %w", err)
	}
	return urls, ok, nil
}

// ByPage groups urls by the page that needed them, each URL once (with the first page that
// needed it), the pages in the order first named; distinct is the number of distinct URLs.
func ByPage(urls []URL) (pages []string, byPage map[string][]URL, distinct int) {
	byPage = map[string][]URL{}
	seen := map[string]bool{}
	for _, u := range urls {
		if seen[u.URL] {
			continue
		}
		seen[u.URL] = true
		distinct++
		if byPage[u.Page] == nil {
			pages = append(pages, u.Page)
		}
		byPage[u.Page] = append(byPage[u.Page], u)
	}
	return pages, byPage, distinct
}

// Links is the chain's step of a patch crawl: of what a captured URL points at, it keeps the
// redirects (hop R: the resource the browser asked for is where the URL sends it) and the
// embeds (hop E: a style sheet's imports, fonts and images, which its replay needs as much as
// it), each decided by the scope as any embed, and drops the rest (links, speculative and
// inferred URLs, listings), so the crawl queues nothing a replay of the page does not need.
// It belongs after the processors that read the content.
type Links struct{}

// Name is the processor's name.
func (Links) Name() string { return "patch" }

// After drops the links of the captured URL that are not redirects or embeds.
func (Links) After(_ context.Context, r *chain.Record) (chain.Verdict, error) {
	c := &r.Content
	kept := c.Links[:0:0]
	for _, l := range c.Links {
		if l.Hop == hop.Redirect || l.Hop == hop.Embed {
			kept = append(kept, l)
		}
	}
	c.Links, c.Files, c.Feeds = kept, false, false
	return chain.Proceed, nil
}

var _ chain.After = Links{}
