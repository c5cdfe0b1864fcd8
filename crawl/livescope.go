package crawl

import (
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/hop"
	"github.com/amber-crawler/amber/scope"
	"github.com/amber-crawler/amber/weburl"
)

// metaPromoted + target URL holds "seed\x00hops": a seed redirect promoted to a seed.
const metaPromoted = "crawl/promoted/"

// canonicalForm is the crawl's canonical form of the URLs it finds: scope.Canonicalize in the
// crawl's flavour, with the query sorted when URLConfig.SortQuery says so.
type canonicalForm struct {
	flavour   scope.Flavour
	sortQuery bool
}

// canonicalize returns raw in canonical form.
func (f canonicalForm) canonicalize(raw string) (string, error) {
	cu, err := scope.Canonicalize(raw, f.flavour)
	if err != nil {
		return "", err
	}
	if f.sortQuery {
		cu = weburl.SortQuery(cu)
	}
	return cu, nil
}

// liveScope is the crawl's scope as it is now: the one it started with, swapped by the Handle
// (add-seed, block, unblock), and widened by the seed redirects promoted so far, which are
// kept in the frontier and applied again to every scope swapped in and in every run.
type liveScope struct {
	mu    sync.Mutex // serialises swaps and promotions
	cur   atomic.Pointer[scope.Scope]
	front frontier.Store // the frontier's meta store
	form  canonicalForm
	log   *slog.Logger
}

// load returns the scope now.
func (s *liveScope) load() *scope.Scope { return s.cur.Load() }

// set makes sc the crawl's scope, with the seed redirects promoted so far.
func (s *liveScope) set(sc *scope.Scope) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.replay(sc); err != nil {
		return err
	}
	s.cur.Store(sc)
	return nil
}

// restore applies the seed redirects that earlier runs promoted to the scope now.
func (s *liveScope) restore() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.replay(s.cur.Load())
}

// replay applies the seed redirects kept in the frontier to sc.
func (s *liveScope) replay(sc *scope.Scope) error {
	err := s.front.ScanMeta(metaPromoted, func(key string, v []byte) error {
		seed, hops, _ := strings.Cut(string(v), "\x00")
		sc.PromoteRedirect(seed, strings.TrimPrefix(key, metaPromoted), hops)
		return nil
	})
	if err != nil {
		return fmt.Errorf("restore seed redirects: %w", err)
	}
	return nil
}

// promote widens a seed's scope to the target of its own redirect chain (spec/scope.md §3.2),
// u being a URL of the chain and hops the target's hop path, and keeps the promotion for
// later runs.
func (s *liveScope) promote(u frontier.URL, target, hops string) {
	if !hop.IsRedirectChain(u.Hops) {
		return
	}
	cu, err := s.form.canonicalize(target)
	if err != nil || cu == u.URL {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.cur.Load().PromoteRedirect(u.Seed, cu, hops) {
		return
	}
	if err := s.front.PutMeta(metaPromoted+cu, []byte(u.Seed+"\x00"+hops)); err != nil {
		s.log.Warn("save seed redirect", "url", cu, "err", err)
	}
	s.log.Info("seed redirect promoted to seed", "url", cu, "seed", u.Seed)
}
