// Package hop is the vocabulary of hop paths: the letters Heritrix writes for each step from a
// seed to a URL (spec/scope.md §1), and the few questions the crawl asks of a path. Every
// package that writes or reads a hop letter uses these names.
package hop

import (
	"strconv"
	"strings"
)

// Hop letters, as in Heritrix's Hop enum.
const (
	Link         byte = 'L' // a navigational link: a, area, GET form, non-embed link rel
	Embed        byte = 'E' // a resource the page needs to render: img, script, CSS, ...
	Speculative  byte = 'X' // a URL-looking string in JavaScript
	Redirect     byte = 'R' // an HTTP redirect, a meta refresh or a Refresh header
	Inferred     byte = 'I' // a URL the crawler guessed, e.g. /favicon.ico
	Prerequisite byte = 'P' // a URL fetched before another one can be, e.g. robots.txt
	Sitemap      byte = 'M' // a URL listed in a sitemap
)

// Last returns the last letter of a hop path, or 0 for a seed's empty path.
func Last(path string) byte {
	if path == "" {
		return 0
	}
	return path[len(path)-1]
}

// IsRedirectChain reports whether a path is a seed's own redirect chain so far: empty or only
// redirects.
func IsRedirectChain(path string) bool {
	return strings.Trim(path, string(Redirect)) == ""
}

// Navigates reports whether a path ends in a step a browser would navigate to (the URL is
// loaded as a page, not as part of one): a seed, a link, a redirect, a sitemap entry or a
// speculative URL. Embeds, inferred URLs and prerequisites are resources.
func Navigates(path string) bool {
	switch Last(path) {
	case 0, Link, Redirect, Sitemap, Speculative:
		return true
	}
	return false
}

// maxLogged is how many letters of a hop path crawl.log writes before abbreviating, as
// Heritrix's UriProcessingFormatter does.
const maxLogged = 50

// maxSkipped bounds the N of an abbreviated path read back, so that adding the letters Logged
// leaves out to it cannot overflow.
const maxSkipped = 1 << 40

// Logged is a hop path as Heritrix writes it in crawl.log (CrawlURI.extendHopsPath): "-" for a
// seed, the path itself up to 50 letters, and a longer one as "N+" followed by its last 50
// letters, N being the number of letters left out. A path already in that form (as read back
// from crawl.log) is abbreviated further the same way, N adding up, so Logged(Logged(p)) ==
// Logged(p).
func Logged(path string) string {
	if path == "" {
		return "-"
	}
	// Only what Logged writes is read as abbreviated: N > 0 letters left out, N written as
	// strconv.Itoa writes it, then the letters, whatever they are (the last 50 of a damaged
	// column can hold a '+': "1+0…+00" is read as 1 left out, not as 52 letters, which would
	// write "2+0…+00"). Anything else (a crawl.log column edited or damaged: "0+0+", "01+L") is
	// taken as letters, so that writing what was read back gives the same column.
	skipped, letters := 0, path
	if n, rest, ok := strings.Cut(path, "+"); ok {
		if k, err := strconv.Atoi(n); err == nil && k > 0 && k <= maxSkipped && strconv.Itoa(k) == n {
			skipped, letters = k, rest
		}
	}
	if len(letters) > maxLogged {
		skipped += len(letters) - maxLogged
		letters = letters[len(letters)-maxLogged:]
	}
	if skipped == 0 {
		return letters
	}
	return strconv.Itoa(skipped) + "+" + letters
}
