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
			c.src("robots.ttl", from)
		}
		if d, from, ok := c.seconds("robots_timeout", 300); ok {
			r.Timeout = d
			c.src("robots.timeout", from)
		}
		if a := c.top["robots_auth_ignore"]; a != nil {
			r.DisallowOnAuth = !a.Bool
			if !a.Bool {
				c.src("robots.disallow_on_auth", "robots_auth_ignore")
			}
			c.done[a] = true
		}
		if a := c.top["robots_tout_ignore"]; a != nil {
			r.AllowOnTimeout = a.Bool
			if a.Bool {
				c.src("robots.allow_on_timeout", "robots_tout_ignore")
			}
			c.done[a] = true
		}
		if a := c.top["check_meta_robots"]; a != nil {
			r.IgnoreMeta = !a.Bool
			if !a.Bool {
				c.src("robots.ignore_meta", "check_meta_robots")
				c.differs(a)
			}
			c.done[a] = true
		}
		r.IgnoreCrawlDelay = !boolOr(c.top["obey_robots_delay"], false)
		if a := c.top["obey_robots_delay"]; a != nil {
			c.src("robots.ignore_crawl_delay", "obey_robots_delay")
			c.done[a] = true
		} else {
			c.src("robots.ignore_crawl_delay", fastDefault("obey_robots_delay", "no"))
		}
	} else {
		for _, name := range []string{"robots_ttl", "robots_timeout", "robots_auth_ignore", "robots_tout_ignore", "obey_robots_delay"} {
			if a := c.top[name]; a != nil {
				c.done[a] = true // without robots.txt they change nothing
			}
		}
		// FAST reads robots meta whatever robots says; amber with ignore_robots reads
		// neither robots.txt nor robots meta (nor rel=nofollow).
		if a := c.top["check_meta_robots"]; a != nil {
			if a.Bool {
				c.note(string(Unsupported), whyMetaWithoutRobots, a)
			} else {
				c.done[a] = true
			}
		}
	}
	if n, from, ok := c.count("max_doc", 100000); ok && n > 0 {
		c.c.Limits.URLsPerHost = n
		c.src("limits.urls_per_host", from)
	}
	if n, from, ok := c.count("max_backoff_counter", 50); ok && n > 0 {
		c.c.Politeness.MaxHostFailures = int(n)
		c.src("politeness.max_host_failures", from)
	}
	if d, from, ok := c.seconds("max_backoff_delay", 600); ok {
		c.c.Politeness.MaxBackoff = d
		c.src("politeness.max_backoff", from)
	}
	if a := c.top["truncate"]; a != nil {
		if !a.Bool && c.c.Limits.ResponseSize > 0 { // without cut_off it changes nothing
			c.c.Limits.Oversize = "drop"
			c.src("limits.oversize", "truncate")
			c.differs(a)
		}
		c.done[a] = true
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
