package elastic

import (
	"fmt"
	"maps"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/amber-crawler/amber/config"
)

// convertCurrent maps the keys of the current crawler.yml.example (Settings) and each
// domain's exclude_tags, and notes those amber accepts without a use for them, with the
// reason (convertIgnored).
func (e *Config) convertCurrent(cv *config.Converted) {
	c := cv.File
	for i, d := range e.Domains {
		if len(d.ExcludeTags) == 0 {
			continue
		}
		o, _ := config.Origin(d.URL) // checked by Parse
		if c.Documents.ExcludeTags == nil {
			c.Documents.ExcludeTags = map[string][]string{}
		}
		c.Documents.ExcludeTags[o] = append([]string(nil), d.ExcludeTags...)
		cv.Source("documents.exclude_tags."+o, fmt.Sprintf("domains[%d].exclude_tags", i))
	}
	if e.FullHTMLExtractionEnabled != nil {
		c.Documents.FullHTML = *e.FullHTMLExtractionEnabled
		cv.Source("documents.full_html", "full_html_extraction_enabled")
	}
	for _, f := range []struct {
		v        *int
		dst      *int
		amber, k string
	}{
		{e.MaxElasticTagSize, &c.Documents.MaxElasticTagSize, "documents.max_elastic_tag_size", "max_elastic_tag_size"},
		{e.MaxDataAttributeSize, &c.Documents.MaxDataAttributeSize, "documents.max_data_attribute_size", "max_data_attribute_size"},
		{e.MaxURLSegments, &c.Scope.MaxURLSegments, "scope.max_url_segments", "max_url_segments"},
		{e.MaxURLParams, &c.Scope.MaxURLParams, "scope.max_url_params", "max_url_params"},
		{e.MaxRedirects, &c.URLs.MaxRedirects, "urls.max_redirects", "max_redirects"},
	} {
		if f.v != nil {
			*f.dst = *f.v
			cv.Source(f.amber, f.k)
		}
	}
	e.convertTimeouts(cv)
	if len(e.SSLCACertificates) > 0 {
		c.Network.CACertificates = append([]string(nil), e.SSLCACertificates...)
		cv.Source("network.ca_certificates", "ssl_ca_certificates")
		if !c.Network.VerifyTLS {
			cv.Note("ssl_ca_certificates: trusted when certificates are verified (network.verify_tls: true, ssl_verification_mode full or certificate); amber's default captures every site and records whether its certificate verified")
		}
	}
	e.convertIgnored(cv)
}

// convertTimeouts maps connect_timeout to network.connect_timeout, socket_timeout to
// network.first_byte_timeout and request_timeout to network.response_timeout (seconds).
func (e *Config) convertTimeouts(cv *config.Converted) {
	n := &cv.File.Network
	for _, t := range []struct {
		v        *int
		dst      *time.Duration
		amber, k string
	}{
		{e.ConnectTimeout, &n.ConnectTimeout, "network.connect_timeout", "connect_timeout"},
		{e.SocketTimeout, &n.FirstByteTimeout, "network.first_byte_timeout", "socket_timeout"},
		{e.RequestTimeout, &n.ResponseTimeout, "network.response_timeout", "request_timeout"},
	} {
		if t.v != nil {
			*t.dst = time.Duration(*t.v) * time.Second
			cv.Source(t.amber, t.k)
		}
	}
	if e.SocketTimeout != nil {
		cv.Note("socket_timeout: the open crawler's longest wait for data on a connection; amber's network.first_byte_timeout bounds the wait for a response's first byte, and network.response_timeout the whole response")
	}
}

