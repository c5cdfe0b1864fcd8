package extract

import (
	"bytes"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/amber-crawler/amber/internal/swar"
)

// textBuf accumulates text with runs of white space (Unicode White_Space, which includes
// no-break spaces) collapsed into single spaces, leading white space dropped, and the other
// ASCII control characters (NUL, U+0001-U+001F, DEL) left out. It keeps
// at most limit bytes and a few more; String trims and truncates to exactly the limit.
type textBuf struct {
	b       []byte
	limit   int
	space   bool // white space is pending before the next word
	full    bool // limit reached: further text is dropped
	started bool // a word was written
}

func newTextBuf(limit int) textBuf { return textBuf{limit: limit} }

// sep marks a word boundary, as a block element or <br> does.
func (t *textBuf) sep() { t.space = true }

// write appends text, which may hold invalid UTF-8 (kept as is; String repairs it).
func (t *textBuf) write(text []byte) {
	if t.full {
		return
	}
	for i := 0; i < len(text); {
		// A run of printable ASCII (most of a page's text) is written a stretch at a time: what
		// lies between its runs of two or more spaces, single spaces and all.
		if n := printableASCII(text[i:]); n > 0 {
			r := text[i : i+n]
			i += n
			for len(r) > 0 {
				if r[0] == ' ' {
					t.space = true
					r = r[1:]
					continue
				}
				end := bytes.Index(r, twoSpaces)
				if end < 0 {
					end = len(r)
				}
				chunk, trailing := r[:end], false
				if chunk[len(chunk)-1] == ' ' { // the run's last byte: left pending
					chunk, trailing = chunk[:len(chunk)-1], true
				}
				r = r[end:]
				t.word()
				// Past the limit a byte at a time would stop after the first character that
				// takes the text over it (a space is written only with the character after it):
				// String's repair of invalid UTF-8 can shorten the text, so exactly as much is
				// kept (FuzzTextBuf).
				k := max(t.limit+1-len(t.b), 1)
				if k < len(chunk) && chunk[k-1] == ' ' {
					k++
				}
				t.b = append(t.b, chunk[:min(len(chunk), k)]...)
				t.space = trailing
				if len(t.b) > t.limit {
					t.full = true
					return
				}
			}
			continue
		}
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
			t.word()
			t.b = append(t.b, c)
			i++
		} else {
			r, n := utf8.DecodeRune(text[i:])
			if r != utf8.RuneError && unicode.IsSpace(r) {
				t.space = true
				i += n
				continue
			}
			t.word()
			t.b = append(t.b, text[i:i+n]...)
			i += n
		}
		if len(t.b) > t.limit {
			t.full = true
			return
		}
	}
}

// printableASCII is the length of b's leading run of printable ASCII bytes (0x20 to 0x7e),
// read eight bytes at a time (package swar).
func printableASCII(b []byte) int {
	n := 0
	for len(b)-n >= 8 {
		x := swar.Load(b[n:])
		if m := swar.Less(x, 0x20) | swar.Equal(x, 0x7f) | swar.NonASCII(x); m != 0 {
			return n + swar.First(m)
		}
		n += 8
	}
	for n < len(b) && b[n] >= ' ' && b[n] < 0x7f {
		n++
	}
	return n
}

var twoSpaces = []byte("  ")

// word writes a pending space before the next non-space byte.
func (t *textBuf) word() {
	if t.space && t.started {
		t.b = append(t.b, ' ')
	}
	t.space, t.started = false, true
}

func (t *textBuf) writeString(s string) { t.write([]byte(s)) }

// String returns the text, valid UTF-8, truncated to the limit on a rune boundary.
func (t *textBuf) String() string {
	return cleanText(string(t.b), t.limit)
}

// release returns String and gives the buffer to bodyBufs: t takes no more text.
func (t *textBuf) release() string {
	s := t.String()
	if cap(t.b) <= maxBodyBuf {
		b := t.b[:0]
		bodyBufs.Put(&b)
	}
	t.b, t.full = nil, true
	return s
}

// bodyBufs keep the buffers of pages' body text (see docState) for the next pages: growing a
// new one for every page was a tenth of a crawl's allocation on 5 KB pages. Buffers above
// maxBodyBuf go to the collector.
var bodyBufs = sync.Pool{New: func() any { b := make([]byte, 0, 8<<10); return &b }}

const maxBodyBuf = 1 << 20

// cleanText makes s valid UTF-8 and truncates it to limit bytes on a rune boundary,
// without trailing space.
func cleanText(s string, limit int) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return truncate(strings.TrimRight(s, " "), limit)
}

// collapseText collapses the white space of s as textBuf does and limits it to limit bytes.
func collapseText(s string, limit int) string {
	t := newTextBuf(limit)
	t.writeString(s)
	return t.String()
}
