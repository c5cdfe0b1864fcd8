package extract

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
)

// decodeHTML returns body as UTF-8 text for tokenising, the WHATWG name of the encoding it
// was read in, and the encoding to percent-encode URL queries in (nil for UTF-8 and
// UTF-16, whose queries are UTF-8).
//
// The encoding is, in order: a byte order mark; the charset parameter of contentType; a
// <meta charset> or <meta http-equiv=Content-Type> in the first 1024 bytes; else
// windows-1252. A declaration found only in the markup, or none, gives way to UTF-8 when
// the whole body is valid UTF-8: pages that declare a legacy charset and are written in
// UTF-8 are common, and a legacy text that happens to be valid UTF-8 is rare. A UTF-8 body
// is returned as is (without a BOM); invalid bytes in it become U+FFFD where text is
// produced.
func decodeHTML(body []byte, contentType string) ([]byte, string, encoding.Encoding) {
	if bytes.HasPrefix(body, []byte("\xef\xbb\xbf")) {
		return body[3:], "utf-8", nil
	}
	enc, name, certain := charset.DetermineEncoding(body, contentType)
	if name == "utf-8" || (!certain && utf8.Valid(body)) {
		return body, "utf-8", nil
	}
	out, err := enc.NewDecoder().Bytes(body)
	if err != nil {
		return body, "utf-8", nil
	}
	out = bytes.TrimPrefix(out, []byte("\ufeff"))
	if strings.HasPrefix(name, "utf-16") {
		return out, name, nil
	}
	return out, name, enc
}

// encodeQuery re-encodes the non-ASCII characters of a URL query in enc, as browsers do for
// the query of a URL found in a page of that encoding; a character enc cannot represent
// becomes "%26%23N%3B" (an HTML numeric reference, percent-encoded). The bytes it produces
// are percent-encoded later by weburl.EscapeQuery.
func encodeQuery(enc encoding.Encoding, q string) string {
	e := enc.NewEncoder()
	var b strings.Builder
	for _, r := range q {
		if r < utf8.RuneSelf {
			b.WriteRune(r)
			continue
		}
		s, err := e.String(string(r))
		// The encodings of x/net/html/charset write an unsupported character as "&#N;".
		if err != nil || s == "" || s[0] == '&' {
			b.WriteString("%26%23" + strconv.Itoa(int(r)) + "%3B")
			continue
		}
		b.WriteString(s)
	}
	return b.String()
}
