// Package jsonstr appends JSON strings exactly as encoding/json writes them, without its
// reflection and without an allocation per string: the hot lines of events.jsonl and
// documents.jsonl are built with it.
package jsonstr

import (
	"unicode/utf8"

	"github.com/amber-crawler/amber/internal/swar"
)

const hex = "0123456789abcdef"

// Append appends s to dst as a JSON string, byte for byte what json.Marshal writes
// (escapeHTML true) or what a json.Encoder with SetEscapeHTML(false) writes (escapeHTML
// false): `"` and `\` escaped, \b \f \n \r \t as such, other control bytes as \u00XX, invalid
// UTF-8 as \ufffd, U+2028 and U+2029 escaped, and with escapeHTML <, > and & as \u003c,
// \u003e and \u0026.
func Append(dst []byte, s string, escapeHTML bool) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		// Eight bytes at a time while none needs a look (most of a page's text).
		for len(s)-i >= 8 {
			if m := special(swar.LoadString(s[i:]), escapeHTML); m != 0 {
				i += swar.First(m)
				break
			}
			i += 8
		}
		if i >= len(s) {
			break
		}
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && (!escapeHTML || (b != '<' && b != '>' && b != '&')) {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// special flags the bytes of the eight in x (package swar) that Append cannot copy as they
// are: control bytes, '"', '\\', the bytes of multi-byte runes, and with escapeHTML '<', '>'
// and '&'.
func special(x uint64, escapeHTML bool) uint64 {
	m := swar.Less(x, 0x20) | swar.NonASCII(x) | swar.Equal(x, '"') | swar.Equal(x, '\\')
	if escapeHTML {
		m |= swar.Equal(x, '<') | swar.Equal(x, '>') | swar.Equal(x, '&')
	}
	return m
}

// AppendArray appends ss as a JSON array of strings ([] when empty, never null).
func AppendArray(dst []byte, ss []string, escapeHTML bool) []byte {
	dst = append(dst, '[')
	for i, s := range ss {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = Append(dst, s, escapeHTML)
	}
	return append(dst, ']')
}
