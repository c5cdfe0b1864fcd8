// Package swar tests the eight bytes of a little-endian word at once (SIMD within a
// register), for the loops that scan page text: each function flags, in its high bit, every
// byte that passes the test. Only the lowest flag is exact: the borrow of a subtraction may
// also flag bytes above a flagged one. Callers read the lowest (First) and nothing else.
package swar

import (
	"encoding/binary"
	"math/bits"
)

const (
	ones = 0x0101010101010101
	high = 0x8080808080808080
)

// Load reads b[0:8], little-endian.
func Load(b []byte) uint64 { return binary.LittleEndian.Uint64(b) }

// LoadString reads s[0:8], little-endian.
func LoadString(s string) uint64 { return binary.LittleEndian.Uint64([]byte(s[:8])) }

// NonASCII flags the bytes of 0x80 and above.
func NonASCII(x uint64) uint64 { return x & high }

// Less flags the bytes below n (n at most 0x80).
func Less(x uint64, n byte) uint64 { return (x - uint64(n)*ones) &^ x & high }

// Equal flags the bytes equal to c.
func Equal(x uint64, c byte) uint64 {
	y := x ^ uint64(c)*ones
	return (y - ones) &^ y & high
}

// Between flags the bytes from lo to hi. Every byte of x must be below 0x80 (NonASCII(x) ==
// 0), so that no sum carries into the next byte; then every flag is exact.
func Between(x uint64, lo, hi byte) uint64 {
	return (x + (0x80-uint64(lo))*ones) &^ (x + (0x7f-uint64(hi))*ones) & high
}

// First is the index (0 to 7) of the lowest flagged byte of m, 8 when none is.
func First(m uint64) int { return bits.TrailingZeros64(m) / 8 }
