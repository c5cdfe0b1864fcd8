package fast

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/config"
)

func convert(t *testing.T, body string, opts ConvertOptions) (*config.Converted, error) {
	t.Helper()
	f, err := Parse([]byte(collection(body)), "t.xml")
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	d, err := f.Domain("")
	if err != nil {
		t.Fatal(err)
	}
	return d.Convert(opts)
}

func attrib(name string, typ Type, value string) string {
	return `<attrib name="` + name + `" type="` + string(typ) + `">` + value + `</attrib>`
}

func members(name string, ms ...string) string {
	return attrib(name, ListString, "<member>"+strings.Join(ms, "</member><member>")+"</member>")
}

func section(name string, body ...string) string {
	return `<section name="` + name + `">` + strings.Join(body, "") + `</section>`
}

func dur(d time.Duration) *time.Duration { return &d }
func yes() *bool                         { v := true; return &v }
func no() *bool                          { v := false; return &v }
func intp(n int) *int                    { return &n }

// TestConvertMapping checks what each mapped attrib becomes: the conversion of the body equals
// the conversion of the start URI alone changed as the row says.
func TestConvertMapping(t *testing.T) {
	tests := []struct {
		name   string
		body   string
		change func(c *config.File)
	}{
		{"nothing but a start URI", "", func(c *config.File) {}},
		{"info", attrib("info", String, " Museum sites "), func(c *config.File) { c.Description = "Museum sites" }},
		{"delay", attrib("delay", Real, "2.5"), func(c *config.File) { c.Politeness.HostDelay = dur(2500 * time.Millisecond) }},
		{"delay 0", attrib("delay", Real, "0"), func(c *config.File) { c.Politeness.HostDelay = dur(0) }},
		{"max_pending", attrib("max_pending", Integer, "4"), func(c *config.File) { c.Politeness.HostConcurrency = 4 }},
		{"use_cookies", attrib("use_cookies", Boolean, "yes"), func(c *config.File) { c.Cookies = yes(); c.SessionCookieTTL = 15 * time.Minute }},
		{"cookie_timeout", attrib("use_cookies", Boolean, "yes") + attrib("cookie_timeout", Integer, "60"),
			func(c *config.File) { c.Cookies = yes(); c.SessionCookieTTL = time.Minute }},
		{"cookie_timeout without cookies", attrib("cookie_timeout", Integer, "60"), func(c *config.File) {}},
		{"robots no", attrib("robots", Boolean, "no") + attrib("check_meta_robots", Boolean, "no") + attrib("robots_ttl", Integer, "60") +
			attrib("robots_timeout", Integer, "10") + attrib("obey_robots_delay", Boolean, "yes") + attrib("robots_auth_ignore", Boolean, "no") +
			attrib("robots_tout_ignore", Boolean, "yes"),
			func(c *config.File) { c.Politeness.IgnoreRobots = true; c.Robots = config.Robots{} }},
		{"robots yes", attrib("robots", Boolean, "yes"), func(c *config.File) {}},
		{"robots attribs", attrib("robots_ttl", Integer, "3600") + attrib("robots_timeout", Integer, "20") +
			attrib("robots_auth_ignore", Boolean, "no") + attrib("robots_tout_ignore", Boolean, "yes") +
			attrib("check_meta_robots", Boolean, "no") + attrib("obey_robots_delay", Boolean, "yes"),
			func(c *config.File) {
				c.Robots = config.Robots{TTL: time.Hour, Timeout: 20 * time.Second, AllowOnTimeout: true, DisallowOnAuth: true, IgnoreMeta: true}
			}},
		{"robots attribs as amber's defaults", attrib("robots_auth_ignore", Boolean, "yes") + attrib("robots_tout_ignore", Boolean, "no") +
			attrib("check_meta_robots", Boolean, "yes") + attrib("obey_robots_delay", Boolean, "no"),
			func(c *config.File) {}},
		{"max_doc", attrib("max_doc", Integer, "500"), func(c *config.File) { c.Limits.URLsPerHost = 500 }},
		{"max_doc 0", attrib("max_doc", Integer, "0"), func(c *config.File) { c.Limits.URLsPerHost = 0 }},
		{"backoff", attrib("max_backoff_counter", Integer, "3") + attrib("max_backoff_delay", Integer, "90"),
			func(c *config.File) { c.Politeness.MaxHostFailures = 3; c.Politeness.MaxBackoff = 90 * time.Second }},
		{"max_backoff_counter 0", attrib("max_backoff_counter", Integer, "0"), func(c *config.File) { c.Politeness.MaxHostFailures = 0 }},
		{"truncate no", attrib("cut_off", Integer, "1000") + attrib("truncate", Boolean, "no"),
			func(c *config.File) { c.Limits.ResponseSize = 1000; c.Limits.Oversize = "drop" }},
		{"truncate no without cut_off", attrib("truncate", Boolean, "no"), func(c *config.File) {}},
		{"use_javascript", attrib("use_javascript", Boolean, "yes") + attrib("javascript_keep_html", Boolean, "yes"),
			func(c *config.File) { c.Fetcher = "browser" }},
		{"use_javascript no", attrib("use_javascript", Boolean, "no") + attrib("javascript_keep_html", Boolean, "no"),
			func(c *config.File) { c.Fetcher = "http" }},
		{"use_sitemaps", attrib("use_sitemaps", Boolean, "yes"), func(c *config.File) { c.Sitemaps.Robots = yes() }},
		{"diffcheck", attrib("diffcheck", Boolean, "no"), func(c *config.File) { c.Documents.Deduplication = no() }},
		{"cut_off", attrib("cut_off", Integer, "5000000") + attrib("truncate", Boolean, "yes"),
			func(c *config.File) { c.Limits.ResponseSize = 5000000 }},
		{"fetch_timeout", attrib("fetch_timeout", Integer, "30"), func(c *config.File) { c.Network.ResponseTimeout = 30 * time.Second }},
		{"headers", members("headers", "User-Agent: Archiver (+mailto:a@example.org)", "X-Archive: yes", "Cookie: a=b"),
			func(c *config.File) {
				c.UserAgent = "Archiver (+mailto:a@example.org)"
				c.Headers = config.HeaderMap{"X-Archive": "yes", "Cookie": "a=b"}
			}},
		{"proxy", members("proxy", "crawler:pw@proxy.example.org:3128"), func(c *config.File) {
			c.Proxy = &config.ProxySpec{URL: "http://proxy.example.org:3128", Username: "crawler", Password: "pw"}
			c.Politeness.PerIP = false // through a proxy amber does not know the addresses
		}},
		{"proxy with an encrypted password", members("proxy", "https://crawler:!ENC!AbCd@proxy.example.org"), func(c *config.File) {
			c.Proxy = &config.ProxySpec{URL: "https://proxy.example.org", Username: "crawler", Password: "env:AMBER_PROXY_PASSWORD"}
			c.Politeness.PerIP = false
		}},
		{"passwd of an origin", section("passwd",
			attrib("https://intranet.example.org/", String, "jane:s3:cr:et"),
			attrib("http://old.example.org:8080", String, "joe:pw:Old realm:basic"),
			attrib("https://x.example.org", String, "ann:!ENC!Zm9v:r:auto")),
			func(c *config.File) {
				c.Auth = []config.AuthSpec{
					{Origin: "https://intranet.example.org", Type: "basic", Username: "jane", Password: "s3:cr:et"},
					{Origin: "http://old.example.org:8080", Realm: "Old realm", Type: "basic", Username: "joe", Password: "pw"},
					{Origin: "https://x.example.org", Realm: "r", Type: "basic", Username: "ann", Password: "env:AMBER_AUTH_2_PASSWORD"},
				}
				c.HTTPAuthAllowed = true
			}},
		{"passwd of a prefix and of a realm", section("passwd",
			attrib("https://www.example.org/members/", String, "jane:pw"),
			attrib("https://www.example.org/reports?y=2026", String, "joe:pw2:Reports:BASIC"),
			attrib("Intranet", String, "ann:pw3"),
			attrib("Staff only", String, "bob:pw:4:Staff only:auto")),
			func(c *config.File) {
				c.Auth = []config.AuthSpec{
					{Prefix: "https://www.example.org/members/", Type: "basic", Username: "jane", Password: "pw"},
					{Prefix: "https://www.example.org/reports?y=2026", Realm: "Reports", Type: "basic", Username: "joe", Password: "pw2"},
					{Realm: "Intranet", Type: "basic", Username: "ann", Password: "pw3"},
					{Realm: "Staff only", Type: "basic", Username: "bob", Password: "pw:4"},
				}
				c.HTTPAuthAllowed = true // realms are answered over http too
			}},
		{"passwd of an https prefix", section("passwd", attrib("https://www.example.org/a/", String, "jane:pw")),
			func(c *config.File) {
				c.Auth = []config.AuthSpec{{Prefix: "https://www.example.org/a/", Type: "basic", Username: "jane", Password: "pw"}}
			}},
		{"passwd twice for one URI and realm", section("passwd",
			attrib("https://www.example.org/", String, "jane:pw"), attrib("https://www.example.org", String, "joe:pw2")),
			func(c *config.File) {
				c.Auth = []config.AuthSpec{{Origin: "https://www.example.org", Type: "basic", Username: "joe", Password: "pw2"}}
			}},
		{"Login as §3.4", `<Login name="mytestlogin">` + attrib("preload", String, "http://preload.example.com/") +
			attrib("scheme", String, " https ") + attrib("site", String, " login.example.com ") + attrib("form", String, " /path/to/some/form.cgi ") +
			attrib("action", String, "post") + section("parameters", attrib("user", String, " username "), attrib("password", String, "pass word")) +
			members("sites", "site1.example.com", "site2.example.com") + attrib("ttl", Integer, "7200") +
			attrib("html_form", String, "\n http://login.example.com/login.html \n") + attrib("autofill", Boolean, "yes") +
			attrib("relogin_if_failed", Boolean, "yes") + `</Login>`,
			func(c *config.File) {
				c.Logins = []config.LoginSpec{{Name: "mytestlogin", Preload: "http://preload.example.com/", Scheme: "https", Site: "login.example.com",
					Form: "/path/to/some/form.cgi", Method: "POST", HTMLForm: "http://login.example.com/login.html", Autofill: true,
					Parameters: map[string]config.Secret{"user": "username", "password": "pass word"},
					Sites:      []string{"site1.example.com", "site2.example.com"}, TTL: config.LoginTTL(2 * time.Hour), ReloginIfFailed: true}}
				c.Cookies = yes()
				c.SessionCookieTTL = 15 * time.Minute
			}},
		{"logins section and Login element", `<Login name="b">` + attrib("form", String, "https://b.example.com/login") + section("parameters", attrib("user", String, "u")) + `</Login>` +
			section("logins", section("a", attrib("html_form", String, "http://a.example.com/"), attrib("autofill", Boolean, "yes"),
				attrib("action", String, "GET"), attrib("relogin_if_failed", Boolean, "no"))) + attrib("use_cookies", Boolean, "yes"),
			func(c *config.File) {
				c.Logins = []config.LoginSpec{
					{Name: "a", HTMLForm: "http://a.example.com/", Autofill: true, Method: "GET"},
					{Name: "b", Form: "https://b.example.com/login", Parameters: map[string]config.Secret{"user": "u"}},
				}
				c.Cookies = yes()
				c.SessionCookieTTL = 15 * time.Minute
			}},
		{"limits", section("limits", attrib("max_doc", Integer, "50"), attrib("disk_free", Integer, "0"), attrib("max_doc_slack", Integer, "0")),
			func(c *config.File) { c.Limits.URLs = 50; c.Limits.MinFreeSpace = "off" }},
		{"limits off", section("limits", attrib("max_doc", Integer, "0"), attrib("max_doc_slack", Integer, "1000")), func(c *config.File) {}},
		{"DEPTH", section("crawlmode", attrib("mode", String, " depth:3 "), attrib("reset_level", Boolean, "no")),
			func(c *config.File) { c.Scope.MaxHops = intp(3) }},
		{"allowed_schemes https only", members("allowed_schemes", "HTTPS"), func(c *config.File) {
			c.Scope.Block[0] = config.RuleSpec{Text: "regex:http://.*"}
		}},
		{"allowed_schemes both", members("allowed_schemes", "http", "https"), func(c *config.File) {
			c.Scope.Block = c.Scope.Block[1:]
		}},
		{"exclude_exts", members("exclude_exts", ".pdf", "doc"), func(c *config.File) {
			c.Scope.Block[1] = config.RuleSpec{Text: `regex:[^?]*(?:\.pdf|\.doc)(?:\?.*)?`}
		}},
		{"start_uris twice", members("start_uris", "http://www.example.com/", "HTTP://WWW.EXAMPLE.COM/", "http://b.example.com"), func(c *config.File) {
			c.Seeds = append(c.Seeds, config.SeedSpec{URL: "http://b.example.com", Type: "one-page"})
		}},
		{"a subcollection's start URIs", section("subdomains", section("s", members("start_uris", "http://sub.example.com/"))), func(c *config.File) {
			c.Seeds = append(c.Seeds, config.SeedSpec{URL: "http://sub.example.com/", Type: "one-page"})
			c.Subcollections = []config.Subcollection{{Name: "s"}}
		}},
	}
	base, err := convert(t, startURI, ConvertOptions{})
	if err != nil {
		t.Fatal(err)
	}
	baseYAML, err := base.File.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, err := config.Parse(baseYAML, "base")
			if err != nil {
				t.Fatal(err)
			}
			want.Scope.Accept = base.File.Scope.Accept
			tt.change(want)
			body := tt.body
			if !strings.HasPrefix(body, `<attrib name="start_uris"`) {
				body = startURI + body
			}
			cv, err := convert(t, body, ConvertOptions{})
			if err != nil {
				t.Fatal(err)
			}
			// Secrets render as ***: compare the values themselves.
			for i := range want.Auth {
				if i < len(cv.File.Auth) && want.Auth[i].Password != cv.File.Auth[i].Password {
					t.Errorf("auth[%d] password differs", i)
				}
			}
			if want.Proxy != nil && cv.File.Proxy != nil && want.Proxy.Password != cv.File.Proxy.Password {
				t.Errorf("proxy password differs")
			}
			if diff := cmp.Diff(want, cv.File); diff != "" {
				t.Errorf("config (-want +got):\n%s", diff)
			}
			for _, n := range cv.Notes {
				if strings.HasPrefix(n, noteUnknown) || strings.Contains(n, "internal") {
					t.Errorf("note %q", n)
				}
			}
		})
	}
}

