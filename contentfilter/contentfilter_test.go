package contentfilter

import (
	"testing"
)

// TestMatchType: FAST's wildcards stand for a whole field, and types match in any case.
func TestMatchType(t *testing.T) {
	for _, tt := range []struct {
		patterns []string
		mt       string
		want     bool
	}{
		{[]string{"text/html"}, "text/html", true},
		{[]string{"text/html"}, "TEXT/HTML", true},
		{[]string{"Text/Html"}, "text/html", true},
		{[]string{"text/html"}, "text/htmlx", false},
		{[]string{"text/html"}, "text/plain", false},
		{[]string{"text/*"}, "text/plain", true},
		{[]string{"text/*"}, "texts/plain", false},
		{[]string{"text/*"}, "application/text", false},
		{[]string{"*/xml"}, "application/xml", true},
		{[]string{"*/xml"}, "application/rss+xml", false},
		{[]string{"*/*"}, "application/octet-stream", true},
		{[]string{"application/pdf", "text/*"}, "text/csv", true},
		{nil, "text/html", false},
	} {
		if got := MatchType(tt.patterns, tt.mt); got != tt.want {
			t.Errorf("MatchType(%q, %q) = %v, want %v", tt.patterns, tt.mt, got, tt.want)
		}
	}
}

// cookieSite sets a session cookie and one with Max-Age on /, which links to /p/1 and /p/2;
// it records the Cookie header each /p/ page was asked with.
