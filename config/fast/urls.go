package fast

import (
	"fmt"

	"github.com/amber-crawler/amber/rewrite"
	"github.com/amber-crawler/amber/seeds"
)

// urls maps the URL attribs (sort_query_params, rewrite_rules, html_redir_is_redir and
// html_redir_threshold, max_redirects, max_uri_recursion) and the collection's rss section.
// FAST's defaults apply to the meta refresh threshold (3 s), max_redirects (10) and
// max_uri_recursion (5) when the file does not give them.
func (c *conv) urls() {
	if a := c.top["sort_query_params"]; a != nil {
		c.c.URLs.SortQueryParams = a.Bool
		if a.Bool {
			c.src("urls.sort_query_params", "sort_query_params")
			c.mapped(a, "urls.sort_query_params")
			c.differs(a)
		} else {
			c.same(a, "amber keeps a URL's query parameters in their order (urls.sort_query_params off, its default)")
		}
	}
	if a := c.top["rewrite_rules"]; a != nil {
		if _, err := rewrite.ParseAll(a.Members); err != nil {
			c.invalid(a, "rewrite_rules: %v", err)
		} else if len(a.Members) > 0 {
			c.c.URLs.RewriteRules = a.Members
			c.src("urls.rewrite_rules", "rewrite_rules")
			c.mapped(a, "urls.rewrite_rules")
			c.differs(a)
		} else {
			c.same(a, "no rule: amber rewrites no URL")
		}
	}
	c.metaRefresh()
	if n, from, ok := c.positive("max_redirects", 10); ok {
		c.c.URLs.MaxRedirects = n
		c.srcTop("urls.max_redirects", "max_redirects", from)
	}
	if n, from, ok := c.positive("max_uri_recursion", 5); ok {
		c.c.Scope.MaxPathRepeats = &n
		c.srcTop("scope.max_path_repeats", "max_uri_recursion", from)
	}
	c.rss()
	c.addrs() // enforce_delay_per_ip, mirror_site_files (addrs.go)
}

// positive reads a positive integer attrib of the collection, FAST's default def when it is
// absent; ok is false (and the attrib invalid) for a value below 1.
func (c *conv) positive(name string, def int) (n int, from string, ok bool) {
	a := c.top[name]
	if a == nil {
		return def, fastDefault(name, fmt.Sprint(def)), true
	}
	if a.Int < 1 || a.Int > 1<<20 {
		c.invalid(a, "%s %d: want 1 or more", name, a.Int)
		return 0, "", false
	}
	c.differs(a)
	return int(a.Int), name, true
}

// metaRefresh maps html_redir_is_redir and html_redir_threshold onto
// urls.meta_refresh_redirect_max: the threshold, or -1 (every meta refresh a link).
func (c *conv) metaRefresh() {
	isRedir, th := c.top["html_redir_is_redir"], c.top["html_redir_threshold"]
	n, from := 3, fastDefault("html_redir_threshold", "3")
	switch {
	case !boolOr(isRedir, true):
		n, from = -1, "html_redir_is_redir"
		if th != nil {
			c.same(th, "with html_redir_is_redir no it changes nothing")
		}
	case th != nil:
		if th.Int < 0 || th.Int > 1<<30 {
			c.invalid(th, "html_redir_threshold %d: want 0 or more", th.Int)
			return
		}
		n, from = int(th.Int), "html_redir_threshold"
		c.mapped(th, "urls.meta_refresh_redirect_max")
		c.differs(th)
	}
	if isRedir != nil {
		c.mapped(isRedir, "urls.meta_refresh_redirect_max")
	}
	c.c.URLs.MetaRefreshRedirectMax = &n
	c.src("urls.meta_refresh_redirect_max", from)
}

// rss maps the collection's rss section onto feeds.
func (c *conv) rss() {
	s := c.secs["rss"]
	if s == nil {
		return
	}
	c.mapped(s, "feeds")
	f := &c.c.Feeds
	for _, name := range []string{"start_uris", "start_uri_files"} {
		a := c.sec("rss", name)
		if a == nil {
			continue
		}
		urls := a.Members
		if name == "start_uri_files" {
			urls = nil
			for _, file := range a.Members {
				got, err := c.readURIFile(file)
				if err != nil {
					c.invalid(a, "%v", err)
					return
				}
				urls = append(urls, got...)
			}
		}
		for _, u := range urls {
			if u == "" {
				continue
			}
			if err := seeds.CheckURL(u); err != nil {
				c.invalid(a, "rss start URI %q: %v", u, err)
				return
			}
			f.URLs = append(f.URLs, u)
		}
		c.src("feeds.urls", "rss/start_uris, rss/start_uri_files")
		c.mapped(a, "feeds.urls")
	}
	if a := c.sec("rss", "auto_discover"); a != nil {
		f.AutoDiscover = a.Bool
		if a.Bool {
			c.src("feeds.auto_discover", "rss/auto_discover")
			c.mapped(a, "feeds.auto_discover")
		} else {
			c.same(a, "amber reads no feed a crawled page names (feeds.auto_discover off, its default)")
		}
	}
	if a := c.sec("rss", "follow_links"); a != nil {
		v := a.Bool
		f.FollowLinks = &v
		c.src("feeds.follow_links", "rss/follow_links")
		c.mapped(a, "feeds.follow_links")
	}
	if a := c.sec("rss", "ignore_rules"); a != nil {
		f.IgnoreRules = a.Bool
		if a.Bool {
			c.src("feeds.ignore_rules", "rss/ignore_rules")
			c.mapped(a, "feeds.ignore_rules")
			c.differsRSS(a)
		} else {
			c.same(a, "a feed's items are decided by the include and exclude rules, as links are (feeds.ignore_rules off, amber's default)")
		}
	}
	if a := c.sec("rss", "max_link_count"); a != nil {
		if a.Int < 1 || a.Int > 1<<20 {
			c.invalid(a, "max_link_count %d: want 1 or more", a.Int)
			return
		}
		f.MaxLinks = int(a.Int)
		c.src("feeds.max_links", "rss/max_link_count")
		c.mapped(a, "feeds.max_links")
		c.differsRSS(a)
	}
}

// differsRSS notes how amber differs for a mapped attrib of the rss section (its row's note).
func (c *conv) differsRSS(a *Attrib) {
	if r := schema.section("rss").node.attrib(a.Name); r != nil && r.Note != "" {
		c.note(noteDiffers, r.Note, a)
	}
	c.rec(a)
}
