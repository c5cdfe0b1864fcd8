// Package novelty measures how much of a page's text is new to a crawl when the page is
// captured: the share of its word shingles that no page captured before it had. A page whose
// text is all boilerplate and text seen elsewhere (an edit form holding an article's text, the
// tenth "what links here" list, an old revision identical to the page) scores near 0; an
// article scores high. The reports read the figures to find the URL families that took many
// fetches and gave little new content (package report's waste report).
//
// Text is split into words: maximal runs of letters and digits, lower-cased; a word holding a
// digit counts as the one word "#", so that dates, counters and identifiers (a revision id, a
// byte count, a session id) are not new content. A shingle is four words in a row. A
// shingle is sampled when its 64-bit hash is 0 modulo SampleModulus, a choice that depends on
// the shingle alone, so that the share of new sampled shingles estimates the share of new
// shingles (Broder's containment, by mod-m sampling) in bounded work and memory.
//
// Seen remembers the sampled shingles of the pages it measured in two generations of Bloom
// filters of fixed size: when the newer one holds its capacity, the older one is dropped and
// a new one begun, so memory stays fixed (2 x FilterBytes) whatever the crawl's size, and a
// shingle counts as seen when it was seen in the last one to two generations (about 32,000 to
// 64,000 pages of 500 words). A Bloom filter may take a new shingle for a seen one (2.2% when
// full, fewer below capacity), never the reverse: the measure can understate what is new, never overstate
// it. Seen is safe for concurrent use.
package novelty

import (
	"math/bits"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/amber-crawler/amber/internal/swar"
)

// Shingle and sampling parameters.
const (
	// ShingleWords is the number of words in a shingle.
	ShingleWords = 4
	// SampleModulus: a shingle is sampled when its hash is 0 modulo this.
	SampleModulus = 4
	// FilterBytes is the size of one generation's Bloom filter: 4 MiB.
	FilterBytes = 4 << 20
	// filterHashes is the number of bit positions a shingle sets in a filter.
	filterHashes = 4
	// generationCapacity is the number of shingles a generation holds before the next
	// begins: at 4 bit positions per shingle in 2^25 bits, blocked (inFilter), a false
	// positive rate of 2.2% when it is full.
	generationCapacity = 4_000_000
)

// Measure is how much of a text was new: Shingles is the number of its sampled shingles,
// New the number of those no text measured before had.
type Measure struct {
	Shingles, New int
}

// Little reports whether the text gave little new content: it has sampled shingles, and
// fewer than a fifth of them are new. A text without any sampled shingle (empty, or too
// short) is not judged.
func (m Measure) Little() bool { return m.Shingles > 0 && m.New*5 < m.Shingles }

// appendShingles appends to dst the hash of each sampled shingle of the parts (in order,
// duplicates included) joined by line breaks,
// without joining them: the end of a part ends a word, and shingles run on across parts.
func appendShingles(dst []uint64, parts []string) []uint64 {
	// w0 to w3 are the last four words' hashes, w3 the newest; n counts the words up to four.
	var w0, w1, w2, w3 uint64
	n := 0
	for _, text := range parts {
		for i := 0; i < len(text); {
			// Separators up to the next word.
			if c := text[i]; c < utf8.RuneSelf {
				if asciiWord[c] == 0 {
					i++
					continue
				}
			} else if r, size := utf8.DecodeRuneInString(text[i:]); !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				i += size
				continue
			}
			var h uint64
			h, i = wordAt(text, i)
			w0, w1, w2, w3 = w1, w2, w3, h
			if n < ShingleWords-1 {
				n++
				continue
			}
			if sh := shingleHash(w0, w1, w2, w3); sh%SampleModulus == 0 {
				dst = append(dst, sh)
			}
		}
	}
	return dst
}

