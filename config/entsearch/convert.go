package entsearch

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/amber-crawler/amber/config"
	"github.com/amber-crawler/amber/crawl"
)

// Convert maps the crawler.* settings onto amber's model (Keys says where each goes), of the
// elastic scope flavour (Enterprise Search's crawler's) when there is any: the crawl limits to scope, limits and workers, the extraction limits and deduplication fields
// to documents, binary content extraction (its MIME types when enabled) to documents, the
// HTTP timeouts, redirects and user agent (user_agent_platform appended to it, as Enterprise
// Search does) to network, urls and user_agent, the TLS and DNS controls to network, and
// crawler.http.proxy.* to proxy. A value amber cannot honour is an error naming the key and
// why (crawler.http.max_redirects: 0, a proxy without its port or of a protocol other than
// http and https); the keys amber accepts without effect, and the file's other keys, are
// named in notes. The result has no seeds: the domains come from another file (config.Merge).
func (s *Settings) Convert() (*config.Converted, error) {
	c := &conv{s: s, cv: &config.Converted{
		File:       &config.File{},
		Sources:    map[string]string{},
		SecretFrom: map[string]string{},
		Title:      "the Enterprise Search settings " + s.Name,
	}}
	if len(s.Crawler) > 0 {
		// Enterprise Search's crawler decides scope as amber's elastic flavour does (its
		// depth limit, say, has no meaning in the others).
		c.cv.File.Scope.Flavour = "elastic"
		c.cv.Source("scope.flavour", "crawler.* (Enterprise Search's web crawler)")
	}
	c.limits()
	c.documents()
	c.fetch()
	c.security()
	c.proxy()
	c.ignored()
	if len(c.errs) > 0 {
		return nil, fmt.Errorf("%w: %s: %w", ErrConfig, s.Name, errors.Join(c.errs...))
	}
	return c.cv, nil
}

// conv is one conversion: the settings, the result, and the errors found on the way.
type conv struct {
	s    *Settings
	cv   *config.Converted
	errs []error
}

// get returns the value of key and whether it is given; a value that is an environment
// reference to a variable not set is an error.
func (c *conv) get(key string) (Value, bool) {
	v, ok := c.s.Crawler[key]
	if ok && v.Unset {
		c.errs = append(c.errs, fmt.Errorf("line %d: %s: environment variable %s is not set and has no default (${%s:default})", v.Line, v.Key, v.EnvRef, v.EnvRef))
		return v, false
	}
	return v, ok
}

// int returns the whole number of key, at least min, and whether it is given.
func (c *conv) int(key string, min int) (int, bool) {
	v, ok := c.get(key)
	if !ok {
		return 0, false
	}
	var n int
	if err := v.Node.Decode(&n); err != nil || n < min {
		c.errs = append(c.errs, fmt.Errorf("line %d: %s: %q: want a whole number of at least %d", v.Line, v.Key, v.Node.Value, min))
		return 0, false
	}
	return n, true
}

// bool returns the boolean of key and whether it is given.
func (c *conv) bool(key string) (b, given bool) {
	v, ok := c.get(key)
	if !ok {
		return false, false
	}
	if err := v.Node.Decode(&b); err != nil {
		c.errs = append(c.errs, fmt.Errorf("line %d: %s: %q: want true or false", v.Line, v.Key, v.Node.Value))
		return false, false
	}
	return b, true
}

// str returns the text of key ("" when not given).
func (c *conv) str(key string) string {
	v, ok := c.get(key)
	if !ok {
		return ""
	}
	var s string
	if err := v.Node.Decode(&s); err != nil {
		c.errs = append(c.errs, fmt.Errorf("line %d: %s: want a text value", v.Line, v.Key))
	}
	return s
}

// list returns the values of key, a list (a single value is a list of one), and whether it
// is given.
func (c *conv) list(key string) ([]string, bool) {
	v, ok := c.get(key)
	if !ok {
		return nil, false
	}
	var l []string
	if v.Node.Kind == yaml.ScalarNode {
		var s string
		if err := v.Node.Decode(&s); err != nil {
			c.errs = append(c.errs, fmt.Errorf("line %d: %s: want a list", v.Line, v.Key))
		}
		return []string{s}, true
	}
	if err := v.Node.Decode(&l); err != nil {
		c.errs = append(c.errs, fmt.Errorf("line %d: %s: want a list", v.Line, v.Key))
	}
	return l, true
}