// hasNote reports whether a note of status names what.
func hasNote(notes []string, status, what string) bool {
	for _, n := range notes {
		if strings.HasPrefix(n, status+": ") && strings.Contains(n, what) {
			return true
		}
	}
	return false
}

// TestConvertNotes checks the notes: every attrib amber does not map is named with its status,
// and an attrib that changes nothing, or asks for what amber does, is not.
func TestConvertNotes(t *testing.T) {
	type note struct{ status, what string }
	tests := []struct {
		name string
		body string
		want []note // notes that must be there
		not  []string
	}{
		{"truncate no with cut_off", attrib("cut_off", Integer, "10") + attrib("truncate", Boolean, "no"),
			[]note{{"differs", "truncate=no"}, {"differs", "cut_off=10"}}, nil},
		{"truncate no without cut_off", attrib("truncate", Boolean, "no"), nil, []string{"truncate"}},
		{"values amber has", attrib("use_http_1_1", Boolean, "yes") + attrib("near_duplicate_detection", Boolean, "no") +
			attrib("sort_query_params", Boolean, "no") + attrib("proxy_max_pending", Integer, "2147483647") +
			section("link_extraction", attrib("a", Boolean, "yes"), attrib("comment", Boolean, "no")),
			nil, []string{"use_http_1_1", "near_duplicate", "sort_query", "proxy_max", "link_extraction/a", "link_extraction/comment"}},
		{"values amber refuses", attrib("use_http_1_1", Boolean, "no") + attrib("near_duplicate_detection", Boolean, "yes"),
			[]note{{"refused", "use_http_1_1=no"}, {"refused", "near_duplicate_detection=yes"}}, nil},
		{"values amber lacks", attrib("sort_query_params", Boolean, "yes") + section("link_extraction", attrib("img", Boolean, "no")),
			[]note{{"differs", "sort_query_params=yes"}, {"unsupported-yet", "link_extraction/img=no"}}, nil},
		{"meta robots as robots.txt", attrib("robots", Boolean, "no") + attrib("check_meta_robots", Boolean, "no"), nil, []string{"check_meta_robots"}},
		{"meta robots ignored", attrib("check_meta_robots", Boolean, "no"), []note{{"differs", "check_meta_robots=no"}}, nil},
		{"meta robots obeyed", attrib("check_meta_robots", Boolean, "yes"), nil, []string{"check_meta_robots"}},
		{"meta robots without robots.txt", attrib("robots", Boolean, "no") + attrib("check_meta_robots", Boolean, "yes"),
			[]note{{"unsupported-yet", "check_meta_robots=yes"}}, nil},
		{"meta robots by default without robots.txt", attrib("robots", Boolean, "no"), []note{{"defaults", "check_meta_robots=yes"}}, nil},
		{"robots attribs without robots.txt", attrib("robots", Boolean, "no") + attrib("robots_ttl", Integer, "60") + attrib("robots_timeout", Integer, "10") +
			attrib("obey_robots_delay", Boolean, "yes") + attrib("robots_auth_ignore", Boolean, "no") + attrib("robots_tout_ignore", Boolean, "yes"),
			nil, []string{"robots_"}},
		{"robots and site attribs", attrib("robots_ttl", Integer, "3600") + attrib("max_doc", Integer, "10") + attrib("max_backoff_counter", Integer, "5"),
			[]note{{"differs", "robots_ttl=3600"}, {"differs", "max_doc=10"}, {"differs", "max_backoff_counter=5"}}, []string{"obey_robots_delay", "robots_timeout"}},
		{"javascript_delay without use_javascript", attrib("javascript_delay", Real, "1"), nil, []string{"javascript_delay"}},
		{"javascript_delay with use_javascript", attrib("use_javascript", Boolean, "yes") + attrib("javascript_delay", Real, "1"),
			[]note{{"unsupported-yet", "javascript_delay=1"}, {"differs", "use_javascript=yes"}}, nil},
		{"unknown attrib", attrib("frobnicate", Integer, "1"), []note{{"unknown", "frobnicate=1"}}, nil},
		{"unknown section", section("frob", attrib("x", Integer, "1"), section("y")), []note{{"unknown", "frob"}, {"unknown", "frob/x=1"}, {"unknown", "frob/y"}}, nil},
		{"unknown attrib in a known section", section("crawlmode", attrib("speed", String, "fast")), []note{{"unknown", "crawlmode/speed=fast"}}, nil},
		{"empty ignored section", section("log"), []note{{"ignored", "log"}}, nil},
		{"ignored attribs", section("storage", attrib("clusters", Integer, "8")) + attrib("umlogs", Boolean, "yes"),
			[]note{{"ignored", "storage/clusters=8"}, {"ignored", "umlogs=yes"}}, nil},
		{"FTP", attrib("ftp_passive", Boolean, "yes") + members("allowed_schemes", "http", "ftp") + members("start_uris", "http://www.example.com/", "ftp://ftp.example.com/"),
			[]note{{"refused", "ftp_passive=yes"}, {"refused", "allowed_schemes ftp"}, {"refused", "start_uris ftp://ftp.example.com/"}}, nil},
		{"Node", `<Node name="n1">` + attrib("delay", Real, "90") + `</Node>`, []note{{"ignored", "Node[n1]/delay=90"}}, nil},
		{"empty Node", `<Node name="n1"/>`, []note{{"ignored", "Node[n1]"}}, nil},
		{"Login", `<Login name="l">` + attrib("site", String, "login.example.com") + attrib("form", String, "/login") +
			members("sites", "www.example.com") + attrib("relogin_if_failed", Boolean, "yes") + attrib("ttl", Integer, "60") +
			section("parameters", attrib("password", String, "hunter2")) + `</Login>`,
			[]note{{"differs", "Login[l]/sites"}, {"differs", "Login[l]/relogin_if_failed=yes"}}, []string{"hunter2", "Login[l]/site=", "Login[l]/ttl", "cookies"}},
		{"Login with use_cookies no", attrib("use_cookies", Boolean, "no") + `<Login name="l">` + attrib("form", String, "https://a.example.com/login") + section("parameters", attrib("user", String, "u")) + `</Login>`,
			[]note{{"differs", "use_cookies=no"}}, nil},
		{"login attribs without logins", attrib("login_timeout", Integer, "10") + attrib("login_failed_ignore", Boolean, "no"), nil, []string{"login_"}},
		{"login attribs amber follows", attrib("fetch_timeout", Integer, "60") + attrib("login_timeout", Integer, "60") + attrib("login_failed_ignore", Boolean, "yes") +
			section("logins", section("l", attrib("form", String, "https://a.example.com/login"), section("parameters", attrib("user", String, "u")))), nil, []string{"login_"}},
		{"login attribs amber does not follow", attrib("login_timeout", Integer, "10") + attrib("login_failed_ignore", Boolean, "no") +
			section("logins", section("l", attrib("form", String, "https://a.example.com/login"), section("parameters", attrib("user", String, "u")))),
			[]note{{"unsupported-yet", "login_timeout=10"}, {"unsupported-yet", "login_failed_ignore=no"}}, nil},
		{"unknown in a Login", `<Login name="l">` + attrib("form", String, "https://a.example.com/login") + attrib("captcha", String, "x") + section("fields") + section("parameters", attrib("user", String, "u")) + `</Login>`,
			[]note{{"unknown", "Login[l]/captcha=x"}, {"unknown", "Login[l]/fields"}}, nil},
		{"passwd amber cannot map", section("passwd",
			attrib("http://www.example.com/private/", String, "u:secretpw:r:digest"),
			attrib("Intranet realm", String, "u:secretpw:Intranet realm:NTLMv1"),
			attrib("https://a.example.com/", String, "u:secretpw:realm:ntlmv2"),
			attrib("ftp://ftp.example.com/", String, "u:secretpw")),
			[]note{{"refused", `passwd/"http://www.example.com/private/"`}, {"refused", `passwd/"Intranet realm"`},
				{"refused", `passwd/"https://a.example.com/"`}, {"refused", `passwd/"ftp://ftp.example.com/"`}}, []string{"secretpw"}},
		{"passwd notes", section("passwd",
			attrib("http://www.example.com/private/", String, "u:secretpw"),
			attrib("Intranet", String, "u:secretpw:Intranet:auto")),
			[]note{{"differs", `passwd/"http://www.example.com/private/": amber sends the credentials with every request to the URLs under http://www.example.com/private/`},
				{"differs", `passwd/Intranet: amber answers a 401 Basic challenge for realm "Intranet"`}}, []string{"secretpw"}},
		{"headers amber cannot send", members("headers", "Authorization: Basic eHg=", "Host: a.example.com", "A: 1", "a: 2"),
			[]note{{"unsupported-yet", "headers Authorization"}, {"unsupported-yet", "headers Host"}, {"differs", "headers A"}}, []string{"eHg="}},
		{"several proxies", members("proxy", "p1.example.org:8080", "p2.example.org:8080"), []note{{"unsupported-yet", "proxy"}}, nil},
		{"rules amber cannot express", section("include_domains", members("regexp", "(?=x)y", "a(^b)")),
			[]note{{"unsupported-yet", "include_domains/regexp (?=x)y"}, {"unsupported-yet", "include_domains/regexp a(^b)"}}, nil},
		{"rules amber cannot combine", section("include_domains", members("suffix", ".example.com")) + section("include_uris", members("suffix", ".html")),
			[]note{{"unsupported-yet", "include_uris/suffix .html"}}, nil},
		{"rss without channels", section("rss", attrib("follow_links", Boolean, "no"), attrib("index_feed", Boolean, "yes")),
			[]note{{"ignored", "rss/index_feed=yes"}}, []string{"rss/follow_links"}},
		{"rss with channels", section("rss", members("start_uris", "http://www.example.com/feed")), nil, []string{"rss"}},
		{"rss ignoring rules", section("rss", members("start_uris", "http://www.example.com/feed"), attrib("ignore_rules", Boolean, "yes")),
			[]note{{"differs", "rss/ignore_rules=yes"}}, nil},
		{"rss in a subcollection", section("subdomains", section("s", section("rss", members("start_uris", "http://www.example.com/feed")))),
			[]note{{"unsupported-yet", "subdomains/s/rss"}}, nil},
		{"meta refresh threshold without html_redir_is_redir", attrib("html_redir_is_redir", Boolean, "no") + attrib("html_redir_threshold", Integer, "5"),
			nil, []string{"html_redir"}},
		{"rewrite rules", members("rewrite_rules", "*/old/*/new/*"), []note{{"differs", "rewrite_rules"}}, nil},
		{"one work queue", section("workqueue_priority", attrib("levels", Integer, "1"), attrib("pop_scheme", String, "default")), nil, []string{"workqueue"}},
		{"work queues", section("workqueue_priority", attrib("levels", Integer, "2"), section("1", section("include_domains", members("exact", "a.example.com")))),
			[]note{{"note", "workqueue_priority/1/include_domains/exact"}}, []string{"unsupported-yet"}},
		{"work queues in turn", section("workqueue_priority", attrib("levels", Integer, "2"), attrib("pop_scheme", String, "rr"), attrib("put_scheme", String, "include"),
			section("1", section("include_domains", members("exact", "a.example.com")))),
			[]note{{"note", "workqueue_priority/1/include_domains/exact"}}, []string{"unsupported-yet"}},
		{"work queue by address", section("workqueue_priority", attrib("levels", Integer, "2"), attrib("put_scheme", String, "include"),
			section("1", section("include_domains", members("ipmask", "10.0.0.0/8")))),
			[]note{{"unsupported-yet", "workqueue_priority/1/include_domains/ipmask 10.0.0.0/8"}}, nil},
		{"one work queue with levels", section("workqueue_priority", section("1", attrib("share", Integer, "3"))),
			[]note{{"note", "workqueue_priority"}}, []string{"unsupported-yet"}},
		{"focused", section("focused", members("languages", "en"), section("exclude_domains", members("exact", "a.example.com"))),
			[]note{{"unsupported-yet", "focused/languages"}, {"unsupported-yet", "focused/exclude_domains/exact"}}, nil},
		{"subcollection with the collection's values", attrib("delay", Real, "10") +
			section("subdomains", section("s", attrib("delay", Real, "10.0"), attrib("use_http_1_1", Boolean, "yes"),
				section("crawlmode", attrib("fwdlinks", Boolean, "yes")), section("include_uris", members("prefix", "http://www.example.com/a")))),
			[]note{{"differs", "subdomains/s/delay=10.0"}}, []string{"use_http_1_1", "s/crawlmode", "s/include_uris"}},
		{"subcollection that overrides", section("subdomains", section("s", attrib("delay", Real, "10"), section("include_uris", members("prefix", "http://www.example.com/a")))),
			[]note{{"differs", "subdomains/s/delay=10"}}, []string{"s/include_uris", "unsupported-yet: subdomains"}},
		{"attrib not allowed in a subcollection", `<SubDomain name="s">` + attrib("max_pending", Integer, "9") + `</SubDomain>`,
			[]note{{"unknown", "SubDomain[s]/max_pending=9"}}, nil},
		{"FULL", section("crawlmode", attrib("mode", String, "FULL"), attrib("reset_level", Boolean, "yes")),
			[]note{{"differs", "crawlmode/mode=FULL"}}, []string{"reset_level"}},
		{"DEPTH and reset_level", section("crawlmode", attrib("mode", String, "DEPTH:2"), attrib("reset_level", Boolean, "yes")),
			[]note{{"differs", "crawlmode/mode=DEPTH:2"}, {"unsupported-yet", "crawlmode/reset_level=yes"}}, nil},
		{"defaults", "", []note{{"defaults", "crawlmode/fwdredirects=no"}, {"note", "crawlmode/fwdlinks=yes"}},
			[]string{"cookie_timeout", "javascript_keep_html"}},
		{"defaults that depend", attrib("use_cookies", Boolean, "yes") + attrib("use_javascript", Boolean, "yes"),
			[]note{{"defaults", "javascript_keep_html=no"}}, []string{"cookie_timeout"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := tt.body
			if !strings.Contains(body, `"start_uris"`) {
				body = startURI + body
			}
			cv, err := convert(t, body, ConvertOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range tt.want {
				if !hasNote(cv.Notes, n.status, n.what) {
					t.Errorf("no %s note naming %q in:\n%s", n.status, n.what, strings.Join(cv.Notes, "\n"))
				}
			}
			for _, s := range tt.not {
				for _, n := range cv.Notes {
					if strings.HasPrefix(n, noteDefault+": ") {
						continue
					}
					if strings.Contains(n, s) {
						t.Errorf("note %q names %q", n, s)
					}
				}
			}
		})
	}
}

func TestConvertStrict(t *testing.T) {
	body := startURI + "\n" + section("log", attrib("fetch", String, "text")) + "\n" + attrib("refresh", Real, "60") + "\n" + attrib("delay", Real, "1")
	_, err := convert(t, body, ConvertOptions{Strict: true})
	if !errors.Is(err, ErrNotMapped) {
		t.Fatalf("strict: %v, want ErrNotMapped", err)
	}
	var got []string
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var fe *Error
		if !errors.As(e, &fe) {
			t.Fatalf("%v is not an *Error", e)
		}
		got = append(got, fmt.Sprintf("%d %s", fe.Line, fe.Path))
	}
	// log/fetch is FAST's own logging (ignored): not an error; refresh is not supported yet.
	want := []string{
		"3 CrawlerConfig/DomainSpecification[name=c]/attrib[name=refresh]",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("strict errors (-want +got):\n%s", diff)
	}
	if _, err := convert(t, startURI+attrib("delay", Real, "1")+attrib("use_http_1_1", Boolean, "yes"), ConvertOptions{Strict: true}); err != nil {
		t.Errorf("strict, all mapped: %v", err)
	}
}

