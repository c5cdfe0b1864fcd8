package warc

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
	"time"

	whatwg "github.com/nlnwa/whatwg-url/url"
)

// CDXKey returns the CDX SURT of a URL (spec/scope.md §2.4), the key pywb and warcio use in
// CDXJ indexes: no scheme, a leading "www" (or "www2", ...) label dropped, host labels
// reversed and joined by ",", the port if not the default, ")", the path, and the query with
// its "&"-separated parts sorted; all lowercased and WHATWG-normalised.
// http://www.Example.com/path?b=2&a=1 gives "com,example)/path?a=1&b=2".
// It computes exactly what warcio.js's getSurt computes: URLs that are not http(s) (such as
// "urn:screenshot:...") and URLs that do not parse are returned unchanged (after the www strip).
func CDXKey(url string) string {
	if !strings.HasPrefix(url, "https:") && !strings.HasPrefix(url, "http:") {
		return url
	}
	url = stripWWW(url)
	lower := strings.ToLower(url)
	if key, ok := cdxKeyPlain(lower); ok {
		return key
	}
	return cdxKeyWHATWG(url, lower)
}

// stripWWW drops a leading "www" label ("www.", "www2.", ...) after http:// or https://, as
// warcio.js does with the regular expression ^(https?://)www\d*\. (case-sensitive).
func stripWWW(url string) string {
	i := strings.Index(url, "://")
	if i < 0 || (url[:i] != "http" && url[:i] != "https") || !strings.HasPrefix(url[i+3:], "www") {
		return url
	}
	j := i + 6
	for j < len(url) && url[j] >= '0' && url[j] <= '9' {
		j++
	}
	if j < len(url) && url[j] == '.' {
		return url[:i+3] + url[j+1:]
	}
	return url
}

// cdxKeyPlain computes the key of a lowercased URL that WHATWG parsing leaves as it is: a
// plain domain or dotted-quad host, a port that is not the default, a path and query of
// characters that are never escaped, no dot segments, no fragment, no user info. It reports
// false for every other URL (FuzzCDXKeyPlain holds it to cdxKeyWHATWG).
func cdxKeyPlain(url string) (string, bool) {
	var rest, defPort string
	switch {
	case strings.HasPrefix(url, "http://"):
		rest, defPort = url[7:], "80"
	case strings.HasPrefix(url, "https://"):
		rest, defPort = url[8:], "443"
	default:
		return "", false
	}
	end := strings.IndexAny(rest, "/?")
	if end < 0 {
		end = len(rest)
	}
	host, port, hasPort := strings.Cut(rest[:end], ":")
	if !plainHost(host) {
		return "", false
	}
	if hasPort && (port == "" || port == defPort || port[0] == '0' || len(port) > 5 || !allDigits(port) || port > "65535" && len(port) == 5) {
		return "", false
	}
	path, query, hasQuery := strings.Cut(rest[end:], "?")
	if path == "" {
		path = "/"
	}
	if !plainChars(path, false) || strings.Contains(path, "/.") || strings.Contains(path, "%2e") {
		return "", false
	}
	if hasQuery && !plainChars(query, true) {
		return "", false
	}
	n := len(host) + len(port) + len(path) + len(query) + 4
	b := make([]byte, 0, n)
	for h := host; ; {
		i := strings.LastIndexByte(h, '.')
		b = append(b, h[i+1:]...)
		if i < 0 {
			break
		}
		b = append(b, ',')
		h = h[:i]
	}
	if hasPort {
		b = append(b, ':')
		b = append(b, port...)
	}
	b = append(b, ')')
	b = append(b, path...)
	if query != "" {
		parts := strings.Split(query, "&")
		sort.Strings(parts)
		b = append(b, '?')
		for i, p := range parts {
			if i > 0 {
				b = append(b, '&')
			}
			b = append(b, p...)
		}
	}
	return string(b), true
}

// plainHost reports whether a lowercased host is one WHATWG parsing keeps as it is: labels of
// a-z, 0-9 and "-", not empty, not IDNA ("xn--"), the last one starting with a letter, or else
// (an IPv4 address to WHATWG) four decimal numbers of 0 to 255 without leading zeros.
func plainHost(host string) bool {
	if host == "" {
		return false
	}
	labels := strings.Split(host, ".")
	for _, l := range labels {
		if l == "" || strings.HasPrefix(l, "xn--") {
			return false
		}
		for i := 0; i < len(l); i++ {
			if c := l[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	if last := labels[len(labels)-1]; last[0] >= 'a' && last[0] <= 'z' {
		return true
	}
	if len(labels) != 4 {
		return false
	}
	for _, l := range labels {
		if !allDigits(l) || len(l) > 3 || len(l) > 1 && l[0] == '0' || len(l) == 3 && l > "255" {
			return false
		}
	}
	return true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// plainChars reports whether s has only characters WHATWG's path (query: query) percent-encode
// set leaves alone and that have no other meaning to the parser.
func plainChars(s string, query bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case strings.IndexByte("-._~!$&()*+,;=:@/%", c) >= 0:
		case c == '\'' && !query, c == '?' && query:
		default:
			return false
		}
	}
	return true
}

// cdxKeyWHATWG computes the key of url (lower: the same, lowercased) with a WHATWG parse.
func cdxKeyWHATWG(url, lower string) string {
	u, err := whatwg.Parse(lower)
	if err != nil {
		return url
	}
	labels := strings.Split(u.Hostname(), ".")
	for i, j := 0, len(labels)-1; i < j; i, j = i+1, j-1 {
		labels[i], labels[j] = labels[j], labels[i]
	}
	var b strings.Builder
	b.WriteString(strings.Join(labels, ","))
	if p := u.Port(); p != "" {
		b.WriteString(":")
		b.WriteString(p)
	}
	b.WriteString(")")
	b.WriteString(u.Pathname())
	if s := u.Search(); s != "" {
		parts := strings.Split(strings.TrimPrefix(s, "?"), "&")
		sort.Strings(parts)
		b.WriteString("?")
		b.WriteString(strings.Join(parts, "&"))
	}
	return b.String()
}

// cdxLine is one CDXJ line: "KEY TIMESTAMP14 {json}". The JSON fields are in warcio's order;
// nil fields are left out as warcio leaves them out (no Content-Type, no HTTP status).
type cdxLine struct {
	key  string
	date time.Time

	URL      string  `json:"url"`
	Mime     *string `json:"mime,omitempty"`
	Status   *string `json:"status,omitempty"`
	Digest   string  `json:"digest,omitempty"`
	Length   string  `json:"length"`
	Offset   string  `json:"offset"`
	Filename string  `json:"filename"`
	// Method and RequestBody are those of a capture whose request is not a GET (requestKey),
	// as warcio.js writes them.
	Method      string `json:"method,omitempty"`
	RequestBody string `json:"requestBody,omitempty"`
}

func (l *cdxLine) marshal() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(l.key)
	b.WriteByte(' ')
	b.WriteString(l.date.UTC().Format("20060102150405"))
	b.WriteByte(' ')
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(l); err != nil { // Encode ends the line with "\n"
		return nil, err
	}
	return b.Bytes(), nil
}
