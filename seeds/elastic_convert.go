package seeds

import (
	"bytes"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Converted is an Elastic Open Crawler config in amber's model: Config, with Sources saying
// which Elastic key each amber key came from (amber key path, e.g. "scope.max_crawl_depth" or
// "scope.domains[0].crawl_rules", to the Elastic key) and Notes on what amber does
// differently (keys it accepts without an equivalent).
type Converted struct {
	Config  *Config
	Sources map[string]string
	Notes   []string

	secretFrom map[string]string // amber key of a secret (auth[0].password) -> Elastic key
}

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
// The Config holds the file's secrets as they are, so that a crawl can run from it; Render
// writes them as env: references instead (see Render).
func (e *ElasticConfig) Convert() (*Converted, error) {
	auths, err := e.AuthEntries()
	if err != nil {
		return nil, err
	}
	cv := &Converted{Config: &Config{}, Sources: map[string]string{}}
	// The notes are in the order of these steps, which Render keeps.
	e.convertDomains(cv)
	e.convertLimits(cv)
	e.convertDocuments(cv)
	e.convertFetch(cv)
	e.noteOutput(cv)
	if err := e.convertAccess(cv, auths); err != nil {
		return nil, err
	}
	return cv, nil
}

// src records that the amber key came from the Elastic key (or keys) elastic.
func (cv *Converted) src(amber, elastic string) { cv.Sources[amber] = elastic }

// note adds a note on what amber does differently, after those already there.
func (cv *Converted) note(format string, a ...any) {
	cv.Notes = append(cv.Notes, fmt.Sprintf(format, a...))
}

// convertDomains maps domains: each to an entry of scope.domains (of the elastic flavour)
// with its sitemaps and crawl rules, its seed_urls to seeds (its root when it has none, as in
// the open crawler, which a note says), and its extraction rulesets to
// documents.extraction_rulesets for its origin. The domains are checked by ParseElastic.
func (e *ElasticConfig) convertDomains(cv *Converted) {
	c := cv.Config
	c.Scope.Flavour = "elastic"
	cv.src("scope.flavour", "domains")
	for i, d := range e.Domains {
		o, _ := ElasticOrigin(d.URL) // checked by ParseElastic
		ds := DomainSpec{URL: o, SitemapURLs: d.SitemapURLs}
		for _, r := range d.CrawlRules {
			ds.CrawlRules = append(ds.CrawlRules, CrawlRuleSpec(r))
		}
		c.Scope.Domains = append(c.Scope.Domains, ds)
		cv.src(fmt.Sprintf("scope.domains[%d]", i), fmt.Sprintf("domains[%d]", i))
		seeds := d.SeedURLs
		if len(seeds) == 0 {
			seeds = []string{o + "/"}
			cv.note("domains[%d] (%s) has no seed_urls: its root %s is the entry point, as in the open crawler", i, o, o+"/")
		}
		for _, u := range seeds {
			cv.src(fmt.Sprintf("seeds[%d]", len(c.Seeds)), fmt.Sprintf("domains[%d].seed_urls", i))
			c.Seeds = append(c.Seeds, SeedSpec{URL: u})
		}
		for k, rs := range d.ExtractionRulesets {
			cv.src(fmt.Sprintf("documents.extraction_rulesets[%d]", len(c.Documents.ExtractionRulesets)), fmt.Sprintf("domains[%d].extraction_rulesets[%d]", i, k))
			c.Documents.ExtractionRulesets = append(c.Documents.ExtractionRulesets,
				ExtractionRulesetSpec{Domain: o, URLFilters: rs.URLFilters, Rules: rs.Rules})
		}
	}
}

// convertLimits maps the crawl limits the file gives: max_crawl_depth and max_url_length to
// scope, max_unique_url_count, max_duration, max_response_size and max_extracted_links_count
// to limits, threads_per_crawl to workers. Where amber counts or cuts differently a note
// says how.
func (e *ElasticConfig) convertLimits(cv *Converted) {
	c := cv.Config
	if e.MaxCrawlDepth != nil {
		c.Scope.MaxCrawlDepth = e.MaxCrawlDepth
		cv.src("scope.max_crawl_depth", "max_crawl_depth")
	}
	if e.MaxURLLength != nil {
		c.Scope.MaxURLLength = *e.MaxURLLength
		cv.src("scope.max_url_length", "max_url_length")
	}
	if e.MaxUniqueURLCount != nil {
		c.Limits.URLs = int64(*e.MaxUniqueURLCount)
		cv.src("limits.urls", "max_unique_url_count")
		cv.note("max_unique_url_count: amber counts URLs fetched, the open crawler URLs seen")
	}
	if e.MaxDuration != nil {
		c.Limits.Time = time.Duration(*e.MaxDuration) * time.Second
		cv.src("limits.time", "max_duration")
	}
	if e.MaxResponseSize != nil {
		c.Limits.ResponseSize = ByteSize(*e.MaxResponseSize)
		cv.src("limits.response_size", "max_response_size")
		cv.note("max_response_size: amber keeps the first max_response_size bytes (WARC-Truncated) where the open crawler drops the response")
	}
	if e.MaxExtractedLinksCount != nil {
		c.Limits.MaxOutlinks = *e.MaxExtractedLinksCount
		cv.src("limits.max_outlinks", "max_extracted_links_count")
	}
	if e.ThreadsPerCrawl != nil {
		c.Workers = *e.ThreadsPerCrawl
		cv.src("workers", "threads_per_crawl")
	}
}

// convertDocuments maps the limits of the documents' fields (max_title_size and the others
// of the same name in documents) and binary content extraction: its MIME types when
// enabled, under the binary_content_extraction_* keys or else the open crawler's own
// content_extraction_* ones. Types without enabled: true are off, as in the open crawler; a
// note says so when enabled is not given.
func (e *ElasticConfig) convertDocuments(cv *Converted) {
	c := cv.Config
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
			cv.src("documents."+f.amber, f.key)
		}
	}
	enabled, types, key := e.BinaryContentExtractionEnabled, e.BinaryContentExtractionMIMETypes, "binary_content_extraction"
	if enabled == nil && types == nil {
		enabled, types, key = e.ContentExtractionEnabled, e.ContentExtractionMIMETypes, "content_extraction"
	}
	if enabled != nil && *enabled && len(types) > 0 {
		c.Documents.BinaryMIMETypes = types
		cv.src("documents.binary_content_extraction_mime_types", key+"_mime_types")
	} else if enabled == nil && len(types) > 0 {
		cv.note("%s_mime_types without %s_enabled: true: off, as in the open crawler", key, key)
	}
}

