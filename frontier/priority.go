package frontier

import (
	"fmt"
	"slices"
	"strings"

	"github.com/amber-crawler/amber/hop"
	"github.com/amber-crawler/amber/scope"
)

// Priority sets priority levels of a crawl's queue (FAST's workqueue_priority;
// politeness.priority in the YAML) by rules on URLs: every queued URL has a level, 1 (the
// highest) to Levels, and claims choose among the levels by Pick (Config.Levels, which
// Priority.Levels gives; WithPriority gives every URL added its level). A seed (a URL queued with no hops) is at level
// Seeds; any other URL at the level of the first rule whose matchers take it, else at
// Default. Politeness still holds: a level whose URLs are all on hosts that are busy, waiting
// for their delay or for a site place yields to the others. The level is stored with the
// URL: a resumed crawl keeps it, and a URL queued before the crawl had levels is at Default.
// Without levels (Levels 0 or 1) nothing changes. A shared frontier (Redis) has at most
// redisfront.MaxLevels levels.
type Priority struct {
	// Levels is the number of levels, at most MaxLevels. Default 0: one level.
	Levels int
	// Default is the level of a URL no rule takes. Default 0: level 1.
	Default int
	// Seeds is the level of the seeds (FAST's start_uri_pri). Default 0: level 1.
	Seeds int
	// Pick is how claims choose a level (FAST's pop_scheme): "wrr" in proportion to Shares
	// (the default), "rr" the levels in turn, "pri" the best level with a claimable URL.
	Pick string
	// Shares are the weights of the levels under wrr, by level; a level without one has 1.
	Shares map[int]int
	// Rules give levels to URLs: the first rule whose Match takes a URL (a rule takes a URL
	// when one of its rules matches it, as a block rule would) gives it its Level.
	Rules []PriorityRule
}

// PriorityRule is one rule of Priority.Rules.
type PriorityRule struct {
	Level int
	Match []scope.Rule // no ip matchers
}

// On reports whether the crawl has priority levels.
func (p Priority) On() bool { return p.Levels > 1 }

// priorityPicks are the values of Priority.Pick.
var priorityPicks = map[string]Pick{"": PickWRR, "wrr": PickWRR, "rr": PickRR, "pri": PickPri}

// PriorityError reports an invalid field of a Priority (Field as written in Go: "Levels",
// "Rules[1].Match").
type PriorityError struct {
	Field string
	Err   error
}

func (e *PriorityError) Error() string {
	return "frontier: priority: " + e.Field + ": " + e.Err.Error()
}
func (e *PriorityError) Unwrap() error { return e.Err }

// Validate reports the first invalid field as a *PriorityError.
func (p Priority) Validate() error {
	fail := func(field, format string, args ...any) error {
		return &PriorityError{Field: strings.TrimPrefix(field, "."), Err: fmt.Errorf(format, args...)}
	}
	if p.Levels < 0 || p.Levels > MaxLevels {
		return fail(".Levels", "%d outside 0..%d", p.Levels, MaxLevels)
	}
	if !p.On() {
		if p.Default > 1 || p.Seeds > 1 || len(p.Shares) > 0 || len(p.Rules) > 0 {
			return fail(".Levels", "levels, shares and rules need levels: 2 or more")
		}
		return nil
	}
	n := p.Levels
	if p.Default < 0 || p.Default > n {
		return fail(".Default", "level %d outside 1..%d", p.Default, n)
	}
	if p.Seeds < 0 || p.Seeds > n {
		return fail(".Seeds", "level %d outside 1..%d", p.Seeds, n)
	}
	if _, ok := priorityPicks[p.Pick]; !ok {
		return fail(".Pick", "%q (want wrr, rr or pri)", p.Pick)
	}
	for l, s := range p.Shares {
		if l < 1 || l > n {
			return fail(".Shares", "level %d outside 1..%d", l, n)
		}
		if s < 1 {
			return fail(".Shares", "share %d of level %d: must be positive", s, l)
		}
	}
	for i, r := range p.Rules {
		field := fmt.Sprintf(".Rules[%d]", i)
		if r.Level < 1 || r.Level > n {
			return fail(field+".Level", "level %d outside 1..%d", r.Level, n)
		}
		if len(r.Match) == 0 {
			return fail(field+".Match", "no rules")
		}
		for _, m := range r.Match {
			if err := m.Validate(); err != nil {
				return fail(field+".Match", "%w", err)
			}
			if m.IP != "" {
				return fail(field+".Match", "%s: ip matchers are not available in priority rules", m)
			}
		}
	}
	return nil
}