func TestConvertInvalid(t *testing.T) {
	tests := []struct {
		name string
		body string
		path string
	}{
		{"mode", section("crawlmode", attrib("mode", String, "DEPTH:x")), "section[name=crawlmode]/attrib[name=mode]"},
		{"mode unknown", section("crawlmode", attrib("mode", String, "WIDE")), "section[name=crawlmode]/attrib[name=mode]"},
		{"header without a colon", members("headers", "X-A yes"), "attrib[name=headers]"},
		{"start URI not a URL", members("start_uris", "www.example.com"), "attrib[name=start_uris]"},
		{"start_uri_files missing", members("start_uri_files", "no-such-file.txt"), "attrib[name=start_uri_files]"},
		{"start_uri_files a directory", members("start_uri_files", "."), "attrib[name=start_uri_files]"},
		{"passwd without a colon", section("passwd", attrib("https://a.example/", String, "jane")), "section[name=passwd]/attrib[name=https://a.example/]"},
		{"passwd of a realm naming another", section("passwd", attrib("Intranet", String, "jane:pw:Extranet:basic")), "section[name=passwd]/attrib[name=Intranet]"},
		{"passwd URI with user info", section("passwd", attrib("https://x@a.example/", String, "jane:pw")), "section[name=passwd]/attrib[name=https://x@a.example/]"},
		{"login without a form", `<Login name="l">` + attrib("site", String, "a.example.com") + `</Login>`, "Login[name=l]/attrib[name=site]"},
		{"login autofill without html_form", section("logins", section("l", attrib("autofill", Boolean, "yes"))), "section[name=logins]/section[name=l]/attrib[name=autofill]"},
		{"login action", `<Login name="l">` + attrib("form", String, "https://a.example.com/login") + attrib("action", String, "PUT") + `</Login>`, "Login[name=l]/attrib[name=form]"},
		{"login ttl", `<Login name="l">` + attrib("form", String, "https://a.example.com/login") + attrib("ttl", Integer, "-1") + `</Login>`, "Login[name=l]/attrib[name=ttl]"},
		{"login without attribs", `<Login name="l"/>`, "Login[name=l]"},
		{"negative delay", attrib("delay", Real, "-1"), "attrib[name=delay]"},
		{"max_pending 0", attrib("max_pending", Integer, "0"), "attrib[name=max_pending]"},
		{"robots_ttl 0", attrib("robots_ttl", Integer, "0"), "attrib[name=robots_ttl]"},
		{"robots_timeout negative", attrib("robots_timeout", Integer, "-5"), "attrib[name=robots_timeout]"},
		{"max_doc negative", attrib("max_doc", Integer, "-1"), "attrib[name=max_doc]"},
		{"max_backoff_counter negative", attrib("max_backoff_counter", Integer, "-1"), "attrib[name=max_backoff_counter]"},
		{"max_backoff_delay 0", attrib("max_backoff_delay", Integer, "0"), "attrib[name=max_backoff_delay]"},
		{"proxy not a URL", members("proxy", "ftp://p.example.org"), "attrib[name=proxy]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := convert(t, tt.body, ConvertOptions{BaseDir: t.TempDir()})
			var fe *Error
			if !errors.As(err, &fe) || !errors.Is(err, ErrInvalid) {
				t.Fatalf("Convert: %v, want an *Error wrapping ErrInvalid", err)
			}
			if want := "CrawlerConfig/DomainSpecification[name=c]/" + tt.path; fe.Path != want || fe.Line != 1 {
				t.Errorf("error at %d %s, want 1 %s", fe.Line, fe.Path, want)
			}
		})
	}
}

func TestStartURIFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "lists"), 0o755); err != nil {
		t.Fatal(err)
	}
	list := "# museums\nhttp://a.example.org/\n\n  https://b.example.org/x  \nhttp://a.example.org/\n"
	if err := os.WriteFile(filepath.Join(dir, "lists", "uris.txt"), []byte(list), 0o644); err != nil {
		t.Fatal(err)
	}
	xml := collection(members("start_uri_files", "lists/uris.txt"))
	path := filepath.Join(dir, "crawler.xml")
	if err := os.WriteFile(path, []byte(xml), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, cv, err := Load(path, "", false)
	if err != nil {
		t.Fatal(err)
	}
	want := []config.SeedSpec{{URL: "http://a.example.org/", Type: "one-page"}, {URL: "https://b.example.org/x", Type: "one-page"}}
	if diff := cmp.Diff(want, cfg.Seeds); diff != "" {
		t.Errorf("seeds (-want +got):\n%s", diff)
	}
	if got := cv.Sources["seeds[1]"]; got != "start_uri_files (lists/uris.txt)" {
		t.Errorf("source of seeds[1] = %q", got)
	}
}

// everyRow builds a collection that gives every attrib, section and element of the table, each
// with its default or a sample value.
func everyRow() string {
	names := map[string]string{
		"<condition>": "4xx", "<URI or realm>": "http://a.example.com/", "<URI or prefix:URI>": "prefix:http://a.example.com/",
		"<time slot>": "Mon:09-Mon:17", "<site>": "ftp.example.com", "<cluster>": "c1", "<header>": "Server",
		"<login>": "l1", "<subcollection>": "s1", "<destination>": "d1", "<level>": "1", "<variable>": "user",
	}
	samples := map[string]string{
		"http_errors/<condition>": "DELETE:10, RETRY:3",
		"start_uris":              "http://www.example.com/", "proxy": "proxy.example.org:3128", "exact": "www.example.com",
		"prefix": "www.", "suffix": ".example.com", "regexp": "example", "ipmask": "10.0.0.0/8", "ip6mask": "2001:db8::/32",
		"file": "rules.txt", "mirror_site_files": "mirrors.txt", "<URI or realm>": "u:p", "headers": "X-A: 1", "mode": "DEPTH:5", "start_uri_files": "uris.txt",
		"rewrite_rules":          "*/old/*/new/*",
		"logins/<login>/preload": "http://a.example.com/", "logins/<login>/scheme": "http", "logins/<login>/site": "a.example.com",
		"logins/<login>/form": "/login", "logins/<login>/action": "POST", "logins/<login>/sites": "a.example.com",
		"logins/<login>/html_form": "http://a.example.com/login.html", "variable_delay/<time slot>": "suspend",
	}
	value := func(r Row) string {
		v := samples[r.Name]
		if sv, ok := samples[r.Section+"/"+r.Name]; ok {
			v = sv
		}
		if v == "" && r.Default != "" && !strings.HasPrefix(r.Default, "the ") && !strings.Contains(r.Default, "<") {
			v = r.Default
		}
		if r.Type == ListString {
			if v == "" {
				v = "x"
			}
			return "<member>" + strings.Join(strings.Split(v, ", "), "</member><member>") + "</member>"
		}
		if v == "" || strings.Contains(r.Default, " ") && r.Type != String {
			switch r.Type {
			case Boolean:
				v = "yes"
			case Integer:
				v = "1"
			case Real:
				v = "1.0"
			default:
				v = "x"
			}
		}
		return v
	}
	name := func(n string) string {
		if v, ok := names[n]; ok {
			return v
		}
		return n
	}
	var build func(sec string) string
	build = func(sec string) string {
		var b strings.Builder
		for _, r := range rows {
			if r.Section != sec {
				continue
			}
			switch r.Kind {
			case KindAttrib:
				b.WriteString(`<attrib name="` + name(r.Name) + `" type="` + string(r.Type) + `">` + value(r) + "</attrib>\n")
			case KindSection:
				inner := ""
				if r.Like == "" {
					inner = build(strings.TrimPrefix(sec+"/"+r.Name, "/"))
				}
				b.WriteString(`<section name="` + name(r.Name) + `">` + inner + "</section>\n")
			}
		}
		return b.String()
	}
	body := build("")
	body += `<SubDomain name="s2">` + attrib("delay", Real, "5") + `</SubDomain>` + "\n"
	body += `<Login name="l2">` + attrib("form", String, "http://a.example.com/login") + section("parameters", attrib("user", String, "u")) + `</Login>` + "\n"
	body += `<Node name="n1">` + attrib("delay", Real, "5") + `</Node>` + "\n"
	return collection(body)
}