// wordAt hashes the word that begins at text[i] and returns its hash and its end. The hash is
// fixed, so that a text samples the same shingles in every process and run: the word's
// lower-cased UTF-8 bytes taken eight at a time, little-endian, the last eight padded with
// zeros, each multiplied into the hash as FNV-1a does a byte (a word with a digit is "#"). An
// ASCII stretch is read eight bytes at a time (SWAR: each byte of a word flagged in its high
// bit), the rest a character at a time.
func wordAt(text string, i int) (uint64, int) {
	const offset, prime = 14695981039346656037, 1099511628211
	h, digit := uint64(offset), false
	var acc uint64 // the bytes of the eight not yet hashed, the first lowest
	accN := 0
	for i < len(text) {
		if accN == 0 && len(text)-i >= 8 {
			if x := swar.LoadString(text[i:]); swar.NonASCII(x) == 0 {
				letters := swar.Between(x|0x2020202020202020, 'a', 'z')
				digits := swar.Between(x, '0', '9')
				lower := x | letters>>2                          // 0x20 at each letter
				stop := ^(letters | digits) & 0x8080808080808080 // the other bytes' high bits
				if stop == 0 {
					h = (h ^ lower) * prime
					digit = digit || digits != 0
					i += 8
					continue
				}
				// The word ends within these eight bytes, at an ASCII separator.
				if k := swar.First(stop); k > 0 {
					keep := uint64(1)<<(8*k) - 1
					h = (h ^ lower&keep) * prime
					digit = digit || digits&keep != 0
					i += k
				}
				return wordHash(h, digit), i
			}
		}
		if c := text[i]; c < utf8.RuneSelf {
			l := asciiWord[c]
			if l == 0 {
				break
			}
			digit = digit || c-'0' < 10
			acc |= uint64(l) << (8 * accN)
			accN++
			i++
		} else {
			r, size := utf8.DecodeRuneInString(text[i:])
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				break
			}
			i += size
			digit = digit || unicode.IsDigit(r)
			var buf [utf8.UTFMax]byte
			for _, b := range buf[:utf8.EncodeRune(buf[:], unicode.ToLower(r))] {
				if accN == 8 {
					h = (h ^ acc) * prime
					acc, accN = 0, 0
				}
				acc |= uint64(b) << (8 * accN)
				accN++
			}
		}
		if accN == 8 {
			h = (h ^ acc) * prime
			acc, accN = 0, 0
		}
	}
	if accN > 0 {
		h = (h ^ acc) * prime
	}
	return wordHash(h, digit), i
}

// wordHash is a word's hash h, or that of "#" for a word with a digit.
func wordHash(h uint64, digit bool) uint64 {
	if digit {
		return 0x23
	}
	return h
}

// shingleHash hashes the shingle of the words hashed w0 to w3, w3 the newest: each word's hash
// rotated by its place in the shingle, so that the order of the words matters, and the whole
// mixed once, so that the low bits the sampling reads are well spread.
func shingleHash(w0, w1, w2, w3 uint64) uint64 {
	return mix(0x9e3779b97f4a7c15 ^ w0 ^ bits.RotateLeft64(w1, 16) ^ bits.RotateLeft64(w2, 32) ^
		bits.RotateLeft64(w3, 48))
}

// asciiWord maps an ASCII byte that is part of a word (a letter or digit) to its lower case,
// and a separator to 0.
var asciiWord = func() (t [utf8.RuneSelf]byte) {
	for c := range utf8.RuneSelf {
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
			t[c] = byte(c)
		case 'A' <= c && c <= 'Z':
			t[c] = byte(c + 'a' - 'A')
		}
	}
	return t
}()

// mix is a 64-bit finaliser (splitmix64's), so that the order of words matters and the low
// bits the sampling reads are well spread.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// Seen is the sampled shingles of the texts measured so far, in two generations of Bloom
// filters (see the package doc).
type Seen struct {
	mu       sync.Mutex // guards the fields below
	cur, old []uint64   // Bloom filters of FilterBytes; old is nil before the first turn
	n        int        // shingles added to cur
	capacity int        // shingles cur takes before a new generation begins
}