// convertFetch maps how pages are found and fetched: sitemap_discovery_disabled to
// sitemaps.robots, loopback_allowed and private_networks_allowed to network.allow_private
// (one setting in amber), ssl_verification_mode full or certificate to network.verify_tls,
// and user_agent. Notes say where amber differs, and what its default does when
// ssl_verification_mode is not given.
func (e *ElasticConfig) convertFetch(cv *Converted) {
	c := cv.Config
	if e.SitemapDiscoveryDisabled != nil {
		on := !*e.SitemapDiscoveryDisabled
		c.Sitemaps.Robots = &on
		cv.src("sitemaps.robots", "sitemap_discovery_disabled")
	}
	if (e.LoopbackAllowed != nil && *e.LoopbackAllowed) || (e.PrivateNetworksAllowed != nil && *e.PrivateNetworksAllowed) {
		c.Network.AllowPrivate = true
		cv.src("network.allow_private", "loopback_allowed, private_networks_allowed")
		cv.note("loopback_allowed and private_networks_allowed are one setting in amber: network.allow_private allows both")
	}
	switch e.SSLVerificationMode {
	case "full", "certificate":
		c.Network.VerifyTLS = true
		cv.src("network.verify_tls", "ssl_verification_mode")
		if e.SSLVerificationMode == "certificate" {
			cv.note("ssl_verification_mode: certificate: amber verifies the host name too (full)")
		}
	case "":
		cv.note("ssl_verification_mode not given: the open crawler verifies certificates (full); amber's default captures sites whose certificate does not verify and records the problem; add network.verify_tls: true to refuse them")
	}
	if e.UserAgent != "" {
		c.UserAgent = e.UserAgent
		cv.src("user_agent", "user_agent")
	}
}

