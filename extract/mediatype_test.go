package extract

import (
	"mime"
	"strings"
	"testing"
)

// mediaTypeReference is MediaType as it was written first: mime.ParseMediaType's media type,
// or for a value it rejects the part before the first ';', trimmed and lower-cased.
func mediaTypeReference(contentType string) string {
	if mt, _, err := mime.ParseMediaType(contentType); err == nil {
		return mt
	}
	mt, _, _ := strings.Cut(contentType, ";")
	return strings.ToLower(strings.TrimSpace(mt))
}

func TestMediaType(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"text/html", "text/html"},
		{"text/html; charset=utf-8", "text/html"},
		{" Text/HTML ;charset=UTF-8", "text/html"},
		{"text/html; charset", "text/html"},       // a malformed parameter
		{"text/html; a=1; a=2", "text/html"},      // a duplicate parameter
		{"text/html;;", "text/html"},              // trailing semicolons
		{"text", "text"},                          // no subtype: rejected by ParseMediaType
		{"text/html junk; q=1", "text/html junk"}, // rejected by ParseMediaType
		{"application/XHTML+xml", "application/xhtml+xml"},
		{"\u212Aa/b", "ka/b"},                       // the Kelvin sign lower-cases to k
		{"\xff/html", "\ufffd/html"},                // invalid UTF-8
		{"\u00a0text/html\u00a0; x=y", "text/html"}, // Unicode spaces
	}
	for _, tt := range tests {
		if got := MediaType(tt.in); got != tt.want {
			t.Errorf("MediaType(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if ref := mediaTypeReference(tt.in); ref != tt.want {
			t.Errorf("reference(%q) = %q, want %q", tt.in, ref, tt.want)
		}
	}
}

func FuzzMediaType(f *testing.F) {
	for _, s := range []string{"text/html; charset=utf-8", " Text/HTML ;", "text", "a/b; c*0=d; c*1=e", "\u212A/x", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := MediaType(s), mediaTypeReference(s); got != want {
			t.Fatalf("MediaType(%q) = %q, reference %q", s, got, want)
		}
	})
}
