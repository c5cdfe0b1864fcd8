package fast

import "slices"

// Status says what amber does with an attrib, a section or an element of a FAST file.
type Status string

// The statuses.
const (
	// Mapped: converted to an amber setting (Row.Amber). Row.Note, when set, says how amber
	// differs. A row with Row.Same is mapped only for that value (what amber always does);
	// another value is not supported yet.
	Mapped Status = "mapped"
	// Ignored: no meaning for amber (FAST's own processing, storage, logging, feeding,
	// caches, multi-node installation); Row.Note says why.
	Ignored Status = "ignored"
	// Unsupported: a crawl behaviour amber does not have yet; Row.Note says what amber lacks.
	Unsupported Status = "unsupported-yet"
	// Refused: a behaviour amber will not have; Row.Note says why.
	Refused Status = "refused"
)

// Kind is what a Row describes.
type Kind string

// The kinds.
const (
	KindAttrib  Kind = "attrib"
	KindSection Kind = "section"
	KindElement Kind = "element"
)

// Row accounts for one attrib, section or element of the specification (§2.2.3-2.2.7, and
// the attribs §3's examples use that the tables do not list).
type Row struct {
	// Section is the path of the section the row is in: "" for the collection level
	// (DomainSpecification), "include_domains", "logins/<login>", ...; a name in angle
	// brackets is chosen by the file.
	Section string
	// Name is the attrib's or section's name, or the element's (SubDomain, Login, Node); a
	// name in angle brackets is chosen by the file (a URI, a time slot, ...).
	Name string
	Kind Kind
	// Type is an attrib's type; Default its default as the specification gives it ("" for
	// none).
	Type    Type
	Default string
	Status  Status
	// Amber names the amber keys a mapped row becomes.
	Amber string
	// Same is, for an attrib amber has no key for, the value amber always behaves as: that
	// value is mapped (nothing to set), another is not supported yet.
	Same string
	// Note is the reason (ignored, refused), what amber lacks (unsupported-yet), or how amber
	// differs (mapped).
	Note string
	// Spec is the specification's section.
	Spec string
	// Aliases are other spellings the specification uses for the name (its tables and its
	// examples differ).
	Aliases []string
	// Like, for a section or element, names the section whose attribs and sections it holds
	// ("" for none, "." for the collection level).
	Like string
}

// Reasons shared by many rows.
const (
	whyFeeding    = "FAST's own processing/feeding; amber writes WARC, CDXJ and documents.jsonl itself"
	whyLog        = "FAST's own logs; amber always writes logs/crawl.log, logs/events.jsonl and its reports"
	whyCache      = "FAST's own caches; amber's frontier keeps its state in badger"
	whyMultiNode  = "FAST's multi-node installation; amber is one crawler process"
	whyFTP        = "amber crawls http and https only (no FTP)"
	whyRefresh    = "amber runs one crawl and stops: no refresh cycles (run amber crawl again, e.g. from cron, for the next capture)"
	whyAdaptive   = "adaptive refresh scheduling: " + whyRefresh
	whyScopeRule  = "scope.accept (include) or scope.block (exclude) rules, as regular expressions on amber's canonical URL"
	whyLinkExtr   = "amber extracts links from every kind of reference it knows, always"
	whyRuleFile   = "each file (relative to the XML file's directory; UTF-8, at most 1 MiB and 100,000 rules) holds one rule per line, ruletype:rule; blank lines and lines starting with # are skipped; each rule is read as the section's attrib of its type; a file that cannot be read, or a line that is not a rule, is an error"
	whyDomainFile = whyRuleFile + " (exact, prefix, suffix, regexp, ipmask, ip6mask)"
	whyIPMask     = "an address mask (ranges 207.46.197.0-100 and 207.46.190-197.100 from low to high address, N bits 207.46.197.0/24, address:mask 207.46.197.0:255.255.255.0 or :0xffffff00; for ip6mask ranges and /N, a seven-group address ending in 0 read with one more 0 group) becomes an ip rule, decided with the address the URL's host resolves to (cached, network.connect_to honoured) and checked again on each connection before the request is sent: refused then, -5000 scope:REASON addr:IP; a host that does not resolve: reason no-address where an ip rule could let it in; a malformed mask or one of the other family is an error; not with a proxy (refused: the proxy resolves)"
	whyURIFile    = whyRuleFile + " (exact, prefix, suffix, regexp)"
)