// noteOutput notes what amber does for the logging and output keys the file gives
// (log_level, event_logs, output_sink, output_dir, output_index), none of which has a key
// in amber's config: its logs and documents go to the crawl directory.
func (e *ElasticConfig) noteOutput(cv *Converted) {
	if e.LogLevel != "" {
		cv.note("log_level: amber's terminal log level is the --log-level flag; crawl.log and events.jsonl are always written")
	}
	if e.EventLogs != nil {
		cv.note("event_logs: amber always writes its events to logs/events.jsonl in the crawl directory")
	}
	switch e.OutputSink {
	case "", "console", "file":
		cv.note("output_sink %q: amber writes the documents to documents.jsonl in the crawl directory (--dir), next to the WARC files", cmpOr(e.OutputSink, "console"))
	}
	if e.OutputDir != "" {
		cv.note("output_dir %q: give the crawl directory with --dir", e.OutputDir)
	}
	if e.OutputIndex != "" {
		cv.note("output_index %q: amber has no Elasticsearch output; load documents.jsonl with the _bulk API", e.OutputIndex)
	}
}

// convertAccess maps auth, http_auth_allowed, the domains' http_headers and http_proxy_*,
// and records in cv.secretFrom the Elastic key of each secret it copies. It fails when a
// domain's http_headers give an Authorization field for an origin that has an auth entry.
func (e *ElasticConfig) convertAccess(cv *Converted, auths []ElasticAuth) error {
	cv.secretFrom = map[string]string{}
	byOrigin := e.convertAuth(cv, auths)
	if err := e.convertHeaders(cv, byOrigin); err != nil {
		return err
	}
	e.convertHTTPAuthAllowed(cv)
	e.convertProxy(cv)
	return nil
}

// authKey names auth entry i (of AuthEntries) as the file gives it: auth[i] of the list, or
// auth.* for the older flat keys.
func (e *ElasticConfig) authKey(i int) string {
	if len(e.Auth) == 0 {
		return "auth.*"
	}
	return fmt.Sprintf("auth[%d]", i)
}

// convertAuth maps the auth entries to auth, one entry per origin: of several for one
// origin the last wins, as in the open crawler, which a note says. It returns the index in
// auth of each origin's entry.
func (e *ElasticConfig) convertAuth(cv *Converted, auths []ElasticAuth) map[string]int {
	c := cv.Config
	byOrigin := map[string]int{}
	for i, a := range auths {
		o, _ := ElasticOrigin(a.Domain) // checked by ParseElastic
		spec := AuthSpec{Origin: o, Type: a.Type}
		j, dup := byOrigin[o]
		if !dup {
			j = len(c.Auth)
			byOrigin[o] = j
			c.Auth = append(c.Auth, spec)
		} else {
			// The open crawler sends the last entry that matches a URL's site.
			cv.note("%s and an earlier entry are both for %s: the open crawler sends the last one, and so does this config", e.authKey(i), o)
		}
		flat := strings.TrimSuffix(e.authKey(i), "*")
		if len(e.Auth) > 0 {
			flat += "."
		}
		delete(cv.secretFrom, fmt.Sprintf("auth[%d].password", j))
		delete(cv.secretFrom, fmt.Sprintf("auth[%d].value", j))
		if a.Type == AuthBasic {
			spec.Username, spec.Password = a.Username, Secret(a.Password)
			cv.secretFrom[fmt.Sprintf("auth[%d].password", j)] = flat + "password"
		} else {
			spec.Value = Secret(a.Header)
			cv.secretFrom[fmt.Sprintf("auth[%d].value", j)] = flat + "header"
		}
		c.Auth[j] = spec
		cv.src(fmt.Sprintf("auth[%d]", j), e.authKey(i))
	}
	return byOrigin
}

