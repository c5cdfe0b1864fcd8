package scope

import (
	"sort"
)

// rnode is a node of a radix tree of string prefixes. Trees are persistent: insert copies the
// nodes on the path it changes, so readers holding an old root are never disturbed.
type rnode struct {
	label string   // edge label from the parent (empty for the root)
	term  bool     // a prefix ends here
	ids   []int32  // rules whose prefix ends here (rule trees only)
	kids  []*rnode // sorted by label[0], labels non-empty
}

// child returns the kid whose label starts with c, or nil.
func (n *rnode) child(c byte) *rnode {
	kids := n.kids
	if len(kids) <= 8 {
		for _, k := range kids {
			if k.label[0] == c {
				return k
			}
		}
		return nil
	}
	lo, hi := 0, len(kids)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		switch k := kids[m]; {
		case k.label[0] == c:
			return k
		case k.label[0] < c:
			lo = m + 1
		default:
			hi = m
		}
	}
	return nil
}

func commonPrefixLen(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// insert returns a copy of n (nil is an empty tree) with the prefix s added below it; id >= 0
// is recorded on the final node.
func insert(n *rnode, s string, id int32) *rnode {
	c := &rnode{}
	if n != nil {
		*c = *n
		c.kids = append([]*rnode(nil), n.kids...)
	}
	if s == "" {
		c.term = true
		if id >= 0 {
			c.ids = append(append([]int32(nil), c.ids...), id)
		}
		return c
	}
	for i, k := range c.kids {
		if k.label[0] != s[0] {
			continue
		}
		cp := commonPrefixLen(k.label, s)
		if cp == len(k.label) {
			c.kids[i] = insert(k, s[cp:], id)
			return c
		}
		// Split k's edge at cp.
		rest := *k
		rest.label = k.label[cp:]
		mid := &rnode{label: k.label[:cp], kids: []*rnode{&rest}}
		mid = insert(mid, s[cp:], id)
		mid.label = k.label[:cp]
		c.kids[i] = mid
		return c
	}
	leaf := insert(nil, "", id)
	leaf.label = s
	c.kids = append(c.kids, leaf)
	sort.Slice(c.kids, func(i, j int) bool { return c.kids[i].label[0] < c.kids[j].label[0] })
	return c
}

// anyPrefix reports whether some prefix in the tree is a prefix of key.
func (n *rnode) anyPrefix(key []byte) bool {
	for n != nil {
		if n.term {
			return true
		}
		if len(key) == 0 {
			return false
		}
		c := n.child(key[0])
		if c == nil || len(key) < len(c.label) || string(key[:len(c.label)]) != c.label {
			return false
		}
		key = key[len(c.label):]
		n = c
	}
	return false
}

// collect adds to set the ids of every prefix in the tree that is a prefix of key.
func (n *rnode) collect(key []byte, set *idSet) {
	for n != nil {
		for _, id := range n.ids {
			set.add(id)
		}
		if len(key) == 0 {
			return
		}
		c := n.child(key[0])
		if c == nil || len(key) < len(c.label) || string(key[:len(c.label)]) != c.label {
			return
		}
		key = key[len(c.label):]
		n = c
	}
}

// each calls fn with every prefix in the tree, in sorted order.
func (n *rnode) each(prefix string, fn func(string)) {
	if n == nil {
		return
	}
	prefix += n.label
	if n.term {
		fn(prefix)
	}
	for _, k := range n.kids {
		k.each(prefix, fn)
	}
}

// idSet is a set of rule ids, iterated in ascending order. Up to 512 ids need no allocation.
// Like target, it never points into itself.
type idSet struct {
	n     int // number of words in use
	small [8]uint64
	big   []uint64 // when n > len(small)
}

func (s *idSet) init(ids int) {
	s.n = (ids + 63) / 64
	if s.n > len(s.small) {
		s.big = make([]uint64, s.n)
	}
}

func (s *idSet) add(id int32) {
	if s.big != nil {
		s.big[id>>6] |= 1 << (uint(id) & 63)
		return
	}
	s.small[id>>6] |= 1 << (uint(id) & 63)
}

func (s *idSet) words() []uint64 {
	if s.big != nil {
		return s.big
	}
	return s.small[:s.n]
}

// acMatcher is an Aho-Corasick automaton over the canonical URL: it finds, in one pass, the
// rules whose required substring (a contains value or a regex's literal) occurs in the URL.
type acMatcher struct {
	class  [256]uint8 // byte -> class; bytes in no pattern share class 0
	nclass int
	// delta is the full DFA: delta[off+class] is the next state's offset (state*nclass),
	// negated when that state has output (its own or through its suffix links).
	delta []int32
	out   [][]int32 // state -> rule ids of the patterns ending at that state
	hit   []int32   // state -> the state itself or the nearest suffix state with output, -1 if none
	next  []int32   // state -> the nearest proper suffix state with output, -1 if none
}

type acPattern struct {
	s  string
	id int32
}

func newACMatcher(pats []acPattern) *acMatcher {
	a := &acMatcher{}
	a.nclass = 1
	for _, p := range pats {
		for i := 0; i < len(p.s); i++ {
			if a.class[p.s[i]] == 0 && a.nclass < 256 {
				a.class[p.s[i]] = uint8(a.nclass)
				a.nclass++
			}
		}
	}
	// Goto trie.
	type gnode struct{ next map[uint8]int32 }
	nodes := []gnode{{next: map[uint8]int32{}}}
	a.out = [][]int32{nil}
	for _, p := range pats {
		st := int32(0)
		for i := 0; i < len(p.s); i++ {
			c := a.class[p.s[i]]
			nx, ok := nodes[st].next[c]
			if !ok {
				nx = int32(len(nodes))
				nodes = append(nodes, gnode{next: map[uint8]int32{}})
				a.out = append(a.out, nil)
				nodes[st].next[c] = nx
			}
			st = nx
		}
		a.out[st] = append(a.out[st], p.id)
	}
	n := len(nodes)
	nc := a.nclass
	goTo := make([]int32, n*nc) // state numbers, not offsets
	fail := make([]int32, n)
	a.hit = make([]int32, n)
	a.next = make([]int32, n)
	a.hit[0], a.next[0] = -1, -1
	queue := make([]int32, 0, n)
	for c := 0; c < nc; c++ {
		if t, ok := nodes[0].next[uint8(c)]; ok {
			goTo[c] = t
			queue = append(queue, t)
		}
	}
	for len(queue) > 0 {
		st := queue[0]
		queue = queue[1:]
		f := fail[st]
		a.next[st] = a.hit[f]
		if len(a.out[st]) > 0 {
			a.hit[st] = st
		} else {
			a.hit[st] = a.next[st]
		}
		for c := 0; c < nc; c++ {
			if t, ok := nodes[st].next[uint8(c)]; ok {
				fail[t] = goTo[int(f)*nc+c]
				goTo[int(st)*nc+c] = t
				queue = append(queue, t)
			} else {
				goTo[int(st)*nc+c] = goTo[int(f)*nc+c]
			}
		}
	}
	a.delta = make([]int32, n*nc)
	for i, t := range goTo {
		off := t * int32(nc)
		if a.hit[t] >= 0 {
			off = -off
		}
		a.delta[i] = off
	}
	return a
}

// scan adds to set the ids of every pattern occurring in s.
func (a *acMatcher) scan(s string, set *idSet) {
	delta, class := a.delta, &a.class
	off := int32(0)
	for i := 0; i < len(s); i++ {
		if off == 0 {
			// Most bytes leave the root where it is; these loads do not depend on each other.
			for i < len(s) && delta[class[s[i]]] == 0 {
				i++
			}
			if i == len(s) {
				return
			}
		}
		v := delta[off+int32(class[s[i]])]
		if v >= 0 {
			off = v
			continue
		}
		off = -v
		for o := a.hit[off/int32(a.nclass)]; o >= 0; o = a.next[o] {
			for _, id := range a.out[o] {
				set.add(id)
			}
		}
	}
}
