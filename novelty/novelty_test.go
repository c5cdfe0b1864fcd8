package novelty

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// prose returns n words of text that no other seed's text shares (word i of seed s is
// "wSiI" spelled in letters), so its shingles are all distinct from other seeds'.
func prose(seed, n int) string {
	letters := func(v int) string {
		var b []byte
		for {
			b = append(b, byte('a'+v%26))
			v /= 26
			if v == 0 {
				return string(b)
			}
		}
	}
	words := make([]string, n)
	for i := range words {
		words[i] = "w" + letters(seed) + "x" + letters(i)
	}
	return strings.Join(words, " ")
}

func shingles(text string) []uint64 {
	var hs []uint64
	hs = appendShingles(hs, []string{text})
	return hs
}

// TestShinglesNormalise: words are runs of letters and digits, compared lower-cased, and a
// word with a digit is "#" whatever its digits; punctuation, markup-like characters and
// spacing do not change the shingles.
func TestShinglesNormalise(t *testing.T) {
	base := prose(1, 200) + " revision 12345 of 7 December 2026"
	tests := []struct {
		name  string
		text  string
		equal bool
	}{
		{"same text", base, true},
		{"upper case", strings.ToUpper(base), true},
		{"punctuation and markup", "[[" + strings.ReplaceAll(base, " ", "]] '''") + "'''", true},
		{"other numbers", strings.Replace(base, "12345 of 7 December 2026", "99 of 31 December 1999", 1), true},
		{"a word changed", strings.Replace(base, "revision", "version", 1), false},
		{"words in another order", prose(1, 100) + " " + strings.Join(strings.Fields(prose(1, 200))[100:], " ") + " 2026 December of 7 12345 revision", false},
	}
	want := shingles(base)
	if len(want) == 0 {
		t.Fatal("no sampled shingle in 200 words")
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := shingles(tt.text)
			if same := fmt.Sprint(got) == fmt.Sprint(want); same != tt.equal {
				t.Errorf("shingles equal = %v, want %v", same, tt.equal)
			}
		})
	}
}

// TestShinglesSampling: about one shingle in SampleModulus is sampled, and a text shorter
// than a shingle has none.
func TestShinglesSampling(t *testing.T) {
	n := len(shingles(prose(2, 40_000)))
	all := 40_000 - ShingleWords + 1
	if lo, hi := all/SampleModulus*8/10, all/SampleModulus*12/10; n < lo || n > hi {
		t.Errorf("%d shingles sampled of %d, want %d..%d", n, all, lo, hi)
	}
	if got := shingles("three short words"); len(got) != 0 {
		t.Errorf("shingles of three words = %v, want none", got)
	}
}

// TestMeasure: a text is new the first time, not the second; a page of boilerplate around
// new prose is mostly new; an edit form holding text seen before is little new; a shingle
// repeated within a text counts once.
func TestMeasure(t *testing.T) {
	s := NewSeen()
	boiler := prose(100, 120)
	article := boiler + " " + prose(101, 400)
	edit := boiler + " " + prose(102, 150) + " " + prose(101, 400)
	steps := []struct {
		name       string
		text       string
		little     bool
		wantNewMin float64 // share of new shingles at least
		wantNewMax float64 // and at most
	}{
		{"first page", article, false, 1, 1},
		{"same page again", article, true, 0, 0},
		{"another article, same boilerplate", boiler + " " + prose(103, 400), false, 0.6, 0.9},
		{"edit form of the first", edit, false, 0.1, 0.35},
		{"edit form of the first again", edit, true, 0, 0},
		{"empty", "", false, 0, 0},
	}
	for _, st := range steps {
		m := s.Measure(st.text)
		if m.Little() != st.little {
			t.Errorf("%s: Little() = %v (%+v), want %v", st.name, m.Little(), m, st.little)
		}
		if m.Shingles == 0 {
			if st.text != "" {
				t.Errorf("%s: no shingles", st.name)
			}
			continue
		}
		share := float64(m.New) / float64(m.Shingles)
		if share < st.wantNewMin || share > st.wantNewMax {
			t.Errorf("%s: new share %.2f (%+v), want %.2f..%.2f", st.name, share, m, st.wantNewMin, st.wantNewMax)
		}
	}
	r := NewSeen().Measure(prose(7, 50) + " " + prose(7, 50))
	if r.Shingles != r.New || r.Shingles > len(shingles(prose(7, 50)))+2 {
		t.Errorf("repeated text: %+v, want each distinct shingle once and all new", r)
	}
}

// TestSeenGenerations: a shingle seen in the generation before the current one is still seen;
// one seen two generations back is forgotten (memory stays bounded).
func TestSeenGenerations(t *testing.T) {
	s := newSeen(50)
	first := prose(1, 200) // about 50 sampled shingles: fills a generation
	if m := s.Measure(first); m.New != m.Shingles {
		t.Fatalf("first text: %+v, want all new", m)
	}
	if m := s.Measure(prose(2, 100)); m.New != m.Shingles {
		t.Fatalf("second text: %+v, want all new", m)
	}
	if m := s.Measure(first); m.New == m.Shingles {
		t.Errorf("first text after one turn: %+v, want some seen", m)
	}
	for i := 3; i < 12; i++ {
		s.Measure(prose(i, 300))
	}
	if m := s.Measure(first); m.New != m.Shingles {
		t.Errorf("first text after many turns: %+v, want all new again", m)
	}
}