// source records that amber's key came from key, as the file writes it.
func (c *conv) source(amber, key string) {
	if v, ok := c.s.Crawler[key]; ok {
		c.cv.Source(amber, v.Key)
	}
}

// limits maps crawler.crawl.*, the response size and the extracted links count.
func (c *conv) limits() {
	f := c.cv.File
	if n, ok := c.int("crawler.crawl.max_duration.limit", 1); ok {
		f.Limits.Time = time.Duration(n) * time.Second
		c.source("limits.time", "crawler.crawl.max_duration.limit")
	}
	if n, ok := c.int("crawler.crawl.max_crawl_depth.limit", 1); ok {
		f.Scope.MaxCrawlDepth = &n
		c.source("scope.max_crawl_depth", "crawler.crawl.max_crawl_depth.limit")
	}
	for _, k := range []struct {
		key, amber string
		dst        *int
	}{
		{"crawler.crawl.max_url_length.limit", "scope.max_url_length", &f.Scope.MaxURLLength},
		{"crawler.crawl.max_url_segments.limit", "scope.max_url_segments", &f.Scope.MaxURLSegments},
		{"crawler.crawl.max_url_params.limit", "scope.max_url_params", &f.Scope.MaxURLParams},
		{"crawler.crawl.threads.limit", "workers", &f.Workers},
		{"crawler.extraction.extracted_links_count.limit", "limits.max_outlinks", &f.Limits.MaxOutlinks},
	} {
		if n, ok := c.int(k.key, 1); ok {
			*k.dst = n
			c.source(k.amber, k.key)
		}
	}
	if n, ok := c.int("crawler.crawl.max_unique_url_count.limit", 1); ok {
		f.Limits.URLs = int64(n)
		c.source("limits.urls", "crawler.crawl.max_unique_url_count.limit")
		c.cv.Note("crawler.crawl.max_unique_url_count.limit: amber counts URLs fetched, Enterprise Search URLs seen")
	}
	if n, ok := c.int("crawler.http.response_size.limit", 1); ok {
		f.Limits.ResponseSize = config.ByteSize(n)
		c.source("limits.response_size", "crawler.http.response_size.limit")
		c.cv.Note("crawler.http.response_size.limit: amber keeps the first bytes of a longer response (WARC-Truncated) where Enterprise Search drops it; add limits.oversize: drop to give it no document")
	}
}

// documents maps the extraction limits, the deduplication fields and binary content
// extraction (its MIME types when enabled is true, as in Enterprise Search; types without
// enabled are off, which a note says).
func (c *conv) documents() {
	d := &c.cv.File.Documents
	for _, k := range []struct {
		key, amber string
		dst        *int
	}{
		{"crawler.extraction.title_size.limit", "max_title_size", &d.MaxTitleSize},
		{"crawler.extraction.body_size.limit", "max_body_size", &d.MaxBodySize},
		{"crawler.extraction.keywords_size.limit", "max_keywords_size", &d.MaxKeywordsSize},
		{"crawler.extraction.description_size.limit", "max_description_size", &d.MaxDescriptionSize},
		{"crawler.extraction.indexed_links_count.limit", "max_indexed_links_count", &d.MaxIndexedLinksCount},
		{"crawler.extraction.headings_count.limit", "max_headings_count", &d.MaxHeadingsCount},
	} {
		if n, ok := c.int(k.key, 1); ok {
			*k.dst = n
			c.source("documents."+k.amber, k.key)
		}
	}
	if l, ok := c.list("crawler.extraction.default_deduplication_fields"); ok {
		d.DeduplicationFields = l
		c.source("documents.deduplication_fields", "crawler.extraction.default_deduplication_fields")
	}
	enabled, given := c.bool("crawler.content_extraction.enabled")
	types, _ := c.list("crawler.content_extraction.mime_types")
	switch {
	case enabled && len(types) > 0:
		d.BinaryMIMETypes = types
		c.source("documents.binary_content_extraction_mime_types", "crawler.content_extraction.mime_types")
	case enabled:
		c.cv.Note("crawler.content_extraction.enabled without crawler.content_extraction.mime_types: no type is extracted, as in Enterprise Search (it has no default types)")
	case !given && len(types) > 0:
		c.cv.Note("crawler.content_extraction.mime_types without crawler.content_extraction.enabled: true: off, as in Enterprise Search")
	}
}

