package warc

import (
	"bytes"
	"encoding/base64"
	"regexp"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// maxRequestQuery is the longest request body query warcio.js keeps (its cdx-index default).
const maxRequestQuery = 4096

// requestQuery is how a capture whose request is not a GET is keyed in CDXJ, as pywb
// (append_method_query) and warcio.js (postToGetUrl, cdx-index) key it: the request's body
// turned into query parameters, appended to the URL after __wb_method=METHOD, so that two
// POSTs of one URL with different bodies are two captures and a replay tool finds the one
// whose body a page sends.
type requestQuery struct {
	method string // the request's method
	body   string // the requestBody field: the body as a query, at most maxRequestQuery long
	url    string // the URL keyed: url?__wb_method=METHOD&BODY (or &__wb_method=... after a query)
}

// requestKey reads the HTTP request a capture recorded (request line, header, body) and
// returns its requestQuery; false for a GET, or a request that does not parse. The body is
// read by its Content-Type as warcio.js reads it: application/x-www-form-urlencoded as it
// is, multipart/form-data as its fields (name=value, the first line of each value, files
// left out), and any other type as __wb_post_data=BASE64 of the bytes. (JSON and text/plain
// bodies, which amber does not send, are read as the other types are: warcio.js turns JSON
// into parameters.)
func requestKey(url string, req []byte) (requestQuery, bool) {
	head, body, ok := bytes.Cut(req, []byte("\r\n\r\n"))
	if !ok {
		return requestQuery{}, false
	}
	line, fields, _ := bytes.Cut(head, []byte("\r\n"))
	method, _, ok := bytes.Cut(line, []byte(" "))
	if !ok || len(method) == 0 || string(method) == "GET" {
		return requestQuery{}, false
	}
	ct := ""
	for _, f := range bytes.Split(fields, []byte("\r\n")) {
		n, v, ok := bytes.Cut(f, []byte(":"))
		if ok && strings.EqualFold(string(bytes.TrimSpace(n)), "Content-Type") {
			ct = string(bytes.TrimSpace(v))
			break
		}
	}
	mime, _, _ := strings.Cut(ct, ";")
	var q string
	switch mime {
	case "application/x-www-form-urlencoded":
		q = decodeUTF8(body)
	case "multipart/form-data":
		q = multipartQuery(decodeUTF8(body), ct)
	default:
		q = "__wb_post_data=" + base64.StdEncoding.EncodeToString(body)
	}
	q = truncateUTF16(q, maxRequestQuery)
	decoded, ok := decodeURI(q)
	if !ok {
		decoded = ""
	}
	sep := "?"
	if strings.Index(url, "?") > 0 {
		sep = "&"
	}
	return requestQuery{method: string(method), body: q, url: url + sep + "__wb_method=" + string(method) + "&" + decoded}, true
}

// LookupKey returns the CDX key under which a capture of url made with the HTTP request req
// (request line, header fields, blank line and body, as a request record holds it) is
// indexed: CDXKey(url) for a GET or a request that does not parse, and for another method the
// key of url with the method and the body appended as query parameters, as the Writer keys it
// in CDXJ (and pywb and warcio.js do). A replay tool finds a POST's capture with it.
func LookupKey(url string, req []byte) string {
	if q, ok := requestKey(url, req); ok {
		return CDXKey(q.url)
	}
	return CDXKey(url)
}

// decodeUTF8 is the body as TextDecoder reads it: UTF-8, an invalid sequence as U+FFFD.
func decodeUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

// truncateUTF16 cuts s to at most n UTF-16 code units, as JavaScript's slice does (a surrogate
// pair cut in two leaves half of it, written here as U+FFFD).
func truncateUTF16(s string, n int) string {
	if len(s) <= n {
		return s // a UTF-16 code unit per byte at most
	}
	u := utf16.Encode([]rune(s))
	if len(u) <= n {
		return s
	}
	return string(utf16.Decode(u[:n]))
}

// multipartQuery is warcio.js's mfdToQueryString: the body split at the boundary of the
// Content-Type ct (any run of dashes around it, any case), each part that is
// name="NAME"\r\n\r\nVALUE read as NAME=VALUE (the first line of VALUE; a part with a
// filename or a header of its own does not match), a name given again replacing the value in
// the place of the first, serialized as a URLSearchParams is.
func multipartQuery(body, ct string) string {
	parts := strings.SplitN(ct, "boundary=", 3)
	if len(parts) < 2 || parts[1] == "" {
		return ""
	}
	sep, err := regexp.Compile("(?im)-*" + regexp.QuoteMeta(parts[1]) + "-*")
	if err != nil {
		return ""
	}
	var names, values []string
	for _, p := range sep.Split(body, -1) {
		m := multipartField.FindStringSubmatch(strings.TrimSpace(p))
		if m == nil {
			continue
		}
		if i := indexOf(names, m[1]); i >= 0 {
			values[i] = m[2]
			continue
		}
		names, values = append(names, m[1]), append(values, m[2])
	}
	var b strings.Builder
	for i := range names {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(formEncode(names[i]))
		b.WriteByte('=')
		b.WriteString(formEncode(values[i]))
	}
	return b.String()
}

// multipartField is warcio.js's /name="([^"]+)"\r\n\r\n(.*)/im: "." stops at a line end.
var multipartField = regexp.MustCompile(`(?i)name="([^"]+)"\r\n\r\n([^\n\r\x{2028}\x{2029}]*)`)

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

// formEncode is the application/x-www-form-urlencoded byte serializer (URLSearchParams): a
// space as "+", ASCII letters, digits and *-._ as they are, every other byte %XX.
func formEncode(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ':
			b.WriteByte('+')
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '*', c == '-', c == '.', c == '_':
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	return b.String()
}

// decodeURI is JavaScript's decodeURI: %XX escapes of UTF-8 sequences decoded, except those
// of the characters ;/?:@&=+$,# which stay escaped; false (JavaScript's URIError) for a %
// not followed by two hex digits or escapes that are not UTF-8.
func decodeURI(s string) (string, bool) {
	if !strings.Contains(s, "%") {
		return s, true
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] != '%' {
			b.WriteByte(s[i])
			i++
			continue
		}
		c, ok := unhex2(s, i)
		if !ok {
			return "", false
		}
		if c < 0x80 {
			if strings.IndexByte(";/?:@&=+$,#", c) >= 0 {
				b.WriteString(s[i : i+3])
			} else {
				b.WriteByte(c)
			}
			i += 3
			continue
		}
		n := 0
		switch {
		case c&0xE0 == 0xC0:
			n = 2
		case c&0xF0 == 0xE0:
			n = 3
		case c&0xF8 == 0xF0:
			n = 4
		default:
			return "", false
		}
		seq := []byte{c}
		for k := 1; k < n; k++ {
			j := i + 3*k
			if j >= len(s) || s[j] != '%' {
				return "", false
			}
			d, ok := unhex2(s, j)
			if !ok || d&0xC0 != 0x80 {
				return "", false
			}
			seq = append(seq, d)
		}
		r, size := utf8.DecodeRune(seq)
		if r == utf8.RuneError || size != n {
			return "", false
		}
		b.WriteRune(r)
		i += 3 * n
	}
	return b.String(), true
}

// unhex2 reads the two hex digits after the % at s[i].
func unhex2(s string, i int) (byte, bool) {
	if i+2 >= len(s) {
		return 0, false
	}
	h, ok1 := unhex(s[i+1])
	l, ok2 := unhex(s[i+2])
	return h<<4 | l, ok1 && ok2
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
