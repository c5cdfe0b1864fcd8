// Package gzfixed writes inputs as gzip members (RFC 1952) whose DEFLATE data (RFC 1951) is
// one block with Huffman codes set in advance: the fixed codes of RFC 1951 (Append), as zlib's
// Z_FIXED strategy does, or the text codes, dynamic codes built once from a corpus of HTML
// (AppendText, see textcodes.go).
//
// A WARC file stores each record as its own gzip member, and most records of a crawl are
// small: the request, the metadata, the responses of pages of a few kilobytes. For them a
// general compressor spends much of its time building the member's Huffman tables
// (klauspost/compress at every level: 12 to 30 µs a member, profiled on make bench-scale),
// about as long as a crawler takes to parse the page. Codes set in advance need no tables: a
// member costs a greedy LZ77 pass over the input and the bit writing. For inputs of a few
// hundred bytes the fixed codes are about as short as dynamic ones, whose tables take 60 to 100
// bytes of the block; past a kilobyte or two dynamic codes win, by a third on a 5 KB page, as
// the fixed codes spend 8 or 9 bits on every letter. The text codes spend about what a page's
// own dynamic codes would on HTML and text in the languages of the Latin script, and cost
// the bytes of their table in every member (about 100 of them); on other input (images, text in
// other scripts) AppendText declines and the caller uses a general compressor.
//
// The output is plain gzip: any reader decodes it.
package gzfixed

import (
	"cmp"
	"encoding/binary"
	"hash/crc32"
	"math"
	"math/bits"
	"slices"
)

// MaxInput is the largest input Append and AppendText take. Matches reach back at most the
// DEFLATE window (32 KiB) whatever the input's length.
const MaxInput = 64 << 10

const (
	maxHashBits = 14
	minMatch    = 4
	maxMatch    = 258
	window      = 32 << 10
)

// header is a gzip member header: no name, no time, the "fastest" flag (XFL 4, as
// klauspost/compress writes for its fast levels) and an unknown OS (255).
var header = [10]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 4, 255}

// Encoder appends gzip members; its zero value is ready. Not safe for concurrent use: it holds
// the match table it reuses from one member to the next.
type Encoder struct {
	table [1 << maxHashBits]int32 // 1 + position of the last 4 bytes with this hash, 0 for none
	bits  uint64                  // bits not yet written, lowest first
	nbits uint
	out   []byte

	// The symbols of the member being written, counted by AppendText.
	litHist  [numLit]uint32
	distHist [numDist]uint32
}

// Append appends to dst a gzip member that holds p, with the fixed codes, and returns the
// extended slice. It panics when p is longer than MaxInput.
func (e *Encoder) Append(dst, p []byte) []byte {
	return e.appendMember(dst, p, &fixedCodes, false)
}

// AppendText appends to dst a gzip member that holds p, with the text codes, and returns the
// extended slice and true; or, when p's own dynamic codes would make its data notably shorter
// (see textSlack), dst as it was and false. It panics when p is longer than MaxInput.
func (e *Encoder) AppendText(dst, p []byte) ([]byte, bool) {
	// A look first at three stretches of p, at its start, middle and end: when the text
	// codes spend more than notText bits a byte on the bytes of one (compressed images, text
	// in other scripts), p is declined without encoding it.
	for _, at := range [3]int{0, len(p) / 2, len(p) - sampleLen} {
		sample := p[max(at, 0):min(max(at, 0)+sampleLen, len(p))]
		var bits int
		for _, b := range sample {
			bits += int(textCodes.lit[b].len)
		}
		if bits > notText*len(sample) {
			return dst, false
		}
	}
	out := e.appendMember(dst, p, &textCodes, true)
	if e.textCost() > e.dynamicCost()*textSlack {
		return dst, false
	}
	return out, true
}