// convertHeaders maps each domain's http_headers to origin_headers for its origin (of
// fields of one name the later wins, as in a Ruby hash merge), except an Authorization
// field, which becomes an auth entry of type raw for the origin, with a note. byOrigin is
// the index in auth of each origin's entry, and gets those of the new entries; an
// Authorization field for an origin that has one already is an error.
func (e *ElasticConfig) convertHeaders(cv *Converted, byOrigin map[string]int) error {
	c := cv.Config
	for i, d := range e.Domains {
		if len(d.HTTPHeaders) == 0 {
			continue
		}
		o, _ := ElasticOrigin(d.URL)
		h := HeaderMap{}
		for k, entry := range d.HTTPHeaders {
			for name, v := range entry {
				where := fmt.Sprintf("domains[%d].http_headers[%d].%s", i, k, name)
				if http.CanonicalHeaderKey(name) != "Authorization" {
					h[name] = v // a later entry of the same name wins, as in a Ruby hash merge
					cv.secretFrom["origin_headers."+o+"."+name] = where
					continue
				}
				if _, dup := byOrigin[o]; dup {
					return fmt.Errorf("%w: %s: %s also has an auth entry; give one of them", ErrElasticConfig, where, o)
				}
				byOrigin[o] = len(c.Auth)
				cv.secretFrom[fmt.Sprintf("auth[%d].value", len(c.Auth))] = where
				cv.src(fmt.Sprintf("auth[%d]", len(c.Auth)), where)
				c.Auth = append(c.Auth, AuthSpec{Origin: o, Type: AuthRaw, Value: Secret(v)})
				cv.note("%s: amber sends credentials with auth (type raw here), to their origin only", where)
			}
		}
		if len(h) == 0 {
			continue
		}
		if c.OriginHeaders == nil {
			c.OriginHeaders = map[string]HeaderMap{}
		}
		c.OriginHeaders[o] = h
		cv.src("origin_headers."+o, fmt.Sprintf("domains[%d].http_headers", i))
	}
	return nil
}

// convertHTTPAuthAllowed maps http_auth_allowed (not given: false, as in the open crawler).
// Without it a note names each plain-http origin of auth, whose credentials are not sent.
func (e *ElasticConfig) convertHTTPAuthAllowed(cv *Converted) {
	c := cv.Config
	if e.HTTPAuthAllowed != nil {
		c.HTTPAuthAllowed = *e.HTTPAuthAllowed
		cv.src("http_auth_allowed", "http_auth_allowed")
	}
	if c.HTTPAuthAllowed {
		return
	}
	for _, a := range c.Auth {
		if strings.HasPrefix(a.Origin, "http:") {
			cv.note("auth for %s: without http_auth_allowed: true the credentials are not sent over plain http, as in the open crawler", a.Origin)
		}
	}
}

