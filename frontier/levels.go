package frontier

import (
	"encoding/binary"
	"fmt"
	"math"
	"time"
)

// Priority levels: Config.Levels (FAST's workqueue_priority).
//
// Every queued URL has a level, 1 (the highest) to Levels.N. A host's queue is ordered by
// level, then Priority, then the order of adding (the level is the high half of the key's
// priority field, so a key of a URL without levels is the key it always had). A host waits
// in the ready queue of its best level: the lowest level among its queued URLs. Claim picks
// a level by Levels.Pick among the levels whose ready queue holds a host; a level whose hosts
// are all busy, waiting for their delay or for a site place has none in its ready queue and
// yields to the others.
//
// Nothing of this is persisted but the level of each queued URL (in its key and record): the
// per-host counts are rebuilt from the keys on Open, the round robin starts afresh.

// Pick is how Claim chooses a priority level (FAST's pop_scheme).
type Pick uint8

const (
	// PickWRR is weighted round robin: over a run of claims, each level whose ready queue
	// holds a host is picked in proportion to its share (smooth weighted round robin, as
	// nginx's upstreams). FAST's default.
	PickWRR Pick = iota
	// PickRR takes the levels in turn.
	PickRR
	// PickPri takes the best (lowest-numbered) level that has a claimable URL.
	PickPri
)

// String returns the pick's name: wrr, rr or pri.
func (p Pick) String() string {
	switch p {
	case PickWRR:
		return "wrr"
	case PickRR:
		return "rr"
	case PickPri:
		return "pri"
	}
	return fmt.Sprintf("Pick(%d)", uint8(p))
}

// MaxLevels is the largest Levels.N.
const MaxLevels = 1024

// Levels configures the priority levels of the queue.
type Levels struct {
	// N is the number of levels, 1 (the highest) to N, at most MaxLevels. 0 or 1: one level;
	// Claim works as without levels and URL.Level is stored but not used.
	N int
	// Default is the level of a URL whose Level is 0, among them the URLs queued before the
	// crawl had levels. Default 0: level 1.
	Default int
	// Pick is how Claim chooses a level. Default PickWRR.
	Pick Pick
	// Shares[i] is the weight of level i+1 under PickWRR; a level without a share (beyond
	// the slice, or 0) has weight 1.
	Shares []int
}

// check validates the levels (with N > 1).
func (l Levels) check() error {
	switch {
	case l.N < 0 || l.N > MaxLevels:
		return fmt.Errorf("%w: Levels.N %d outside 0..%d", ErrConfig, l.N, MaxLevels)
	case l.N <= 1:
		return nil
	case l.Default < 0 || l.Default > l.N:
		return fmt.Errorf("%w: Levels.Default %d outside 1..%d", ErrConfig, l.Default, l.N)
	case l.Pick > PickPri:
		return fmt.Errorf("%w: Levels.Pick %v", ErrConfig, l.Pick)
	case len(l.Shares) > l.N:
		return fmt.Errorf("%w: %d Levels.Shares for %d levels", ErrConfig, len(l.Shares), l.N)
	}
	for i, s := range l.Shares {
		if s < 0 {
			return fmt.Errorf("%w: negative share of level %d", ErrConfig, i+1)
		}
	}
	return nil
}

// levelState is the frontier's state of priority levels; guarded by Frontier.mu.
type levelState struct {
	cfg    Levels
	ready  []readyQueue // ready[l-1]: the ready hosts whose best level is l
	share  []int64      // weight of each level (PickWRR)
	cur    []int64      // current weight of each level (PickWRR)
	next   int          // PickRR: the level (0-based) tried first by the next claim
	tried  []bool       // scratch of claimLevels: levels found without a claimable host
	active []int        // scratch of claimLevels: levels that could be picked
}

func newLevelState(cfg Levels) *levelState {
	if cfg.Default == 0 {
		cfg.Default = 1
	}
	lv := &levelState{
		cfg:   cfg,
		ready: make([]readyQueue, cfg.N),
		share: make([]int64, cfg.N),
		cur:   make([]int64, cfg.N),
		tried: make([]bool, cfg.N),
	}
	for i := range lv.share {
		lv.share[i] = 1
		if i < len(cfg.Shares) && cfg.Shares[i] > 0 {
			lv.share[i] = int64(cfg.Shares[i])
		}
	}
	return lv
}

// level is the effective level of a stored level: 0 is the default, the others are clamped
// to 1..N (a crawl resumed with fewer levels).
func (lv *levelState) level(l int) int {
	if l <= 0 {
		return lv.cfg.Default
	}
	return min(l, lv.cfg.N)
}

