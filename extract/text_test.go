package extract

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// The byte-at-a-time textBuf.write as first written: the reference the faster one must agree
// with.
func refWrite(t *textBuf, text []byte) {
	if t.full {
		return
	}
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			if c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v' {
				t.space = true
				i++
				continue
			}
			if c < ' ' || c == 0x7f {
				// Controls have no visible form (a NUL in body text is dropped by HTML
				// tree construction itself); kept, a body of them would be six times its
				// size in JSON.
				i++
				continue
			}
			refWord(t)
			t.b = append(t.b, c)
			i++
		} else {
			r, n := utf8.DecodeRune(text[i:])
			if r != utf8.RuneError && unicode.IsSpace(r) {
				t.space = true
				i += n
				continue
			}
			refWord(t)
			t.b = append(t.b, text[i:i+n]...)
			i += n
		}
		if len(t.b) > t.limit {
			t.full = true
			return
		}
	}
}

func refWord(t *textBuf) {
	if t.space && t.started {
		t.b = append(t.b, ' ')
	}
	t.space, t.started = false, true
}

// checkTextBuf writes pieces to a textBuf and to the reference, with the separators between
// them, and fails if their text or state differ (a full buffer takes no more text: whether
// white space is pending in it does not matter).
func checkTextBuf(t *testing.T, limit int, pieces []string) {
	t.Helper()
	got, want := newTextBuf(limit), newTextBuf(limit)
	for i, p := range pieces {
		if i%3 == 2 {
			got.sep()
			want.sep()
		}
		got.write([]byte(p))
		refWrite(&want, []byte(p))
	}
	if got.String() != want.String() || (!got.full && got.space != want.space) || got.started != want.started || got.full != want.full {
		t.Fatalf("limit %d, pieces %q:\n got %q (space %v started %v full %v)\nwant %q (space %v started %v full %v)",
			limit, pieces, got.String(), got.space, got.started, got.full, want.String(), want.space, want.started, want.full)
	}
}

// TestTextBufReference: textBuf.write, which copies runs of printable ASCII whole, collapses
// white space, drops controls and keeps invalid UTF-8 exactly as the byte-at-a-time
// reference does, at every limit, on hand-picked and random text in pieces.
func TestTextBufReference(t *testing.T) {
	cases := [][]string{
		{"plain words with single spaces"},
		{"  leading", "trailing  ", " both "},
		{"two  spaces   three    four", "", "end "},
		{"tabs\tand\nnew\r\nlines\f\vmixed \t\n with  spaces"},
		{"controls\x00\x01in\x7fwords\x1f and DEL"},
		{"non-ASCII: café naïve 日本語 \u00a0no-break\u00a0space \u2003em\u3000ideographic"},
		{"invalid \xff\xfe utf8 \xc3 mid\xe2\x82word"},
		{"abcdefgh", "ijklmnop", "qrstuvwx", "y z"},
		{strings.Repeat("word ", 300), strings.Repeat("  x", 100)},
		{" ", " ", "a", " ", "b"},
	}
	for _, pieces := range cases {
		for _, limit := range []int{0, 1, 2, 5, 7, 8, 9, 16, 31, 100, 1 << 20} {
			checkTextBuf(t, limit, pieces)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "b", "Z", " ", " ", "  ", "\n", "\t", "\x00", "\x7f", "é", "\u00a0", "\xff", ".", "~", "日"}
	for range 2000 {
		pieces := make([]string, 1+r.IntN(5))
		for i := range pieces {
			var b strings.Builder
			for range r.IntN(40) {
				b.WriteString(alphabet[r.IntN(len(alphabet))])
			}
			pieces[i] = b.String()
		}
		checkTextBuf(t, r.IntN(60), pieces)
	}
}

// FuzzTextBuf: textBuf.write agrees with the reference on any text, in two pieces.
func FuzzTextBuf(f *testing.F) {
	f.Add("a  b\tc\x00d é\xff", " x ", 10)
	f.Fuzz(func(t *testing.T, a, b string, limit int) {
		checkTextBuf(t, limit&0xffff, []string{a, b})
	})
}
