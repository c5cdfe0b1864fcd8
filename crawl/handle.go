package crawl

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/amber-crawler/amber/chain"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/scope"
	"github.com/amber-crawler/amber/status"
)

// ErrRefused is wrapped by the error of a change a Handle refuses because of what it was
// asked (a seed that is one already, a rule to unblock that is not a block rule, a negative
// delay): the asker's mistake, not the crawl's failure. The error's text says what is wrong.
var ErrRefused = errors.New("crawl: change refused")

// refusal is a change refused (ErrRefused); its text is err's alone.
type refusal struct{ err error }

func refused(format string, args ...any) error { return &refusal{fmt.Errorf(format, args...)} }

func (r *refusal) Error() string   { return r.err.Error() }
func (r *refusal) Unwrap() []error { return []error{ErrRefused, r.err} }

// metaControlBlock + rule marks a block rule added through a Handle ("1"; "" once it is
// removed): a queued URL it matches is refused when claimed, in this run and the later ones.
const metaControlBlock = "crawl/control/block/"

// Handle is a run's mechanism for live changes, as the services of the run (live control, the
// status server) see it: the pause gate, the URL limit, the scope (seeds added, block rules
// added and removed), operators' host delays, stopping the run, and the run's figures and
// records. Its changes take effect at once and last for the run; it never reads or writes
// crawl.yaml, so keeping a change for later runs is the caller's job (block rules are also
// kept in the frontier, see Block). Its methods are safe for concurrent use. A service gets
// the Handle at Start; it makes changes until it is drained (Service.Drain), and may read the
// figures until it is stopped.
type Handle struct {
	c       *crawler
	stopRun context.CancelFunc // cancels the run, as Ctrl-C
	gate    *claimGate
	limit   atomic.Int64 // Config.LimitURLs, as changed

	mu         sync.Mutex   // serialises changes of the scope and host delays, and seed-redirect promotions
	scopeCfg   scope.Config // the scope configuration now
	blocks     []scope.Rule // block rules added by Block, checked when a URL is claimed
	blockCheck atomic.Pointer[scope.Scope]
	hostDelays map[string]time.Duration // operators' delays: Config.HostDelays, as changed

	starting bool // the services are starting: Watch may be called
}

func newHandle(c *crawler, stopRun context.CancelFunc) *Handle {
	h := &Handle{c: c, stopRun: stopRun, gate: newClaimGate(), scopeCfg: c.cfg.Scope, hostDelays: maps.Clone(c.cfg.HostDelays)}
	if h.hostDelays == nil {
		h.hostDelays = map[string]time.Duration{}
	}
	h.limit.Store(c.cfg.LimitURLs)
	return h
}

// restore applies what earlier runs' changes left in the frontier and the config: the
// operators' host delays, and the block rules to check at claim time.
func (h *Handle) restore() error {
	for host, d := range h.hostDelays {
		h.c.front.SetHostDelayOverride(host, d)
	}
	inScope := map[string]bool{}
	for _, r := range h.scopeCfg.Block {
		inScope[r.String()] = true
	}
	err := h.c.front.ScanMeta(metaControlBlock, func(key string, v []byte) error {
		text := strings.TrimPrefix(key, metaControlBlock)
		if string(v) != "1" || !inScope[text] {
			return nil // removed since, or no longer in the config
		}
		r, err := scope.ParseRule(text)
		if err != nil {
			return nil
		}
		h.blocks = append(h.blocks, r)
		return nil
	})
	if err != nil {
		return fmt.Errorf("restore control block rules: %w", err)
	}
	return h.rebuildBlockCheck()
}

// rebuildBlockCheck makes the scope that holds only the block rules added by Block (nil: none).
func (h *Handle) rebuildBlockCheck() error {
	if len(h.blocks) == 0 {
		h.blockCheck.Store(nil)
		return nil
	}
	cfg := h.scopeCfg
	s, err := scope.New(scope.Config{Flavour: cfg.Flavour, Block: h.blocks, MaxURLLength: cfg.MaxURLLength,
		Domains: cfg.Domains, MaxCrawlDepth: cfg.MaxCrawlDepth})
	if err != nil {
		return err
	}
	h.blockCheck.Store(s)
	return nil
}

// Pause holds the claims of new URLs (p true: fetches under way finish) or lets them go on.
func (h *Handle) Pause(p bool) { h.gate.setPaused(p) }

// Stop stops the run cleanly, as one Ctrl-C: it ends EndCancelled and resumes when run again.
func (h *Handle) Stop() { h.stopRun() }

// SetLimit makes n the crawl's URL limit (Config.LimitURLs: all runs together; 0: none) from
// now on; claims already waiting reserve their URL again under it. A negative n is refused.
func (h *Handle) SetLimit(n int64) error {
	if n < 0 {
		return refused("%d is not a number of URLs (0: no limit)", n)
	}
	h.limit.Store(n)
	h.gate.wake()
	return nil
}

// Limit is the crawl's URL limit now (0: none).
func (h *Handle) Limit() int64 { return h.limit.Load() }

// SetHostDelay makes d the delay between requests to host (host[:port] as in URLs,
// lowercase: the frontier's key) from now on, in place of the crawl's delay, robots.txt
// Crawl-delay and a subcollection's delay (Config.HostDelays). An empty host or a negative
// delay is refused.
func (h *Handle) SetHostDelay(host string, d time.Duration) error {
	if host == "" || d < 0 {
		return refused("host %q, delay %v: want a host and a delay not negative", host, d)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.c.front.SetHostDelayOverride(host, d)
	h.hostDelays[host] = d
	return nil
}

// HostDelays returns the operators' host delays now (Config.HostDelays and SetHostDelay's);
// the map is the caller's.
func (h *Handle) HostDelays() map[string]time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	return maps.Clone(h.hostDelays)
}

