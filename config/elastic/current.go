package elastic

import (
	"fmt"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Settings are the keys of the current Open Crawler's crawler.yml.example (elastic/crawler,
// config/crawler.yml.example and Crawler::API::Config) beyond those of its older forms. Each
// is mapped onto amber's model by Convert, or accepted with a note saying why amber has no
// use for it.
type Settings struct {
	PurgeCrawlEnabled         *bool `yaml:"purge_crawl_enabled"`
	FullHTMLExtractionEnabled *bool `yaml:"full_html_extraction_enabled"`
	MaxElasticTagSize         *int  `yaml:"max_elastic_tag_size"`
	MaxDataAttributeSize      *int  `yaml:"max_data_attribute_size"`

	MaxURLSegments *int `yaml:"max_url_segments"`
	MaxURLParams   *int `yaml:"max_url_params"`
	MaxRedirects   *int `yaml:"max_redirects"`
	ConnectTimeout *int `yaml:"connect_timeout"` // seconds
	SocketTimeout  *int `yaml:"socket_timeout"`  // seconds
	RequestTimeout *int `yaml:"request_timeout"` // seconds

	URLQueueSizeLimit   *int     `yaml:"url_queue_size_limit"`
	DefaultEncoding     string   `yaml:"default_encoding"`
	CompressionEnabled  *bool    `yaml:"compression_enabled"`
	HeadRequestsEnabled *bool    `yaml:"head_requests_enabled"`
	SSLCACertificates   []string `yaml:"ssl_ca_certificates"`

	EventLogsToFile       *bool  `yaml:"event_logs_to_file"`
	SystemLogsToFile      *bool  `yaml:"system_logs_to_file"`
	LogFileDirectory      string `yaml:"log_file_directory"`
	LogFileRotationPolicy string `yaml:"log_file_rotation_policy"`
	StatsDumpInterval     *int   `yaml:"stats_dump_interval"`
	CrawlID               string `yaml:"crawl_id"`

	SinkLockRetryInterval *int `yaml:"sink_lock_retry_interval"`
	SinkLockMaxRetries    *int `yaml:"sink_lock_max_retries"`
}

// ES is the elasticsearch section of an Open Crawler file, or its elasticsearch.yml (where
// the keys are written with dots, elasticsearch.host: ...; both forms are read): the
// connection of output_sink: elasticsearch, mapped onto amber's index section.
type ES struct {
	Host            string         `yaml:"host"`
	Port            *int           `yaml:"port"`
	APIKey          string         `yaml:"api_key"`
	Username        string         `yaml:"username"`
	Password        string         `yaml:"password"`
	SSLVerify       *bool          `yaml:"ssl_verify"`
	CAFile          string         `yaml:"ca_file"`
	CAPath          string         `yaml:"ca_path"`
	CAFingerprint   string         `yaml:"ca_fingerprint"`
	RequestTimeout  *int           `yaml:"request_timeout"` // seconds
	RetryOnFailure  *RetryCount    `yaml:"retry_on_failure"`
	DelayOnRetry    *int           `yaml:"delay_on_retry"` // seconds
	ReloadOnFailure *bool          `yaml:"reload_on_failure"`
	Compression     *bool          `yaml:"compression"`
	BulkAPI         BulkAPI        `yaml:"bulk_api"`
	Pipeline        string         `yaml:"pipeline"`
	PipelineEnabled *bool          `yaml:"pipeline_enabled"`
	PipelineParams  map[string]any `yaml:"pipeline_params"`
}

// BulkAPI bounds one _bulk request of the Open Crawler.
type BulkAPI struct {
	MaxItems     *int `yaml:"max_items"`
	MaxSizeBytes *int `yaml:"max_size_bytes"`
}

// RetryCount is elasticsearch.retry_on_failure: a number of retries, or true (3, the Open
// Crawler's default) or false (0).
type RetryCount int

// UnmarshalYAML reads a number or a boolean, as the Open Crawler does.
func (r *RetryCount) UnmarshalYAML(n *yaml.Node) error {
	var b bool
	if n.Decode(&b) == nil {
		*r = 0
		if b {
			*r = defaultRetries
		}
		return nil
	}
	var i int
	if err := n.Decode(&i); err != nil || i < 0 {
		return fmt.Errorf("line %d: retry_on_failure: want a number of retries, true or false", n.Line)
	}
	*r = RetryCount(i)
	return nil
}

const (
	defaultRetries  = 3                              // the Open Crawler's retry_on_failure
	defaultPipeline = "ent-search-generic-ingestion" // its pipeline for Elasticsearch 8
)

// defaultPipelineParams are the Open Crawler's pipeline_params, which a file's own extend.
var defaultPipelineParams = map[string]any{"_reduce_whitespace": true, "_run_ml_inference": true, "_extract_binary_content": true}

// dedot rewrites, in the top-level mapping of a parsed file, the keys written with dots under
// elasticsearch (elasticsearch.host, elasticsearch.bulk_api.max_items, and the same within
// an elasticsearch map) into nested maps, as the Open Crawler's dedot_hash does. Other dotted
// keys (the older auth.domain, ...) are left as they are. It reports whether it changed
// anything.
func dedot(root *yaml.Node) bool {
	if root.Kind != yaml.DocumentNode || len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return false
	}
	top := root.Content[0]
	var out, dotted []*yaml.Node
	for i := 0; i+1 < len(top.Content); i += 2 {
		if strings.HasPrefix(top.Content[i].Value, "elasticsearch.") {
			dotted = append(dotted, top.Content[i], top.Content[i+1])
			continue
		}
		out = append(out, top.Content[i], top.Content[i+1])
	}
	top.Content = out
	for i := 0; i+1 < len(dotted); i += 2 {
		setPath(top, strings.Split(dotted[i].Value, "."), dotted[i+1], dotted[i])
	}
	changed := len(dotted) > 0
	for i := 0; i+1 < len(top.Content); i += 2 {
		if top.Content[i].Value == "elasticsearch" && dedotMap(top.Content[i+1]) {
			changed = true
		}
	}
	return changed
}