// rows is the table; Table returns a copy.
var rows = []Row{
	// §2.2.3: the collection's attribs.
	{Name: "info", Kind: KindAttrib, Type: String, Status: Mapped, Amber: "description", Spec: "2.2.3"},
	{Name: "fetch_timeout", Kind: KindAttrib, Type: Integer, Default: "300", Status: Mapped, Amber: "network.response_timeout", Spec: "2.2.3",
		Note: "amber keeps what arrived in time, marked WARC-Truncated: time; its connect (10s) and first-byte (30s) timeouts apply too"},
	{Name: "allowed_types", Kind: KindAttrib, Type: ListString, Default: "text/html, text/plain, application/msword, application/msexcel, application/pt, application/pdf", Status: Mapped, Amber: "content.types", Spec: "2.2.3",
		Note: "a response whose Content-Type is of another type is not fetched: the HTTP client closes the connection once the head has arrived, only the request is archived, with a metadata record saying why (notFetched), and crawl.log says type-not-fetched:TYPE and bytes-not-fetched:N (its Content-Length, or unknown); one without a Content-Type (its type sniffed from its body), and a page the browser fetcher loaded, are archived all the same, with crawl.log type-excluded:TYPE; either way its links are not followed and it has no search document; a redirect is followed whatever its type"},
	{Name: "force_mimetype_detection", Kind: KindAttrib, Type: Boolean, Default: "no", Status: Ignored, Spec: "2.2.3", Note: whyFeeding},
	{Name: "allowed_schemes", Kind: KindAttrib, Type: ListString, Default: "http", Status: Mapped, Amber: "scope.block", Spec: "2.2.3",
		Note: "http or https left out becomes a block rule; other schemes are refused: " + whyFTP},
	{Name: "ftp_passive", Kind: KindAttrib, Type: Boolean, Default: "yes", Status: Refused, Spec: "2.2.3", Note: whyFTP},
	{Name: "domain_clustering", Kind: KindAttrib, Type: Boolean, Default: "no", Status: Ignored, Spec: "2.2.3", Note: whyMultiNode},
	{Name: "max_inter_docs", Kind: KindAttrib, Type: Integer, Status: Mapped, Amber: "politeness.max_inter_docs", Spec: "2.2.3",
		Note: "counted in URLs claimed (robots.txt requests not counted) while other sites wait for a place among max_sites; the site's URLs in flight finish before the first waiting site takes its place"},
	{Name: "max_redirects", Kind: KindAttrib, Type: Integer, Default: "10", Status: Mapped, Amber: "urls.max_redirects", Spec: "2.2.3",
		Note: "counted along the hop path; the target of one redirect more is not fetched (crawl.log -4001, scope:max-redirects); the browser fetcher follows the redirects of a page load as Chromium does"},
	{Name: "diffcheck", Kind: KindAttrib, Type: Boolean, Default: "yes", Status: Mapped, Amber: "documents.deduplication", Spec: "2.2.3",
		Note: "amber's documents.jsonl deduplication compares the extracted fields (content_hash); the WARC files always hold an identical payload as a revisit record"},
	{Name: "near_duplicate_detection", Kind: KindAttrib, Type: Boolean, Default: "no", Status: Mapped, Same: "no", Spec: "2.2.3",
		Note: "amber detects exact duplicates only; it cannot reproduce a word-pattern test like FAST's honestly (yes is refused)"},
	{Name: "max_uri_recursion", Kind: KindAttrib, Type: Integer, Default: "5", Status: Mapped, Amber: "scope.max_path_repeats", Spec: "2.2.3",
		Note: "a path in which a sequence of segments repeats more than n times in a row is a trap (reason trap), and so is a path of more than 20 segments"},
	{Name: "ftp_searchlinks", Kind: KindAttrib, Type: Boolean, Default: "yes", Status: Refused, Spec: "2.2.3", Note: whyFTP},
	{Name: "use_javascript", Kind: KindAttrib, Type: Boolean, Default: "no", Status: Mapped, Amber: "fetcher", Spec: "2.2.3",
		Note: "yes is fetcher: browser: headless Chromium loads each page and amber archives every request it makes"},
	{Name: "javascript_keep_html", Kind: KindAttrib, Type: Boolean, Default: "no", Status: Mapped, Same: "yes", Spec: "2.2.3",
		Note: "amber's documents of browser pages come from the rendered page (without use_javascript: yes it changes nothing)"},
	{Name: "javascript_delay", Kind: KindAttrib, Type: Real, Status: Unsupported, Spec: "2.2.3",
		Note: "amber's browser loads what a page needs without a delay of its own"},
	{Name: "exclude_exts", Kind: KindAttrib, Type: ListString, Default: ".jpg, .jpeg, .ico, .tif, .png, .bmp, .gif, .wmf, .avi, .mpg, .wmv, .wma, .ram, .asx, .ASF, .mp3, .wav, .ogg, .ra, .aac, .m4a, .zip, .gz, .vmarc, .z, .tar, .iso, .img, .rpm, .cab, .rar, .ace, .hqx, .swf, .exe, .java, .jar, .prz, .wrl, .midr, .css, .ps, .ttf, .mso, .dvi", Status: Mapped, Amber: "scope.block", Spec: "2.2.3",
		Note: "one block rule on the end of the URL's path, compared as written; block rules bind the embeds of pages too"},
	{Name: "use_http_1_1", Kind: KindAttrib, Type: Boolean, Default: "yes", Status: Mapped, Same: "yes", Spec: "2.2.3",
		Note: "amber speaks HTTP/1.1 only (no is refused)"},
	{Name: "accept_compression", Kind: KindAttrib, Type: Boolean, Default: "yes", Status: Mapped, Same: "yes", Spec: "2.2.3",
		Note: "amber always sends Accept-Encoding: gzip"},
	{Name: "dbswitch", Kind: KindAttrib, Type: Integer, Default: "5", Status: Ignored, Spec: "2.2.3", Note: whyFeeding},
	{Name: "dbswitch_delete", Kind: KindAttrib, Type: Boolean, Default: "no", Status: Ignored, Spec: "2.2.3", Note: whyFeeding},
	{Name: "html_redir_is_redir", Kind: KindAttrib, Type: Boolean, Default: "yes", Status: Mapped, Amber: "urls.meta_refresh_redirect_max", Spec: "2.2.3",
		Note: "no is -1: every <meta http-equiv=refresh> is a link (hop L); yes: the threshold's"},
	{Name: "html_redir_threshold", Kind: KindAttrib, Type: Integer, Default: "3", Status: Mapped, Amber: "urls.meta_refresh_redirect_max", Spec: "2.2.3", Aliases: []string{"hmtl_redir_threshold", "html_redir_thresh"},
		Note: "a meta refresh waiting at most this many whole seconds is a redirect (hop R), a longer one a link (hop L); Refresh headers are always redirects"},
	{Name: "robots_ttl", Kind: KindAttrib, Type: Integer, Default: "86400", Status: Mapped, Amber: "robots.ttl", Spec: "2.2.3",
		Note: "a robots.txt older than this is fetched and archived again by the next URL of its host; the cache is the run's (a resumed crawl fetches each robots.txt again)"},
	{Name: "use_sitemaps", Kind: KindAttrib, Type: Boolean, Default: "no", Status: Mapped, Amber: "sitemaps.robots", Spec: "2.2.3",
		Note: "amber reads the sitemaps robots.txt lists (Sitemap: lines); their URLs are decided by scope like links"},
	{Name: "max_pending", Kind: KindAttrib, Type: Integer, Default: "2", Status: Mapped, Amber: "politeness.host_concurrency", Spec: "2.2.3",
		Note: "amber's limit is per host (host:port), FAST's per site"},
	{Name: "robots_auth_ignore", Kind: KindAttrib, Type: Boolean, Default: "yes", Status: Mapped, Amber: "robots.disallow_on_auth", Spec: "2.2.3",
		Note: "no: a robots.txt answered 401 or 403 disallows the whole host (its URLs -9998); yes (amber's default): any 4xx allows all (RFC 9309)"},
	{Name: "robots_tout_ignore", Kind: KindAttrib, Type: Boolean, Default: "no", Status: Mapped, Amber: "robots.allow_on_timeout", Spec: "2.2.3",
		Note: "yes: a robots.txt request that times out (-4) allows the whole host for robots.ttl (crawl.log robots:timeout-allows-all); no: the host's URLs wait and are tried again (retry_delay, max_attempts), then left -9998 robots-unavailable"},
	{Name: "rewrite_rules", Kind: KindAttrib, Type: ListString, Status: Mapped, Amber: "urls.rewrite_rules", Spec: "2.2.3",
		Note: "patterns are Go (RE2) regular expressions: what RE2 lacks of .NET's (lookaround, backreferences) is refused; the URL as found is kept in the capture's metadata record (rewrittenFrom)"},
	{Name: "extract_links_from_dupes", Kind: KindAttrib, Type: Boolean, Default: "no", Status: Mapped, Same: "yes", Spec: "2.2.3", Aliases: []string{"extract_links_from_dunes"},
		Note: "amber extracts the links of every page, duplicates too"},
	{Name: "use_meta_csum", Kind: KindAttrib, Type: Boolean, Default: "no", Status: Mapped, Same: "no", Spec: "2.2.3",
		Note: "amber's duplicate test covers documents.deduplication_fields, not META tags"},
	{Name: "csum_cut_off", Kind: KindAttrib, Type: Integer, Default: "0", Status: Mapped, Same: "0", Spec: "2.2.3",
		Note: "amber's duplicate test covers the whole content"},
	{Name: "if_modified_since", Kind: KindAttrib, Type: Boolean, Default: "yes", Status: Mapped, Same: "no", Spec: "2.2.3",
		Note: "no: amber sends no If-Modified-Since unless it recrawls an earlier crawl; yes differs: " + whyIfModifiedSince},
	{Name: "use_cookies", Kind: KindAttrib, Type: Boolean, Default: "no", Status: Mapped, Amber: "cookies", Spec: "2.2.3"},
	{Name: "uri_search_mime", Kind: KindAttrib, Type: ListString, Default: "text/html, text/vnd.wap.xml, text/wml, text/x-wap.wml, x-application/wml, text/x-hdml", Status: Mapped, Amber: "content.link_types", Spec: "2.2.3",
		Note: "amber reads links from HTML, XHTML and CSS only, so the WML and HDML types find none; a page or style sheet of a type left out gives no links (crawl.log links-not-searched:TYPE), but a Location or Refresh header is followed, and the browser fetcher's page loads its own embeds"},
	{Name: "max_backoff_counter", Kind: KindAttrib, Type: Integer, Default: "50", Status: Mapped, Amber: "politeness.max_host_failures", Spec: "2.2.3",
		Note: "amber counts requests to the host (host:port) in a row without a response (network errors, timeouts; robots.txt too): past the limit the host's other URLs fail unrequested (host-given-up); the count is the process's, for one run; 0: never"},
	{Name: "max_backoff_delay", Kind: KindAttrib, Type: Integer, Default: "600", Status: Mapped, Amber: "politeness.max_backoff", Spec: "2.2.3",
		Note: "a host without a response is paused for retry_delay doubled per failure in a row, at most this; it also caps each URL's retry delay"},
	{Name: "delay", Kind: KindAttrib, Type: Real, Default: "60.0", Status: Mapped, Amber: "politeness.host_delay", Spec: "2.2.3",
		Note: "amber waits from the end of one response to the start of the next request to the host (host:port); a robots.txt Crawl-delay raises it"},
	{Name: "refresh", Kind: KindAttrib, Type: Real, Default: "1500.0", Status: Unsupported, Spec: "2.2.3", Note: whyRefresh},
	{Name: "robots", Kind: KindAttrib, Type: Boolean, Default: "yes", Status: Mapped, Amber: "politeness.ignore_robots", Spec: "2.2.3"},
	{Name: "start_uris", Kind: KindAttrib, Type: ListString, Status: Mapped, Amber: "seeds", Spec: "2.2.3",
		Note: "seeds of type one-page: what else is crawled is what scope.accept says (include rules, crawlmode)"},
	{Name: "start_uri_files", Kind: KindAttrib, Type: ListString, Status: Mapped, Amber: "seeds", Spec: "2.2.3",
		Note: "each file (relative to the XML file) is read when the file is converted, one URI per line; its URIs become seeds as start_uris do"},
	{Name: "max_sites", Kind: KindAttrib, Type: Integer, Default: "128", Status: Mapped, Amber: "politeness.max_sites", Spec: "2.2.3",
		Note: "a site is a host (host:port), crawled from its first URL until its queue is empty and its URLs in flight are finished; waiting sites take the places in the order they came to wait; one bound for the whole crawl, all its processes together (FAST's is per crawler node); the URLs fetched at once are still bounded by workers"},
	{Name: "mirror_site_files", Kind: KindAttrib, Type: ListString, Status: Mapped, Amber: "urls.mirrors", Spec: "2.2.3",
		Note: "each file (relative to the XML file's directory, at most 1 MiB) is read when the file is converted: one group a line, host or host:port separated by spaces, the preferred first; a URL found on a mirror is taken as the preferred site's before rewrite_rules and scope, the URL as found recorded as a rewritten one's (rewrittenFrom, rewritten-from:URL); seeds are taken as given; a site listed twice, a group of one or a file that cannot be read is an error"},
	{Name: "proxy", Kind: KindAttrib, Type: ListString, Status: Mapped, Amber: "proxy", Spec: "2.2.3",
		Note: "amber uses one proxy, through CONNECT tunnels: with several, the first (using several is not supported yet); an encrypted (!ENC!) password becomes an env: reference"},
	{Name: "proxy_max_pending", Kind: KindAttrib, Type: Integer, Default: "2147483647", Status: Mapped, Same: "2147483647", Spec: "2.2.3",
		Note: "amber does not limit the connections to its proxy"},
	{Name: "headers", Kind: KindAttrib, Type: ListString, Default: "User-Agent: FAST Search Web Crawler <version>", Status: Mapped, Amber: "headers, user_agent", Spec: "2.2.3",
		Note: "User-Agent becomes user_agent; Authorization and Proxy-Authorization are not supported (amber sends credentials to their origin only: auth, proxy)"},
	{Name: "cut_off", Kind: KindAttrib, Type: Integer, Status: Mapped, Amber: "limits.response_size", Spec: "2.2.3",
		Note: "amber's limit counts the response as received (header included, before decoding)"},
	{Name: "truncate", Kind: KindAttrib, Type: Boolean, Default: "yes", Status: Mapped, Amber: "limits.oversize", Spec: "2.2.3",
		Note: "no (drop): a page cut at cut_off is still archived as cut (WARC-Truncated: length; crawl.log dropped:oversize) but its links are not followed and it has no search document; without cut_off it changes nothing"},
	{Name: "check_meta_robots", Kind: KindAttrib, Type: Boolean, Default: "yes", Status: Mapped, Amber: "robots.ignore_meta", Spec: "2.2.3",
		Note: "no: <meta name=robots> noindex and nofollow are not obeyed; rel=nofollow on a link still is; with robots no amber obeys no robots meta (nor rel=nofollow), so yes is unsupported-yet then"},
	{Name: "obey_robots_delay", Kind: KindAttrib, Type: Boolean, Default: "no", Status: Mapped, Amber: "robots.ignore_crawl_delay", Spec: "2.2.3",
		Note: "yes: a Crawl-delay (up to 10 minutes) raises the host's delay; FAST's default no is applied when the file leaves it out"},
	{Name: "key_file", Kind: KindAttrib, Type: String, Status: Mapped, Amber: "network.client_key", Spec: "2.2.3",
		Note: "with cert_file (one without the other is unsupported-yet); a PEM key, unencrypted (an encrypted one stops the crawl at its start, saying so); offered with the certificate to every https server that asks for one, by both fetchers (the browser's requests are made by amber's client); not to an https proxy"},
	{Name: "cert_file", Kind: KindAttrib, Type: String, Status: Mapped, Amber: "network.client_cert", Spec: "2.2.3",
		Note: "with key_file (one without the other is unsupported-yet); a PEM certificate; a file that cannot be read, or whose key is not key_file's, stops the crawl at its start, saying so"},
	{Name: "max_doc", Kind: KindAttrib, Type: Integer, Default: "100000", Status: Mapped, Amber: "limits.urls_per_host", Spec: "2.2.3",
		Note: "amber counts the URLs of a host (host:port) that got a response, any status, over the whole crawl (durable, shared across processes); the others are left out with reason max-doc; with the browser a page counts once, its embeds not; 0: no limit"},
	{Name: "enforce_delay_per_ip", Kind: KindAttrib, Type: Boolean, Default: "yes", Status: Mapped, Amber: "politeness.per_ip", Spec: "2.2.3",
		Note: "yes (FAST's default, written when the file leaves it out): host names that resolve to one address share delay and max_pending as one site, in each amber process (with a shared frontier, processes do not share it); a page's subresources loaded by the browser, robots.txt and login requests are not held back; with a proxy it is left out (amber does not know the addresses), noted"},
	{Name: "wqfilter", Kind: KindAttrib, Type: Boolean, Default: "yes", Status: Ignored, Spec: "2.2.3",
		Note: "amber's frontier never queues a URL twice (an exact seen set)"},
	{Name: "smfilter", Kind: KindAttrib, Type: Integer, Default: "0", Status: Ignored, Spec: "2.2.3", Note: whyMultiNode},
	{Name: "mufilter", Kind: KindAttrib, Type: Integer, Default: "0", Status: Ignored, Spec: "2.2.3", Note: whyMultiNode},
	{Name: "umlogs", Kind: KindAttrib, Type: Boolean, Default: "yes", Status: Ignored, Spec: "2.2.3", Note: whyMultiNode},
	{Name: "sort_query_params", Kind: KindAttrib, Type: Boolean, Default: "no", Status: Mapped, Amber: "urls.sort_query_params", Spec: "2.2.3",
		Note: "parameters are split at & and ; and sorted by name (as bytes, stable), each keeping its exact bytes"},
	{Name: "robots_timeout", Kind: KindAttrib, Type: Integer, Default: "300", Status: Mapped, Amber: "robots.timeout", Spec: "2.2.3",
		Note: "bounds the whole robots.txt request; the network timeouts of every request (connect 10s, first byte 30s, network.response_timeout) bound it too"},
	{Name: "login_timeout", Kind: KindAttrib, Type: Integer, Default: "300", Status: Mapped, Same: "the value of fetch_timeout", Spec: "2.2.3",
		Note: "a login's requests have the timeouts of every request (network.response_timeout, from fetch_timeout); without logins it changes nothing"},
	{Name: "login_failed_ignore", Kind: KindAttrib, Type: Boolean, Status: Mapped, Same: "yes", Spec: "3.2 (example only)",
		Note: "a failed login is a login event (logs/events.jsonl) and the crawl of its sites goes on; without logins it changes nothing"},
	{Name: "send_links_to", Kind: KindAttrib, Type: String, Status: Refused, Spec: "2.2.3",
		Note: "an amber crawl is one collection: its links go to its own frontier"},
	{Name: "cookie_timeout", Kind: KindAttrib, Type: Integer, Default: "900", Status: Mapped, Amber: "session_cookie_ttl", Spec: "2.2.3",
		Note: "a session cookie leaves the jar both fetchers share that long after a site first set it with its value (set again with the same value, it is not renewed); the browser fetcher's Chromium keeps its own copy and sends it with the requests it makes; without use_cookies it changes nothing"},
	{Name: "refresh_when_idle", Kind: KindAttrib, Type: Boolean, Default: "no", Status: Mapped, Same: "no", Spec: "2.2.3",
		Note: "amber starts no new crawl when it becomes idle: it runs one crawl and stops (yes is not supported yet: no refresh cycles)"},
	{Name: "refresh_mode", Kind: KindAttrib, Type: String, Default: "scratch", Status: Mapped, Same: "scratch", Spec: "2.2.3",
		Note: "each amber crawl starts with an empty queue and the seeds, as scratch starts each refresh cycle (another mode is not supported yet: no refresh cycles)"},

	// §2.2.4.1-2.2.4.4: include and exclude rules.
	{Name: "include_domains", Kind: KindSection, Status: Mapped, Amber: "scope.accept", Spec: "2.2.4.1",
		Note: "rules on the host name; an empty section matches every host"},
	{Section: "include_domains", Name: "exact", Kind: KindAttrib, Type: ListString, Status: Mapped, Amber: "scope.accept", Spec: "2.2.4.1", Note: whyScopeRule},
	{Section: "include_domains", Name: "prefix", Kind: KindAttrib, Type: ListString, Status: Mapped, Amber: "scope.accept", Spec: "2.2.4.1", Note: whyScopeRule},
	{Section: "include_domains", Name: "suffix", Kind: KindAttrib, Type: ListString, Status: Mapped, Amber: "scope.accept", Spec: "2.2.4.1", Note: whyScopeRule},
	{Section: "include_domains", Name: "regexp", Kind: KindAttrib, Type: ListString, Status: Mapped, Amber: "scope.accept", Spec: "2.2.4.1",
		Note: whyScopeRule + "; amber's regexes are RE2 (no lookaround or backreference), an anchor (^, $) only at the start or end of an alternative"},
	{Section: "include_domains", Name: "ipmask", Kind: KindAttrib, Type: ListString, Status: Mapped, Amber: "scope.accept", Spec: "2.2.4.1", Note: whyIPMask},
	{Section: "include_domains", Name: "ip6mask", Kind: KindAttrib, Type: ListString, Status: Mapped, Amber: "scope.accept", Spec: "2.2.4.1", Note: whyIPMask},
	{Section: "include_domains", Name: "file", Kind: KindAttrib, Type: ListString, Status: Mapped, Amber: "scope.accept", Spec: "2.2.4.1", Note: whyDomainFile},
	{Name: "exclude_domains", Kind: KindSection, Status: Mapped, Amber: "scope.block", Spec: "2.2.4.2",
		Note: "rules on the host name; an empty section matches no host"},
	{Section: "exclude_domains", Name: "exact", Kind: KindAttrib, Type: ListString, Status: Mapped, Amber: "scope.block", Spec: "2.2.4.2", Note: whyScopeRule},
	{Section: "exclude_domains", Name: "prefix", Kind: KindAttrib, Type: ListString, Status: Mapped, Amber: "scope.block", Spec: "2.2.4.2", Note: whyScopeRule},
	{Section: "exclude_domains", Name: "suffix", Kind: KindAttrib, Type: ListString, Status: Mapped, Amber: "scope.block", Spec: "2.2.4.2", Note: whyScopeRule},
	{Section: "exclude_domains", Name: "regexp", Kind: KindAttrib, Type: ListString, Status: Mapped, Amber: "scope.block", Spec: "2.2.4.2",
		Note: whyScopeRule + "; as include_domains regexp"},
	{Section: "exclude_domains", Name: "ipmask", Kind: KindAttrib, Type: ListString, Status: Mapped, Amber: "scope.block", Spec: "2.2.4.2", Note: whyIPMask},
	{Section: "exclude_domains", Name: "ip6mask", Kind: KindAttrib, Type: ListString, Status: Mapped, Amber: "scope.block", Spec: "2.2.4.2", Note: whyIPMask},
	{Section: "exclude_domains", Name: "file", Kind: KindAttrib, Type: ListString, Status: Mapped, Amber: "scope.block", Spec: "2.2.4.2", Note: whyDomainFile},
	{Name: "include_uris", Kind: KindSection, Status: Mapped, Amber: "scope.accept", Spec: "2.2.4.3",
		Note: "rules on the whole URI; an empty section matches every URI"},
	{Section: "include_uris", Name: "exact", Kind: KindAttrib, Type: ListString, Status: Mapped, Amber: "scope.accept", Spec: "2.2.4.3", Note: whyScopeRule},
	{Section: "include_uris", Name: "prefix", Kind: KindAttrib, Type: ListString, Status: Mapped, Amber: "scope.accept", Spec: "2.2.4.3", Note: whyScopeRule},
	{Section: "include_uris", Name: "suffix", Kind: KindAttrib, Type: ListString, Status: Mapped, Amber: "scope.accept", Spec: "2.2.4.3", Note: whyScopeRule},
	{Section: "include_uris", Name: "regexp", Kind: KindAttrib, Type: ListString, Status: Mapped, Amber: "scope.accept", Spec: "2.2.4.3",
		Note: whyScopeRule + "; amber's regexes are RE2 (no lookaround or backreference)"},
	{Section: "include_uris", Name: "file", Kind: KindAttrib, Type: ListString, Status: Mapped, Amber: "scope.accept", Spec: "2.2.4.3", Note: whyURIFile},
	{Name: "exclude_uris", Kind: KindSection, Status: Mapped, Amber: "scope.block", Spec: "2.2.4.4",
		Note: "rules on the whole URI; an empty section matches no URI"},
	{Section: "exclude_uris", Name: "exact", Kind: KindAttrib, Type: ListString, Status: Mapped, Amber: "scope.block", Spec: "2.2.4.4", Note: whyScopeRule},
	{Section: "exclude_uris", Name: "prefix", Kind: KindAttrib, Type: ListString, Status: Mapped, Amber: "scope.block", Spec: "2.2.4.4", Note: whyScopeRule},
	{Section: "exclude_uris", Name: "suffix", Kind: KindAttrib, Type: ListString, Status: Mapped, Amber: "scope.block", Spec: "2.2.4.4", Note: whyScopeRule},
	{Section: "exclude_uris", Name: "regexp", Kind: KindAttrib, Type: ListString, Status: Mapped, Amber: "scope.block", Spec: "2.2.4.4",
		Note: whyScopeRule + "; amber's regexes are RE2 (no lookaround or backreference)"},
	{Section: "exclude_uris", Name: "file", Kind: KindAttrib, Type: ListString, Status: Mapped, Amber: "scope.block", Spec: "2.2.4.4", Note: whyURIFile},

	// §2.2.4.5: log.
	{Name: "log", Kind: KindSection, Status: Ignored, Spec: "2.2.4.5", Note: whyLog},
	{Section: "log", Name: "fetch", Kind: KindAttrib, Type: String, Default: "text", Status: Ignored, Spec: "2.2.4.5", Note: whyLog},
	{Section: "log", Name: "postprocess", Kind: KindAttrib, Type: String, Default: "text", Status: Ignored, Spec: "2.2.4.5", Note: whyLog},
	{Section: "log", Name: "header", Kind: KindAttrib, Type: String, Default: "none", Status: Ignored, Spec: "2.2.4.5", Note: whyLog},
	{Section: "log", Name: "screened", Kind: KindAttrib, Type: String, Default: "none", Status: Ignored, Spec: "2.2.4.5", Note: whyLog},
	{Section: "log", Name: "scheduler", Kind: KindAttrib, Type: String, Default: "none", Status: Ignored, Spec: "2.2.4.5", Note: whyLog},
	{Section: "log", Name: "dsfeed", Kind: KindAttrib, Type: String, Default: "text", Status: Ignored, Spec: "2.2.4.5", Note: whyLog},
	{Section: "log", Name: "site", Kind: KindAttrib, Type: String, Default: "text", Status: Ignored, Spec: "2.2.4.5", Note: whyLog},

	// §2.2.4.6: storage.
	{Name: "storage", Kind: KindSection, Status: Ignored, Spec: "2.2.4.6", Note: whyFeeding},
	{Section: "storage", Name: "datastore", Kind: KindAttrib, Type: String, Default: "bstore", Status: Ignored, Spec: "2.2.4.6", Note: whyFeeding},
	{Section: "storage", Name: "store_http_header", Kind: KindAttrib, Type: Boolean, Default: "yes", Status: Ignored, Spec: "2.2.4.6", Note: whyFeeding},
	{Section: "storage", Name: "store_dupes", Kind: KindAttrib, Type: Boolean, Default: "no", Status: Ignored, Spec: "2.2.4.6", Note: whyFeeding},
	{Section: "storage", Name: "compress", Kind: KindAttrib, Type: Boolean, Default: "yes", Status: Ignored, Spec: "2.2.4.6", Note: whyFeeding},
	{Section: "storage", Name: "compress_exclude_mime", Kind: KindAttrib, Type: ListString, Default: "none", Status: Ignored, Spec: "2.2.4.6", Note: whyFeeding},
	{Section: "storage", Name: "remove_docs", Kind: KindAttrib, Type: Boolean, Default: "no", Status: Ignored, Spec: "2.2.4.6", Note: whyFeeding},
	{Section: "storage", Name: "clusters", Kind: KindAttrib, Type: Integer, Default: "8", Status: Ignored, Spec: "2.2.4.6", Note: whyFeeding},
	{Section: "storage", Name: "defrag_threshold", Kind: KindAttrib, Type: Integer, Default: "85", Status: Ignored, Spec: "2.2.4.6", Note: whyFeeding},
	{Section: "storage", Name: "uri_dir", Kind: KindAttrib, Type: String, Default: "none", Status: Ignored, Spec: "2.2.4.6",
		Note: whyFeeding + " (each WARC metadata record lists a page's outlinks)"},

	// §2.2.4.7-2.2.4.10: post processing, duplicate servers, feeding, caches.
	{Name: "pp", Kind: KindSection, Status: Ignored, Spec: "2.2.4.7", Note: whyFeeding},
	{Section: "pp", Name: "use_dupservers", Kind: KindAttrib, Type: Boolean, Default: "no", Status: Ignored, Spec: "2.2.4.7", Note: whyFeeding},
	{Section: "pp", Name: "max_dupes", Kind: KindAttrib, Type: Integer, Default: "10", Status: Ignored, Spec: "2.2.4.7", Note: whyFeeding},
	{Section: "pp", Name: "stripe", Kind: KindAttrib, Type: Integer, Default: "1", Status: Ignored, Spec: "2.2.4.7", Note: whyFeeding},
	{Section: "pp", Name: "ds_meta_info", Kind: KindAttrib, Type: ListString, Default: "duplicates, redirects, mirrors, metadata", Status: Ignored, Spec: "2.2.4.7", Note: whyFeeding},
	{Section: "pp", Name: "ds_max_ecl", Kind: KindAttrib, Type: Integer, Default: "10", Status: Ignored, Spec: "2.2.4.7", Note: whyFeeding},
	{Section: "pp", Name: "ecl_override", Kind: KindAttrib, Type: String, Status: Ignored, Spec: "2.2.4.7", Note: whyFeeding},
	{Section: "pp", Name: "ds_send_links", Kind: KindAttrib, Type: Boolean, Default: "no", Status: Ignored, Spec: "2.2.4.7", Note: whyFeeding},
	{Section: "pp", Name: "ds_paused", Kind: KindAttrib, Type: Boolean, Default: "no", Status: Ignored, Spec: "2.2.4.7", Note: whyFeeding},
	{Name: "ppdup", Kind: KindSection, Status: Ignored, Spec: "2.2.4.8", Note: whyFeeding},
	{Section: "ppdup", Name: "format", Kind: KindAttrib, Type: String, Status: Ignored, Spec: "2.2.4.8", Note: whyFeeding},
	{Section: "ppdup", Name: "cachesize", Kind: KindAttrib, Type: Integer, Status: Ignored, Spec: "2.2.4.8", Note: whyFeeding},
	{Section: "ppdup", Name: "stripes", Kind: KindAttrib, Type: Integer, Status: Ignored, Spec: "2.2.4.8", Note: whyFeeding},
	{Section: "ppdup", Name: "compact", Kind: KindAttrib, Type: Boolean, Default: "yes", Status: Ignored, Spec: "2.2.4.8", Note: whyFeeding},
	{Name: "feeding", Kind: KindSection, Status: Ignored, Spec: "2.2.4.9", Note: whyFeeding},
	{Section: "feeding", Name: "<destination>", Kind: KindSection, Status: Ignored, Spec: "2.2.4.9", Note: whyFeeding},
	{Section: "feeding/<destination>", Name: "collection", Kind: KindAttrib, Type: String, Status: Ignored, Spec: "2.2.4.9", Note: whyFeeding},
	{Section: "feeding/<destination>", Name: "destination", Kind: KindAttrib, Type: String, Default: "default", Status: Ignored, Spec: "2.2.4.9", Note: whyFeeding},
	{Section: "feeding/<destination>", Name: "paused", Kind: KindAttrib, Type: Boolean, Default: "no", Status: Ignored, Spec: "2.2.4.9", Note: whyFeeding},
	{Section: "feeding/<destination>", Name: "primary", Kind: KindAttrib, Type: Boolean, Status: Ignored, Spec: "2.2.4.9", Note: whyFeeding},
	{Name: "cachesize", Kind: KindSection, Status: Ignored, Spec: "2.2.4.10", Note: whyCache},
	{Section: "cachesize", Name: "duplicates", Kind: KindAttrib, Type: Integer, Status: Ignored, Spec: "2.2.4.10", Note: whyCache},
	{Section: "cachesize", Name: "screened", Kind: KindAttrib, Type: Integer, Status: Ignored, Spec: "2.2.4.10", Note: whyCache},
	{Section: "cachesize", Name: "smcomm", Kind: KindAttrib, Type: Integer, Status: Ignored, Spec: "2.2.4.10", Note: whyCache},
	{Section: "cachesize", Name: "mucomm", Kind: KindAttrib, Type: Integer, Status: Ignored, Spec: "2.2.4.10", Note: whyCache},
	{Section: "cachesize", Name: "wqcache", Kind: KindAttrib, Type: Integer, Status: Ignored, Spec: "2.2.4.10", Note: whyCache},
	{Section: "cachesize", Name: "crosslinks", Kind: KindAttrib, Type: Integer, Status: Ignored, Spec: "2.2.4.10", Note: whyCache},
	{Section: "cachesize", Name: "routetab", Kind: KindAttrib, Type: Integer, Default: "1048576", Status: Ignored, Spec: "2.2.4.10", Note: whyCache},
	{Section: "cachesize", Name: "pp", Kind: KindAttrib, Type: Integer, Default: "1048576", Status: Ignored, Spec: "2.2.4.10", Note: whyCache},
	{Section: "cachesize", Name: "pp_pending", Kind: KindAttrib, Type: Integer, Default: "131072", Status: Ignored, Spec: "2.2.4.10", Note: whyCache},
	{Section: "cachesize", Name: "aliases", Kind: KindAttrib, Type: Integer, Default: "1048576", Status: Ignored, Spec: "2.2.4.10", Note: whyCache},

	// §2.2.4.11-2.2.4.14: error handling.
	{Name: "http_errors", Kind: KindSection, Status: Mapped, Amber: "politeness.retries", Spec: "2.2.4.11",
		Note: "FAST's defaults are written for the conditions the file leaves out (net: one retry; 4xx, 5xx, ttl, int: none); a response or failure no condition names keeps politeness.max_attempts"},
	{Section: "http_errors", Name: "<condition>", Kind: KindAttrib, Type: String, Default: "4xx DELETE:0, 5xx DELETE:10, int KEEP:0, net DELETE:3, RETRY:1, ttl DELETE:3", Status: Mapped, Amber: "politeness.retries", Spec: "2.2.4.11",
		Note: "RETRY:n is how many times amber tries the URL again, later in the run (RETRY alone: once; no RETRY: not again); the most specific status condition wins (503 over 50X over 5XX); net is no response (DNS, connect and its timeout, a broken connection), ttl no response in time (first byte or header), int amber's own failure (the browser could not load the page); DELETE and KEEP act on FAST's index, amber archives every response and deletes nothing: ignored, noted; after its retries the last response is archived"},
	{Name: "ftp_errors", Kind: KindSection, Status: Refused, Spec: "2.2.4.13", Note: whyFTP},
	{Section: "ftp_errors", Name: "<condition>", Kind: KindAttrib, Type: String, Default: "4xx DELETE:3, 550 DELETE:0, 5xx DELETE:3, int KEEP:0, net DELETE:3, RETRY:1", Status: Refused, Spec: "2.2.4.13", Note: whyFTP},

	// §2.2.4.15-2.2.4.16: queue priorities.
	{Name: "workqueue_priority", Kind: KindSection, Status: Mapped, Amber: "politeness.priority", Spec: "2.2.4.15",
		Note: "priority levels of the crawl queue; one level (levels left out or 1) changes nothing"},
	{Section: "workqueue_priority", Name: "levels", Kind: KindAttrib, Type: Integer, Default: "1", Status: Mapped, Amber: "politeness.priority.levels", Spec: "2.2.4.15",
		Note: "1 to 1024; a level is claimed among the levels that have a URL whose host can be fetched now (politeness, max_sites)"},
	{Section: "workqueue_priority", Name: "default", Kind: KindAttrib, Type: Integer, Default: "1", Status: Mapped, Amber: "politeness.priority.default", Spec: "2.2.4.15"},
	{Section: "workqueue_priority", Name: "start_uri_pri", Kind: KindAttrib, Type: Integer, Default: "1", Status: Mapped, Amber: "politeness.priority.seeds", Spec: "2.2.4.15",
		Note: "the level of the seeds (start_uris, start_uri_files, feeds)"},
	{Section: "workqueue_priority", Name: "pop_scheme", Kind: KindAttrib, Type: String, Default: "default", Status: Mapped, Amber: "politeness.priority.pick", Spec: "2.2.4.15",
		Note: "default and wrr: wrr (smooth weighted round robin by share); rr; pri"},
	{Section: "workqueue_priority", Name: "put_scheme", Kind: KindAttrib, Type: String, Default: "default", Status: Mapped, Amber: "politeness.priority.rules", Spec: "2.2.4.15",
		Note: "include: each level section's include rules become a rule of that level (first in file order wins); default: no rules, every URL but the seeds at default"},
	{Section: "workqueue_priority", Name: "<level>", Kind: KindSection, Status: Mapped, Amber: "politeness.priority.rules", Spec: "2.2.4.16",
		Note: "used with pop_scheme wrr, default or pri, as §2.2.4.16 says (rr: noted, not used)"},
	{Section: "workqueue_priority/<level>", Name: "share", Kind: KindAttrib, Type: Integer, Status: Mapped, Amber: "politeness.priority.shares", Spec: "2.2.4.16",
		Note: "the level's weight with wrr; a level without one has 1"},
	{Section: "workqueue_priority/<level>", Name: "include_domains", Kind: KindSection, Status: Mapped, Amber: "politeness.priority.rules[].match", Spec: "2.2.4.16", Like: "include_domains",
		Note: "with put_scheme include; regular expressions on amber's canonical URL (a URL that one of the level's include_domains or include_uris rules matches is at the level); address masks are not supported yet"},
	{Section: "workqueue_priority/<level>", Name: "include_uris", Kind: KindSection, Status: Mapped, Amber: "politeness.priority.rules[].match", Spec: "2.2.4.16", Like: "include_uris",
		Note: "with put_scheme include; as include_domains"},

	// §2.2.4.17: link extraction (decided with the fetcher in linkExtraction).
	{Name: "link_extraction", Kind: KindSection, Status: Mapped, Spec: "2.2.4.17",
		Note: "amber reads the links its fetcher reads, whatever the file says: an attrib that asks for what amber does is the same as amber's behaviour, one amber does in part differs, another is not supported yet"},
	{Section: "link_extraction", Name: "a", Kind: KindAttrib, Type: Boolean, Default: "yes", Status: Mapped, Same: "yes", Spec: "2.2.4.17", Note: whyAnchors},
	{Section: "link_extraction", Name: "action", Kind: KindAttrib, Type: Boolean, Default: "yes", Status: Mapped, Same: "yes", Spec: "2.2.4.17",
		Note: "yes differs: " + whyAction + "; with use_javascript " + whyActionJS + " (yes is not supported yet, no is the same)"},
	{Section: "link_extraction", Name: "area", Kind: KindAttrib, Type: Boolean, Default: "yes", Status: Mapped, Same: "yes", Spec: "2.2.4.17", Note: whyAnchors},
	{Section: "link_extraction", Name: "card", Kind: KindAttrib, Type: Boolean, Default: "yes", Status: Mapped, Same: "no", Spec: "2.2.4.17", Note: whyWML},
	{Section: "link_extraction", Name: "comment", Kind: KindAttrib, Type: Boolean, Default: "yes", Status: Mapped, Same: "no", Spec: "2.2.4.17", Note: whyComment},
	{Section: "link_extraction", Name: "embed", Kind: KindAttrib, Type: Boolean, Default: "yes", Status: Mapped, Same: "yes", Spec: "2.2.4.17", Note: whyEmbeds},
	{Section: "link_extraction", Name: "frame", Kind: KindAttrib, Type: Boolean, Default: "yes", Status: Mapped, Same: "yes", Spec: "2.2.4.17", Note: whyFrames},
	{Section: "link_extraction", Name: "go", Kind: KindAttrib, Type: Boolean, Default: "yes", Status: Mapped, Same: "no", Spec: "2.2.4.17", Note: whyWML},
	{Section: "link_extraction", Name: "img", Kind: KindAttrib, Type: Boolean, Default: "no", Status: Mapped, Same: "yes", Spec: "2.2.4.17", Note: whyEmbeds},
	{Section: "link_extraction", Name: "layer", Kind: KindAttrib, Type: Boolean, Default: "yes", Status: Mapped, Same: "no", Spec: "2.2.4.17", Note: whyLayer},
	{Section: "link_extraction", Name: "link", Kind: KindAttrib, Type: Boolean, Default: "yes", Status: Mapped, Same: "yes", Spec: "2.2.4.17",
		Note: whyLinkTag + "; with use_javascript yes differs: " + whyLinkTagJS},
	{Section: "link_extraction", Name: "meta", Kind: KindAttrib, Type: Boolean, Default: "yes", Status: Mapped, Same: "no", Spec: "2.2.4.17", Note: whyMeta},
	{Section: "link_extraction", Name: "meta_refresh", Kind: KindAttrib, Type: Boolean, Default: "yes", Status: Mapped, Same: "yes", Spec: "2.2.4.17", Note: whyMetaRefresh},
	{Section: "link_extraction", Name: "object", Kind: KindAttrib, Type: Boolean, Default: "yes", Status: Mapped, Same: "yes", Spec: "2.2.4.17", Note: whyEmbeds},
	{Section: "link_extraction", Name: "script", Kind: KindAttrib, Type: Boolean, Default: "yes", Status: Mapped, Same: "yes", Spec: "2.2.4.17", Note: whyEmbeds},
	{Section: "link_extraction", Name: "script_java", Kind: KindAttrib, Type: Boolean, Default: "yes", Status: Mapped, Same: "no", Spec: "2.2.4.17",
		Note: whyScriptText + "; with use_javascript yes differs: " + whyScriptJS + " (no is not supported yet)"},
	{Section: "link_extraction", Name: "style", Kind: KindAttrib, Type: Boolean, Default: "yes", Status: Mapped, Same: "yes", Spec: "2.2.4.17", Note: whyEmbeds},

	// §2.2.4.18: limits.
	{Name: "limits", Kind: KindSection, Status: Mapped, Amber: "limits", Spec: "2.2.4.18",
		Note: "FAST turns to refreshing only; amber stops the crawl cleanly"},
	{Section: "limits", Name: "disk_free", Kind: KindAttrib, Type: Integer, Default: "0", Status: Mapped, Amber: "limits.min_free_space", Spec: "2.2.4.18",
		Note: "0 (off) is min_free_space: off; a percentage is not supported yet (amber's is a size or auto)"},
	{Section: "limits", Name: "disk_free_slack", Kind: KindAttrib, Type: Integer, Default: "3", Status: Mapped, Same: "0", Spec: "2.2.4.18",
		Note: "amber's free-space limit is exact, a slack of 0; with disk_free 0 (FAST's default) any value changes nothing; with disk_free set (itself unsupported-yet: a percentage) a slack above 0 is unsupported-yet"},
	{Section: "limits", Name: "max_doc", Kind: KindAttrib, Type: Integer, Default: "0", Status: Mapped, Amber: "limits.urls", Spec: "2.2.4.18",
		Note: "amber counts the URLs it fetched (every response), FAST the documents it stored"},
	{Section: "limits", Name: "max_doc_slack", Kind: KindAttrib, Type: Integer, Default: "1000", Status: Mapped, Same: "0", Spec: "2.2.4.18",
		Note: "amber stops at limits.urls exactly, a slack of 0; with max_doc 0 (FAST's default) any value changes nothing; with max_doc set a slack above 0 (documents beyond max_doc) is unsupported-yet"},

	// §2.2.4.19: focused crawl.
	{Name: "focused", Kind: KindSection, Status: Unsupported, Spec: "2.2.4.19", Note: "amber has no language-focused crawl"},
	{Section: "focused", Name: "languages", Kind: KindAttrib, Type: ListString, Status: Unsupported, Spec: "2.2.4.19", Note: "amber has no language-focused crawl"},
	{Section: "focused", Name: "depth", Kind: KindAttrib, Type: Integer, Status: Unsupported, Spec: "2.2.4.19", Note: "amber has no language-focused crawl"},
	{Section: "focused", Name: "exclude_domains", Kind: KindSection, Status: Unsupported, Spec: "2.2.4.19", Like: "exclude_domains", Note: "amber has no language-focused crawl"},

	// §2.2.4.20-2.2.4.21: credentials.
	{Name: "passwd", Kind: KindSection, Status: Mapped, Amber: "auth", Spec: "2.2.4.20",
		Note: "one auth entry of type basic per attrib"},
	{Section: "passwd", Name: "<URI or realm>", Kind: KindAttrib, Type: String, Status: Mapped, Amber: "auth, http_auth_allowed", Spec: "2.2.4.20",
		Note: "a URI becomes prefix (origin when it has no path below /), sent ahead with every request it covers; another name becomes realm, answered when a 401 Basic challenge names it; the realm of username:password:realm:scheme holds the credentials back until a 401 names it; basic and auto are type basic, digest, ntlmv1 and ntlmv2 are refused (amber answers Basic only); http URIs and realms set http_auth_allowed, as FAST sends credentials over http; an encrypted (!ENC!) password becomes an env: reference, as amber cannot read FAST's key"},
	{Name: "ftp_acct", Kind: KindSection, Status: Refused, Spec: "2.2.4.21", Note: whyFTP},
	{Section: "ftp_acct", Name: "<site>", Kind: KindAttrib, Type: String, Status: Refused, Spec: "2.2.4.21", Note: whyFTP},

	// §2.2.4.22-2.2.4.23: header exclusion, variable delay.
	{Name: "exclude_headers", Kind: KindSection, Status: Mapped, Amber: "content.exclude_headers", Spec: "2.2.4.22",
		Note: "a response with a matching field is archived all the same, with crawl.log header-excluded:NAME, but its links are not followed and it has no search document, as a type allowed_types leaves out that is known only from the body"},
	{Section: "exclude_headers", Name: "<header>", Kind: KindAttrib, Type: ListString, Status: Mapped, Amber: "content.exclude_headers", Spec: "2.2.4.22",
		Note: "patterns are Go (RE2) regular expressions matched anywhere in each value of the field: what RE2 lacks of .NET's (lookaround, backreferences) is refused; a response without the field is not excluded"},
	{Name: "variable_delay", Kind: KindSection, Status: Mapped, Amber: "politeness.delay_schedule", Spec: "2.2.4.23"},
	{Section: "variable_delay", Name: "<time slot>", Kind: KindAttrib, Type: String, Status: Mapped, Amber: "politeness.delay_schedule", Spec: "2.2.4.23",
		Note: "times in the machine's local zone, as FAST's crawler read them (politeness.delay_schedule_zone names another); a slot whose end comes before its start in the week runs past Sunday; where slots overlap, suspend wins, then the longest delay; a slot's delay replaces delay (a robots.txt Crawl-delay still raises it for its host); suspend claims no URL during the slot, the URLs in flight finish"},

	// §2.2.4.24-2.2.4.26: adaptive refresh.
	{Name: "adaptive", Kind: KindSection, Status: Unsupported, Spec: "2.2.4.24", Note: whyAdaptive},
	{Section: "adaptive", Name: "refresh_count", Kind: KindAttrib, Type: Integer, Default: "4", Status: Unsupported, Spec: "2.2.4.24", Note: whyAdaptive},
	{Section: "adaptive", Name: "refresh_quota", Kind: KindAttrib, Type: Integer, Default: "90", Status: Unsupported, Spec: "2.2.4.24", Note: whyAdaptive},
	{Section: "adaptive", Name: "coverage_min", Kind: KindAttrib, Type: Integer, Default: "25", Status: Unsupported, Spec: "2.2.4.24", Note: whyAdaptive},
	{Section: "adaptive", Name: "coverage_max_pct", Kind: KindAttrib, Type: Integer, Default: "10", Status: Unsupported, Spec: "2.2.4.24", Note: whyAdaptive},
	{Name: "weights", Kind: KindSection, Status: Unsupported, Spec: "2.2.4.25", Note: whyAdaptive},
	{Section: "weights", Name: "inverse_length", Kind: KindAttrib, Type: Real, Default: "1.0", Status: Unsupported, Spec: "2.2.4.25", Note: whyAdaptive},
	{Section: "weights", Name: "inverse_depth", Kind: KindAttrib, Type: Real, Default: "1.0", Status: Unsupported, Spec: "2.2.4.25", Note: whyAdaptive},
	{Section: "weights", Name: "is_landing_page", Kind: KindAttrib, Type: Real, Default: "1.0", Status: Unsupported, Spec: "2.2.4.25", Note: whyAdaptive},
	{Section: "weights", Name: "is_mime_markup", Kind: KindAttrib, Type: Real, Default: "1.0", Status: Unsupported, Spec: "2.2.4.25", Note: whyAdaptive},
	{Section: "weights", Name: "change_history", Kind: KindAttrib, Type: Real, Default: "10.0", Status: Unsupported, Spec: "2.2.4.25", Note: whyAdaptive},
	{Section: "weights", Name: "sitemap", Kind: KindAttrib, Type: Real, Default: "10.0", Status: Unsupported, Spec: "2.2.4.25", Note: whyAdaptive},
	{Name: "sitemap_weights", Kind: KindSection, Status: Unsupported, Spec: "2.2.4.26", Note: whyAdaptive},
	{Section: "sitemap_weights", Name: "always", Kind: KindAttrib, Type: Real, Default: "1.0", Status: Unsupported, Spec: "2.2.4.26", Note: whyAdaptive},
	{Section: "sitemap_weights", Name: "hourly", Kind: KindAttrib, Type: Real, Default: "0.64", Status: Unsupported, Spec: "2.2.4.26", Note: whyAdaptive},
	{Section: "sitemap_weights", Name: "daily", Kind: KindAttrib, Type: Real, Default: "0.32", Status: Unsupported, Spec: "2.2.4.26", Note: whyAdaptive},
	{Section: "sitemap_weights", Name: "weekly", Kind: KindAttrib, Type: Real, Default: "0.16", Status: Unsupported, Spec: "2.2.4.26", Note: whyAdaptive},
	{Section: "sitemap_weights", Name: "monthly", Kind: KindAttrib, Type: Real, Default: "0.08", Status: Unsupported, Spec: "2.2.4.26", Note: whyAdaptive},
	{Section: "sitemap_weights", Name: "yearly", Kind: KindAttrib, Type: Real, Default: "0.04", Status: Unsupported, Spec: "2.2.4.26", Note: whyAdaptive},
	{Section: "sitemap_weights", Name: "never", Kind: KindAttrib, Type: Real, Default: "0.0", Status: Unsupported, Spec: "2.2.4.26", Note: whyAdaptive},
	{Section: "sitemap_weights", Name: "default", Kind: KindAttrib, Type: Real, Default: "0.16", Status: Unsupported, Spec: "2.2.4.26", Note: whyAdaptive},

	// §2.2.4.27: site clusters.
	{Name: "site_clusters", Kind: KindSection, Status: Ignored, Spec: "2.2.4.27", Note: whyMultiNode},
	{Section: "site_clusters", Name: "<cluster>", Kind: KindAttrib, Type: ListString, Status: Ignored, Spec: "2.2.4.27", Note: whyMultiNode},

	// §2.2.4.28: crawl mode.
	{Name: "crawlmode", Kind: KindSection, Status: Mapped, Amber: "scope", Spec: "2.2.4.28"},
	{Section: "crawlmode", Name: "mode", Kind: KindAttrib, Type: String, Default: "FULL", Status: Mapped, Amber: "scope.max_hops", Spec: "2.2.4.28",
		Note: "DEPTH:n is max_hops n, but amber counts every hop (a redirect too) where FAST counts pages, and takes the embeds of the last pages; FULL has no bound in FAST, amber keeps max_hops' default (100)"},
	{Section: "crawlmode", Name: "fwdlinks", Kind: KindAttrib, Type: Boolean, Default: "yes", Status: Mapped, Amber: "scope.accept", Spec: "2.2.4.28",
		Note: "no keeps the crawl on the hosts of the start URIs (the accept rules name them); yes with no include rules accepts every URL"},
	{Section: "crawlmode", Name: "fwdredirects", Kind: KindAttrib, Type: Boolean, Default: "no", Status: Mapped, Same: "yes", Spec: "2.2.4.28",
		Note: "amber fetches the target of a page's redirect on any host (as part of the page)"},
	{Section: "crawlmode", Name: "reset_level", Kind: KindAttrib, Type: Boolean, Default: "yes", Status: Mapped, Same: "no", Spec: "2.2.4.28",
		Note: "amber's hop count never restarts (with FULL it changes nothing)"},

	// §2.2.4.29-2.2.4.30: POST payloads, RSS.
	{Name: "post_payload", Kind: KindSection, Status: Mapped, Amber: "post_payloads", Spec: "2.2.4.29"},
	{Section: "post_payload", Name: "<URI or prefix:URI>", Kind: KindAttrib, Type: String, Status: Mapped, Amber: "post_payloads", Spec: "2.2.4.29",
		Note: "sent as application/x-www-form-urlencoded, the exact URI first, then the longest prefix, compared with amber's canonical URL; the POST and its body are archived (WARC request record) and its crawl.log line says post; with the browser fetcher such a URL is fetched by the plain HTTP client, not rendered (a page load is a GET); amber config convert writes the body as an env: reference (AMBER_POST_i_BODY, listed under Secrets), amber crawl --config uses it as given"},
	{Name: "rss", Kind: KindSection, Status: Mapped, Amber: "feeds", Spec: "2.2.4.30",
		Note: "RSS and Atom feeds are read once per crawl, archived like sitemap files, their items' links decided like links"},
	{Section: "rss", Name: "start_uris", Kind: KindAttrib, Type: ListString, Status: Mapped, Amber: "feeds.urls", Spec: "2.2.4.30"},
	{Section: "rss", Name: "start_uri_files", Kind: KindAttrib, Type: ListString, Status: Mapped, Amber: "feeds.urls", Spec: "2.2.4.30",
		Note: "the files are read when the file is converted"},
	{Section: "rss", Name: "auto_discover", Kind: KindAttrib, Type: Boolean, Default: "no", Status: Mapped, Amber: "feeds.auto_discover", Spec: "2.2.4.30",
		Note: "a <link rel=alternate> of type application/rss+xml or application/atom+xml on a crawled page is read as a feed"},
	{Section: "rss", Name: "follow_links", Kind: KindAttrib, Type: Boolean, Default: "yes", Status: Mapped, Amber: "feeds.follow_links", Spec: "2.2.4.30",
		Note: "no: the pages the items name are captured with their embeds, their links are not followed"},
	{Section: "rss", Name: "ignore_rules", Kind: KindAttrib, Type: Boolean, Default: "no", Status: Mapped, Amber: "feeds.ignore_rules", Spec: "2.2.4.30",
		Note: "items the include and exclude rules leave out are crawled; robots.txt, the schemes and the trap rule still apply"},
	{Section: "rss", Name: "index_feed", Kind: KindAttrib, Type: Boolean, Default: "no", Status: Ignored, Spec: "2.2.4.30", Note: whyFeeding},
	{Section: "rss", Name: "del_expired_links", Kind: KindAttrib, Type: Boolean, Default: "no", Status: Ignored, Spec: "2.2.4.30", Note: whyFeeding},
	{Section: "rss", Name: "max_link_age", Kind: KindAttrib, Type: Integer, Default: "0", Status: Ignored, Spec: "2.2.4.30", Note: whyFeeding},
	{Section: "rss", Name: "max_link_count", Kind: KindAttrib, Type: Integer, Default: "128", Status: Mapped, Amber: "feeds.max_links", Spec: "2.2.4.30",
		Note: "the first n items' links of a feed (its newest); amber reads a feed once per crawl, so nothing expires"},

	// §2.2.4.31-2.2.4.32, §2.2.6: form logins.
	{Name: "logins", Kind: KindSection, Status: Mapped, Amber: "logins", Spec: "2.2.4.31",
		Note: "a file with logins turns cookies on (a login's session is its cookies); every exchange of a login is archived (hop P), and each login is a login event"},
	{Section: "logins", Name: "<login>", Kind: KindSection, Status: Mapped, Amber: "logins[].name", Spec: "2.2.4.31"},
	{Section: "logins/<login>", Name: "preload", Kind: KindAttrib, Type: String, Status: Mapped, Amber: "logins[].preload", Spec: "2.2.4.31"},
	{Section: "logins/<login>", Name: "scheme", Kind: KindAttrib, Type: String, Status: Mapped, Amber: "logins[].scheme", Spec: "2.2.4.31"},
	{Section: "logins/<login>", Name: "site", Kind: KindAttrib, Type: String, Status: Mapped, Amber: "logins[].site", Spec: "2.2.4.31"},
	{Section: "logins/<login>", Name: "form", Kind: KindAttrib, Type: String, Status: Mapped, Amber: "logins[].form", Spec: "2.2.4.31"},
	{Section: "logins/<login>", Name: "action", Kind: KindAttrib, Type: String, Status: Mapped, Amber: "logins[].method", Spec: "2.2.4.31"},
	{Section: "logins/<login>", Name: "sites", Kind: KindAttrib, Type: ListString, Status: Mapped, Amber: "logins[].sites", Spec: "2.2.4.31",
		Note: "amber logs in before the first page of one of these hosts (not before the crawl starts), so a login whose sites are never crawled is never made"},
	{Section: "logins/<login>", Name: "ttl", Kind: KindAttrib, Type: Integer, Status: Mapped, Amber: "logins[].ttl", Spec: "2.2.4.31"},
	{Section: "logins/<login>", Name: "html_form", Kind: KindAttrib, Type: String, Status: Mapped, Amber: "logins[].html_form", Spec: "2.2.4.31"},
	{Section: "logins/<login>", Name: "autofill", Kind: KindAttrib, Type: Boolean, Status: Mapped, Amber: "logins[].autofill", Spec: "2.2.4.31"},
	{Section: "logins/<login>", Name: "relogin_if_failed", Kind: KindAttrib, Type: Boolean, Status: Mapped, Amber: "logins[].relogin_if_failed", Spec: "2.2.4.31",
		Note: "amber also logs in again, once, when a page of the login's sites answers as logged out (a redirect to the form, 401, 403), and fetches that page again"},
	{Section: "logins/<login>", Name: "parameters", Kind: KindSection, Status: Mapped, Amber: "logins[].parameters", Spec: "2.2.4.32"},
	{Section: "logins/<login>/parameters", Name: "<variable>", Kind: KindAttrib, Type: String, Status: Mapped, Amber: "logins[].parameters", Spec: "2.2.4.32",
		Note: "amber config convert writes each value as an env: reference (AMBER_LOGIN_n_NAME); a crawl of the XML file uses the values as given"},
	{Name: "Login", Kind: KindElement, Status: Mapped, Amber: "logins", Spec: "2.2.6", Like: "logins/<login>",
		Note: "as a section of logins"},

	// §2.2.4.33, §2.2.5: subcollections.
	{Name: "subdomains", Kind: KindSection, Status: Mapped, Amber: "subcollections", Spec: "2.2.4.33",
		Note: "each subcollection is an entry of subcollections, in file order (SubDomain elements after the subdomains section's): a URL belongs to the first that takes it, and has its settings; a URL none takes has the collection's"},
	{Section: "subdomains", Name: "<subcollection>", Kind: KindSection, Status: Mapped, Amber: "subcollections[].name", Spec: "2.2.4.33",
		Note: "a name amber does not allow (it is the crawl.log annotation sub:NAME: letters, digits, '.', '_', '-') has the others replaced by '_'; each capture of its URLs says sub:NAME, and reports/subcollections-report.txt counts them"},
	{Section: "subdomains/<subcollection>", Name: "accept_compression", Kind: KindAttrib, Type: Boolean, Default: "the collection's", Status: Mapped, Same: "yes", Spec: "2.2.4.33",
		Note: "amber always sends Accept-Encoding: gzip"},
	{Section: "subdomains/<subcollection>", Name: "allowed_schemes", Kind: KindAttrib, Type: ListString, Default: "the collection's", Status: Mapped, Amber: "subcollections[].schemes", Spec: "2.2.4.33",
		Note: "a URL of the subcollection with another scheme is left out as a block rule leaves it out (its pages' embeds too); schemes other than http and https are refused: " + whyFTP},
	{Section: "subdomains/<subcollection>", Name: "cut_off", Kind: KindAttrib, Type: Integer, Default: "the collection's", Status: Mapped, Amber: "subcollections[].response_size", Spec: "2.2.4.33",
		Note: "for the requests of its URLs (the collection's truncate applies); refused with use_javascript: the browser sends every request of a page through the crawl's one HTTP client"},
	{Section: "subdomains/<subcollection>", Name: "delay", Kind: KindAttrib, Type: Real, Default: "the collection's", Status: Mapped, Amber: "subcollections[].host_delay", Spec: "2.2.4.33",
		Note: "a setting of a host: a host belongs to the subcollection of the first of its URLs the crawl fetches, for the whole crawl; it replaces delay and Crawl-delay for that host (amber ctl host-delay wins over it)"},
	{Section: "subdomains/<subcollection>", Name: "ftp_passive", Kind: KindAttrib, Type: Boolean, Default: "the collection's", Status: Refused, Spec: "2.2.4.33", Note: whyFTP},
	{Section: "subdomains/<subcollection>", Name: "headers", Kind: KindAttrib, Type: ListString, Default: "the collection's", Status: Mapped, Amber: "subcollections[].headers", Spec: "2.2.4.33",
		Note: "sent with the requests of its URLs (and its hosts' robots.txt) in place of the collection's fields of the same names; refused with use_javascript: the browser sends every request of a page through the crawl's one HTTP client"},
	{Section: "subdomains/<subcollection>", Name: "max_doc", Kind: KindAttrib, Type: Integer, Default: "the collection's", Status: Mapped, Amber: "subcollections[].urls_per_host", Spec: "2.2.4.33",
		Note: "a setting of a host, as delay; FAST decides it by the domain rules alone, amber by the subcollection of the host's first URL fetched"},
	{Section: "subdomains/<subcollection>", Name: "proxy", Kind: KindAttrib, Type: ListString, Default: "the collection's", Status: Mapped, Amber: "subcollections[].proxy", Spec: "2.2.4.33",
		Note: "the requests of its URLs (and its hosts' robots.txt) go through it, the first of the list; refused with use_javascript, and a crawl that uses the browser anywhere refuses it (its pages' embeds would bypass it)"},
	{Section: "subdomains/<subcollection>", Name: "refresh", Kind: KindAttrib, Type: Real, Default: "the collection's", Status: Unsupported, Spec: "2.2.4.33", Note: whyRefresh},
	{Section: "subdomains/<subcollection>", Name: "refresh_mode", Kind: KindAttrib, Type: String, Default: "the collection's", Status: Unsupported, Spec: "2.2.4.33", Note: whyRefresh},
	{Section: "subdomains/<subcollection>", Name: "start_uri_files", Kind: KindAttrib, Type: ListString, Status: Mapped, Amber: "seeds", Spec: "2.2.4.33",
		Note: "as the collection's start_uri_files"},
	{Section: "subdomains/<subcollection>", Name: "start_uris", Kind: KindAttrib, Type: ListString, Status: Mapped, Amber: "seeds", Spec: "2.2.4.33",
		Note: "as the collection's start_uris"},
	{Section: "subdomains/<subcollection>", Name: "use_http_1_1", Kind: KindAttrib, Type: Boolean, Default: "the collection's", Status: Mapped, Same: "yes", Spec: "2.2.4.33",
		Note: "amber speaks HTTP/1.1 only (no is refused)"},
	{Section: "subdomains/<subcollection>", Name: "use_javascript", Kind: KindAttrib, Type: Boolean, Default: "the collection's", Status: Mapped, Amber: "subcollections[].fetcher", Spec: "2.2.4.33",
		Note: "yes: its pages are loaded in the browser (started for them in an http crawl); no: fetched by the plain client in a browser crawl; a setting of the URL (FAST decides it by the domain rules alone)"},
	{Section: "subdomains/<subcollection>", Name: "use_sitemaps", Kind: KindAttrib, Type: Boolean, Default: "the collection's", Status: Mapped, Amber: "subcollections[].sitemaps", Spec: "2.2.4.33",
		Note: "reads the Sitemap: lines of its hosts' robots.txt (a setting of a host, as delay)"},
	{Section: "subdomains/<subcollection>", Name: "include_domains", Kind: KindSection, Status: Mapped, Amber: "subcollections[].match", Spec: "2.2.4.33", Like: "include_domains",
		Note: "the subcollection holds a URL that include_domains (no rules: every host) and include_uris (no rules: every URI) both take and neither exclude section takes; they say where its settings apply, not what is crawled; an address mask in them becomes an ip rule, decided on the host's address"},
	{Section: "subdomains/<subcollection>", Name: "exclude_domains", Kind: KindSection, Status: Mapped, Amber: "subcollections[].except", Spec: "2.2.4.33", Like: "exclude_domains", Note: "as include_domains"},
	{Section: "subdomains/<subcollection>", Name: "include_uris", Kind: KindSection, Status: Mapped, Amber: "subcollections[].match", Spec: "2.2.4.33", Like: "include_uris",
		Note: "as include_domains; with both, a URI rule that fixes its host is kept when a host rule takes that host, an exact host is put in one rule with a URI rule, and other pairs are left out (the subcollection takes fewer URLs, noted)"},
	{Section: "subdomains/<subcollection>", Name: "exclude_uris", Kind: KindSection, Status: Mapped, Amber: "subcollections[].except", Spec: "2.2.4.33", Like: "exclude_uris", Note: "as include_domains"},
	{Section: "subdomains/<subcollection>", Name: "crawlmode", Kind: KindSection, Status: Mapped, Amber: "subcollections[].max_hops", Spec: "2.2.4.33", Like: "crawlmode",
		Note: "mode DEPTH:n is max_hops n for its URLs, not more than the collection's (deeper, or FULL in a DEPTH:n collection, is unsupported-yet: scope bounds every URL by the collection's hops first); fwdlinks other than the collection's is unsupported-yet"},
	{Section: "subdomains/<subcollection>", Name: "rss", Kind: KindSection, Status: Unsupported, Spec: "2.2.4.33", Like: "rss",
		Note: "amber reads feeds for the whole crawl: put the feeds in the collection's rss section"},
	{Section: "subdomains/<subcollection>", Name: "variable_delay", Kind: KindSection, Status: Unsupported, Spec: "2.2.4.33", Like: "variable_delay",
		Note: "amber's delay schedule (politeness.delay_schedule) is the whole crawl's: a subcollection's own is not supported yet"},
	{Name: "SubDomain", Kind: KindElement, Status: Mapped, Amber: "subcollections", Spec: "2.2.5", Like: "subdomains/<subcollection>",
		Note: "as a section of subdomains"},

	// §2.2.7: nodes.
	{Name: "Node", Kind: KindElement, Status: Ignored, Spec: "2.2.7", Like: ".",
		Note: whyMultiNode + ": a node scheduler's own values do not apply, the collection's do"},
}

// Table returns the accounting of every attrib, section and element of the specification, in
// the specification's order.
func Table() []Row {
	out := slices.Clone(rows)
	for i := range out {
		out[i].Aliases = slices.Clone(out[i].Aliases)
	}
	return out
}
