// Package elastic reads the configuration files of Elastic's Open Crawler (spec/elastic.md
// §6: its crawler.yml, in the current form of elastic/crawler's crawler.yml.example and in
// the older ones, and its elasticsearch.yml) and converts them to amber's configuration
// model (config.File, with notes of what amber does differently, including each key it
// accepts without a use and why). Parse reads a file strictly, as the open crawler would;
// Convert maps it; Load and LoadData read either amber's YAML or an Elastic file into the
// model. The Enterprise Search settings (enterprise-search.yml) are package entsearch's.
package elastic

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/amber-crawler/amber/config"
	"github.com/amber-crawler/amber/crawlrule"
)

// Elastic Open Crawler configuration files (spec/elastic.md §6): the crawl definition an
// Elastic user brings. Parse reads one as it is, strictly: a key the open crawler
// would reject, or one amber cannot honour, is an error that names the key and its line.

// ErrConfig is wrapped by every error about an Elastic Open Crawler file.
var ErrConfig = errors.New("elastic: invalid Elastic crawler config")

// Config is an Elastic Open Crawler config file (its config/crawler.yml.example
// structure and the keys of its Crawler::API::Config). Pointers and zero values mean "not
// given": the open crawler's defaults are applied by the conversion, not here.
type Config struct {
	Domains []Domain `yaml:"domains"`

	MaxCrawlDepth     *int `yaml:"max_crawl_depth"`
	MaxUniqueURLCount *int `yaml:"max_unique_url_count"`
	MaxDuration       *int `yaml:"max_duration"` // seconds
	MaxURLLength      *int `yaml:"max_url_length"`
	MaxResponseSize   *int `yaml:"max_response_size"`
	ThreadsPerCrawl   *int `yaml:"threads_per_crawl"`

	MaxTitleSize           *int `yaml:"max_title_size"`
	MaxBodySize            *int `yaml:"max_body_size"`
	MaxKeywordsSize        *int `yaml:"max_keywords_size"`
	MaxDescriptionSize     *int `yaml:"max_description_size"`
	MaxIndexedLinksCount   *int `yaml:"max_indexed_links_count"`
	MaxHeadingsCount       *int `yaml:"max_headings_count"`
	MaxExtractedLinksCount *int `yaml:"max_extracted_links_count"`

	BinaryContentExtractionEnabled   *bool    `yaml:"binary_content_extraction_enabled"`
	BinaryContentExtractionMIMETypes []string `yaml:"binary_content_extraction_mime_types"`
	// The open crawler's own names for the two keys above (Crawler::API::Config).
	ContentExtractionEnabled   *bool    `yaml:"content_extraction_enabled"`
	ContentExtractionMIMETypes []string `yaml:"content_extraction_mime_types"`

	SitemapDiscoveryDisabled *bool `yaml:"sitemap_discovery_disabled"`

	// Auth is the open crawler's list form; AuthDomain... its older flat keys (one entry).
	Auth            []Auth `yaml:"auth"`
	AuthDomain      string `yaml:"auth.domain"`
	AuthType        string `yaml:"auth.type"`
	AuthUsername    string `yaml:"auth.username"`
	AuthPassword    string `yaml:"auth.password"`
	AuthHeader      string `yaml:"auth.header"`
	HTTPAuthAllowed *bool  `yaml:"http_auth_allowed"`

	HTTPProxyHost     string `yaml:"http_proxy_host"`
	HTTPProxyPort     *int   `yaml:"http_proxy_port"`
	HTTPProxyProtocol string `yaml:"http_proxy_protocol"`
	HTTPProxyUsername string `yaml:"http_proxy_username"`
	HTTPProxyPassword string `yaml:"http_proxy_password"`

	LoopbackAllowed        *bool  `yaml:"loopback_allowed"`
	PrivateNetworksAllowed *bool  `yaml:"private_networks_allowed"`
	SSLVerificationMode    string `yaml:"ssl_verification_mode"`
	UserAgent              string `yaml:"user_agent"`

	LogLevel    string `yaml:"log_level"`
	EventLogs   *bool  `yaml:"event_logs"`
	OutputSink  string `yaml:"output_sink"`
	OutputDir   string `yaml:"output_dir"`
	OutputIndex string `yaml:"output_index"`
	// Elasticsearch is the connection of output_sink: elasticsearch (amber's index section).
	Elasticsearch *ES `yaml:"elasticsearch"`
	// Schedule is refused: amber runs one crawl; cron runs amber.
	Schedule yaml.Node `yaml:"schedule"`

	// Settings are the keys of the current crawler.yml.example.
	Settings `yaml:",inline"`

	keyLines map[string]int // line of each top-level key, for errors
}

