package frontier

import (
	"hash/maphash"
	"math/bits"
	"sync"
	"sync/atomic"
)

// keyFilter is a Bloom filter of every URL, digest, metadata and held-capture key the store
// holds (u/, d/, m/ and c/ keys). A key it does not hold is certainly not in the store, so the
// look-ups that find nothing, the usual case for a new outlink, a new payload digest, a new
// document hash or a capture not held yet, read nothing from badger (no transaction, no
// memtable or table search). A key it holds may or may not be in the store (about 1% of absent
// keys), and is read as before.
//
// Every key is added before the transaction that writes it commits (by the writer, in the
// op's apply), and at Open for every key stored, so a key that a reader could find in the
// store is in the filter: a reader that misses it in the filter ran before the key's commit.
// Keys are never removed (the store never deletes u/, d/, m/ or c/ keys); a key added by a
// transaction that then failed only costs a read.
//
// The filter is blocked (each key's bits lie in one 512-bit block: one cache line per look-up)
// and grows in segments, each twice the capacity of the one before, as keys come in. Look-ups
// need no lock; adds hold mu.
type keyFilter struct {
	seed maphash.Seed
	segs atomic.Pointer[[]*filterSeg]

	mu sync.Mutex // guards adds (and growth)
}

// filterSeg is one segment: blocks of 8 words, and the keys it takes before the next one.
type filterSeg struct {
	blocks [][8]atomic.Uint64
	cap    int
	n      int // keys added; guarded by keyFilter.mu
}

const (
	filterBitsPerKey = 10 // about 1% false positives for a blocked filter with 8 bits a key
	filterMinKeys    = 1 << 18
)

// newKeyFilter returns a filter whose first segment takes about keys keys.
func newKeyFilter(keys int) *keyFilter {
	f := &keyFilter{seed: maphash.MakeSeed()}
	segs := []*filterSeg{newFilterSeg(max(keys, filterMinKeys))}
	f.segs.Store(&segs)
	return f
}

func newFilterSeg(keys int) *filterSeg {
	blocks := (keys*filterBitsPerKey + 511) / 512
	return &filterSeg{blocks: make([][8]atomic.Uint64, blocks), cap: keys}
}

// probe derives a key's block and its 8 bits (one in each word of the block) from its hash.
func probe(h uint64, nblocks int) (block int, bitsOf [8]uint64) {
	hi, _ := bits.Mul64(h, uint64(nblocks))
	g := h*0x9e3779b97f4a7c15 | 1
	for i := range bitsOf {
		bitsOf[i] = 1 << (g >> 58)
		g = bits.RotateLeft64(g, 6) * 0xbf58476d1ce4e5b9
	}
	return int(hi), bitsOf
}

// mayHold reports whether the store may hold key; false means it certainly does not.
func (f *keyFilter) mayHold(key []byte) bool {
	h := maphash.Bytes(f.seed, key)
	for _, s := range *f.segs.Load() {
		b, bs := probe(h, len(s.blocks))
		blk := &s.blocks[b]
		hit := true
		for i := range bs {
			if blk[i].Load()&bs[i] == 0 {
				hit = false
				break
			}
		}
		if hit {
			return true
		}
	}
	return false
}

// add records that the store holds (or is about to hold) key.
func (f *keyFilter) add(key []byte) {
	h := maphash.Bytes(f.seed, key)
	f.mu.Lock()
	segs := *f.segs.Load()
	s := segs[len(segs)-1]
	if s.n >= s.cap {
		s = newFilterSeg(2 * s.cap)
		grown := append(segs[:len(segs):len(segs)], s)
		f.segs.Store(&grown)
	}
	s.n++
	b, bs := probe(h, len(s.blocks))
	blk := &s.blocks[b]
	for i := range bs {
		blk[i].Or(bs[i])
	}
	f.mu.Unlock()
}
