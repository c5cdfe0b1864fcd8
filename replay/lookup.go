package replay

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/amber-crawler/amber/warc"
)

// Bounds of a look-up.
const (
	// fuzzyLimit is the most captures of a path the fuzzy rules look at (pywb: 100).
	fuzzyLimit = 1000
	// tryLimit is the most captures tried in turn for one request, when the best ones cannot
	// be replayed (a revisit without its original, a self-redirect, a WARC file missing).
	tryLimit = 20
)

// candidate is a capture that may answer a request.
type candidate struct {
	warc.IndexEntry
	src   *source
	rules []string // the fuzzy rules that matched it; none for the URL's own key
	rank  [4]int64 // the order of the candidates: lower first
}

// errNotFound: no capture of the URL (or of the same path, by the fuzzy rules).
var errNotFound = errors.New("not in the archive")

// search returns the index entries of every source whose lines start with prefix, at most
// limit of them (0: no limit). Lines that do not parse are skipped.
func (a *Archive) search(prefix string, limit int) ([]candidate, error) {
	var out []candidate
	for _, src := range a.sources {
		for _, ix := range src.indexes {
			err := ix.search([]byte(prefix), func(line []byte) bool {
				e, err := warc.ParseIndexLine(line)
				if err == nil {
					out = append(out, candidate{IndexEntry: e, src: src})
				}
				return limit == 0 || len(out) < limit
			})
			if err != nil {
				return nil, fmt.Errorf("replay: %s: %w", src.path, err)
			}
		}
	}
	return dedupe(out), nil
}

// dedupe drops a capture found twice (a WACZ with both forms of an index).
func dedupe(cs []candidate) []candidate {
	type loc struct {
		src  *source
		file string
		off  int64
	}
	seen := make(map[loc]bool, len(cs))
	out := cs[:0]
	for _, c := range cs {
		k := loc{c.src, c.Filename, c.Offset}
		if !seen[k] {
			seen[k] = true
			out = append(out, c)
		}
	}
	return out
}

// lookup returns the captures that may answer a request for u (with CDX key key), best first:
// those of the key, else those of the same path that a fuzzy rule matches. get is whether
// the request is a GET or HEAD. at is the time aimed at.
func (s *Server) lookup(u *url.URL, key string, get bool, at time.Time) ([]candidate, error) {
	exact, err := s.archive.search(key+" ", 0)
	if err != nil {
		return nil, err
	}
	if len(exact) > 0 {
		for i := range exact {
			exact[i].rank = rankOf(exact[i], u, 0, at)
		}
		sortCandidates(exact)
		return exact, nil
	}
	base, _ := splitKey(key)
	var all []candidate
	for _, prefix := range []string{base + " ", base + "?"} {
		cs, err := s.archive.search(prefix, fuzzyLimit)
		if err != nil {
			return nil, err
		}
		all = append(all, cs...)
	}
	var out []candidate
	for _, c := range all {
		rules, r, ok := fuzzyMatch(key, c.Key, c.Mime, get)
		if !ok {
			continue
		}
		c.rules = rules
		c.rank = rankOf(c, u, r, at)
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, errNotFound
	}
	sortCandidates(out)
	return out, nil
}

// rankOf orders a capture for a request for u: by the fuzzy rule that matched it (0 for
// none or the parameter rules, 1 for static-file), by how its URL's scheme and host match
// u's, by its status (a 5xx after the others, a plain 304 before only those), and by its
// distance in time from at.
func rankOf(c candidate, u *url.URL, rule int, at time.Time) [4]int64 {
	d := c.Time.Sub(at)
	if d < 0 {
		d = -d
	}
	return [4]int64{int64(rule), int64(hostMatch(c.URL, u)), int64(statusRank(c)), int64(d)}
}

// hostMatch is 0 when the captured URL has u's scheme and host (and port), 1 when only the
// host, 2 when only the scheme (the host differs in "www."), 3 otherwise.
func hostMatch(captured string, u *url.URL) int {
	cu, err := url.Parse(captured)
	if err != nil {
		return 3
	}
	sameScheme := strings.EqualFold(cu.Scheme, u.Scheme)
	sameHost := hostPort(cu) == hostPort(u)
	switch {
	case sameScheme && sameHost:
		return 0
	case sameHost:
		return 1
	case sameScheme:
		return 2
	}
	return 3
}

// hostPort is a URL's host, lowercase, with its port unless it is the scheme's default.
func hostPort(u *url.URL) string {
	h := strings.ToLower(u.Hostname())
	p := u.Port()
	if p == "" || strings.EqualFold(u.Scheme, "http") && p == "80" || strings.EqualFold(u.Scheme, "https") && p == "443" {
		return h
	}
	return h + ":" + p
}

// statusRank is 2 for a 5xx capture, 1 for a 304 response record, else 0.
func statusRank(c candidate) int {
	switch {
	case c.Status >= 500:
		return 2
	case c.Status == 304 && c.Mime != "warc/revisit":
		return 1
	}
	return 0
}

// sortCandidates sorts by rank, then by time (the earlier of two as close), stably.
func sortCandidates(cs []candidate) {
	slices.SortStableFunc(cs, func(a, b candidate) int {
		for i := range a.rank {
			if a.rank[i] != b.rank[i] {
				if a.rank[i] < b.rank[i] {
					return -1
				}
				return 1
			}
		}
		return a.Time.Compare(b.Time)
	})
}

// sameURL reports whether two absolute URLs name the same resource: the same CDX key, scheme
// and host (and port). A redirect from a capture to its own request's URL is a loop.
func sameURL(a *url.URL, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && hostPort(a) == hostPort(b) && warc.CDXKey(a.String()) == warc.CDXKey(b.String())
}

// digestIndex returns the first response of each payload digest in the sources, read from
// their indexes once, for revisits that name no original (or one that cannot be found).
func (a *Archive) digestIndex() (map[string]candidate, error) {
	a.digestOnce.Do(func() {
		m := map[string]candidate{}
		for _, src := range a.sources {
			for _, ix := range src.indexes {
				err := ix.each(func(line []byte) bool {
					e, err := warc.ParseIndexLine(line)
					if err != nil || e.Digest == "" || e.Mime == "warc/revisit" || strings.HasPrefix(e.Key, "urn:") {
						return true
					}
					if _, ok := m[e.Digest]; !ok {
						m[e.Digest] = candidate{IndexEntry: e, src: src}
					}
					return true
				})
				if err != nil {
					a.digestErr = fmt.Errorf("replay: %s: %w", src.path, err)
					return
				}
			}
		}
		a.digests = m
	})
	return a.digests, a.digestErr
}
