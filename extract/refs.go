package extract

import (
	"hash/maphash"

	"github.com/amber-crawler/amber/hop"
)

// refList collects the references found in one body, in document order, in memory bounded
// by its limit rather than by the body: a reference repeated exactly (same value, hop,
// context and flags) is kept once, and with a limit at most limit references are kept.
// Past the limit, an embed, redirect or inferred reference takes the place of the latest
// link (hop.Link) kept, as a page's embeds are part of its capture and its links lead
// elsewhere; a link, or any reference when only non-links are kept, is dropped. Dropped
// counts the distinct (reference, hop) pairs dropped.
type refList struct {
	links []link // in document order; entries with evicted set were dropped later
	limit int    // 0: no limit

	seen    map[link]int // kept references: index in links
	kept    int          // references kept
	linkIdx []int        // indexes of kept hop.Link references, in order

	seed    maphash.Seed
	dropped map[uint64]struct{} // hashes of the (reference, hop) pairs dropped
}

func newRefList(limit int) refList {
	return refList{limit: max(limit, 0), seen: map[link]int{}}
}

// add records l.
func (r *refList) add(l link) {
	if _, dup := r.seen[l]; dup {
		return
	}
	if r.limit > 0 && r.kept >= r.limit {
		if l.hop == hop.Link || len(r.linkIdx) == 0 {
			r.drop(l)
			return
		}
		i := r.linkIdx[len(r.linkIdx)-1]
		r.linkIdx = r.linkIdx[:len(r.linkIdx)-1]
		old := r.links[i]
		delete(r.seen, old)
		r.links[i].evicted = true
		r.kept--
		r.drop(old)
	}
	r.seen[l] = len(r.links)
	if l.hop == hop.Link {
		r.linkIdx = append(r.linkIdx, len(r.links))
	}
	r.links = append(r.links, l)
	r.kept++
	r.compact()
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
	for _, l := range r.links {
		if l.evicted {
			continue
		}
		r.seen[l] = len(out)
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