// convertProxy maps http_proxy_* to proxy (ProxyURL, with the credentials apart from the
// URL), with notes on the default port and on amber's CONNECT tunnels.
func (e *ElasticConfig) convertProxy(cv *Converted) {
	u := e.ProxyURL()
	if u == nil {
		return
	}
	p := &ProxySpec{Username: e.HTTPProxyUsername, Password: Secret(e.HTTPProxyPassword)}
	u.User = nil
	p.URL = u.String()
	cv.Config.Proxy = p
	cv.secretFrom["proxy.password"] = "http_proxy_password"
	cv.src("proxy", "http_proxy_host, http_proxy_port, http_proxy_protocol, http_proxy_username, http_proxy_password")
	if e.HTTPProxyPort == nil {
		cv.note("http_proxy_port not given: 8080, the open crawler's default")
	}
	cv.note("proxy: amber sends every request through a CONNECT tunnel, http ones too: the proxy must allow CONNECT to port 80 as well as 443")
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// Render writes the converted config as amber YAML, each key that came from the Elastic file
// commented with that key, then the notes as a comment block at the end.
//
// The secrets of the file (auth passwords and raw values, the proxy password, Cookie values
// of http_headers) are not copied: each is written as an env:NAME reference
// (AMBER_AUTH_0_PASSWORD, AMBER_AUTH_1_VALUE, AMBER_PROXY_PASSWORD, AMBER_COOKIE_0, ...),
// and a note says which variable holds which of the file's keys. The conversion is printed on
// a terminal and its output is a file made to be kept, shared and put in version control; the
// environment is where amber, like CI systems and containers, expects secrets, and a crawl
// run from the converted file records the references in crawl.yaml, so it resumes without
// the file. (An Elastic file can also be crawled as it is, with its secrets.)
func (cv *Converted) Render(source string) ([]byte, error) {
	cfg, envNotes := withEnvSecrets(cv.Config, cv.secretFrom)
	var root yaml.Node
	if err := root.Encode(cfg); err != nil {
		return nil, err
	}
	annotate(&root, "", cv.Sources)
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "# amber crawl config converted from the Elastic Open Crawler file %s.\n", source)
	buf.WriteString("# A comment after a key names the key it came from.\n")
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&root); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	if len(envNotes) > 0 {
		buf.WriteString("\n# Secrets: this file holds none. Set these environment variables before amber crawl\n")
		buf.WriteString("# (or write the value in place of its env: reference, and keep the file private):\n")
		for _, n := range envNotes {
			buf.WriteString("# - " + n + "\n")
		}
	}
	if len(cv.Notes) > 0 {
		buf.WriteString("\n# What amber does differently:\n")
		for _, n := range cv.Notes {
			buf.WriteString("# - " + n + "\n")
		}
	}
	return buf.Bytes(), nil
}

// withEnvSecrets returns a copy of c whose secrets that are values are env: references, and
// for each a line naming the variable and the key it stands for (the Elastic key of from,
// keyed by amber key, or else the amber key).
func withEnvSecrets(c *Config, from map[string]string) (*Config, []string) {
	out := *c
	var notes []string
	ref := func(s Secret, name, amberKey string) Secret {
		if _, isEnv := s.Env(); isEnv || s == "" {
			return s
		}
		k := from[amberKey]
		if k == "" {
			k = amberKey
		}
		notes = append(notes, fmt.Sprintf("%s: the value of %s", name, k))
		return Secret(envPrefix + name)
	}
	if c.Auth != nil {
		out.Auth = make([]AuthSpec, len(c.Auth))
		for i, a := range c.Auth {
			a.Password = ref(a.Password, fmt.Sprintf("AMBER_AUTH_%d_PASSWORD", i), fmt.Sprintf("auth[%d].password", i))
			a.Value = ref(a.Value, fmt.Sprintf("AMBER_AUTH_%d_VALUE", i), fmt.Sprintf("auth[%d].value", i))
			out.Auth[i] = a
		}
	}
	if c.Proxy != nil {
		p := *c.Proxy
		p.Password = ref(p.Password, "AMBER_PROXY_PASSWORD", "proxy.password")
		out.Proxy = &p
	}
	if c.OriginHeaders != nil {
		out.OriginHeaders = make(map[string]HeaderMap, len(c.OriginHeaders))
		n := 0
		for _, o := range slices.Sorted(maps.Keys(c.OriginHeaders)) {
			h := maps.Clone(c.OriginHeaders[o])
			for _, k := range slices.Sorted(maps.Keys(h)) {
				if http.CanonicalHeaderKey(k) == "Cookie" {
					h[k] = string(ref(Secret(h[k]), fmt.Sprintf("AMBER_COOKIE_%d", n), "origin_headers."+o+"."+k))
					n++
				}
			}
			out.OriginHeaders[o] = h
		}
	}
	return &out, notes
}

// annotate puts "from KEY" line comments on the nodes whose path is in sources.
func annotate(n *yaml.Node, path string, sources map[string]string) {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			p := k.Value
			if path != "" {
				p = path + "." + k.Value
			}
			if s, ok := sources[p]; ok {
				k.LineComment = "from " + s
			}
			annotate(v, p, sources)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			p := path + "[" + strconv.Itoa(i) + "]"
			if s, ok := sources[p]; ok {
				c.HeadComment = "from " + s
			}
			annotate(c, p, sources)
		}
	}
}