// dedotMap nests the dotted keys of the mapping m, recursively.
func dedotMap(m *yaml.Node) bool {
	if m.Kind != yaml.MappingNode {
		return false
	}
	changed := false
	var out []*yaml.Node
	var dotted [][2]*yaml.Node
	for i := 0; i+1 < len(m.Content); i += 2 {
		if strings.Contains(m.Content[i].Value, ".") {
			dotted = append(dotted, [2]*yaml.Node{m.Content[i], m.Content[i+1]})
			continue
		}
		out = append(out, m.Content[i], m.Content[i+1])
	}
	m.Content = out
	for _, kv := range dotted {
		setPath(m, strings.Split(kv[0].Value, "."), kv[1], kv[0])
		changed = true
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if dedotMap(m.Content[i+1]) {
			changed = true
		}
	}
	return changed
}

// setPath sets the value at path in the mapping m to v, creating maps on the way (a
// non-map in the way is replaced, as in the Open Crawler); at names the key for lines.
func setPath(m *yaml.Node, path []string, v, at *yaml.Node) {
	for _, p := range path[:len(path)-1] {
		var next *yaml.Node
		for i := 0; i+1 < len(m.Content); i += 2 {
			if m.Content[i].Value == p {
				if m.Content[i+1].Kind != yaml.MappingNode {
					m.Content[i+1] = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: at.Line}
				}
				next = m.Content[i+1]
			}
		}
		if next == nil {
			next = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: at.Line}
			m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: p, Line: at.Line}, next)
		}
		m = next
	}
	last := path[len(path)-1]
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == last {
			m.Content[i+1] = v
			return
		}
	}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: last, Line: at.Line}, v)
}

// erbEnv matches the Open Crawler's way of reading a secret from the environment in its
// YAML files (ERB): <%= ENV['NAME'] %>.
var erbEnv = regexp.MustCompile(`^\s*<%=\s*ENV\[\s*['"]([A-Za-z_][A-Za-z0-9_]*)['"]\s*\]\s*%>\s*$`)

// envRef returns an ERB environment reference as amber's env:NAME, other values as they are.
func envRef(v string) string {
	if m := erbEnv.FindStringSubmatch(v); m != nil {
		return "env:" + m[1]
	}
	return v
}
