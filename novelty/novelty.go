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
// 64,000 pages of 500 words). A Bloom filter may take a new shingle for a seen one (under 2%
// below capacity), never the reverse: the measure can understate what is new, never overstate
// it. Seen is safe for concurrent use.
package novelty

import (
	"math/bits"
	"slices"
	"sync"
	"unicode"
	"unicode/utf8"
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
	// begins: at 4 bit positions per shingle in 2^25 bits, a false positive rate of about
	// 1.6% when it is full.
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

// Shingles calls fn with the hash of each sampled shingle of text, in order, duplicates
// included.
func Shingles(text string, fn func(uint64)) {
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
		var h uint64 = 0x9e3779b97f4a7c15
		for k := range ShingleWords {
			h = mix(h ^ window[(n+k)%ShingleWords])
		}
		if h%SampleModulus == 0 {
			fn(h)
		}
	}
}

// wordHash hashes a word lower-cased (FNV-1a over its UTF-8 bytes), or "#" for a word with a
// digit. The hash is fixed, so that a text samples the same shingles in every process and run.
func wordHash(w string, digit bool) uint64 {
	if digit {
		return 0x23 // "#"
	}
	const offset, prime = 14695981039346656037, 1099511628211
	var h uint64 = offset
	var buf [utf8.UTFMax]byte
	for _, r := range w {
		for _, b := range buf[:utf8.EncodeRune(buf[:], unicode.ToLower(r))] {
			h ^= uint64(b)
			h *= prime
		}
	}
	return h
}

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

// Measure returns how much of text is new to s, and adds its sampled shingles to s. A
// shingle repeated within text counts once.
func (s *Seen) Measure(text string) Measure {
	var hs []uint64
	Shingles(text, func(h uint64) { hs = append(hs, h) })
	slices.Sort(hs)
	hs = slices.Compact(hs)
	m := Measure{Shingles: len(hs)}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, h := range hs {
		if inFilter(s.cur, h, false) {
			continue
		}
		if s.old == nil || !inFilter(s.old, h, false) {
			m.New++
		}
		inFilter(s.cur, h, true)
		s.n++
		if s.n >= s.capacity {
			s.old, s.cur, s.n = s.cur, make([]uint64, FilterBytes/8), 0
		}
	}
	return m
}

// inFilter reports whether h's bits are all set in f; with set it sets them (and reports
// whether they all were).
func inFilter(f []uint64, h uint64, set bool) bool {
	all := true
	nbits := uint64(len(f)) * 64
	h1, h2 := bits.RotateLeft64(h, -2), bits.RotateLeft64(mix(h), 32)|1 // h's low bits are the sampling's
	for k := range uint64(filterHashes) {
		pos := (h1 + k*h2) % nbits
		w, b := pos/64, uint64(1)<<(pos%64)
		if f[w]&b == 0 {
			all = false
			if !set {
				return false
			}
			f[w] |= b
		}
	}
	return all
}
