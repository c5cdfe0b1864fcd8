package frontier

import (
	"slices"
	"time"
)

// Sites: Config.MaxSites and Config.MaxInterDocs (FAST's max_sites and max_inter_docs).
//
// A host is a site being crawled (active) from its first claim until its queue is empty and
// its claims are finished. While MaxSites hosts are active, a host that could be claimed waits
// for a place instead, in the order the hosts came to wait (siteWait); a place that frees goes
// to the first of them at once. An active host that had MaxInterDocs URLs claimed while others
// wait is sent back behind them: it keeps its place until its claims in flight are finished
// (draining: nothing more of it is claimed), then the first waiting host takes it.
//
// None of this is persisted: after a restart hosts become active again as they are claimed.

// The site states of a host (host.site).
const (
	siteIdle     = iota // not being crawled
	siteActive          // being crawled: holds one of MaxSites places
	siteDraining        // sent back (MaxInterDocs): holds its place until its claims finish
)

// siteWaiting reports whether h may not be claimed for want of a site place: it waits for
// one, or it is draining.
func (h *host) siteWaiting() bool { return h.inSiteWait || h.site == siteDraining }

// hasWork reports whether h has queued entries (loaded or not).
func (h *host) hasWork() bool { return h.queued > 0 || len(h.buf) > 0 || h.loading }

// settleSite frees the site place of a host whose queue is empty, or that drained, once its
// claims are finished, and gives it to waiting hosts. It needs f.mu held and MaxSites set.
func (f *Frontier) settleSite(h *host, now time.Time) {
	if h.site == siteIdle || h.inflight > 0 || (h.site == siteActive && h.hasWork()) {
		return
	}
	h.site, h.docs = siteIdle, 0
	f.sites--
	f.fillSites(now)
}

// fillSites gives the free site places to the hosts that wait, first come first served. A
// host that waits without work any more is dropped; a draining host that comes first takes
// its own place back.
func (f *Frontier) fillSites(now time.Time) {
	for f.sites < f.cfg.MaxSites && f.siteHead < len(f.siteWait) {
		h := f.siteWait[f.siteHead]
		f.siteWait[f.siteHead] = nil
		f.siteHead++
		h.inSiteWait = false
		f.sitesWaiting--
		switch {
		case h.site == siteDraining:
			h.site, h.docs = siteActive, 0
		case !h.hasWork():
			continue
		default:
			h.site, h.docs = siteActive, 0
			f.sites++
		}
		f.schedule(h, now)
	}
	f.compactSiteWait()
}

// waitSite puts h last in line for a site place. It needs f.mu held. Every host in
// siteWait[siteHead:] waits (inSiteWait): only fillSites takes hosts out, from the head.
func (f *Frontier) waitSite(h *host) {
	if h.inSiteWait {
		return
	}
	h.inSiteWait = true
	f.siteWait = append(f.siteWait, h)
	f.sitesWaiting++
}

func (f *Frontier) compactSiteWait() {
	if f.siteHead == len(f.siteWait) {
		f.siteWait, f.siteHead = f.siteWait[:0], 0
		return
	}
	if f.siteHead >= 256 && f.siteHead*2 >= len(f.siteWait) {
		n := copy(f.siteWait, f.siteWait[f.siteHead:])
		clear(f.siteWait[n:])
		f.siteWait, f.siteHead = f.siteWait[:n], 0
	}
}

// admitSite decides whether h, popped from the ready queue, may be claimed now: it is active,
// or takes a free place. Otherwise it waits for one (and false). It needs f.mu held and
// MaxSites set.
func (f *Frontier) admitSite(h *host) bool {
	switch h.site {
	case siteActive:
		return true
	case siteIdle:
		if f.sites < f.cfg.MaxSites {
			h.site, h.docs = siteActive, 0
			f.sites++
			return true
		}
	}
	f.waitSite(h)
	return false
}

// claimedSite counts a claim of active host h and sends h back behind the waiting hosts once
// it has had MaxInterDocs claims while others wait. It needs f.mu held and MaxSites set.
func (f *Frontier) claimedSite(h *host) {
	h.docs++
	if f.cfg.MaxInterDocs > 0 && h.docs >= f.cfg.MaxInterDocs && f.sitesWaiting > 0 {
		h.site, h.docs = siteDraining, 0
		f.waitSite(h)
	}
}

// SetDelay sets the delay of every host from now on, in place of Config.HostDelay (a slot of
// the crawl's delay schedule): robots Crawl-delay (SetHostDelay) still raises it for its host,
// and an operator's delay (SetHostDelayOverride) still replaces it. Hosts waiting for their
// delay are scheduled again at once. It is not persisted. A negative d is taken as 0.
func (f *Frontier) SetDelay(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cfg.HostDelay = max(d, 0)
	now := f.now()
	for _, h := range slices.Clone(f.timed) {
		f.schedule(h, now)
	}
	f.broadcast()
}
