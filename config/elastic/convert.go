package elastic

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/amber-crawler/amber/config"
)

// Convert maps the file onto amber's model (spec/elastic.md §6): domains to scope.domains of
// the elastic flavour, their entry points to seeds (a domain without any gets its root, as
// in the open crawler), extraction rulesets to documents.extraction_rulesets, the size
// limits to documents, the crawl limits to limits, loopback_allowed and
// private_networks_allowed to network.allow_private, ssl_verification_mode to
// network.verify_tls, sitemap_discovery_disabled to sitemaps.robots, auth (the list and the
// older auth.* keys) to auth, http_auth_allowed to http_auth_allowed, http_proxy_* to proxy,
// and each domain's http_headers to origin_headers (an Authorization field among them to an
// auth entry of type raw).
//
// An elasticsearch.yml (a file of the elasticsearch section alone) gives the index section
// only, to be combined with the crawl's own file (config.Merge).
//
// The File holds the file's secrets as they are, so that a crawl can run from it; Render
// writes them as env: references instead (see Render).
func (e *Config) Convert() (*config.Converted, error) {
	auths, err := e.AuthEntries()
	if err != nil {
		return nil, err
	}
	cv := &config.Converted{File: &config.File{}, Sources: map[string]string{}, SecretFrom: map[string]string{}}
	if len(e.Domains) == 0 && e.connectionOnly() {
		// An elasticsearch.yml: the index section only, for the crawl's file to join.
		e.convertIndex(cv)
		return cv, nil
	}
	// The notes are in the order of these steps, which Render keeps.
	e.convertDomains(cv)
	e.convertLimits(cv)
	e.convertDocuments(cv)
	e.convertFetch(cv)
	e.convertCurrent(cv)
	e.noteOutput(cv)
	e.convertIndex(cv)
	if err := e.convertAccess(cv, auths); err != nil {
		return nil, err
	}
	return cv, nil
}

// convertDomains maps domains: each to an entry of scope.domains (of the elastic flavour)
// with its sitemaps and crawl rules, its seed_urls to seeds (its root when it has none, as in
// the open crawler, which a note says), and its extraction rulesets to
// documents.extraction_rulesets for its origin. The domains are checked by Parse.
func (e *Config) convertDomains(cv *config.Converted) {
	c := cv.File
	c.Scope.Flavour = "elastic"
	cv.Source("scope.flavour", "domains")
	for i, d := range e.Domains {
		o, _ := config.Origin(d.URL) // checked by Parse
		ds := config.DomainSpec{URL: o, SitemapURLs: d.SitemapURLs}
		for _, r := range d.CrawlRules {
			ds.CrawlRules = append(ds.CrawlRules, config.CrawlRuleSpec(r))
		}
		c.Scope.Domains = append(c.Scope.Domains, ds)
		cv.Source(fmt.Sprintf("scope.domains[%d]", i), fmt.Sprintf("domains[%d]", i))
		seeds := d.SeedURLs
		if len(seeds) == 0 {
			seeds = []string{o + "/"}
			cv.Note("domains[%d] (%s) has no seed_urls: its root %s is the entry point, as in the open crawler", i, o, o+"/")
		}
		for _, u := range seeds {
			cv.Source(fmt.Sprintf("seeds[%d]", len(c.Seeds)), fmt.Sprintf("domains[%d].seed_urls", i))
			c.Seeds = append(c.Seeds, config.SeedSpec{URL: u})
		}
		for k, rs := range d.ExtractionRulesets {
			cv.Source(fmt.Sprintf("documents.extraction_rulesets[%d]", len(c.Documents.ExtractionRulesets)), fmt.Sprintf("domains[%d].extraction_rulesets[%d]", i, k))
			c.Documents.ExtractionRulesets = append(c.Documents.ExtractionRulesets,
				config.ExtractionRulesetSpec{Domain: o, URLFilters: rs.URLFilters, Rules: rs.Rules})
		}
	}
}

