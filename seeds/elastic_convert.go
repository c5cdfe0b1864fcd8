package seeds

import (
	"bytes"
	"fmt"
	"strconv"
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
}

// Convert maps the file onto amber's model (spec/elastic.md §6): domains to scope.domains of
// the elastic flavour, their entry points to seeds (a domain without any gets its root, as
// in the open crawler), extraction rulesets to documents.extraction_rulesets, the size
// limits to documents, the crawl limits to limits, loopback_allowed and
// private_networks_allowed to network.allow_private, ssl_verification_mode to
// network.verify_tls, sitemap_discovery_disabled to sitemaps.robots.
//
// amber's crawl config has no keys for credentials, configured headers and a proxy yet (the
// fetcher supports them; issue 12): a file with auth, http_auth_allowed, http_headers or
// http_proxy_* is refused with an error naming the key, rather than converted into a crawl
// that would fail at the site's login.
func (e *ElasticConfig) Convert() (*Converted, error) {
	auths, err := e.AuthEntries()
	if err != nil {
		return nil, err
	}
	switch {
	case len(auths) > 0:
		return nil, fmt.Errorf("%w: auth: credentials cannot be given to amber's crawl config yet", ErrElasticConfig)
	case e.HTTPAuthAllowed != nil:
		return nil, fmt.Errorf("%w: http_auth_allowed: credentials cannot be given to amber's crawl config yet", ErrElasticConfig)
	case e.HTTPProxyHost != "":
		return nil, fmt.Errorf("%w: http_proxy_host: a proxy cannot be given to amber's crawl config yet", ErrElasticConfig)
	}
	for i, d := range e.Domains {
		if len(d.HTTPHeaders) > 0 {
			return nil, fmt.Errorf("%w: domains[%d].http_headers: headers cannot be given to amber's crawl config yet", ErrElasticConfig, i)
		}
	}
	c := &Config{}
	cv := &Converted{Config: c, Sources: map[string]string{}}
	src := func(amber, elastic string) { cv.Sources[amber] = elastic }
	note := func(format string, a ...any) { cv.Notes = append(cv.Notes, fmt.Sprintf(format, a...)) }

	c.Scope.Flavour = "elastic"
	src("scope.flavour", "domains")
	for i, d := range e.Domains {
		o, _ := ElasticOrigin(d.URL) // checked by ParseElastic
		ds := DomainSpec{URL: o, SitemapURLs: d.SitemapURLs}
		for _, r := range d.CrawlRules {
			ds.CrawlRules = append(ds.CrawlRules, CrawlRuleSpec(r))
		}
		c.Scope.Domains = append(c.Scope.Domains, ds)
		src(fmt.Sprintf("scope.domains[%d]", i), fmt.Sprintf("domains[%d]", i))
		seeds := d.SeedURLs
		if len(seeds) == 0 {
			seeds = []string{o + "/"}
			note("domains[%d] (%s) has no seed_urls: its root %s is the entry point, as in the open crawler", i, o, o+"/")
		}
		for _, u := range seeds {
			src(fmt.Sprintf("seeds[%d]", len(c.Seeds)), fmt.Sprintf("domains[%d].seed_urls", i))
			c.Seeds = append(c.Seeds, SeedSpec{URL: u})
		}
		for k, rs := range d.ExtractionRulesets {
			src(fmt.Sprintf("documents.extraction_rulesets[%d]", len(c.Documents.ExtractionRulesets)), fmt.Sprintf("domains[%d].extraction_rulesets[%d]", i, k))
			c.Documents.ExtractionRulesets = append(c.Documents.ExtractionRulesets,
				ExtractionRulesetSpec{Domain: o, URLFilters: rs.URLFilters, Rules: rs.Rules})
		}
	}
	if e.MaxCrawlDepth != nil {
		c.Scope.MaxCrawlDepth = e.MaxCrawlDepth
		src("scope.max_crawl_depth", "max_crawl_depth")
	}
	if e.MaxURLLength != nil {
		c.Scope.MaxURLLength = *e.MaxURLLength
		src("scope.max_url_length", "max_url_length")
	}
	if e.MaxUniqueURLCount != nil {
		c.Limits.URLs = int64(*e.MaxUniqueURLCount)
		src("limits.urls", "max_unique_url_count")
		note("max_unique_url_count: amber counts URLs fetched, the open crawler URLs seen")
	}
	if e.MaxDuration != nil {
		c.Limits.Time = time.Duration(*e.MaxDuration) * time.Second
		src("limits.time", "max_duration")
	}
	if e.MaxResponseSize != nil {
		c.Limits.ResponseSize = ByteSize(*e.MaxResponseSize)
		src("limits.response_size", "max_response_size")
		note("max_response_size: amber keeps the first max_response_size bytes (WARC-Truncated) where the open crawler drops the response")
	}
	if e.MaxExtractedLinksCount != nil {
		c.Limits.MaxOutlinks = *e.MaxExtractedLinksCount
		src("limits.max_outlinks", "max_extracted_links_count")
	}
	if e.ThreadsPerCrawl != nil {
		c.Workers = *e.ThreadsPerCrawl
		src("workers", "threads_per_crawl")
	}
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
			src("documents."+f.amber, f.key)
		}
	}
	enabled, types, key := e.BinaryContentExtractionEnabled, e.BinaryContentExtractionMIMETypes, "binary_content_extraction"
	if enabled == nil && types == nil {
		enabled, types, key = e.ContentExtractionEnabled, e.ContentExtractionMIMETypes, "content_extraction"
	}
	if enabled != nil && *enabled && len(types) > 0 {
		c.Documents.BinaryMIMETypes = types
		src("documents.binary_content_extraction_mime_types", key+"_mime_types")
	} else if enabled == nil && len(types) > 0 {
		note("%s_mime_types without %s_enabled: true: off, as in the open crawler", key, key)
	}
	if e.SitemapDiscoveryDisabled != nil {
		on := !*e.SitemapDiscoveryDisabled
		c.Sitemaps.Robots = &on
		src("sitemaps.robots", "sitemap_discovery_disabled")
	}
	if (e.LoopbackAllowed != nil && *e.LoopbackAllowed) || (e.PrivateNetworksAllowed != nil && *e.PrivateNetworksAllowed) {
		c.Network.AllowPrivate = true
		src("network.allow_private", "loopback_allowed, private_networks_allowed")
		note("loopback_allowed and private_networks_allowed are one setting in amber: network.allow_private allows both")
	}
	switch e.SSLVerificationMode {
	case "full", "certificate":
		c.Network.VerifyTLS = true
		src("network.verify_tls", "ssl_verification_mode")
		if e.SSLVerificationMode == "certificate" {
			note("ssl_verification_mode: certificate: amber verifies the host name too (full)")
		}
	case "":
		note("ssl_verification_mode not given: the open crawler verifies certificates (full); amber's default captures sites whose certificate does not verify and records the problem; add network.verify_tls: true to refuse them")
	}
	if e.UserAgent != "" {
		c.UserAgent = e.UserAgent
		src("user_agent", "user_agent")
	}
	if e.LogLevel != "" {
		note("log_level: amber's terminal log level is the --log-level flag; crawl.log and events.jsonl are always written")
	}
	if e.EventLogs != nil {
		note("event_logs: amber always writes its events to logs/events.jsonl in the crawl directory")
	}
	switch e.OutputSink {
	case "", "console", "file":
		note("output_sink %q: amber writes the documents to documents.jsonl in the crawl directory (--dir), next to the WARC files", cmpOr(e.OutputSink, "console"))
	}
	if e.OutputDir != "" {
		note("output_dir %q: give the crawl directory with --dir", e.OutputDir)
	}
	if e.OutputIndex != "" {
		note("output_index %q: amber has no Elasticsearch output; load documents.jsonl with the _bulk API", e.OutputIndex)
	}
	return cv, nil
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// Render writes the converted config as amber YAML, each key that came from the Elastic file
// commented with that key, then the notes as a comment block at the end.
func (cv *Converted) Render(source string) ([]byte, error) {
	var root yaml.Node
	if err := root.Encode(cv.Config); err != nil {
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
	if len(cv.Notes) > 0 {
		buf.WriteString("\n# What amber does differently:\n")
		for _, n := range cv.Notes {
			buf.WriteString("# - " + n + "\n")
		}
	}
	return buf.Bytes(), nil
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