func BenchmarkMeasure(b *testing.B) {
	s := NewSeen()
	texts := make([]string, 64)
	for i := range texts {
		texts[i] = prose(i, 800)
	}
	b.SetBytes(int64(len(texts[0])))
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		s.Measure(texts[i%len(texts)])
	}
}

// refShingles is Shingles written plainly (words cut out rune by rune, lower-cased, then hashed
// eight bytes at a time): the reference the faster Shingles must agree with.
func refShingles(text string, fn func(uint64)) {
	wordHash := func(w string, digit bool) uint64 {
		if digit {
			return 0x23
		}
		var lower []byte
		var buf [utf8.UTFMax]byte
		for _, r := range w {
			lower = append(lower, buf[:utf8.EncodeRune(buf[:], unicode.ToLower(r))]...)
		}
		h := uint64(14695981039346656037)
		for len(lower) > 0 {
			var chunk [8]byte
			lower = lower[copy(chunk[:], lower):]
			h ^= binary.LittleEndian.Uint64(chunk[:])
			h *= 1099511628211
		}
		return h
	}
	var window [ShingleWords]uint64
	n := 0
	for i := 0; i < len(text); {
		start, word, digit := i, false, false
		for i < len(text) {
			r, size := utf8.DecodeRuneInString(text[i:])
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				if word {
					break
				}
				i += size
				start = i
				continue
			}
			word = true
			digit = digit || unicode.IsDigit(r)
			i += size
		}
		if !word {
			break
		}
		window[n%ShingleWords] = wordHash(text[start:i], digit)
		n++
		if n < ShingleWords {
			continue
		}
		h := uint64(0x9e3779b97f4a7c15)
		for k := range ShingleWords {
			h ^= bits.RotateLeft64(window[(n+k)%ShingleWords], 16*k)
		}
		h = mix(h)
		if h%SampleModulus == 0 {
			fn(h)
		}
	}
}

// TestShinglesReference: Shingles samples exactly the shingles of the reference, on prose,
// Unicode (letters, digits and case of other scripts), controls and invalid UTF-8.
func TestShinglesReference(t *testing.T) {
	texts := []string{
		"", "one", "one two three four five six seven eight nine ten",
		prose(1, 300), prose(2, 800),
		"Ünïcödé WÖRDS ärë lower-cased ÄND Σίσυφος ΣΊΣΥΦΟΣ straße STRASSE İstanbul ıi",
		"numbers 2026 r12345 ٣٤ digits ٣ in words x٣y and ＦＵＬＬ width ｗｏｒｄｓ here too",
		"bad \xff\xfe utf8 \xc3 in the \xe2\x82 middle of words wo\xffrd one two three",
		"tabs\tand\nnewlines\r\nand\x00controls\x7f between_words-and-hyphens.dots,commas",
		strings.Repeat("日本語のテキスト 漢字 かな カナ ", 20),
	}
	for _, text := range texts {
		var got, want []uint64
		got = appendShingles(got, []string{text})
		refShingles(text, func(h uint64) { want = append(want, h) })
		if !slices.Equal(got, want) {
			t.Errorf("appendShingles(%.40q) = %d hashes, the reference %d: they differ", text, len(got), len(want))
		}
		// In parts, as Measure takes a page's title and body: as if joined by a line break.
		if i := len(text) / 3; i > 0 {
			var parts []uint64
			parts = appendShingles(parts, []string{text[:i], text[i:]})
			var joined []uint64
			refShingles(text[:i]+"\n"+text[i:], func(h uint64) { joined = append(joined, h) })
			if !slices.Equal(parts, joined) {
				t.Errorf("shingles of %.40q in two parts = %d hashes, joined by a line break %d: they differ", text, len(parts), len(joined))
			}
		}
	}
}

// FuzzShinglesReference: Shingles agrees with the reference on any input.
func FuzzShinglesReference(f *testing.F) {
	f.Add("a b c d e f g h")
	f.Add("Straße 12 ÄÖÜ \xff x")
	f.Fuzz(func(t *testing.T, text string) {
		var got, want []uint64
		got = appendShingles(got, []string{text})
		refShingles(text, func(h uint64) { want = append(want, h) })
		if !slices.Equal(got, want) {
			t.Fatalf("appendShingles(%q) = %x, the reference %x", text, got, want)
		}
	})
}

// TestDistinct: distinct keeps the first of each hash, in order, the hash 0 included, for
// short and long lists (past the table on the stack).
func TestDistinct(t *testing.T) {
	for _, n := range []int{0, 1, 2, 7, 300, 511, 512, 513, 5000} {
		var in, want []uint64
		seen := map[uint64]bool{}
		for i := range n {
			h := mix(uint64(i%(n/3+1))) &^ 3 // repeats, and low bits as the sampling leaves them
			if i%97 == 5 {
				h = 0
			}
			in = append(in, h)
			if !seen[h] {
				seen[h] = true
				want = append(want, h)
			}
		}
		if got := distinct(slices.Clone(in)); !slices.Equal(got, want) {
			t.Errorf("n=%d: distinct kept %d, want %d", n, len(got), len(want))
		}
	}
}
