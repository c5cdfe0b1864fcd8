package weburl

import (
	"slices"
	"strings"
)

// SortQuery returns u with the parameters of its query sorted by name (FAST's
// sort_query_params): the query, between the first "?" and the first "#" after it, is split
// into parameters at every "&" and ";", and the parameters are ordered by their name (the
// bytes before the first "="), compared as bytes; parameters with the same name keep their
// order. Each parameter keeps its exact bytes (nothing is decoded or re-escaped), and the
// separators stay where they were: "b=2;a=1&c" becomes "a=1;b=2&c". A URL without a query,
// or whose query is already sorted, is returned unchanged. SortQuery is idempotent.
func SortQuery(u string) string {
	q := strings.IndexByte(u, '?')
	if q < 0 || strings.IndexByte(u[:q], '#') >= 0 {
		return u
	}
	end := len(u)
	if f := strings.IndexByte(u[q:], '#'); f >= 0 {
		end = q + f
	}
	query := u[q+1 : end]
	if !strings.ContainsAny(query, "&;") {
		return u
	}
	var params, seps []string
	start := 0
	for i := 0; i < len(query); i++ {
		if query[i] == '&' || query[i] == ';' {
			params = append(params, query[start:i])
			seps = append(seps, query[i:i+1])
			start = i + 1
		}
	}
	params = append(params, query[start:])
	sorted := slices.Clone(params)
	slices.SortStableFunc(sorted, func(a, b string) int { return strings.Compare(paramName(a), paramName(b)) })
	if slices.Equal(sorted, params) {
		return u
	}
	var b strings.Builder
	b.Grow(len(u))
	b.WriteString(u[:q+1])
	for i, p := range sorted {
		if i > 0 {
			b.WriteString(seps[i-1])
		}
		b.WriteString(p)
	}
	b.WriteString(u[end:])
	return b.String()
}

// paramName is the name of a query parameter: its bytes before the first "=".
func paramName(p string) string {
	if i := strings.IndexByte(p, '='); i >= 0 {
		return p[:i]
	}
	return p
}