// convertLimits maps the crawl limits the file gives: max_crawl_depth and max_url_length to
// scope, max_unique_url_count, max_duration, max_response_size and max_extracted_links_count
// to limits, threads_per_crawl to workers. Where amber counts or cuts differently a note
// says how.
func (e *Config) convertLimits(cv *config.Converted) {
	c := cv.File
	if e.MaxCrawlDepth != nil {
		c.Scope.MaxCrawlDepth = e.MaxCrawlDepth
		cv.Source("scope.max_crawl_depth", "max_crawl_depth")
	}
	if e.MaxURLLength != nil {
		c.Scope.MaxURLLength = *e.MaxURLLength
		cv.Source("scope.max_url_length", "max_url_length")
	}
	if e.MaxUniqueURLCount != nil {
		c.Limits.URLs = int64(*e.MaxUniqueURLCount)
		cv.Source("limits.urls", "max_unique_url_count")
		cv.Note("max_unique_url_count: amber counts URLs fetched, the open crawler URLs seen")
	}
	if e.MaxDuration != nil {
		c.Limits.Time = time.Duration(*e.MaxDuration) * time.Second
		cv.Source("limits.time", "max_duration")
	}
	if e.MaxResponseSize != nil {
		c.Limits.ResponseSize = config.ByteSize(*e.MaxResponseSize)
		cv.Source("limits.response_size", "max_response_size")
		cv.Note("max_response_size: amber keeps the first max_response_size bytes (WARC-Truncated) where the open crawler drops the response")
	}
	if e.MaxExtractedLinksCount != nil {
		c.Limits.MaxOutlinks = *e.MaxExtractedLinksCount
		cv.Source("limits.max_outlinks", "max_extracted_links_count")
	}
	if e.ThreadsPerCrawl != nil {
		c.Workers = *e.ThreadsPerCrawl
		cv.Source("workers", "threads_per_crawl")
	}
}

// convertDocuments maps the limits of the documents' fields (max_title_size and the others
// of the same name in documents) and binary content extraction: its MIME types when
// enabled, under the binary_content_extraction_* keys or else the open crawler's own
// content_extraction_* ones. Types without enabled: true are off, as in the open crawler; a
// note says so when enabled is not given.
func (e *Config) convertDocuments(cv *config.Converted) {
	c := cv.File
	for _, f := range []struct {
		v     *int
		dst   *int
		amber string
		key   string
	}{
		{e.MaxTitleSize, &c.Documents.MaxTitleSize, "max_title_size", "max_title_size"},
		{e.MaxBodySize, &c.Documents.MaxBodySize, "max_body_size", "max_body_size"},
		{e.MaxKeywordsSize, &c.Documents.MaxKeywordsSize, "max_keywords_size", "max_keywords_size"},
		{e.MaxDescriptionSize, &c.Documents.MaxDescriptionSize, "max_description_size", "max_description_size"},
		{e.MaxIndexedLinksCount, &c.Documents.MaxIndexedLinksCount, "max_indexed_links_count", "max_indexed_links_count"},
		{e.MaxHeadingsCount, &c.Documents.MaxHeadingsCount, "max_headings_count", "max_headings_count"},
	} {
		if f.v != nil {
			*f.dst = *f.v
			cv.Source("documents."+f.amber, f.key)
		}
	}
	enabled, types, key := e.BinaryContentExtractionEnabled, e.BinaryContentExtractionMIMETypes, "binary_content_extraction"
	if enabled == nil && types == nil {
		enabled, types, key = e.ContentExtractionEnabled, e.ContentExtractionMIMETypes, "content_extraction"
	}
	if enabled != nil && *enabled && len(types) > 0 {
		c.Documents.BinaryMIMETypes = types
		cv.Source("documents.binary_content_extraction_mime_types", key+"_mime_types")
	} else if enabled == nil && len(types) > 0 {
		cv.Note("%s_mime_types without %s_enabled: true: off, as in the open crawler", key, key)
	}
}

