package frontier

import "hash/maphash"

// knownCache remembers recently met URLs that the store holds, so that AddBatch and Reject
// can answer for a URL seen again (a site's navigation links, on every page) without reading
// the store. It remembers whether each URL was only rejected, as AddBatch still adds those.
//
// A URL is known by two 64-bit hashes with seeds chosen afresh by every Open, so that a URL
// taken for another one is out of the question: a look-up compares 110 bits that its set does
// not fix with at most knownWays entries, a chance of about 2^-108 of taking one URL for
// another, 2^-78 over a billion look-ups. What the cache holds can only go stale
// in the safe direction: a URL the store holds stays in it, queued, done or failed for good;
// only a rejected one can be added later, and an entry that says "rejected" sends AddBatch to
// the store.
//
// It is a fixed array of sets of knownWays entries, each set kept in most-recently-used
// order: no allocation after Open, nothing for the garbage collector to scan.
type knownCache struct {
	seed1, seed2 maphash.Seed
	sets         [][knownWays]knownEntry
}

// knownWays is the number of entries of a set (64 bytes: a cache line).
const knownWays = 4

// knownSize is the number of URLs the cache holds: 4 MiB.
const knownSize = 1 << 18

// knownEntry is a URL's hashes; bit 0 of b is set for a URL only rejected, bit 1 always (so
// that no entry is all zeros, the empty one).
type knownEntry struct{ a, b uint64 }

const (
	knownRejected = 1
	knownUsed     = 2
)

// knownKey is a URL's entry (without its rejected bit).
type knownKey knownEntry

func newKnownCache(size int) *knownCache {
	return &knownCache{
		seed1: maphash.MakeSeed(),
		seed2: maphash.MakeSeed(),
		sets:  make([][knownWays]knownEntry, max(size/knownWays, 1)),
	}
}

// key hashes url; it needs no lock.
func (k *knownCache) key(url string) knownKey {
	return knownKey{maphash.String(k.seed1, url), maphash.String(k.seed2, url)&^knownRejected | knownUsed}
}

func (k *knownCache) set(key knownKey) *[knownWays]knownEntry {
	return &k.sets[key.a%uint64(len(k.sets))]
}

// lookup reports whether the store holds the URL (known) and, if so, whether it is only
// rejected, as far as the cache knows; a URL found becomes the most recently used.
func (k *knownCache) lookup(key knownKey) (known, rejected bool) {
	s := k.set(key)
	for i := range s {
		if e := s[i]; e.a == key.a && e.b&^knownRejected == key.b {
			copy(s[1:i+1], s[:i])
			s[0] = e
			return true, e.b&knownRejected != 0
		}
	}
	return false, false
}

// add records that the store holds the URL, rejected or not, as the most recently used.
func (k *knownCache) add(key knownKey, rejected bool) {
	e := knownEntry(key)
	if rejected {
		e.b |= knownRejected
	}
	s := k.set(key)
	i := 0
	for i < knownWays-1 && !(s[i].a == key.a && s[i].b&^knownRejected == key.b) {
		i++
	}
	copy(s[1:i+1], s[:i])
	s[0] = e
}