// BlockRules returns the collection's block rules now (Config.Scope.Block, with Block's and
// Unblock's changes); the slice is the caller's.
func (h *Handle) BlockRules() []scope.Rule {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.scopeCfg.Block)
}

// AddSeed makes raw a standard seed of the crawl: the scope takes it and its URLs as it does
// the config's seeds, and it is decided and queued as they are. A URL that does not
// canonicalise, or is a seed already, is refused.
func (h *Handle) AddSeed(raw string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	cu, err := scope.Canonicalize(raw, h.scopeCfg.Flavour)
	if err != nil {
		return &refusal{err}
	}
	for _, s := range h.scopeCfg.Seeds {
		if c, err := scope.Canonicalize(s.URL, h.scopeCfg.Flavour); err == nil && c == cu {
			return refused("%s is a seed already", cu)
		}
	}
	cfg := h.scopeCfg
	sd := scope.Seed{URL: raw, Type: scope.StandardSeed}
	cfg.Seeds = append(slices.Clip(cfg.Seeds), sd)
	if err := h.swapScope(cfg); err != nil {
		return err
	}
	return h.c.queueSeeds([]scope.Seed{sd})
}

// Block adds r to the collection's block rules: the links found from now on are decided with
// it, and a URL queued before that it matches is refused when claimed (crawl.log -5000
// scope:block:RULE), in this run and, the rule being kept in the frontier, in later runs
// whose configuration still has it. A rule that is a block rule already is refused.
func (h *Handle) Block(r scope.Rule) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if slices.ContainsFunc(h.scopeCfg.Block, func(b scope.Rule) bool { return b.String() == r.String() }) {
		return refused("%s is a block rule already", r)
	}
	cfg := h.scopeCfg
	cfg.Block = append(slices.Clip(cfg.Block), r)
	if err := h.swapScope(cfg); err != nil {
		return err
	}
	h.blocks = append(h.blocks, r)
	if err := h.rebuildBlockCheck(); err != nil {
		return err
	}
	if err := h.c.front.PutMeta(metaControlBlock+r.String(), []byte("1")); err != nil {
		return fmt.Errorf("record block rule: %w", err)
	}
	return nil
}

// Unblock removes r from the collection's block rules, whether the configuration or Block
// made it one. A rule that is not one is refused.
func (h *Handle) Unblock(r scope.Rule) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	same := func(b scope.Rule) bool { return b.String() == r.String() }
	if !slices.ContainsFunc(h.scopeCfg.Block, same) {
		return refused("%s is not a block rule of the collection (see status)", r)
	}
	cfg := h.scopeCfg
	cfg.Block = slices.DeleteFunc(slices.Clone(cfg.Block), same)
	if err := h.swapScope(cfg); err != nil {
		return err
	}
	h.blocks = slices.DeleteFunc(h.blocks, same)
	if err := h.rebuildBlockCheck(); err != nil {
		return err
	}
	if err := h.c.front.PutMeta(metaControlBlock+r.String(), nil); err != nil {
		return fmt.Errorf("record block rule: %w", err)
	}
	return nil
}

// swapScope makes cfg the crawl's scope, with the seed redirects promoted so far. h.mu is held.
func (h *Handle) swapScope(cfg scope.Config) error {
	s, err := scope.New(cfg)
	if err != nil {
		return &refusal{err}
	}
	if err := h.c.scope.set(s); err != nil {
		return err
	}
	h.scopeCfg = cfg
	return nil
}

// Snapshot returns the run's figures now.
func (h *Handle) Snapshot() Snapshot { return h.c.snapshot(h.c.started, h.c.startN) }

// Dir is the crawl directory.
func (h *Handle) Dir() string { return h.c.cfg.Dir }

// Events is the run's events log (logs/events.jsonl), open until the run's end is written.
func (h *Handle) Events() *report.Events { return h.c.events }

// Log is the crawl's logger (Config.Logger).
func (h *Handle) Log() *slog.Logger { return h.c.log }

// Shared is the crawl's shared frontier, its CrawlID and Process filled in; URL is empty when
// the crawl keeps its own frontier.
func (h *Handle) Shared() frontier.Shared { return h.c.cfg.Shared }

// blockRefuser is the chain's first step: it refuses a claimed URL that a block rule added
// by Block matches (it was queued before the rule), logged as a refused link is (-5000
// scope:block:RULE) and never fetched. Seeds are not refused (scope takes every seed).
type blockRefuser struct{ h *Handle }

func (blockRefuser) Name() string { return "ctl block" }

// Before refuses the URL when a block rule added by Block matches it.
func (b blockRefuser) Before(_ context.Context, r *chain.Record) (chain.Verdict, error) {
	bc := b.h.blockCheck.Load()
	u := r.URL()
	if bc == nil || u.Hops == "" {
		return chain.Proceed, nil
	}
	d := bc.Decide(scope.Candidate{URL: u.URL, Hops: u.Hops, Via: u.Via, Seed: u.Seed})
	if d.In || !strings.HasPrefix(d.Reason, scope.ReasonBlockPrefix) {
		return chain.Proceed, nil
	}
	return chain.Finish(chain.Outcome{Status: status.OutOfScope, Annotations: []string{"scope:" + d.Reason},
		Denied: report.DenyOutOfScope, ScopeReason: d.Reason}), nil
}
