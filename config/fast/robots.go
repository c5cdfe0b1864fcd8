package fast

import (
	"strconv"
	"time"
)

// whyMetaWithoutRobots says why check_meta_robots=yes is not supported with robots=no.
const whyMetaWithoutRobots = "with robots no, amber obeys neither robots.txt nor <meta name=robots> (nor rel=nofollow): politeness.ignore_robots turns all of it off"

// robotsAndSites maps the robots attribs (robots_ttl, robots_timeout, robots_auth_ignore,
// robots_tout_ignore, check_meta_robots, obey_robots_delay) onto the robots section, and the
// per-site attribs (max_doc, max_backoff_counter, max_backoff_delay, truncate) onto
// limits.urls_per_host, politeness.max_host_failures, politeness.max_backoff and
// limits.oversize. FAST's defaults apply when the file leaves one out: robots_ttl 86400,
// robots_timeout 300, obey_robots_delay no, max_doc 100000, max_backoff_counter 50,
// max_backoff_delay 600. With robots=no the robots.txt attribs change nothing, and amber
// reads no robots meta either: check_meta_robots=yes (FAST's default) is not supported then.
func (c *conv) robotsAndSites() {
	if boolOr(c.top["robots"], true) {
		r := &c.c.Robots
		if d, from, ok := c.seconds("robots_ttl", 86400); ok {
			r.TTL = d
			c.srcTop("robots.ttl", "robots_ttl", from)
		}
		if d, from, ok := c.seconds("robots_timeout", 300); ok {
			r.Timeout = d
			c.srcTop("robots.timeout", "robots_timeout", from)
		}
		if a := c.top["robots_auth_ignore"]; a != nil {
			r.DisallowOnAuth = !a.Bool
			if !a.Bool {
				c.src("robots.disallow_on_auth", "robots_auth_ignore")
				c.mapped(a, "robots.disallow_on_auth")
			} else {
				c.same(a, "a robots.txt answered 401 or 403, as any 4xx, allows the whole host (RFC 9309; robots.disallow_on_auth off, amber's default)")
			}
		}
		if a := c.top["robots_tout_ignore"]; a != nil {
			r.AllowOnTimeout = a.Bool
			if a.Bool {
				c.src("robots.allow_on_timeout", "robots_tout_ignore")
				c.mapped(a, "robots.allow_on_timeout")
			} else {
				c.same(a, "when a robots.txt request times out, its host's URLs wait and are tried again later (politeness.retry_delay, max_attempts), then left out (-9998 robots-unavailable): robots.allow_on_timeout off, amber's default")
			}
		}
		if a := c.top["check_meta_robots"]; a != nil {
			r.IgnoreMeta = !a.Bool
			if !a.Bool {
				c.src("robots.ignore_meta", "check_meta_robots")
				c.mapped(a, "robots.ignore_meta")
				c.differs(a)
			} else {
				c.same(a, "amber obeys <meta name=robots> noindex and nofollow (robots.ignore_meta off, its default)")
			}
		}
		r.IgnoreCrawlDelay = !boolOr(c.top["obey_robots_delay"], false)
		if a := c.top["obey_robots_delay"]; a != nil {
			c.src("robots.ignore_crawl_delay", "obey_robots_delay")
			c.mapped(a, "robots.ignore_crawl_delay")
		} else {
			c.src("robots.ignore_crawl_delay", fastDefault("obey_robots_delay", "no"))
		}
	} else {
		for _, name := range []string{"robots_ttl", "robots_timeout", "robots_auth_ignore", "robots_tout_ignore", "obey_robots_delay"} {
			if a := c.top[name]; a != nil {
				c.same(a, "with robots no (politeness.ignore_robots) it changes nothing")
			}
		}
		// FAST reads robots meta whatever robots says; amber with ignore_robots reads
		// neither robots.txt nor robots meta (nor rel=nofollow).
		if a := c.top["check_meta_robots"]; a != nil {
			if a.Bool {
				c.note(string(Unsupported), whyMetaWithoutRobots, a)
			} else {
				c.same(a, "with robots no amber obeys no <meta name=robots> either")
			}
		}
	}
	if n, from, ok := c.count("max_doc", 100000); ok && n > 0 {
		c.c.Limits.URLsPerHost = n
		c.srcTop("limits.urls_per_host", "max_doc", from)
	}
	if n, from, ok := c.count("max_backoff_counter", 50); ok && n > 0 {
		c.c.Politeness.MaxHostFailures = int(n)
		c.srcTop("politeness.max_host_failures", "max_backoff_counter", from)
	}
	if d, from, ok := c.seconds("max_backoff_delay", 600); ok {
		c.c.Politeness.MaxBackoff = d
		c.srcTop("politeness.max_backoff", "max_backoff_delay", from)
	}
	if a := c.top["truncate"]; a != nil {
		switch {
		case c.c.Limits.ResponseSize == 0:
			c.same(a, "without cut_off it changes nothing")
		case !a.Bool:
			c.c.Limits.Oversize = "drop"
			c.src("limits.oversize", "truncate")
			c.mapped(a, "limits.oversize")
			c.differs(a)
		default:
			c.same(a, "a page cut at cut_off is archived as cut (WARC-Truncated: length) and read as far as it goes (limits.oversize: truncate, amber's default)")
		}
	}
}

// srcTop records that the amber key came from from (Sources), and from the collection's
// attrib name when the file gives it.
func (c *conv) srcTop(key, name, from string) {
	c.src(key, from)
	if a := c.top[name]; a != nil {
		c.mapped(a, key)
	}
}

// count reads a non-negative integer attrib of the collection, FAST's default def when it
// is absent; ok is false (and the attrib invalid) for a negative value. 0 is amber's "no
// limit".
func (c *conv) count(name string, def int64) (n int64, from string, ok bool) {
	a := c.top[name]
	if a == nil {
		return def, fastDefault(name, strconv.FormatInt(def, 10)), true
	}
	if a.Int < 0 {
		c.invalid(a, "%s %d: want 0 or more", name, a.Int)
		return 0, "", false
	}
	c.differs(a)
	return a.Int, name, true
}

// seconds reads a positive number of seconds of the collection as a duration, FAST's default
// def when it is absent; ok is false (and the attrib invalid) below 1 s.
func (c *conv) seconds(name string, def int64) (d time.Duration, from string, ok bool) {
	n, from, ok := c.count(name, def)
	if !ok {
		return 0, "", false
	}
	if n < 1 || n > 1<<31 {
		c.invalid(c.top[name], "%s %d: want 1 or more seconds", name, n)
		return 0, "", false
	}
	return time.Duration(n) * time.Second, from, true
}
