package swar

import (
	"math/rand/v2"
	"testing"
)

// first is the index of the first byte of b for which f holds, 8 when none does.
func first(b []byte, f func(byte) bool) int {
	for i, c := range b {
		if f(c) {
			return i
		}
	}
	return 8
}

// TestFirstFlag: for every test, First of the flags is the first byte that passes, byte by
// byte, on words of random bytes drawn to hit the edges (0, 0x1f, 0x20, 0x7f, 0x80, 0xff, the
// compared values and their neighbours).
func TestFirstFlag(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	edges := []byte{0, 1, 0x1f, 0x20, 0x21, '"', '\\', '0', '9', 'a', 'z', 'A', 'Z', '`', '{', 0x7e, 0x7f, 0x80, 0x81, 0xfe, 0xff}
	for range 200_000 {
		var b [8]byte
		for i := range b {
			if r.IntN(2) == 0 {
				b[i] = edges[r.IntN(len(edges))]
			} else {
				b[i] = byte(r.Uint32())
			}
		}
		x := Load(b[:])
		if got := First(NonASCII(x)); got != first(b[:], func(c byte) bool { return c >= 0x80 }) {
			t.Fatalf("NonASCII(% x): first %d", b, got)
		}
		for _, n := range []byte{1, 0x20, 0x21, 0x7f, 0x80} {
			if got, want := First(Less(x, n)), first(b[:], func(c byte) bool { return c < n }); got != want {
				t.Fatalf("Less(% x, %#x): first %d, want %d", b, n, got, want)
			}
		}
		for _, c := range []byte{0, '"', '\\', 0x7f, 0xff} {
			if got, want := First(Equal(x, c)), first(b[:], func(d byte) bool { return d == c }); got != want {
				t.Fatalf("Equal(% x, %#x): first %d, want %d", b, c, got, want)
			}
		}
		var a [8]byte
		for i := range a {
			a[i] = b[i] & 0x7f
		}
		y := Load(a[:])
		for _, rg := range [][2]byte{{'a', 'z'}, {'0', '9'}, {0, 0x7f}, {'A', 'A'}} {
			m := Between(y, rg[0], rg[1])
			for i, c := range a {
				if in := c >= rg[0] && c <= rg[1]; in != (m>>(8*i+7)&1 == 1) {
					t.Fatalf("Between(% x, %q, %q): byte %d flagged %v", a, rg[0], rg[1], i, !in)
				}
			}
		}
	}
	if LoadString("abcdefgh") != Load([]byte("abcdefgh")) {
		t.Error("LoadString and Load differ")
	}
}