// convertIgnored notes each key of Settings that amber accepts without using it, and why.
func (e *Config) convertIgnored(cv *config.Converted) {
	notes := []struct {
		given bool
		note  string
	}{
		{e.PurgeCrawlEnabled != nil, "purge_crawl_enabled: ignored by amber crawl, which never deletes from an index; the purge phase is a separate step, amber index DIR --purge"},
		{e.URLQueueSizeLimit != nil, "url_queue_size_limit: ignored: amber's queue is on disk (the frontier in the crawl directory), not bounded in memory"},
		{e.DefaultEncoding != "", "default_encoding: ignored: amber decodes a page by its Content-Type charset, its <meta charset>, then sniffing, as browsers do (UTF-8 when nothing says otherwise)"},
		{e.CompressionEnabled != nil, "compression_enabled: ignored: amber always asks for gzip (Accept-Encoding: gzip), archives the bytes as sent and decodes them itself"},
		{e.HeadRequestsEnabled != nil && *e.HeadRequestsEnabled, "head_requests_enabled: ignored: amber sends no HEAD request before a GET; the GET is what is archived"},
		{e.EventLogsToFile != nil, "event_logs_to_file: ignored: amber always writes its events to logs/events.jsonl and logs/crawl.log in the crawl directory"},
		{e.SystemLogsToFile != nil, "system_logs_to_file: ignored: amber's system log goes to stderr (redirect it to keep it)"},
		{e.LogFileDirectory != "", "log_file_directory: ignored: amber's log files are in the crawl directory's logs/ (--dir)"},
		{e.LogFileRotationPolicy != "", "log_file_rotation_policy: ignored: amber writes one set of log files per crawl directory and does not rotate them"},
		{e.StatsDumpInterval != nil, "stats_dump_interval: ignored: amber shows its progress on the terminal and the live status page (--status-addr), and writes reports at the end"},
		{e.CrawlID != "", "crawl_id: ignored: amber names a crawl by its collection and its crawl directory (--collection, --dir)"},
		{e.SinkLockRetryInterval != nil, "sink_lock_retry_interval: ignored: one amber process writes a crawl directory's documents; there is no sink lock"},
		{e.SinkLockMaxRetries != nil, "sink_lock_max_retries: ignored: one amber process writes a crawl directory's documents; there is no sink lock"},
	}
	for _, n := range notes {
		if n.given {
			cv.Note("%s", n.note)
		}
	}
}

// convertIndex maps output_sink: elasticsearch, output_index and the elasticsearch section
// (of a file with that sink, or of an elasticsearch.yml, to be combined with the crawl's
// file; with another sink they are noted and left out) onto index: the sink, the index name, the URL (host, with port when given, which wins
// over a port in host, as in the open crawler), credentials, TLS, the bulk limits, timeouts
// and retries, compression, and the pipeline with its parameters (pipeline_enabled is true
// unless false; then the pipeline is the given one or ent-search-generic-ingestion, the open
// crawler's for Elasticsearch 8, and its parameters are the open crawler's defaults with the
// file's over them, added to each document).
func (e *Config) convertIndex(cv *config.Converted) {
	ix := &cv.File.Index
	es := e.Elasticsearch
	if e.OutputSink != "elasticsearch" && !e.connectionOnly() {
		if es != nil || e.OutputIndex != "" {
			cv.Note("output_index and elasticsearch: not used: output_sink is %q, not elasticsearch", cmpOr(e.OutputSink, "not given"))
		}
		return
	}
	if e.OutputSink == "elasticsearch" {
		ix.Sink = config.IndexSinkElasticsearch
		cv.Source("index.sink", "output_sink")
	}
	if e.OutputIndex != "" {
		ix.Name = e.OutputIndex
		cv.Source("index.name", "output_index")
	}
	if es == nil {
		return
	}
	if es.Host != "" {
		ix.URL = esURL(es.Host, es.Port)
		cv.Source("index.url", "elasticsearch.host, elasticsearch.port")
	}
	e.convertIndexAccess(cv, es)
	e.convertIndexClient(cv, es)
	e.convertPipeline(cv, es)
}

// esURL is the server URL of host (a URL or a bare host name, http then) and port.
func esURL(host string, port *int) string {
	u, err := url.Parse(host)
	if err != nil || u.Host == "" {
		u = &url.URL{Scheme: "http", Host: host}
	}
	if port != nil {
		u.Host = u.Hostname()
		if strings.Contains(u.Host, ":") {
			u.Host = "[" + u.Host + "]"
		}
		u.Host += ":" + strconv.Itoa(*port)
	}
	return strings.TrimSuffix(u.String(), "/")
}