// Domain is one entry of domains: an origin with its entry points, sitemaps, crawl
// rules and extraction rulesets.
type Domain struct {
	URL                string              `yaml:"url"`
	SeedURLs           []string            `yaml:"seed_urls"`
	SitemapURLs        []string            `yaml:"sitemap_urls"`
	CrawlRules         []CrawlRule         `yaml:"crawl_rules"`
	ExtractionRulesets []Ruleset           `yaml:"extraction_rulesets"`
	HTTPHeaders        []map[string]string `yaml:"http_headers"`
	// Auth is the domain's credentials as the current Open Crawler writes them (type basic
	// with username and password, or raw with header); its domain is the entry's url.
	Auth *Auth `yaml:"auth"`
	// ExcludeTags are HTML tags whose elements are left out of the domain's documents.
	ExcludeTags []string    `yaml:"exclude_tags"`
	line        int         // of the entry, for errors
	ruleLines   map[int]int // crawl rule index -> line
}

// CrawlRule is a crawl rule: policy allow|deny, type begins|ends|contains|regex.
type CrawlRule struct {
	Policy  string `yaml:"policy"`
	Type    string `yaml:"type"`
	Pattern string `yaml:"pattern"`
}

// Ruleset is an extraction ruleset.
type Ruleset struct {
	URLFilters []config.URLFilterSpec      `yaml:"url_filters"`
	Rules      []config.ExtractionRuleSpec `yaml:"rules"`
}

// Auth is one entry of auth: basic (username, password) or raw (header: the whole
// Authorization value) for one domain.
type Auth struct {
	Domain   string `yaml:"domain"`
	Type     string `yaml:"type"`
	Username string `yaml:"username"`
	Password string `yaml:"password"`
	Header   string `yaml:"header"`
	from     string // its key in the file, for notes and errors
}

// Is reports whether data is an Elastic Open Crawler file rather than an amber
// config: its top level has a domains list whose entries are maps with a url (amber's own
// keys have no domains list of that shape), or it is an elasticsearch.yml, whose top-level
// keys are all elasticsearch or elasticsearch.* (amber's own file has no such key). A file
// that does not parse is not one.
func Is(data []byte) bool {
	var top struct {
		Domains []map[string]any `yaml:"domains"`
	}
	if err := yaml.Unmarshal(data, &top); err != nil {
		return false
	}
	if len(top.Domains) == 0 {
		return isConnection(data)
	}
	for _, d := range top.Domains {
		if _, ok := d["url"]; !ok {
			return false
		}
	}
	return true
}

// isConnection reports whether data is an elasticsearch.yml: a non-empty mapping whose keys
// are all elasticsearch or elasticsearch.*.
func isConnection(data []byte) bool {
	var m map[string]any
	if err := yaml.Unmarshal(data, &m); err != nil || len(m) == 0 {
		return false
	}
	for k := range m {
		if k != "elasticsearch" && !strings.HasPrefix(k, "elasticsearch.") {
			return false
		}
	}
	return true
}

// LoadFile reads and parses an Elastic Open Crawler file.
func LoadFile(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("seeds: %w", err)
	}
	return Parse(data, path)
}

