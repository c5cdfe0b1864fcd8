// Copyright 2010 The Go Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// This file is the unescaping half of escape.go of golang.org/x/net/html at v0.62.0.
// unescapeEntity is unchanged; x/net's unescape, which rewrites its argument in place, is
// replaced by cook, which appends to a buffer and also does the newline and NUL conversions
// that x/net runs as separate passes before it.

package htmltok

import "unicode/utf8"

// These replacements permit compatibility with old numeric entities that
// assumed Windows-1252 encoding.
// https://html.spec.whatwg.org/multipage/syntax.html#consume-a-character-reference
var replacementTable = [...]rune{
	'\u20AC', // First entry is what 0x80 should be replaced with.
	'\u0081',
	'\u201A',
	'\u0192',
	'\u201E',
	'\u2026',
	'\u2020',
	'\u2021',
	'\u02C6',
	'\u2030',
	'\u0160',
	'\u2039',
	'\u0152',
	'\u008D',
	'\u017D',
	'\u008F',
	'\u0090',
	'\u2018',
	'\u2019',
	'\u201C',
	'\u201D',
	'\u2022',
	'\u2013',
	'\u2014',
	'\u02DC',
	'\u2122',
	'\u0161',
	'\u203A',
	'\u0153',
	'\u009D',
	'\u017E',
	'\u0178', // Last entry is 0x9F.
	// 0x00->'\uFFFD' is handled programmatically.
	// 0x0D->'\u000D' is a no-op.
}

// unescapeEntity attempts to consume a character reference from s[src:],
// returning the rune, potential second rune, and number of bytes consumed
// (which indicates the length of the character reference). It is assumed that
// the first byte of s is '&'. attribute should be true if parsing an attribute
// value.
func unescapeEntity(s []byte, attribute bool) (rune, rune, int) {
	// https://html.spec.whatwg.org/multipage/syntax.html#consume-a-character-reference

	// i starts at 1 because we already know that s[0] == '&'.
	i := 1

	if len(s) <= 1 {
		return '&', 0, 1
	}

	if s[i] == '#' {
		if len(s) <= 2 { // We need to have at least "&#".
			return '&', 0, 1
		}
		i++
		c := s[i]
		hex := false
		if c == 'x' || c == 'X' {
			hex = true
			i++
		}

		i0 := i
		x := '\x00'
		for i < len(s) {
			c = s[i]
			var d rune
			var mult rune
			if hex {
				mult = 16
				if '0' <= c && c <= '9' {
					d = rune(c) - '0'
				} else if 'a' <= c && c <= 'f' {
					d = rune(c) - 'a' + 10
				} else if 'A' <= c && c <= 'F' {
					d = rune(c) - 'A' + 10
				} else {
					break
				}
			} else {
				mult = 10
				if '0' <= c && c <= '9' {
					d = rune(c) - '0'
				} else {
					break
				}
			}
			if x <= 0x10FFFF {
				x = mult*x + d
			}
			i++
		}

		if i == i0 { // No characters matched.
			return '&', 0, 1
		}

		if i < len(s) && s[i] == ';' {
			i++
		}

		if 0x80 <= x && x <= 0x9F {
			// Replace characters from Windows-1252 with UTF-8 equivalents.
			x = replacementTable[x-0x80]
		} else if x == 0 || (0xD800 <= x && x <= 0xDFFF) || x > 0x10FFFF {
			// Replace invalid characters with the replacement character.
			x = '\uFFFD'
		}

		return x, 0, i
	}

	// Consume the maximum number of characters possible, with the
	// consumed characters matching one of the named references.

	for i < len(s) {
		c := s[i]
		i++
		// Lower-cased characters are more common in entities, so we check for them first.
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' {
			continue
		}
		if c != ';' {
			i--
		}
		break
	}

	entityName := string(s[1:i])
	if entityName == "" {
		// No-op.
	} else if attribute && entityName[len(entityName)-1] != ';' && len(s) > i && s[i] == '=' {
		// No-op.
	} else if x := entity[entityName]; x != 0 {
		return x, 0, i
	} else if x := entity2[entityName]; x[0] != 0 {
		return x[0], x[1], i
	} else if !attribute {
		maxLen := min(len(entityName)-1, longestEntityWithoutSemicolon)
		for j := maxLen; j > 1; j-- {
			if x := entity[entityName[:j]]; x != 0 {
				return x, 0, j + 1
			}
		}
	}

	return '&', 0, 1
}

// cooking says what cook does to the bytes it is given.
type cooking uint8

const (
	cookNUL       cooking = 1 << iota // NUL becomes U+FFFD
	cookNewlines                      // "\r\n" and "\r" become "\n"
	cookUnescape                      // character references are replaced
	cookAttribute                     // ... as in an attribute value (with cookUnescape)
)

// cookedBy is, for each byte, the cooking that changes it.
var cookedBy = [256]cooking{0: cookNUL, '\r': cookNewlines, '&': cookUnescape}

// needsCook reports whether cook(dst, s, how) would return anything but s.
func needsCook(s []byte, how cooking) bool {
	for _, c := range s {
		if cookedBy[c]&how != 0 {
			return true
		}
	}
	return false
}

// cook appends s to dst converted as how says, in one pass, with the same result as x/net's
// passes over a copy of s: newlines converted, then NULs, then references unescaped. The
// order does not matter: a character reference (its name or digits, and the ';' or '=' read
// after it) holds no CR or NUL, and what a reference gives is not converted again, so
// reading references in s itself finds the same ones as reading them in the converted bytes.
func cook(dst, s []byte, how cooking) []byte {
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == 0 && how&cookNUL != 0:
			dst = append(dst, "\uFFFD"...)
			i++
		case c == '\r' && how&cookNewlines != 0:
			dst = append(dst, '\n')
			i++
			if i < len(s) && s[i] == '\n' {
				i++
			}
		case c == '&' && how&cookUnescape != 0:
			r1, r2, n := unescapeEntity(s[i:], how&cookAttribute != 0)
			dst = utf8.AppendRune(dst, r1)
			if r2 != 0 {
				dst = utf8.AppendRune(dst, r2)
			}
			i += n
		default:
			// Copy the run of bytes up to the next one to convert at once.
			j := i + 1
			for j < len(s) && cookedBy[s[j]]&how == 0 {
				j++
			}
			dst = append(dst, s[i:j]...)
			i = j
		}
	}
	return dst
}