// keyPriority is the priority field of u's queue key: its Priority, and with levels its level
// above it.
func (f *Frontier) keyPriority(u *URL) int64 {
	if f.lv == nil {
		return int64(u.Priority)
	}
	u.Level = f.lv.level(u.Level)
	p := min(max(int64(u.Priority), math.MinInt32), math.MaxInt32)
	return int64(u.Level)<<32 + p
}

// keyLevel returns the level held in a q/ key (0 for a key written without levels), which
// parseQueueKey has accepted.
func keyLevel(k []byte) int {
	rest := k[len(prefixQueue):]
	n, w := binary.Uvarint(rest)
	p := int64(binary.BigEndian.Uint64(rest[w+int(n):]) ^ (1 << 63))
	return int(p >> 32)
}

// count adds d to h's queued URLs of level l (effective). It needs f.mu held and levels.
func (lv *levelState) count(h *host, l, d int) {
	if h.levels == nil {
		h.levels = make([]int32, lv.cfg.N)
	}
	h.levels[l-1] += int32(d)
}

// best is the level of h's ready queue: the lowest level with queued URLs (the default when
// its counts say none, which a load corrects).
func (lv *levelState) best(h *host) int {
	for i, n := range h.levels {
		if n > 0 {
			return i + 1
		}
	}
	return lv.cfg.Default
}

// recount sets h's level counts from its buffer, once the buffer holds all its queue.
func (lv *levelState) recount(h *host) {
	clear(h.levels)
	for i := range h.buf {
		lv.count(h, lv.level(h.buf[i].rec.URL.Level), 1)
	}
}

// pushReady puts h in the ready queue of its best level, unless it is there already. It
// needs f.mu held.
func (f *Frontier) pushReady(h *host) {
	if f.lv == nil {
		if !h.inReady {
			f.ready.push(h)
		}
		return
	}
	l := f.lv.best(h)
	if h.inReady && h.readyLevel == l {
		return
	}
	h.readyLevel = l
	f.lv.ready[l-1].push(h) // an entry in another level's queue is no longer valid
}

// pushReadyFront puts h, in the ready queue, first in line.
func (f *Frontier) pushReadyFront(h *host) {
	if f.lv == nil {
		f.ready.pushFront(h)
		return
	}
	h.readyLevel = f.lv.best(h)
	f.lv.ready[h.readyLevel-1].pushFront(h)
}

// claimLevels is claimLocked with levels: it picks a level by Levels.Pick among those with
// ready hosts, and the next level when that one has nothing claimable now.
func (f *Frontier) claimLevels(now time.Time) (*Claim, *host) {
	lv := f.lv
	clear(lv.tried)
	for {
		lv.active = lv.active[:0]
		for i := range lv.ready {
			if !lv.tried[i] && lv.ready[i].head < len(lv.ready[i].q) {
				lv.active = append(lv.active, i)
			}
		}
		if len(lv.active) == 0 {
			return nil, nil
		}
		i := lv.pick()
		c, load := f.claimFrom(&lv.ready[i], now)
		if load != nil {
			return nil, load // claimed again once loaded, from the same place in line
		}
		if c == nil {
			lv.tried[i] = true
			continue
		}
		lv.picked(i)
		return c, nil
	}
}

// pick chooses among the active levels (0-based, ascending).
func (lv *levelState) pick() int {
	switch lv.cfg.Pick {
	case PickPri:
		return lv.active[0]
	case PickRR:
		for _, i := range lv.active {
			if i >= lv.next {
				return i
			}
		}
		return lv.active[0]
	}
	best := lv.active[0]
	for _, i := range lv.active[1:] {
		if lv.cur[i]+lv.share[i] > lv.cur[best]+lv.share[best] {
			best = i
		}
	}
	return best
}

// picked records a claim from level i (0-based) among the active levels.
func (lv *levelState) picked(i int) {
	switch lv.cfg.Pick {
	case PickRR:
		lv.next = (i + 1) % len(lv.ready)
	case PickWRR:
		// Smooth weighted round robin among the levels that could be picked; a level that
		// could not keeps no credit.
		var total int64
		k := 0
		for j := range lv.cur {
			if k < len(lv.active) && lv.active[k] == j {
				k++
				lv.cur[j] += lv.share[j]
				total += lv.share[j]
				continue
			}
			lv.cur[j] = 0
		}
		lv.cur[i] -= total
	}
}