// LevelsConfig is the frontier's configuration (Config.Levels) of p.
func (p Priority) LevelsConfig() Levels {
	if !p.On() {
		return Levels{}
	}
	l := Levels{N: p.Levels, Default: max(p.Default, 1), Pick: priorityPicks[p.Pick]}
	if len(p.Shares) > 0 {
		l.Shares = make([]int, p.Levels)
		for lv, s := range p.Shares {
			l.Shares[lv-1] = s
		}
	}
	return l
}

// priorities decides the levels of the URLs the crawl queues.
type priorities struct {
	def, seeds int
	rules      []priorityRule
}

type priorityRule struct {
	level int
	match *scope.Scope // the rules, as block rules
}

// newPriorities compiles p for URLs of a crawl of flavour fl, at most maxURLLength long; nil
// without levels.
func newPriorities(p Priority, fl scope.Flavour, maxURLLength int) (*priorities, error) {
	if !p.On() {
		return nil, nil
	}
	if fl == scope.Elastic {
		fl = scope.Standard // the rules are matched, not the elastic domains
	}
	ps := &priorities{def: max(p.Default, 1), seeds: max(p.Seeds, 1)}
	for i, r := range p.Rules {
		s, err := scope.New(scope.Config{Flavour: fl, Block: r.Match, MaxURLLength: maxURLLength})
		if err != nil {
			return nil, fmt.Errorf("priority rule %d: %w", i+1, err)
		}
		ps.rules = append(ps.rules, priorityRule{level: r.Level, match: s})
	}
	return ps, nil
}

// level is the level of u: Seeds for a seed, else the first rule's that takes it, else Default.
func (ps *priorities) level(u *URL) int {
	if u.Hops == "" {
		return ps.seeds
	}
	for _, r := range ps.rules {
		// As an embed: block rules are the first thing decided for one, in every flavour.
		d := r.match.Decide(scope.Candidate{URL: u.URL, Hops: string(hop.Embed)})
		if !d.In && strings.HasPrefix(d.Reason, scope.ReasonBlockPrefix) {
			return r.level
		}
	}
	return ps.def
}

// levelStore gives every URL added to its Store the level priorities decide (a level set
// already is kept).
type levelStore struct {
	Store
	ps *priorities
}

// Add adds u at its level.
func (s levelStore) Add(u URL) (bool, error) {
	if u.Level == 0 {
		u.Level = s.ps.level(&u)
	}
	return s.Store.Add(u)
}

// AddBatch adds us, each at its level.
func (s levelStore) AddBatch(us []URL) ([]AddResult, error) {
	us = slices.Clone(us)
	for i := range us {
		if us[i].Level == 0 {
			us[i].Level = s.ps.level(&us[i])
		}
	}
	return s.Store.AddBatch(us)
}

// levelCounters is a levelStore of a Store with Counters (the shared frontier).
type levelCounters struct {
	levelStore
	ctr Counters
}

// AddCounter adds to the shared counter key.
func (s levelCounters) AddCounter(key string, delta int64) (int64, error) {
	return s.ctr.AddCounter(key, delta)
}

// WithPriority wraps front so that the URLs it adds get the levels p gives them (a URL with a
// level already keeps it), keeping its Counters; front itself without levels. fl and
// maxURLLength are the crawl's scope flavour and URL length bound, which the rules are matched
// with.
func WithPriority(front Store, p Priority, fl scope.Flavour, maxURLLength int) (Store, error) {
	ps, err := newPriorities(p, fl, maxURLLength)
	if err != nil || ps == nil {
		return front, err
	}
	ls := levelStore{Store: front, ps: ps}
	if ctr, ok := front.(Counters); ok {
		return levelCounters{levelStore: ls, ctr: ctr}, nil
	}
	return ls, nil
}