// NewSeen returns an empty set.
func NewSeen() *Seen { return newSeen(generationCapacity) }

func newSeen(capacity int) *Seen {
	return &Seen{cur: make([]uint64, FilterBytes/8), capacity: capacity}
}

// Measure returns how much of the text of parts (as if joined by line breaks: a page's title
// and body, say) is new to s, and adds its sampled shingles to s. A shingle repeated within
// the text counts once.
func (s *Seen) Measure(parts ...string) Measure {
	buf := hashBufs.Get().(*[]uint64)
	hs := distinct(appendShingles((*buf)[:0], parts))
	defer func() {
		if cap(hs) <= maxHashBuf {
			*buf = hs
			hashBufs.Put(buf)
		}
	}()
	m := Measure{Shingles: len(hs)}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, h := range hs {
		// Set in the current generation, which reports whether it held h already.
		if inFilter(s.cur, h, true) {
			continue
		}
		if s.old == nil || !inFilter(s.old, h, false) {
			m.New++
		}
		s.n++
		if s.n >= s.capacity {
			s.old, s.cur, s.n = s.cur, make([]uint64, FilterBytes/8), 0
		}
	}
	return m
}

// hashBufs keep the buffers Measure gathers a text's shingles in, for the next texts; those
// above maxHashBuf (a text of some megabytes) go to the collector.
var hashBufs = sync.Pool{New: func() any { b := make([]uint64, 0, 1024); return &b }}

const maxHashBuf = 1 << 16

// distinct removes the repeats from hs in place, keeping the first of each, through an open
// addressing table of twice its length or more (a text's sampled shingles are a few hundred:
// cheaper than sorting them).
func distinct(hs []uint64) []uint64 {
	if len(hs) < 2 {
		return hs
	}
	size := 1 << bits.Len(uint(2*len(hs)-1))
	var small [1024]uint64
	var table []uint64
	if size <= len(small) {
		table = small[:size]
	} else {
		table = make([]uint64, size)
	}
	// 0 marks an empty slot; the hash 0 itself is noted apart.
	out, zero := hs[:0], false
	for _, h := range hs {
		if h == 0 {
			if !zero {
				zero = true
				out = append(out, h)
			}
			continue
		}
		for i := mix(h) & uint64(size-1); ; i = (i + 1) & uint64(size-1) {
			if table[i] == h {
				break
			}
			if table[i] == 0 {
				table[i] = h
				out = append(out, h)
				break
			}
		}
	}
	return out
}

// inFilter reports whether h's bits are all set in f; with set it sets them (and reports
// whether they all were). The filter is blocked: a shingle's filterHashes bits are all in one
// 512-bit block (a cache line), chosen by h, at positions chosen by mix(h), so that a look-up
// reads one line of memory rather than filterHashes; at a generation's capacity its false
// positives are 2.2% (measured, 1,000,000 look-ups) rather than an unblocked filter's 1.6%.
func inFilter(f []uint64, h uint64, set bool) bool {
	const blockWords = 8 // 512 bits
	// h's low bits are the sampling's: the block is chosen by the others.
	n := uint64(len(f) / blockWords)
	var block uint64
	if n&(n-1) == 0 {
		block = (bits.RotateLeft64(h, -2) & (n - 1)) * blockWords // what % gives, without a division
	} else {
		block = (bits.RotateLeft64(h, -2) % n) * blockWords
	}
	bs := f[block : block+blockWords : block+blockWords]
	p := mix(h)
	all := true
	for range filterHashes {
		pos := p & 511
		p >>= 9
		w, b := pos/64, uint64(1)<<(pos%64)
		if bs[w]&b == 0 {
			all = false
			if !set {
				return false
			}
			bs[w] |= b
		}
	}
	return all
}
