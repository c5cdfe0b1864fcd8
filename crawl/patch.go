package crawl

import (
	"errors"
	"fmt"
	"strings"

	"github.com/amber-crawler/amber/chain"
	"github.com/amber-crawler/amber/extract"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/hop"
	"github.com/amber-crawler/amber/patch"
)

// ErrPatchQueued is returned by Run for a patch crawl of a crawl that still has URLs to
// crawl: the patch would crawl them too.
var ErrPatchQueued = errors.New("crawl: the crawl has URLs queued: resume it before a patch crawl")

// metaPatch is set (to when the patch was queued) while a patch crawl's URLs are crawled, and
// emptied when the crawl finishes: a run that resumes an interrupted patch crawl is one.
const metaPatch = "crawl/patch"

// preparePatch checks that a patch crawl may run on the crawl's frontier (its own, nothing
// queued) and reopens a finished crawl (metaFinished emptied), so that an interrupted patch
// crawl resumes as an unfinished crawl does.
func preparePatch(cfg Config, front frontier.Store) error {
	if cfg.Shared != nil {
		return &FieldError{Field: "Patch", Err: errors.New("a crawl on a shared frontier cannot be patched")}
	}
	if st := front.Stats(); st.Queued+st.InFlight > 0 {
		return fmt.Errorf("%w (%d URLs)", ErrPatchQueued, st.Queued+st.InFlight)
	}
	if err := front.PutMeta(metaFinished, nil); err != nil {
		return fmt.Errorf("reopen the crawl: %w", err)
	}
	return nil
}

// isPatching reports whether the run crawls a patch: Config.Patch, or one an earlier run
// queued and did not finish.
func isPatching(cfg Config, front frontier.Store) (bool, error) {
	v, ok, err := front.Meta(metaPatch)
	return len(cfg.Patch) > 0 || (ok && len(v) > 0), err
}

// queuePatch decides and queues the URLs of Config.Patch, each as an embed of its page (hop E
// after the page's hop path, the page as via, its seed), and returns what it made of them.
func (c *crawler) queuePatch() error {
	if len(c.cfg.Patch) == 0 {
		return nil
	}
	order, byPage, distinct := patch.ByPage(c.cfg.Patch)
	res := patch.Result{Asked: distinct}
	pages, err := c.patchPages(order)
	if err != nil {
		return err
	}
	if err := c.front.PutMeta(metaPatch, []byte(c.started.UTC().Format("2006-01-02T15:04:05Z"))); err != nil {
		return c.frontierErr(err)
	}
	before := c.front.Stats().Queued
	for _, page := range order {
		pu, ok := pages[page]
		if !ok {
			res.NoPage += len(byPage[page])
			c.log.Warn("patch: the crawl does not know the page; its missing URLs are not queued", "url", page, "urls", len(byPage[page]))
			continue
		}
		var content chain.Content
		for _, p := range byPage[page] {
			content.Links = append(content.Links, extract.Outlink{URL: p.URL, Hop: hop.Embed, Context: "qa/" + strings.ToLower(p.Type)})
		}
		d := c.links.decide(pu, content)
		res.OutOfScope, res.Known = res.OutOfScope+len(d.out), res.Known+len(d.in)
		if err := c.links.enqueue(0, pu, d); err != nil {
			return err
		}
	}
	res.Queued = int(c.front.Stats().Queued - before)
	res.Known -= res.Queued
	c.patchRes = &res
	c.log.Info("patch crawl", "urls", res.Asked, "queued", res.Queued, "known", res.Known, "out_of_scope", res.OutOfScope, "no_page", res.NoPage)
	return nil
}

// patchPages finds the pages of a patch in the frontier (by their URL as given or canonical),
// for their hop path, seed and hops off scope.
func (c *crawler) patchPages(pages []string) (map[string]frontier.URL, error) {
	want := map[string][]string{} // a URL the frontier may hold -> the pages it stands for
	for _, p := range pages {
		want[p] = append(want[p], p)
		if cu, err := c.scope.form.canonicalize(p); err == nil && cu != p {
			want[cu] = append(want[cu], p)
		}
	}
	out := map[string]frontier.URL{}
	err := c.front.Each(func(e frontier.Entry) error {
		for _, p := range want[e.URL.URL] {
			out[p] = e.URL
		}
		return nil
	})
	return out, c.frontierErr(err)
}