// convertFetch maps how pages are found and fetched: sitemap_discovery_disabled to
// sitemaps.robots, loopback_allowed and private_networks_allowed to network.allow_private
// (one setting in amber), ssl_verification_mode full or certificate to network.verify_tls,
// and user_agent. Notes say where amber differs, and what its default does when
// ssl_verification_mode is not given.
func (e *Config) convertFetch(cv *config.Converted) {
	c := cv.File
	if e.SitemapDiscoveryDisabled != nil {
		on := !*e.SitemapDiscoveryDisabled
		c.Sitemaps.Robots = &on
		cv.Source("sitemaps.robots", "sitemap_discovery_disabled")
	}
	if (e.LoopbackAllowed != nil && *e.LoopbackAllowed) || (e.PrivateNetworksAllowed != nil && *e.PrivateNetworksAllowed) {
		c.Network.AllowPrivate = true
		cv.Source("network.allow_private", "loopback_allowed, private_networks_allowed")
		cv.Note("loopback_allowed and private_networks_allowed are one setting in amber: network.allow_private allows both")
	}
	switch e.SSLVerificationMode {
	case "full", "certificate":
		c.Network.VerifyTLS = true
		cv.Source("network.verify_tls", "ssl_verification_mode")
		if e.SSLVerificationMode == "certificate" {
			cv.Note("ssl_verification_mode: certificate: amber verifies the host name too (full)")
		}
	case "":
		cv.Note("ssl_verification_mode not given: the open crawler verifies certificates (full); amber's default captures sites whose certificate does not verify and records the problem; add network.verify_tls: true to refuse them")
	}
	if e.UserAgent != "" {
		c.UserAgent = e.UserAgent
		cv.Source("user_agent", "user_agent")
	}
}

// noteOutput notes what amber does for the logging and output keys the file gives
// (log_level, event_logs, output_sink file or console, output_dir), none of which has a key
// in amber's config: its logs and documents go to the crawl directory.
func (e *Config) noteOutput(cv *config.Converted) {
	if e.LogLevel != "" {
		cv.Note("log_level: amber's terminal log level is the --log-level flag; crawl.log and events.jsonl are always written")
	}
	if e.EventLogs != nil {
		cv.Note("event_logs: amber always writes its events to logs/events.jsonl in the crawl directory")
	}
	switch e.OutputSink {
	case "console", "file":
		cv.Note("output_sink %q: amber writes the documents to documents.jsonl in the crawl directory (--dir), next to the WARC files", e.OutputSink)
	case "":
		if !e.connectionOnly() {
			cv.Note("output_sink not given: the open crawler's default is elasticsearch; amber writes documents.jsonl, and sends them to an index only with output_sink: elasticsearch (index.sink)")
		}
	}
	if e.OutputDir != "" {
		cv.Note("output_dir %q: give the crawl directory with --dir", e.OutputDir)
	}
}

// convertAccess maps auth, http_auth_allowed, the domains' http_headers and http_proxy_*,
// and records in cv.SecretFrom the Elastic key of each secret it copies. It fails when a
// domain's http_headers give an Authorization field for an origin that has an auth entry.
func (e *Config) convertAccess(cv *config.Converted, auths []Auth) error {
	byOrigin := e.convertAuth(cv, auths)
	if err := e.convertHeaders(cv, byOrigin); err != nil {
		return err
	}
	e.convertHTTPAuthAllowed(cv)
	e.convertProxy(cv)
	return nil
}

// convertAuth maps the auth entries to auth, one entry per origin: of several for one
// origin the last wins, as in the open crawler, which a note says. It returns the index in
// auth of each origin's entry.
func (e *Config) convertAuth(cv *config.Converted, auths []Auth) map[string]int {
	c := cv.File
	byOrigin := map[string]int{}
	for _, a := range auths {
		o, _ := config.Origin(a.Domain) // checked by Parse
		spec := config.AuthSpec{Origin: o, Type: a.Type}
		j, dup := byOrigin[o]
		if !dup {
			j = len(c.Auth)
			byOrigin[o] = j
			c.Auth = append(c.Auth, spec)
		} else {
			// The open crawler sends the last entry that matches a URL's site.
			cv.Note("%s and an earlier entry are both for %s: the open crawler sends the last one, and so does this config", a.from, o)
		}
		flat := strings.TrimSuffix(a.from, "*")
		if !strings.HasSuffix(flat, ".") {
			flat += "."
		}
		delete(cv.SecretFrom, fmt.Sprintf("auth[%d].password", j))
		delete(cv.SecretFrom, fmt.Sprintf("auth[%d].value", j))
		if a.Type == config.AuthBasic {
			spec.Username, spec.Password = a.Username, config.Secret(envRef(a.Password))
			cv.SecretFrom[fmt.Sprintf("auth[%d].password", j)] = flat + "password"
			if a.Header != "" {
				cv.Note("%s: type basic: header is not sent, as in the open crawler (type raw sends it)", a.from)
			}
		} else {
			spec.Value = config.Secret(envRef(a.Header))
			cv.SecretFrom[fmt.Sprintf("auth[%d].value", j)] = flat + "header"
			if a.Username != "" || a.Password != "" {
				cv.Note("%s: type raw: username and password are not sent, as in the open crawler (type basic sends them)", a.from)
			}
		}
		c.Auth[j] = spec
		cv.Source(fmt.Sprintf("auth[%d]", j), a.from)
	}
	return byOrigin
}

