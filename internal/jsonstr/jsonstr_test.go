package jsonstr

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// reference is what encoding/json writes for s.
func reference(t testing.TB, s string, escapeHTML bool) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(escapeHTML)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

func TestAppendMatchesEncodingJSON(t *testing.T) {
	tests := []struct{ name, s string }{
		{"empty", ""},
		{"plain", "http://example.com/a?b=c"},
		{"quote and backslash", `say "hi" \ bye`},
		{"short escapes", "a\bb\fc\nd\re\tf"},
		{"other control bytes", "\x00\x01\x1f\x7f"},
		{"html", "<a href='x'>&amp;</a>"},
		{"utf-8", "Grüße, 日本語, 🙂"},
		{"invalid utf-8", "a\xffb\xc3(c\xed\xa0\x80d"},
		{"truncated rune at end", "abc\xe6\x97"},
		{"line and paragraph separators", "a\u2028b\u2029c"},
	}
	for _, tt := range tests {
		for _, html := range []bool{true, false} {
			want := reference(t, tt.s, html)
			if got := string(Append([]byte("x"), tt.s, html)); got != "x"+want {
				t.Errorf("%s (escapeHTML %v): Append = %s, want x%s", tt.name, html, got, want)
			}
		}
	}
}

func TestAppendArray(t *testing.T) {
	tests := []struct {
		ss   []string
		want string
	}{
		{nil, `[]`},
		{[]string{}, `[]`},
		{[]string{"a"}, `["a"]`},
		{[]string{"a", "<b>"}, `["a","\u003cb\u003e"]`},
	}
	for _, tt := range tests {
		if got := string(AppendArray(nil, tt.ss, true)); got != tt.want {
			t.Errorf("AppendArray(%q) = %s, want %s", tt.ss, got, tt.want)
		}
	}
}

func FuzzAppend(f *testing.F) {
	for _, s := range []string{"", "a\"b", "\xff\u2028<>&\x00", "日本"} {
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, html bool) {
		if got, want := string(Append(nil, s, html)), reference(t, s, html); got != want {
			t.Errorf("Append(%q, %v) = %s, want %s", s, html, got, want)
		}
	})
}

func BenchmarkAppend(b *testing.B) {
	s := "http://example.com/some/path/page-1234.html?query=value&other=<x>"
	var buf []byte
	b.Run("jsonstr", func(b *testing.B) {
		for range b.N {
			buf = Append(buf[:0], s, true)
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		for range b.N {
			js, _ := json.Marshal(s)
			buf = append(buf[:0], js...)
		}
	})
}

// BenchmarkAppendText is Append on a page's body text (5 KB of prose with some punctuation,
// quotes and a few non-ASCII letters), the longest string of each line of documents.jsonl.
func BenchmarkAppendText(b *testing.B) {
	var sb strings.Builder
	for sb.Len() < 5000 {
		sb.WriteString(`The committee's "annual report" covers 2025–2026 & notes café openings; see page 12. `)
	}
	s := sb.String()
	var buf []byte
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		buf = Append(buf[:0], s, true)
	}
}