// fetch maps the user agent (with its platform appended, to amber's default agent when no
// user_agent is given), the HTTP timeouts (seconds) and max_redirects.
func (c *conv) fetch() {
	f := c.cv.File
	ua, platform := c.str("crawler.http.user_agent"), c.str("crawler.http.user_agent_platform")
	switch {
	case ua != "" && platform != "":
		f.UserAgent = ua + " " + platform
		c.cv.Source("user_agent", "crawler.http.user_agent, crawler.http.user_agent_platform")
	case ua != "":
		f.UserAgent = ua
		c.source("user_agent", "crawler.http.user_agent")
	case platform != "":
		f.UserAgent = crawl.DefaultUserAgent + " " + platform
		c.cv.Source("user_agent", "crawler.http.user_agent_platform (after amber's default user agent)")
	}
	for _, t := range []struct {
		key, amber string
		dst        *time.Duration
	}{
		{"crawler.http.connection_timeout", "network.connect_timeout", &f.Network.ConnectTimeout},
		{"crawler.http.read_timeout", "network.first_byte_timeout", &f.Network.FirstByteTimeout},
		{"crawler.http.request_timeout", "network.response_timeout", &f.Network.ResponseTimeout},
	} {
		if n, ok := c.int(t.key, 1); ok {
			*t.dst = time.Duration(n) * time.Second
			c.source(t.amber, t.key)
		}
	}
	if _, ok := c.s.Crawler["crawler.http.read_timeout"]; ok {
		c.cv.Note("crawler.http.read_timeout: Enterprise Search's longest wait for data on a connection; amber's network.first_byte_timeout bounds the wait for a response's first byte, and network.response_timeout the whole response")
	}
	if v, ok := c.s.Crawler["crawler.http.max_redirects"]; ok && v.Node.Value == "0" {
		c.errs = append(c.errs, fmt.Errorf("line %d: %s: 0 (follow no redirect): amber cannot honour it, its urls.max_redirects 0 means no limit; give 1 or more", v.Line, v.Key))
	} else if n, ok := c.int("crawler.http.max_redirects", 1); ok {
		f.URLs.MaxRedirects = n
		c.source("urls.max_redirects", "crawler.http.max_redirects")
	}
}

// security maps the TLS controls (verification_mode full or certificate to
// network.verify_tls, none to amber's default; certificate_authorities to
// network.ca_certificates) and the DNS ones (either allow_* to network.allow_private).
func (c *conv) security() {
	n := &c.cv.File.Network
	switch mode := c.str("crawler.security.ssl.verification_mode"); mode {
	case "full", "certificate":
		n.VerifyTLS = true
		c.source("network.verify_tls", "crawler.security.ssl.verification_mode")
		if mode == "certificate" {
			c.cv.Note("crawler.security.ssl.verification_mode: certificate: amber verifies the host name too (full)")
		}
	case "none":
		c.cv.Note("crawler.security.ssl.verification_mode: none: amber's default, which captures sites whose certificate does not verify and records the problem")
	case "":
		c.cv.Note("crawler.security.ssl.verification_mode not given: Enterprise Search verifies certificates (full); amber's default captures sites whose certificate does not verify and records the problem; add network.verify_tls: true to refuse them")
	default:
		v := c.s.Crawler["crawler.security.ssl.verification_mode"]
		c.errs = append(c.errs, fmt.Errorf("line %d: %s: %q: want full, certificate or none", v.Line, v.Key, mode))
	}
	if l, ok := c.list("crawler.security.ssl.certificate_authorities"); ok && len(l) > 0 {
		n.CACertificates = l
		c.source("network.ca_certificates", "crawler.security.ssl.certificate_authorities")
		if !n.VerifyTLS {
			c.cv.Note("crawler.security.ssl.certificate_authorities: trusted when certificates are verified (network.verify_tls: true, verification_mode full or certificate)")
		}
	}
	loop, _ := c.bool("crawler.security.dns.allow_loopback_access")
	priv, _ := c.bool("crawler.security.dns.allow_private_networks_access")
	if loop || priv {
		n.AllowPrivate = true
		c.cv.Source("network.allow_private", "crawler.security.dns.allow_loopback_access, crawler.security.dns.allow_private_networks_access")
		c.cv.Note("crawler.security.dns.allow_loopback_access and allow_private_networks_access are one setting in amber: network.allow_private allows both")
	}
}