// convertHeaders maps each domain's http_headers to origin_headers for its origin (of
// fields of one name the later wins, as in a Ruby hash merge), except an Authorization
// field, which becomes an auth entry of type raw for the origin, with a note. byOrigin is
// the index in auth of each origin's entry, and gets those of the new entries; an
// Authorization field for an origin that has one already is an error.
func (e *Config) convertHeaders(cv *config.Converted, byOrigin map[string]int) error {
	c := cv.File
	for i, d := range e.Domains {
		if len(d.HTTPHeaders) == 0 {
			continue
		}
		o, _ := config.Origin(d.URL)
		h := config.HeaderMap{}
		for k, entry := range d.HTTPHeaders {
			for name, v := range entry {
				where := fmt.Sprintf("domains[%d].http_headers[%d].%s", i, k, name)
				if http.CanonicalHeaderKey(name) != "Authorization" {
					h[name] = v // a later entry of the same name wins, as in a Ruby hash merge
					cv.SecretFrom["origin_headers."+o+"."+name] = where
					continue
				}
				if _, dup := byOrigin[o]; dup {
					return fmt.Errorf("%w: %s: %s also has an auth entry; give one of them", ErrConfig, where, o)
				}
				byOrigin[o] = len(c.Auth)
				cv.SecretFrom[fmt.Sprintf("auth[%d].value", len(c.Auth))] = where
				cv.Source(fmt.Sprintf("auth[%d]", len(c.Auth)), where)
				c.Auth = append(c.Auth, config.AuthSpec{Origin: o, Type: config.AuthRaw, Value: config.Secret(v)})
				cv.Note("%s: amber sends credentials with auth (type raw here), to their origin only", where)
			}
		}
		if len(h) == 0 {
			continue
		}
		if c.OriginHeaders == nil {
			c.OriginHeaders = map[string]config.HeaderMap{}
		}
		c.OriginHeaders[o] = h
		cv.Source("origin_headers."+o, fmt.Sprintf("domains[%d].http_headers", i))
	}
	return nil
}

// convertHTTPAuthAllowed maps http_auth_allowed (not given: false, as in the open crawler).
// Without it a note names each plain-http origin of auth, whose credentials are not sent.
func (e *Config) convertHTTPAuthAllowed(cv *config.Converted) {
	c := cv.File
	if e.HTTPAuthAllowed != nil {
		c.HTTPAuthAllowed = *e.HTTPAuthAllowed
		cv.Source("http_auth_allowed", "http_auth_allowed")
	}
	if c.HTTPAuthAllowed {
		return
	}
	for _, a := range c.Auth {
		if strings.HasPrefix(a.Origin, "http:") {
			cv.Note("auth for %s: without http_auth_allowed: true the credentials are not sent over plain http, as in the open crawler", a.Origin)
		}
	}
}

// convertProxy maps http_proxy_* to proxy (ProxyURL, with the credentials apart from the
// URL), with notes on the default port and on amber's CONNECT tunnels.
func (e *Config) convertProxy(cv *config.Converted) {
	u := e.ProxyURL()
	if u == nil {
		return
	}
	p := &config.ProxySpec{Username: e.HTTPProxyUsername, Password: config.Secret(e.HTTPProxyPassword)}
	u.User = nil
	p.URL = u.String()
	cv.File.Proxy = p
	cv.SecretFrom["proxy.password"] = "http_proxy_password"
	cv.Source("proxy", "http_proxy_host, http_proxy_port, http_proxy_protocol, http_proxy_username, http_proxy_password")
	if e.HTTPProxyPort == nil {
		cv.Note("http_proxy_port not given: 8080, the open crawler's default")
	}
	cv.Note("proxy: amber sends every request through a CONNECT tunnel, http ones too: the proxy must allow CONNECT to port 80 as well as 443")
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