// TestEveryRow converts a collection that gives everything the table lists: the conversion
// accounts for every attrib and section (converted, or named in a note), a strict conversion
// names every one it does not map, and the result builds.
func TestEveryRow(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "uris.txt"), []byte("http://www.example.com/b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "mirrors.txt"), []byte("www.example.com mirror.example.com\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The rule file of every include and exclude section.
	if err := os.WriteFile(filepath.Join(dir, "rules.txt"), []byte("# rules\nsuffix:.example.com\nregexp:example\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	xml := everyRow()
	f, err := Parse([]byte(xml), "every.xml")
	if err != nil {
		t.Fatalf("Parse: %v\n%s", err, xml)
	}
	d, err := f.Domain("")
	if err != nil {
		t.Fatal(err)
	}
	c := newConv(d, ConvertOptions{BaseDir: dir})
	cv, err := c.run()
	if err != nil {
		t.Fatalf("Convert: %v", err)
	}
	for _, e := range c.entries {
		if e.unknown {
			t.Errorf("%s: inside a section the table does not know", e.short)
			continue
		}
		if e.a != nil && !c.accounted(e.a) {
			t.Errorf("%s: not accounted for", e.short)
		}
		if e.row == nil && e.s == nil {
			t.Errorf("%s: the table has no row", e.short)
		}
	}
	if len(cv.Account.Entries) != len(c.entries) {
		t.Errorf("the account has %d entries, the file %d attribs, sections and elements", len(cv.Account.Entries), len(c.entries))
	}
	refused := 0
	for _, e := range cv.Account.Entries {
		if e.Disposition == config.Refused {
			refused++
		}
	}
	for _, n := range cv.Notes {
		if strings.HasPrefix(n, noteUnknown) {
			t.Errorf("note %q", n)
		}
	}
	rendered, err := Render(cv, "every.xml")
	if err != nil {
		t.Fatal(err)
	}
	checkConversion(t, cv.File, rendered)

	_, err = newConv(d, ConvertOptions{BaseDir: dir, Strict: true}).run()
	if !errors.Is(err, ErrNotMapped) {
		t.Fatalf("strict: %v, want ErrNotMapped", err)
	}
	if n := len(err.(interface{ Unwrap() []error }).Unwrap()); n != refused {
		t.Errorf("strict: %d errors, want %d (one per entry refused)", n, refused)
	}
}

// TestTableRows checks the table: unique rows, statuses, types, a note for every row that is
// not mapped and amber keys or a Same value for the mapped attribs.
func TestTableRows(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range Table() {
		key := r.Section + "/" + r.Name
		if seen[key] {
			t.Errorf("%s: twice", key)
		}
		seen[key] = true
		if !slices.Contains([]Status{Mapped, Ignored, Unsupported, Refused}, r.Status) {
			t.Errorf("%s: status %q", key, r.Status)
		}
		if (r.Kind == KindAttrib) != r.Type.valid() {
			t.Errorf("%s: kind %s, type %q", key, r.Kind, r.Type)
		}
		if r.Status != Mapped && r.Note == "" {
			t.Errorf("%s: %s without a reason", key, r.Status)
		}
		if r.Kind == KindAttrib && r.Status == Mapped && r.Amber == "" && r.Same == "" {
			t.Errorf("%s: mapped to nothing", key)
		}
		if r.Spec == "" {
			t.Errorf("%s: no section of the specification", key)
		}
		if r.Like != "" && r.Like != "." && schema.section(r.Like).node == nil && elements[r.Name].node == nil {
			t.Errorf("%s: like %q, which the table does not have", key, r.Like)
		}
	}
}
