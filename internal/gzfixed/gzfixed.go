// Package gzfixed writes short inputs as gzip members (RFC 1952) whose DEFLATE data (RFC 1951)
// is one block with the fixed Huffman codes, as zlib's Z_FIXED strategy does.
//
// A WARC file stores each record as its own gzip member, and most records of a crawl are short:
// the request, the metadata, the responses of small pages and redirects. For them a general
// compressor spends most of its time building the member's Huffman tables (klauspost/compress
// at every level: 20 to 30 µs a member, profiled on make bench-scale), about as long as a
// crawler takes to parse the page. The fixed codes need no tables: a member costs a greedy
// LZ77 pass over the input and the bit writing, a few microseconds. For inputs of a few hundred
// bytes the fixed codes are about as short as dynamic ones, whose tables take 60 to 100 bytes
// of the block; past a few kilobytes dynamic codes win (see MaxInput).
//
// The output is plain gzip: any reader decodes it.
package gzfixed

import (
	"encoding/binary"
	"hash/crc32"
	"math/bits"
)

// MaxInput is the largest input Append takes: the DEFLATE window (32 KiB), so that every
// match's distance fits. Callers use it for much shorter inputs (see package doc).
const MaxInput = 32 << 10

const (
	hashBits = 12
	minMatch = 4
	maxMatch = 258
)

// header is a gzip member header: no name, no time, the "fastest" flag (XFL 4, as
// klauspost/compress writes for its fast levels) and an unknown OS (255).
var header = [10]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 4, 255}

// Encoder appends gzip members; its zero value is ready. Not safe for concurrent use: it holds
// the match table it reuses from one member to the next.
type Encoder struct {
	table [1 << hashBits]int32 // 1 + position of the last 4 bytes with this hash, 0 for none
	bits  uint64               // bits not yet written, lowest first
	nbits uint
	out   []byte
}

// Append appends to dst a gzip member that holds p and returns the extended slice. It panics
// when p is longer than MaxInput.
func (e *Encoder) Append(dst, p []byte) []byte {
	if len(p) > MaxInput {
		panic("gzfixed: input longer than MaxInput")
	}
	e.out = append(dst, header[:]...)
	e.bits, e.nbits = 0, 0
	e.put(1, 1) // BFINAL
	e.put(1, 2) // BTYPE 01: fixed Huffman codes
	e.encode(p)
	e.putCode(litCodes[256]) // end of block
	if e.nbits > 0 {
		e.out = append(e.out, byte(e.bits))
		for e.nbits > 8 {
			e.bits >>= 8
			e.nbits -= 8
			e.out = append(e.out, byte(e.bits))
		}
		e.bits, e.nbits = 0, 0
	}
	e.out = binary.LittleEndian.AppendUint32(e.out, crc32.ChecksumIEEE(p))
	e.out = binary.LittleEndian.AppendUint32(e.out, uint32(len(p)))
	out := e.out
	e.out = nil
	return out
}

// encode writes p as literals and matches: greedy, the last earlier position with the same
// four bytes (by hash) as the only candidate.
func (e *Encoder) encode(p []byte) {
	clear(e.table[:])
	lit := 0 // start of the literals not yet written
	i := 0
	for i+minMatch <= len(p) {
		v := binary.LittleEndian.Uint32(p[i:])
		h := hash4(v)
		cand := int(e.table[h]) - 1
		e.table[h] = int32(i + 1)
		if cand < 0 || binary.LittleEndian.Uint32(p[cand:]) != v {
			i++
			continue
		}
		n := minMatch + matchLen(p[cand+minMatch:], p[i+minMatch:min(len(p), i+maxMatch)])
		for ; lit < i; lit++ {
			e.putCode(litCodes[p[lit]])
		}
		e.putMatch(n, i-cand)
		// Index the positions a short match covers too, so that later repeats of them are
		// found; of a long one only its last few (indexing them all would cost more than the
		// match saves).
		end := i + n
		if n > 16 {
			i = end - 4
		}
		for i++; i < end && i+minMatch <= len(p); i++ {
			e.table[hash4(binary.LittleEndian.Uint32(p[i:]))] = int32(i + 1)
		}
		i = end
		lit = end
	}
	for ; lit < len(p); lit++ {
		e.putCode(litCodes[p[lit]])
	}
}

