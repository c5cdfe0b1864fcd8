package extract

import (
	"hash/maphash"
	"sync"

	"github.com/amber-crawler/amber/hop"
)

// refList collects the references found in one body, in document order, in memory bounded
// by its limit rather than by the body: a reference repeated exactly (same value, hop,
// context and flags) is kept once, and with a limit at most limit references are kept.
// Past the limit, an embed, redirect or inferred reference takes the place of the latest
// link (hop.Link) kept, as a page's embeds are part of its capture and its links lead
// elsewhere; a link, or any reference when only non-links are kept, is dropped, unless the
// same (reference, hop) pair is kept from elsewhere on the page: then it only clears the
// kept one's nofollow flag or makes it a search document link, as it would without a limit.
// dropCount counts the distinct (reference, hop) pairs dropped.
type refList struct {
	links []link // in document order; entries with evicted set were dropped later
	limit int    // 0: no limit

	seen    map[link]int   // kept references: index in links
	byRef   map[refKey]int // kept (reference, hop) pairs: index in links of one of them
	kept    int            // references kept
	linkIdx []int          // indexes of kept hop.Link references, in order

	seed    maphash.Seed
	dropped map[uint64]struct{} // hashes of the (reference, hop) pairs dropped
}

// refKey is a (reference, hop) pair.
type refKey struct {
	ref string
	hop byte
}

// newRefList returns an empty refList of the given limit, which release may give back for
// the next body: its maps and slices grown for one page serve the next (they were a tenth
// of the bytes a crawl of 5 KB pages allocated).
func newRefList(limit int) *refList {
	r := refLists.Get().(*refList)
	r.limit = max(limit, 0)
	return r
}

var refLists = sync.Pool{New: func() any {
	return &refList{seen: map[link]int{}, byRef: map[refKey]int{}}
}}

// maxPooledRefs bounds the references of a refList kept for reuse.
const maxPooledRefs = 4096

// release empties r and gives it back for reuse; r is not used after.
func (r *refList) release() {
	if cap(r.links) > maxPooledRefs || len(r.seen) > maxPooledRefs {
		return
	}
	clear(r.links[:cap(r.links)]) // the strings they hold
	*r = refList{links: r.links[:0], seen: r.seen, byRef: r.byRef, linkIdx: r.linkIdx[:0]}
	clear(r.seen)
	clear(r.byRef)
	refLists.Put(r)
}

// add records l.
func (r *refList) add(l link) {
	if _, dup := r.seen[l]; dup {
		return
	}
	if r.limit > 0 && r.kept >= r.limit {
		if i, ok := r.byRef[refKey{l.ref, l.hop}]; ok {
			r.merge(i, l)
			return
		}
		if l.hop == hop.Link || len(r.linkIdx) == 0 {
			r.drop(l)
			return
		}
		i := r.linkIdx[len(r.linkIdx)-1]
		r.linkIdx = r.linkIdx[:len(r.linkIdx)-1]
		old := r.links[i]
		delete(r.seen, old)
		if j, ok := r.byRef[refKey{old.ref, old.hop}]; ok && j == i {
			delete(r.byRef, refKey{old.ref, old.hop})
		}
		r.links[i].evicted = true
		r.kept--
		r.drop(old)
	}
	r.seen[l] = len(r.links)
	if _, ok := r.byRef[refKey{l.ref, l.hop}]; !ok {
		r.byRef[refKey{l.ref, l.hop}] = len(r.links)
	}
	if l.hop == hop.Link {
		r.linkIdx = append(r.linkIdx, len(r.links))
	}
	r.links = append(r.links, l)
	r.kept++
	r.compact()
}

// merge folds l into the kept reference i of the same (reference, hop) pair: a reference
// without nofollow clears the flag, an anchor makes i a search document link.
func (r *refList) merge(i int, l link) {
	k := r.links[i]
	m := k
	m.nofollow = k.nofollow && l.nofollow
	m.anchor = k.anchor || l.anchor
	if m == k {
		return
	}
	if _, dup := r.seen[m]; dup {
		return
	}
	delete(r.seen, k)
	r.seen[m] = i
	r.links[i] = m
}

// drop counts l as dropped.
func (r *refList) drop(l link) {
	if r.dropped == nil {
		r.dropped = map[uint64]struct{}{}
		r.seed = maphash.MakeSeed()
	}
	var h maphash.Hash
	h.SetSeed(r.seed)
	h.WriteString(l.ref)
	h.WriteByte(l.hop)
	r.dropped[h.Sum64()] = struct{}{}
}

// compact removes the evicted entries once they are as many as the kept ones, so links stays
// within twice the limit.
func (r *refList) compact() {
	if r.limit == 0 || len(r.links) < 2*r.limit {
		return
	}
	out := r.links[:0]
	r.linkIdx = r.linkIdx[:0]
	clear(r.byRef)
	for _, l := range r.links {
		if l.evicted {
			continue
		}
		r.seen[l] = len(out)
		if _, ok := r.byRef[refKey{l.ref, l.hop}]; !ok {
			r.byRef[refKey{l.ref, l.hop}] = len(out)
		}
		if l.hop == hop.Link {
			r.linkIdx = append(r.linkIdx, len(out))
		}
		out = append(out, l)
	}
	clear(r.links[len(out):])
	r.links = out
}

// dropCount returns the number of distinct (reference, hop) pairs dropped.
func (r *refList) dropCount() int { return len(r.dropped) }
