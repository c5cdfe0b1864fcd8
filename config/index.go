package config

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/searchindex"
)

// Index sends the crawl's search documents to a search index besides documents.jsonl, which
// stays the durable source (Elastic's output_sink: elasticsearch with its elasticsearch.*
// and output_index). The contract is Elasticsearch 8's _bulk API: each document is indexed
// with _id = its id, so a document sent again replaces itself.
type Index struct {
	// Sink is where documents go beyond documents.jsonl: "" (nowhere) or "elasticsearch".
	Sink string `yaml:"sink,omitempty"`
	// URL is the server's base URL, scheme, host, port and any path before the API
	// ("https://es.example.org:9200", "http://127.0.0.1:4080/es" for ZincSearch).
	URL string `yaml:"url,omitempty"`
	// Name is the index the documents go to (Elastic's output_index).
	Name string `yaml:"name,omitempty"`
	// APIKey (the encoded key) or Username and Password authenticate; each secret may be
	// env:NAME, read from the environment when the crawl starts, and crawl.yaml writes them as
	// *** unless they are env: references.
	APIKey   string `yaml:"api_key,omitempty"`
	Username string `yaml:"username,omitempty"`
	Password string `yaml:"password,omitempty"`
	// CAFile is a PEM file of certificate authorities trusted for the server (besides the
	// system's); CAFingerprint the SHA-256 fingerprint (hex) of the server's CA certificate;
	// SSLVerify false turns certificate checks off (insecure). Default: verified.
	CAFile        string `yaml:"ca_file,omitempty"`
	CAFingerprint string `yaml:"ca_fingerprint,omitempty"`
	SSLVerify     *bool  `yaml:"ssl_verify,omitempty"`
	// Pipeline is the ingest pipeline the documents go through; none when empty.
	// PipelineParams are added to every document as fields (Elastic's pipeline_params:
	// _reduce_whitespace, _run_ml_inference, _extract_binary_content).
	Pipeline       string         `yaml:"pipeline,omitempty"`
	PipelineParams map[string]any `yaml:"pipeline_params,omitempty"`
	// BulkMaxItems and BulkMaxBytes bound one _bulk request (Elastic's bulk_api.max_items and
	// max_size_bytes). Default 1,000 documents and 5 MiB.
	BulkMaxItems int `yaml:"bulk_max_items,omitempty"`
	BulkMaxBytes int `yaml:"bulk_max_bytes,omitempty"`
	// RequestTimeout bounds one request (default 30s); Retries is how many times a failed
	// request is tried again at once (default 3), RetryDelay the first wait, doubling (2s).
	// A server still down after that is tried again later: the crawl goes on and the
	// backlog is sent when the server answers.
	RequestTimeout time.Duration `yaml:"request_timeout,omitempty"`
	Retries        *int          `yaml:"retries,omitempty"`
	RetryDelay     time.Duration `yaml:"retry_delay,omitempty"`
	// Compression gzips the requests; default true.
	Compression *bool `yaml:"compression,omitempty"`
}

// Index defaults.
const (
	DefaultIndexBulkMaxItems   = 1000
	DefaultIndexBulkMaxBytes   = 5 << 20
	DefaultIndexRequestTimeout = 30 * time.Second
	DefaultIndexRetries        = 3
	DefaultIndexRetryDelay     = 2 * time.Second
)

// IndexSinkElasticsearch is the Sink of an Elasticsearch-compatible index.
const IndexSinkElasticsearch = "elasticsearch"

// Enabled reports whether documents go to an index.
func (ix Index) Enabled() bool { return ix.Sink != "" }

