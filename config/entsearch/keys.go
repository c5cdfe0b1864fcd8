package entsearch

// Key is one crawler.* setting of Enterprise Search's web crawler and what amber makes of it.
type Key struct {
	// Name is the dotted key, crawler.X (connector.crawler.X is read as the same).
	Name string
	// Amber is the amber key it maps onto; empty when amber accepts it without effect.
	Amber string
	// Why says, for a key without an amber key, why amber has no use for it.
	Why string
}

// Keys are the crawler.* settings of Enterprise Search's web crawler (App Search web
// crawler configuration, in Enterprise Search's configuration reference), each mapped or
// accepted without effect. Any other crawler.* key is refused by Parse.
var Keys = []Key{
	{Name: "crawler.http.user_agent", Amber: "user_agent"},
	{Name: "crawler.http.user_agent_platform", Amber: "user_agent"},
	{Name: "crawler.workers.pool_size.limit", Why: "the number of crawls one Enterprise Search instance runs at once; an amber process runs one crawl (its parallel fetches are crawler.crawl.threads.limit, amber's workers)"},

	{Name: "crawler.crawl.max_duration.limit", Amber: "limits.time"},
	{Name: "crawler.crawl.max_crawl_depth.limit", Amber: "scope.max_crawl_depth"},
	{Name: "crawler.crawl.max_url_length.limit", Amber: "scope.max_url_length"},
	{Name: "crawler.crawl.max_url_segments.limit", Amber: "scope.max_url_segments"},
	{Name: "crawler.crawl.max_url_params.limit", Amber: "scope.max_url_params"},
	{Name: "crawler.crawl.max_unique_url_count.limit", Amber: "limits.urls"},
	{Name: "crawler.crawl.threads.limit", Amber: "workers"},
	{Name: "crawler.crawl.url_queue.url_count.limit", Why: "amber's queue is on disk (the frontier in the crawl directory), not bounded in memory"},

	{Name: "crawler.http.response_size.limit", Amber: "limits.response_size"},
	{Name: "crawler.http.connection_timeout", Amber: "network.connect_timeout"},
	{Name: "crawler.http.read_timeout", Amber: "network.first_byte_timeout"},
	{Name: "crawler.http.request_timeout", Amber: "network.response_timeout"},
	{Name: "crawler.http.max_redirects", Amber: "urls.max_redirects"},
	{Name: "crawler.http.compression.enabled", Why: "amber always asks for gzip (Accept-Encoding: gzip), archives the bytes as sent and decodes them itself"},
	{Name: "crawler.http.default_encoding", Why: "amber decodes a page by its Content-Type charset, its <meta charset>, then sniffing, as browsers do (UTF-8 when nothing says otherwise)"},

	{Name: "crawler.extraction.title_size.limit", Amber: "documents.max_title_size"},
	{Name: "crawler.extraction.body_size.limit", Amber: "documents.max_body_size"},
	{Name: "crawler.extraction.keywords_size.limit", Amber: "documents.max_keywords_size"},
	{Name: "crawler.extraction.description_size.limit", Amber: "documents.max_description_size"},
	{Name: "crawler.extraction.extracted_links_count.limit", Amber: "limits.max_outlinks"},
	{Name: "crawler.extraction.indexed_links_count.limit", Amber: "documents.max_indexed_links_count"},
	{Name: "crawler.extraction.headings_count.limit", Amber: "documents.max_headings_count"},
	{Name: "crawler.extraction.default_deduplication_fields", Amber: "documents.deduplication_fields"},

	{Name: "crawler.content_extraction.enabled", Amber: "documents.binary_content_extraction_mime_types"},
	{Name: "crawler.content_extraction.mime_types", Amber: "documents.binary_content_extraction_mime_types"},

	{Name: "crawler.security.ssl.certificate_authorities", Amber: "network.ca_certificates"},
	{Name: "crawler.security.ssl.verification_mode", Amber: "network.verify_tls"},
	{Name: "crawler.security.dns.allow_loopback_access", Amber: "network.allow_private"},
	{Name: "crawler.security.dns.allow_private_networks_access", Amber: "network.allow_private"},

	{Name: "crawler.http.proxy.host", Amber: "proxy"},
	{Name: "crawler.http.proxy.port", Amber: "proxy"},
	{Name: "crawler.http.proxy.protocol", Amber: "proxy"},
	{Name: "crawler.http.proxy.username", Amber: "proxy"},
	{Name: "crawler.http.proxy.password", Amber: "proxy"},
}