// convertIndexAccess maps the credentials (an ERB environment reference becomes env:NAME)
// and the TLS keys; ca_path, a directory amber's index section has no key for, is noted.
func (e *Config) convertIndexAccess(cv *config.Converted, es *ES) {
	ix := &cv.File.Index
	if es.APIKey != "" {
		ix.APIKey = envRef(es.APIKey)
		cv.Source("index.api_key", "elasticsearch.api_key")
		cv.SecretFrom["index.api_key"] = "elasticsearch.api_key"
	}
	if es.Username != "" || es.Password != "" {
		ix.Username, ix.Password = es.Username, envRef(es.Password)
		cv.Source("index.username", "elasticsearch.username")
		cv.Source("index.password", "elasticsearch.password")
		cv.SecretFrom["index.password"] = "elasticsearch.password"
	}
	if ix.APIKey != "" && ix.Username != "" {
		cv.Note("elasticsearch.api_key and username/password: amber sends the api_key, as the open crawler does; the username and password are left out")
		ix.Username, ix.Password = "", ""
		delete(cv.Sources, "index.username")
		delete(cv.Sources, "index.password")
	}
	if es.SSLVerify != nil {
		v := *es.SSLVerify
		ix.SSLVerify = &v
		cv.Source("index.ssl_verify", "elasticsearch.ssl_verify")
	}
	if es.CAFile != "" {
		ix.CAFile = es.CAFile
		cv.Source("index.ca_file", "elasticsearch.ca_file")
	}
	if es.CAFingerprint != "" {
		ix.CAFingerprint = es.CAFingerprint
		cv.Source("index.ca_fingerprint", "elasticsearch.ca_fingerprint")
	}
	if es.CAPath != "" {
		cv.Note("elasticsearch.ca_path %q: ignored: amber's index section trusts one PEM file of CAs (index.ca_file); put the directory's certificates in one file (cat DIR/*.pem > ca.pem)", es.CAPath)
	}
}

// convertIndexClient maps request_timeout, retry_on_failure, delay_on_retry, compression
// and bulk_api; reload_on_failure is noted.
func (e *Config) convertIndexClient(cv *config.Converted, es *ES) {
	ix := &cv.File.Index
	if es.RequestTimeout != nil {
		ix.RequestTimeout = time.Duration(*es.RequestTimeout) * time.Second
		cv.Source("index.request_timeout", "elasticsearch.request_timeout")
	}
	if es.RetryOnFailure != nil {
		n := int(*es.RetryOnFailure)
		ix.Retries = &n
		cv.Source("index.retries", "elasticsearch.retry_on_failure")
	}
	if es.DelayOnRetry != nil && *es.DelayOnRetry > 0 {
		ix.RetryDelay = time.Duration(*es.DelayOnRetry) * time.Second
		cv.Source("index.retry_delay", "elasticsearch.delay_on_retry")
	}
	if es.Compression != nil {
		v := *es.Compression
		ix.Compression = &v
		cv.Source("index.compression", "elasticsearch.compression")
	}
	if es.BulkAPI.MaxItems != nil {
		ix.BulkMaxItems = *es.BulkAPI.MaxItems
		cv.Source("index.bulk_max_items", "elasticsearch.bulk_api.max_items")
	}
	if es.BulkAPI.MaxSizeBytes != nil {
		ix.BulkMaxBytes = *es.BulkAPI.MaxSizeBytes
		cv.Source("index.bulk_max_bytes", "elasticsearch.bulk_api.max_size_bytes")
	}
	if es.ReloadOnFailure != nil && *es.ReloadOnFailure {
		cv.Note("elasticsearch.reload_on_failure: ignored: amber talks to the one server of index.url and does not look for other nodes")
	}
}

// convertPipeline maps pipeline, pipeline_enabled and pipeline_params (see convertIndex).
func (e *Config) convertPipeline(cv *config.Converted, es *ES) {
	ix := &cv.File.Index
	if es.PipelineEnabled != nil && !*es.PipelineEnabled {
		cv.Source("index.pipeline", "elasticsearch.pipeline_enabled")
		if es.Pipeline != "" || es.PipelineParams != nil {
			cv.Note("elasticsearch.pipeline_enabled: false: no pipeline, and no pipeline_params added to the documents, as in the open crawler")
		}
		return
	}
	ix.Pipeline = es.Pipeline
	if ix.Pipeline == "" {
		ix.Pipeline = defaultPipeline
		cv.Note("elasticsearch.pipeline not given: %s, the open crawler's pipeline for Elasticsearch 8 (it picks search-default-ingestion on Elasticsearch 9); set pipeline_enabled: false for none", defaultPipeline)
	}
	cv.Source("index.pipeline", "elasticsearch.pipeline, elasticsearch.pipeline_enabled")
	ix.PipelineParams = maps.Clone(defaultPipelineParams)
	maps.Copy(ix.PipelineParams, es.PipelineParams)
	cv.Source("index.pipeline_params", "elasticsearch.pipeline_params (over the open crawler's defaults)")
}