// Validate checks the section: a known sink, and with one a URL of http or https and an
// index name; credentials complete.
func (ix Index) Validate() error {
	switch ix.Sink {
	case "":
		// The connection alone (an Open Crawler elasticsearch.yml beside a crawler.yml whose
		// output_sink is file, as the open crawler reads both) sends nothing: not an error.
		return nil
	case IndexSinkElasticsearch:
	default:
		return fmt.Errorf("index.sink: %q: want elasticsearch (or none)", ix.Sink)
	}
	if ix.URL == "" {
		return errors.New("index.url: required with sink: elasticsearch")
	}
	u, err := url.Parse(ix.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("index.url: %q: want http(s)://host[:port][/path]", ix.URL)
	}
	if ix.Name == "" {
		return errors.New("index.name: required with sink: elasticsearch")
	}
	if ix.Name != strings.ToLower(ix.Name) || strings.ContainsAny(ix.Name, `\/*?"<>| ,#:`) || strings.HasPrefix(ix.Name, "_") {
		return fmt.Errorf("index.name: %q: an index name is lower case, without \\ / * ? \" < > | , # : or spaces, and does not start with _", ix.Name)
	}
	if (ix.Username == "") != (ix.Password == "") {
		return errors.New("index: username and password go together")
	}
	if ix.APIKey != "" && ix.Username != "" {
		return errors.New("index: api_key or username and password, not both")
	}
	if ix.BulkMaxItems < 0 || ix.BulkMaxBytes < 0 || ix.RequestTimeout < 0 || ix.RetryDelay < 0 || (ix.Retries != nil && *ix.Retries < 0) {
		return errors.New("index: bulk_max_items, bulk_max_bytes, request_timeout, retries and retry_delay cannot be negative")
	}
	return nil
}

// MarshalYAML writes the section with its secrets as Secret writes them: *** for a value,
// the env:NAME reference as it is, so that crawl.yaml holds no secret.
func (ix Index) MarshalYAML() (any, error) {
	type plain Index // without this method
	p := plain(ix)
	p.APIKey, p.Password = Secret(ix.APIKey).String(), Secret(ix.Password).String()
	return p, nil
}

// Engine returns the sink's configuration: the section with its defaults, its secrets read
// (env:NAME through lookupEnv). The section must be enabled and valid.
func (ix Index) Engine(lookupEnv func(string) (string, bool)) (searchindex.Config, error) {
	if err := ix.Validate(); err != nil {
		return searchindex.Config{}, err
	}
	c := searchindex.Config{URL: ix.URL, Index: ix.Name, Username: ix.Username, CAFile: ix.CAFile,
		CAFingerprint: ix.CAFingerprint, Pipeline: ix.Pipeline, PipelineParams: ix.PipelineParams,
		BulkMaxItems: ix.BulkMaxItems, BulkMaxBytes: ix.BulkMaxBytes, RequestTimeout: ix.RequestTimeout,
		Retries: DefaultIndexRetries, RetryDelay: ix.RetryDelay, Compression: true}
	var err error
	if c.APIKey, err = Secret(ix.APIKey).Resolve(lookupEnv); err != nil {
		return c, fmt.Errorf("index.api_key: %w", err)
	}
	if c.Password, err = Secret(ix.Password).Resolve(lookupEnv); err != nil {
		return c, fmt.Errorf("index.password: %w", err)
	}
	if ix.SSLVerify != nil && !*ix.SSLVerify {
		c.Insecure = true
	}
	if ix.Retries != nil {
		c.Retries = *ix.Retries
		if c.Retries == 0 {
			c.Retries = -1 // none (searchindex's zero is its default)
		}
	}
	if ix.Compression != nil {
		c.Compression = *ix.Compression
	}
	return c, nil
}

// index adds the search-index sink to the crawl's services when the section is enabled.
func (f *File) index(c *crawl.Config, lookupEnv func(string) (string, bool)) error {
	if !f.Index.Enabled() {
		return f.Index.Validate()
	}
	ic, err := f.Index.Engine(lookupEnv)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	sink, err := searchindex.New(ic)
	if err != nil {
		return fmt.Errorf("%w: index: %w", ErrConfig, err)
	}
	c.Services = append(c.Services, searchindex.NewService(sink))
	return nil
}
