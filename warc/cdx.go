package warc

import (
	"bytes"
	"encoding/json"
	"regexp"
	"sort"
	"strings"
	"time"

	whatwg "github.com/nlnwa/whatwg-url/url"
)

var wwwPrefix = regexp.MustCompile(`^(https?://)www\d*\.`)

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
	url = wwwPrefix.ReplaceAllString(url, "$1")
	u, err := whatwg.Parse(strings.ToLower(url))
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