// Parse parses an Elastic Open Crawler file strictly (unknown keys are errors naming
// them) and checks what can be checked without building the crawl: at least one domain
// (none in an elasticsearch.yml, see Is), each an http(s) origin without a path, unique;
// seed and sitemap URLs absolute http(s); crawl rule policies and types; auth entries
// complete and of a known type; output_sink file, console or elasticsearch; no schedule.
// Keys written with dots under elasticsearch (elasticsearch.host) are read as nested ones,
// as the Open Crawler reads them. name is used in error messages. Crawl
// rule patterns and extraction selectors are compiled by the scope and extract packages
// when the crawl is built.
func Parse(data []byte, name string) (*Config, error) {
	var c Config
	var dotted yaml.Node
	if yaml.Unmarshal(data, &dotted) == nil && dedot(&dotted) {
		// elasticsearch.* keys written with dots, as in elasticsearch.yml: read nested.
		if out, err := yaml.Marshal(&dotted); err == nil {
			data = out
		}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var root yaml.Node
	if err := dec.Decode(&c); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%w: %s: empty file", ErrConfig, name)
		}
		msg := err.Error()
		if yaml.Unmarshal(data, &root) == nil {
			msg = nameKeys(msg, &root)
		}
		return nil, fmt.Errorf("%w: %s: %s", ErrConfig, name, msg)
	}
	if err := yaml.Unmarshal(data, &root); err == nil {
		c.noteLines(&root)
	}
	if err := c.check(); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrConfig, name, err)
	}
	return &c, nil
}

// nameKeys adds to each "line N:" of a YAML error the key written on that line, as a path
// (domains[0].crawl_rules[1].policy), so that a wrong value names its key.
func nameKeys(msg string, root *yaml.Node) string {
	keys := map[int]string{}
	var walk func(n *yaml.Node, path string)
	walk = func(n *yaml.Node, path string) {
		switch n.Kind {
		case yaml.DocumentNode:
			for _, c := range n.Content {
				walk(c, path)
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i]
				p := k.Value
				if path != "" {
					p = path + "." + k.Value
				}
				if _, ok := keys[k.Line]; !ok {
					keys[k.Line] = p
				}
				walk(n.Content[i+1], p)
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				walk(c, fmt.Sprintf("%s[%d]", path, i))
			}
		}
	}
	walk(root, "")
	lines := strings.Split(msg, "\n")
	for i, l := range lines {
		var n int
		rest, ok := strings.CutPrefix(strings.TrimSpace(l), "line ")
		if !ok {
			continue
		}
		if _, err := fmt.Sscanf(rest, "%d:", &n); err == nil && keys[n] != "" {
			lines[i] = l + " (key " + keys[n] + ")"
		}
	}
	return strings.Join(lines, "\n")
}

// noteLines records the line of each domain and crawl rule, for errors found after decoding.
func (c *Config) noteLines(root *yaml.Node) {
	if root.Kind != yaml.DocumentNode || len(root.Content) == 0 {
		return
	}
	top := root.Content[0]
	c.keyLines = map[string]int{}
	for i := 0; i+1 < len(top.Content); i += 2 {
		c.keyLines[top.Content[i].Value] = top.Content[i].Line
		if top.Content[i].Value != "domains" || top.Content[i+1].Kind != yaml.SequenceNode {
			continue
		}
		for j, d := range top.Content[i+1].Content {
			if j >= len(c.Domains) {
				break
			}
			c.Domains[j].line = d.Line
			for k := 0; k+1 < len(d.Content); k += 2 {
				if d.Content[k].Value != "crawl_rules" {
					continue
				}
				c.Domains[j].ruleLines = map[int]int{}
				for n, r := range d.Content[k+1].Content {
					c.Domains[j].ruleLines[n] = r.Line
				}
			}
		}
	}
}

// at names the place of a domain (and a crawl rule, when rule >= 0) in errors.
func (d *Domain) at(i, rule int) string {
	s := fmt.Sprintf("domains[%d]", i)
	if rule >= 0 {
		s += fmt.Sprintf(".crawl_rules[%d]", rule)
		if l := d.ruleLines[rule]; l > 0 {
			return fmt.Sprintf("line %d: %s", l, s)
		}
	}
	if d.line > 0 {
		return fmt.Sprintf("line %d: %s", d.line, s)
	}
	return s
}