func hash4(v uint32) uint32 { return (v * 2654435761) >> (32 - hashBits) }

// matchLen is how many leading bytes a and b share.
func matchLen(a, b []byte) int {
	n := 0
	for len(b)-n >= 8 {
		x := binary.LittleEndian.Uint64(a[n:]) ^ binary.LittleEndian.Uint64(b[n:])
		if x != 0 {
			return n + bits.TrailingZeros64(x)/8
		}
		n += 8
	}
	for n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// putMatch writes a match of length n (3 to 258) at distance d (1 to 32768).
func (e *Encoder) putMatch(n, d int) {
	lc := lengthCode[n]
	e.putCode(litCodes[257+int(lc)])
	if eb := lengthExtra[lc]; eb > 0 {
		e.put(uint64(n-int(lengthBase[lc])), eb)
	}
	dc := distCode(d)
	e.putCode(distCodes[dc])
	if eb := distExtra[dc]; eb > 0 {
		e.put(uint64(d-int(distBase[dc])), eb)
	}
}

// put writes the n low bits of v, lowest first.
func (e *Encoder) put(v uint64, n uint) {
	e.bits |= v << e.nbits
	e.nbits += n
	if e.nbits >= 48 {
		e.out = binary.LittleEndian.AppendUint64(e.out, e.bits)
		// Six bytes are whole; the two above them are written again next time.
		e.out = e.out[:len(e.out)-2]
		e.bits >>= 48
		e.nbits -= 48
	}
}

// putCode writes a Huffman code (stored bit-reversed: put writes lowest first).
func (e *Encoder) putCode(c code) { e.put(uint64(c.bits), uint(c.len)) }

// code is a Huffman code, its bits reversed for writing lowest first.
type code struct {
	bits uint16
	len  uint8
}

var (
	litCodes   [288]code // RFC 1951 §3.2.6
	distCodes  [30]code
	lengthCode [maxMatch + 1]uint8 // match length → length code - 257
	lengthBase = [29]uint16{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59,
		67, 83, 99, 115, 131, 163, 195, 227, 258}
	lengthExtra = [29]uint{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5,
		5, 5, 0}
	distBase = [30]uint32{1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769,
		1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577}
	distExtra = [30]uint{0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11,
		11, 12, 12, 13, 13}
)

func init() {
	for v := range 288 {
		var c, n int
		switch {
		case v < 144:
			c, n = 0x30+v, 8
		case v < 256:
			c, n = 0x190+v-144, 9
		case v < 280:
			c, n = v-256, 7
		default:
			c, n = 0xc0+v-280, 8
		}
		litCodes[v] = code{bits: reverse(c, n), len: uint8(n)}
	}
	for v := range 30 {
		distCodes[v] = code{bits: reverse(v, 5), len: 5}
	}
	for lc := range 29 {
		hi := maxMatch
		if lc < 28 {
			hi = int(lengthBase[lc+1]) - 1 // 227 to 257 for code 284: 258 has its own, 285
		}
		for n := int(lengthBase[lc]); n <= hi; n++ {
			lengthCode[n] = uint8(lc)
		}
	}
}

// distCode is the distance code of distance d.
func distCode(d int) int {
	if d <= 4 {
		return d - 1
	}
	// Codes come in pairs per power of two: 2 × (bit length - 2) + the next bit.
	l := bits.Len32(uint32(d - 1))
	return 2*(l-1) + int((d-1)>>(l-2)&1)
}

// reverse returns the n low bits of c in reverse order.
func reverse(c, n int) uint16 {
	return bits.Reverse16(uint16(c)) >> (16 - n)
}