// proxy maps crawler.http.proxy.* to proxy: the host and port (both needed) and the
// protocol (http, the default, or https) make its URL; the password, written ${NAME}, stays
// the reference env:NAME.
func (c *conv) proxy() {
	host := c.str("crawler.http.proxy.host")
	port, hasPort := c.int("crawler.http.proxy.port", 1)
	user := c.str("crawler.http.proxy.username")
	var pass config.Secret
	if pv, ok := c.s.Crawler["crawler.http.proxy.password"]; ok {
		pass = config.Secret(pv.Node.Value)
		if pv.EnvRef != "" {
			pass = config.Secret("env:" + pv.EnvRef) // read when the crawl starts
		}
	}
	if host == "" {
		for _, k := range []string{"crawler.http.proxy.port", "crawler.http.proxy.protocol", "crawler.http.proxy.username", "crawler.http.proxy.password"} {
			if v, ok := c.s.Crawler[k]; ok {
				c.errs = append(c.errs, fmt.Errorf("line %d: %s without crawler.http.proxy.host", v.Line, v.Key))
			}
		}
		return
	}
	h := c.s.Crawler["crawler.http.proxy.host"]
	if !hasPort {
		c.errs = append(c.errs, fmt.Errorf("line %d: %s without crawler.http.proxy.port: give the proxy's port", h.Line, h.Key))
		return
	}
	scheme := c.str("crawler.http.proxy.protocol")
	if scheme == "" {
		scheme = "http"
	}
	if scheme != "http" && scheme != "https" {
		v := c.s.Crawler["crawler.http.proxy.protocol"]
		c.errs = append(c.errs, fmt.Errorf("line %d: %s: %q: amber's proxy is http or https", v.Line, v.Key, scheme))
		return
	}
	u := url.URL{Scheme: scheme, Host: host + ":" + strconv.Itoa(port)}
	c.cv.File.Proxy = &config.ProxySpec{URL: u.String(), Username: user, Password: pass}
	c.cv.SecretFrom["proxy.password"] = "crawler.http.proxy.password"
	c.cv.Source("proxy", "crawler.http.proxy.host, port, protocol, username, password")
	c.cv.Note("proxy: amber sends every request through a CONNECT tunnel, http ones too: the proxy must allow CONNECT to port 80 as well as 443")
}

// ignored notes each crawler.* key given that amber accepts without effect, and the file's
// other keys, which configure Enterprise Search itself.
func (c *conv) ignored() {
	for _, k := range Keys {
		if v, ok := c.s.Crawler[k.Name]; ok && k.Why != "" {
			c.cv.Note("%s: ignored: %s", v.Key, k.Why)
		}
	}
	if len(c.s.Other) > 0 {
		c.cv.Note("not crawler settings, ignored (they configure Enterprise Search itself): %s", joinKeys(c.s.Other))
	}
}

// joinKeys lists keys, at most 12 of them, then how many more.
func joinKeys(keys []string) string {
	const most = 12
	out := ""
	for i, k := range keys {
		if i == most {
			return fmt.Sprintf("%s and %d more", out, len(keys)-most)
		}
		if i > 0 {
			out += ", "
		}
		out += k
	}
	return out
}