// check finds what Parse refuses in a decoded file (see Parse) and returns the
// first problem, looking at the output keys, then the domains, the auth entries, the proxy
// and the modes (ssl_verification_mode, log_level).
func (c *Config) check() error {
	for _, check := range []func() error{c.checkOutput, c.checkDomains, c.checkAuth, c.checkProxy, c.checkModes} {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

// checkOutput refuses schedule and wants output_sink file, console or elasticsearch, and
// log_file_rotation_policy, when given, daily, weekly or monthly.
func (c *Config) checkOutput() error {
	if c.Schedule.Kind != 0 {
		return fmt.Errorf("line %d: schedule: amber runs one crawl; schedule it with cron (or a systemd timer) running amber crawl", c.keyLines["schedule"])
	}
	switch c.OutputSink {
	case "", "file", "console", "elasticsearch":
	default:
		return fmt.Errorf("output_sink: %q: want file, console or elasticsearch", c.OutputSink)
	}
	switch c.LogFileRotationPolicy {
	case "", "daily", "weekly", "monthly":
	default:
		return fmt.Errorf("log_file_rotation_policy: %q: want daily, weekly or monthly", c.LogFileRotationPolicy)
	}
	return nil
}

// connectionOnly reports whether the file holds only an Elasticsearch connection (an
// elasticsearch.yml): an elasticsearch key and no other but output_sink and output_index. An
// empty file, or one whose document is null ("!", "~"), is none.
func (c *Config) connectionOnly() bool {
	if _, ok := c.keyLines["elasticsearch"]; !ok {
		return false
	}
	for k := range c.keyLines {
		if k != "elasticsearch" && k != "output_sink" && k != "output_index" {
			return false
		}
	}
	return true
}

// checkDomains wants at least one domain, each an origin (config.Origin) that no other domain
// is, and valid otherwise (Domain.check).
func (c *Config) checkDomains() error {
	if len(c.Domains) == 0 {
		if c.connectionOnly() {
			return nil
		}
		return errors.New("domains: at least one domain is needed")
	}
	seen := map[string]int{}
	for i := range c.Domains {
		d := &c.Domains[i]
		o, err := config.Origin(d.URL)
		if err != nil {
			return fmt.Errorf("%s.url: %w", d.at(i, -1), err)
		}
		if j, ok := seen[o]; ok {
			return fmt.Errorf("%s.url: %s is also domains[%d]", d.at(i, -1), o, j)
		}
		seen[o] = i
		if err := d.check(i); err != nil {
			return err
		}
	}
	return nil
}

// check checks domain i but for its url: seed and sitemap URLs absolute http(s), crawl
// rules and the extraction rulesets' URL filters that compile, rulesets with rules, and
// http_headers that are valid header fields. An error names the key, and its line when
// known.
func (d *Domain) check(i int) error {
	for k, u := range d.SeedURLs {
		if err := absoluteHTTP(u); err != nil {
			return fmt.Errorf("%s.seed_urls[%d]: %w", d.at(i, -1), k, err)
		}
	}
	for k, u := range d.SitemapURLs {
		if err := absoluteHTTP(u); err != nil {
			return fmt.Errorf("%s.sitemap_urls[%d]: %w", d.at(i, -1), k, err)
		}
	}
	for k, r := range d.CrawlRules {
		// Compiled here so that a pattern Go cannot express (Ruby-only regex syntax) is
		// refused when the file is read, naming its place.
		if _, err := crawlrule.Compile(r.Policy, r.Type, r.Pattern); err != nil {
			return fmt.Errorf("%s: %w", d.at(i, k), err)
		}
	}
	for k, rs := range d.ExtractionRulesets {
		for f, uf := range rs.URLFilters {
			if _, err := crawlrule.Compile(string(crawlrule.Allow), uf.Type, uf.Pattern); err != nil {
				return fmt.Errorf("%s.extraction_rulesets[%d].url_filters[%d]: %w", d.at(i, -1), k, f, err)
			}
		}
		if len(rs.Rules) == 0 {
			return fmt.Errorf("%s.extraction_rulesets[%d].rules: empty", d.at(i, -1), k)
		}
	}
	for k, h := range d.HTTPHeaders {
		for name, v := range h {
			if name == "" || strings.ContainsAny(name+v, "\r\n") {
				return fmt.Errorf("%s.http_headers[%d]: invalid header %q", d.at(i, -1), k, name)
			}
		}
	}
	return nil
}

// checkAuth wants the auth entries (AuthEntries: the list or the flat keys, not both) for
// an origin each, basic with a username and no header, or raw with a header and no username
// or password.
func (c *Config) checkAuth() error {
	auths, err := c.AuthEntries()
	if err != nil {
		return err
	}
	for _, a := range auths {
		if _, err := config.Origin(a.Domain); err != nil {
			return fmt.Errorf("%s.domain: %w", a.from, err)
		}
		switch a.Type {
		case "basic":
			if a.Username == "" {
				return fmt.Errorf("%s: basic wants username and password", a.from)
			}
		case "raw":
			if a.Header == "" {
				return fmt.Errorf("%s: raw wants header (the whole Authorization value)", a.from)
			}
		default:
			return fmt.Errorf("%s.type: %q: want basic or raw", a.from, a.Type)
		}
	}
	return nil
}

// checkProxy wants http_proxy_host when another http_proxy_* key is given, and
// http_proxy_protocol http or https.
func (c *Config) checkProxy() error {
	if c.HTTPProxyHost == "" && (c.HTTPProxyPort != nil || c.HTTPProxyProtocol != "" || c.HTTPProxyUsername != "" || c.HTTPProxyPassword != "") {
		return errors.New("http_proxy_*: set without http_proxy_host")
	}
	switch c.HTTPProxyProtocol {
	case "", "http", "https":
	default:
		return fmt.Errorf("http_proxy_protocol: %q: want http or https", c.HTTPProxyProtocol)
	}
	return nil
}

// checkModes wants ssl_verification_mode and log_level, when given, among the open
// crawler's values.
func (c *Config) checkModes() error {
	switch c.SSLVerificationMode {
	case "", "full", "certificate", "none":
	default:
		return fmt.Errorf("ssl_verification_mode: %q: want full, certificate or none", c.SSLVerificationMode)
	}
	switch c.LogLevel {
	case "", "debug", "info", "warn", "error", "fatal":
	default:
		return fmt.Errorf("log_level: %q: want debug, info, warn, error or fatal", c.LogLevel)
	}
	return nil
}

// AuthEntries returns the auth entries: the top-level list form, or the one entry of the
// older flat auth.* keys (giving both is an error), then the auth of each domain (the
// current form), whose domain is the entry's url.
func (c *Config) AuthEntries() ([]Auth, error) {
	flat := c.AuthDomain != "" || c.AuthType != "" || c.AuthUsername != "" || c.AuthPassword != "" || c.AuthHeader != ""
	var out []Auth
	switch {
	case flat && len(c.Auth) > 0:
		return nil, errors.New("auth and auth.*: give the list or the flat keys, not both")
	case flat:
		out = []Auth{{Domain: c.AuthDomain, Type: c.AuthType, Username: c.AuthUsername,
			Password: c.AuthPassword, Header: c.AuthHeader, from: "auth.*"}}
	}
	for i, a := range c.Auth {
		a.from = fmt.Sprintf("auth[%d]", i)
		out = append(out, a)
	}
	for i, d := range c.Domains {
		if d.Auth == nil {
			continue
		}
		a := *d.Auth
		if a.Domain != "" && a.Domain != d.URL {
			return nil, fmt.Errorf("domains[%d].auth.domain: the auth of a domain is for its url", i)
		}
		a.Domain, a.from = d.URL, fmt.Sprintf("domains[%d].auth", i)
		out = append(out, a)
	}
	return out, nil
}

// ProxyURL is the proxy of the http_proxy_* keys (the open crawler's defaults: port 8080,
// protocol http), or nil when there is none.
func (c *Config) ProxyURL() *url.URL {
	if c.HTTPProxyHost == "" {
		return nil
	}
	port := 8080
	if c.HTTPProxyPort != nil {
		port = *c.HTTPProxyPort
	}
	scheme := c.HTTPProxyProtocol
	if scheme == "" {
		scheme = "http"
	}
	u := &url.URL{Scheme: scheme, Host: fmt.Sprintf("%s:%d", c.HTTPProxyHost, port)}
	if c.HTTPProxyUsername != "" {
		u.User = url.UserPassword(c.HTTPProxyUsername, c.HTTPProxyPassword)
	}
	return u
}

func absoluteHTTP(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("%q: %w", raw, err)
	}
	if s := strings.ToLower(u.Scheme); (s != "http" && s != "https") || u.Host == "" {
		return fmt.Errorf("%q: not an absolute http(s) URL", raw)
	}
	return nil
}