// appendMember writes p as a member with codes c, counting its symbols when count is set.
func (e *Encoder) appendMember(dst, p []byte, c *codeSet, count bool) []byte {
	if len(p) > MaxInput {
		panic("gzfixed: input longer than MaxInput")
	}
	if count {
		clear(e.litHist[:])
		clear(e.distHist[:])
	}
	e.out = append(dst, header[:]...)
	e.bits, e.nbits = 0, 0
	for _, b := range c.head {
		e.put(uint64(b), 8)
	}
	e.put(c.tail, c.tailBits)
	e.encode(p, c, count)
	e.putCode(c.lit[256]) // end of block
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

// notText is the most bits a byte the text codes may spend, as literals, on a stretch of
// sampleLen bytes of an input before AppendText declines it without encoding it: about 5.5 on
// HTML and English text, 12 to 14 on bytes at random or text in Chinese (UTF-8).
const (
	notText   = 10
	sampleLen = 512
)

// textSlack is how much longer than the estimate of a member's own dynamic codes the text
// codes may make its symbols before AppendText declines (see dynamicCost).
const textSlack = 1.12

// textCost is the bits the counted symbols take with the text codes, their extra bits aside
// (the same whatever the codes), and the text codes' table.
func (e *Encoder) textCost() float64 {
	n := uint64(8*len(textCodes.head)) + uint64(textCodes.tailBits)
	for s, f := range e.litHist {
		n += uint64(f) * uint64(textCodes.lit[s].len)
	}
	for s, f := range e.distHist {
		n += uint64(f) * uint64(textCodes.dist[s].len)
	}
	return float64(n)
}

// dynamicCost estimates the bits the counted symbols would take with the member's own dynamic
// codes, their extra bits aside: their entropy, which Huffman codes approach from above, and a
// table of 70 bytes (what klauspost/compress writes for a page of HTML).
func (e *Encoder) dynamicCost() float64 {
	return entropyBits(e.litHist[:]) + entropyBits(e.distHist[:]) + 70*8
}

// entropyBits is the Shannon entropy of the symbols counted in hist, in bits: the length of
// the shortest code for them, Σ f·log2(N/f).
func entropyBits(hist []uint32) float64 {
	var n uint64
	var sum float64
	for _, f := range hist {
		if f > 0 {
			n += uint64(f)
			sum += float64(f) * math.Log2(float64(f))
		}
	}
	if n == 0 {
		return 0
	}
	return float64(n)*math.Log2(float64(n)) - sum
}

// encode writes p as literals and matches with the codes c, counting the symbols when count is
// set: greedy, the last earlier position with the same four bytes (by hash) within the window
// as the only candidate.
func (e *Encoder) encode(p []byte, c *codeSet, count bool) {
	// A table of about twice as many entries as p has bytes, 1,024 to 16,384: clearing it is
	// a cost of every member.
	hashBits := min(max(bits.Len(uint(len(p))), 10), maxHashBits)
	shift := uint(32 - hashBits)
	table := e.table[:1<<hashBits]
	clear(table)
	lit := 0 // start of the literals not yet written
	i := 0
	for i+minMatch <= len(p) {
		v := binary.LittleEndian.Uint32(p[i:])
		h := hash4(v, shift)
		cand := int(table[h]) - 1
		table[h] = int32(i + 1)
		if cand < 0 || i-cand > window || binary.LittleEndian.Uint32(p[cand:]) != v {
			i++
			continue
		}
		n := minMatch + matchLen(p[cand+minMatch:], p[i+minMatch:min(len(p), i+maxMatch)])
		e.putLiterals(p[lit:i], c, count)
		e.putMatch(n, i-cand, c, count)
		// Index the positions a short match covers too, so that later repeats of them are
		// found; of a long one only its last few (indexing them all would cost more than the
		// match saves).
		end := i + n
		if n > 16 {
			i = end - 4
		}
		for i++; i < end && i+minMatch <= len(p); i++ {
			table[hash4(binary.LittleEndian.Uint32(p[i:]), shift)] = int32(i + 1)
		}
		i = end
		lit = end
	}
	e.putLiterals(p[lit:], c, count)
}

// hash4 is the hash of 4 bytes, of 32 - shift bits.
func hash4(v uint32, shift uint) uint32 { return (v * 2654435761) >> shift }

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

// putLiterals writes the bytes of p as literals with the codes c.
func (e *Encoder) putLiterals(p []byte, c *codeSet, count bool) {
	lit := &c.lit
	for _, b := range p {
		e.putCode(lit[b])
		if count {
			e.litHist[b]++
		}
	}
}

// putMatch writes a match of length n (3 to 258) at distance d (1 to 32768).
func (e *Encoder) putMatch(n, d int, c *codeSet, count bool) {
	lc := lengthCode[n]
	e.putCode(c.lit[257+int(lc)])
	if eb := lengthExtra[lc]; eb > 0 {
		e.put(uint64(n-int(lengthBase[lc])), eb)
	}
	dc := distCode(d)
	e.putCode(c.dist[dc])
	if eb := distExtra[dc]; eb > 0 {
		e.put(uint64(d-int(distBase[dc])), eb)
	}
	if count {
		e.litHist[257+int(lc)]++
		e.distHist[dc]++
	}
}

// put writes the n low bits of v, lowest first; n is at most 16.
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

// The literal/length and distance alphabets (RFC 1951 §3.2.5): 286 and 30 symbols are used.
const (
	numLit  = 286
	numDist = 30
)

// codeSet is the codes a block is written with and the start of the block: BFINAL, BTYPE
// and, for dynamic codes, the code lengths (head's bytes and then tail's tailBits bits).
type codeSet struct {
	lit      [288]code // the fixed codes have codes for 286 and 287 too, which no data uses
	dist     [numDist]code
	head     []byte
	tail     uint64
	tailBits uint
}

var (
	fixedCodes codeSet // RFC 1951 §3.2.6
	textCodes  codeSet // dynamic codes of textLitLengths and textDistLengths

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
	var fixedLit [288]uint8
	for v := range fixedLit {
		switch {
		case v < 144:
			fixedLit[v] = 8
		case v < 256:
			fixedLit[v] = 9
		case v < 280:
			fixedLit[v] = 7
		default:
			fixedLit[v] = 8
		}
	}
	var fixedDist [numDist]uint8
	for v := range fixedDist {
		fixedDist[v] = 5
	}
	canonical(fixedCodes.lit[:], fixedLit[:])
	canonical(fixedCodes.dist[:], fixedDist[:])
	fixedCodes.tail, fixedCodes.tailBits = 1|1<<1, 3 // BFINAL, BTYPE 01: fixed codes
	textCodes = dynamicCodes(textLitLengths[:], textDistLengths[:])
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

// canonical sets codes to the canonical Huffman codes of the code lengths lens (RFC 1951
// §3.2.2), a length of 0 for a symbol without a code.
func canonical(codes []code, lens []uint8) {
	var count, next [16]int
	for _, l := range lens {
		count[l]++
	}
	count[0] = 0
	c := 0
	for l := 1; l < 16; l++ {
		c = (c + count[l-1]) << 1
		next[l] = c
	}
	for s, l := range lens {
		if l > 0 {
			codes[s] = code{bits: reverse(next[l], int(l)), len: l}
			next[l]++
		}
	}
}

// clOrder is the order in which a dynamic block gives the code lengths of the code length
// alphabet (RFC 1951 §3.2.7).
var clOrder = [19]int{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}

// dynamicCodes returns the codes of the code lengths lit (numLit of them) and dist (numDist),
// with the start of a final dynamic block that gives them (RFC 1951 §3.2.7): its code lengths
// run-length coded (code 16 for a run of one length), with codes for them of at most 7 bits.
func dynamicCodes(lit, dist []uint8) codeSet {
	var cs codeSet
	canonical(cs.lit[:], lit)
	canonical(cs.dist[:], dist)
	// The code lengths as symbols of the code length alphabet, each with its extra bits.
	type clSym struct{ sym, extra int }
	var syms []clSym
	lens := append(append([]uint8(nil), lit...), dist...)
	for i := 0; i < len(lens); {
		syms = append(syms, clSym{int(lens[i]), 0})
		run := 1
		for i+run < len(lens) && lens[i+run] == lens[i] {
			run++
		}
		i += run
		run-- // repeats of the length just given
		for run >= 3 {
			n := min(run, 6)
			syms = append(syms, clSym{16, n - 3})
			run -= n
		}
		for ; run > 0; run-- {
			syms = append(syms, clSym{int(lens[i-run]), 0})
		}
	}
	var freq [19]uint32
	for _, s := range syms {
		freq[s.sym]++
	}
	clLens := huffmanLengths(freq[:], 7)
	var clCodes [19]code
	canonical(clCodes[:], clLens)
	hclen := 19
	for hclen > 4 && clLens[clOrder[hclen-1]] == 0 {
		hclen--
	}
	var w bitWriter
	w.put(1, 1) // BFINAL
	w.put(2, 2) // BTYPE 10: dynamic codes
	w.put(uint64(len(lit)-257), 5)
	w.put(uint64(len(dist)-1), 5)
	w.put(uint64(hclen-4), 4)
	for _, s := range clOrder[:hclen] {
		w.put(uint64(clLens[s]), 3)
	}
	for _, s := range syms {
		w.put(uint64(clCodes[s.sym].bits), uint(clCodes[s.sym].len))
		if s.sym == 16 {
			w.put(uint64(s.extra), 2)
		}
	}
	cs.head = w.out
	cs.tail, cs.tailBits = w.bits, w.nbits
	return cs
}

// bitWriter collects bits, lowest first, in whole bytes and up to 7 bits over.
type bitWriter struct {
	out   []byte
	bits  uint64
	nbits uint
}

func (w *bitWriter) put(v uint64, n uint) {
	w.bits |= v << w.nbits
	w.nbits += n
	for w.nbits >= 8 {
		w.out = append(w.out, byte(w.bits))
		w.bits >>= 8
		w.nbits -= 8
	}
}

// huffmanLengths returns the lengths of a Huffman code for symbols of frequencies freq, none
// longer than maxBits (the package-merge algorithm); a symbol of frequency 0 gets none (0).
// A single symbol gets length 1.
func huffmanLengths(freq []uint32, maxBits int) []uint8 {
	lens := make([]uint8, len(freq))
	type item struct {
		w      uint64
		leaves []int // the symbols it holds, a symbol as often as its leaf is in it
	}
	var leaves []item
	for s, f := range freq {
		if f > 0 {
			leaves = append(leaves, item{uint64(f), []int{s}})
		}
	}
	if len(leaves) == 1 {
		lens[leaves[0].leaves[0]] = 1
	}
	if len(leaves) < 2 {
		return lens
	}
	if 1<<maxBits < len(leaves) {
		panic("gzfixed: too many symbols for the longest code")
	}
	slices.SortStableFunc(leaves, func(a, b item) int { return cmp.Compare(a.w, b.w) })
	list := leaves
	for range maxBits - 1 {
		var packages []item
		for j := 0; j+1 < len(list); j += 2 {
			packages = append(packages, item{list[j].w + list[j+1].w, append(slices.Clip(list[j].leaves), list[j+1].leaves...)})
		}
		merged := make([]item, 0, len(leaves)+len(packages))
		i, j := 0, 0
		for i < len(leaves) || j < len(packages) {
			if j == len(packages) || i < len(leaves) && leaves[i].w <= packages[j].w {
				merged = append(merged, leaves[i])
				i++
			} else {
				merged = append(merged, packages[j])
				j++
			}
		}
		list = merged
	}
	for _, it := range list[:2*len(leaves)-2] {
		for _, s := range it.leaves {
			lens[s]++
		}
	}
	return lens
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
