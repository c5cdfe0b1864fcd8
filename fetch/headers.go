package fetch

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// refusedHeaders may not be set in Config.Header or Config.OriginHeader, with the reason
// NewClient gives: the client writes them itself, they manage the connection or the message
// framing, or they carry credentials that have their own field.
var refusedHeaders = map[string]string{
	"Host":                "the client writes it from the URL",
	"Content-Length":      "it frames the message; the client writes it",
	"Transfer-Encoding":   "it frames the message; the client writes it",
	"Te":                  "it manages the connection",
	"Trailer":             "it frames the message",
	"Connection":          "it manages the connection; the client writes it",
	"Keep-Alive":          "it manages the connection",
	"Upgrade":             "it manages the connection",
	"Proxy-Connection":    "it manages the connection",
	"Accept-Encoding":     "the client sends gzip, the coding it decodes",
	"Authorization":       "set credentials with Auth",
	"Proxy-Authorization": "set proxy credentials in Proxy's user info",
}

// field is one header field to send: its name as given and its values.
type field struct {
	name   string
	values []string
}

// fields holds header fields by canonical name.
type fields map[string]field

// configFields validates and copies a header of the Config (where names it in errors).
// Values never appear in the errors: they may be secrets.
func configFields(h http.Header, where string) (fields, error) {
	if len(h) == 0 {
		return nil, nil
	}
	fs := make(fields, len(h))
	for _, k := range slices.Sorted(maps.Keys(h)) {
		ck := http.CanonicalHeaderKey(k)
		if why, ok := refusedHeaders[ck]; ok {
			return nil, fmt.Errorf("%w: %s: header %s is not allowed: %s", ErrConfig, where, ck, why)
		}
		if !validToken(k) {
			return nil, fmt.Errorf("%w: %s: header name %q is not a token", ErrConfig, where, k)
		}
		if _, dup := fs[ck]; dup {
			return nil, fmt.Errorf("%w: %s: header %s given twice (in different cases)", ErrConfig, where, ck)
		}
		if len(h[k]) == 0 {
			return nil, fmt.Errorf("%w: %s: header %s has no value", ErrConfig, where, k)
		}
		for _, v := range h[k] {
			if !validHeaderValue(v) {
				return nil, fmt.Errorf("%w: %s: header %s: value has control characters (CR, LF, ...)", ErrConfig, where, k)
			}
		}
		fs[ck] = field{name: k, values: slices.Clone(h[k])}
	}
	return fs, nil
}

// originFields validates Config.OriginHeader and keys it by origin key.
func originFields(m map[string]http.Header) (map[string]fields, error) {
	if len(m) == 0 {
		return nil, nil
	}
	out := make(map[string]fields, len(m))
	for _, o := range slices.Sorted(maps.Keys(m)) {
		key, err := parseOrigin(o)
		if err != nil {
			return nil, fmt.Errorf("%w: OriginHeader: %w", ErrConfig, err)
		}
		if _, dup := out[key]; dup {
			return nil, fmt.Errorf("%w: OriginHeader: origin %s listed twice", ErrConfig, key)
		}
		fs, err := configFields(m[o], "OriginHeader["+key+"]")
		if err != nil {
			return nil, err
		}
		out[key] = fs
	}
	return out, nil
}

// requestFields reads a request's own header: names are canonicalised (values of names
// that differ only in case are joined in the order of their sorted spellings), the fields
// the client owns are left out, and invalid names or values are ErrInvalidURL errors.
func requestFields(h http.Header) (fields, error) {
	if len(h) == 0 {
		return nil, nil
	}
	fs := make(fields, len(h))
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		ck := http.CanonicalHeaderKey(k)
		if clientOwned[ck] && ck != "User-Agent" {
			continue
		}
		if !validToken(k) {
			return nil, fmt.Errorf("%w: header name %q", ErrInvalidURL, k)
		}
		for _, v := range h[k] {
			if !validHeaderValue(v) {
				return nil, fmt.Errorf("%w: header %s value", ErrInvalidURL, k)
			}
		}
		f, ok := fs[ck]
		if !ok {
			f.name = k
		}
		f.values = append(f.values, h[k]...)
		fs[ck] = f
	}
	return fs, nil
}

// appendHeader writes the header section of t's request after the Host line: User-Agent,
// Accept (when no one sets it), Accept-Encoding, the Authorization the client adds, the
// other fields sorted by canonical name, Content-Length for a body and for methods that take one, and
// Connection. For each field the request's own header wins over Config.OriginHeader, which
// wins over Config.Header; the client's cookies (Cookie) are added after the configured
// ones unless the request has its own.
func (c *Client) appendHeader(b []byte, t *target, req Request) ([]byte, error) {
	own, err := requestFields(req.Header)
	if err != nil {
		return nil, err
	}
	sources := [3]fields{own, c.originHeader[t.origin], c.header}
	merged := make(fields, len(own)+len(sources[1])+len(sources[2])+1)
	for _, fs := range sources {
		for ck, f := range fs {
			if _, ok := merged[ck]; !ok && len(f.values) > 0 {
				merged[ck] = f
			}
		}
	}

	ua := c.cfg.UserAgent
	if f, ok := merged["User-Agent"]; ok {
		ua = f.values[0]
		delete(merged, "User-Agent")
	}
	b = appendField(b, "User-Agent", ua)
	if _, ok := merged["Accept"]; !ok {
		b = appendField(b, "Accept", "*/*")
	}
	b = appendField(b, "Accept-Encoding", "gzip")
	if _, ok := own["Authorization"]; !ok && t.auth != "" {
		b = appendField(b, "Authorization", t.auth)
	}
	if _, ok := own["Cookie"]; !ok && c.cfg.Jar != nil {
		if v := jarCookies(c.cfg.Jar, t.jarURL, merged["Cookie"].values); v != "" {
			merged["Cookie"] = field{name: "Cookie", values: []string{v}}
		}
	}

	keys := make([]string, 0, len(merged))
	for ck := range merged {
		keys = append(keys, ck)
	}
	slices.Sort(keys)
	for _, ck := range keys {
		f := merged[ck]
		for _, v := range f.values {
			b = appendField(b, f.name, v)
		}
	}
	if len(req.Body) > 0 || t.method == http.MethodPost || t.method == http.MethodPut || t.method == http.MethodPatch {
		b = appendField(b, "Content-Length", strconv.Itoa(len(req.Body)))
	}
	b = appendField(b, "Connection", "keep-alive")
	return append(b, "\r\n"...), nil
}

// cookieNames returns the names of the cookies in Cookie header values.
func cookieNames(values []string) map[string]bool {
	names := map[string]bool{}
	for _, v := range values {
		for _, pair := range strings.Split(v, ";") {
			name, _, _ := strings.Cut(pair, "=")
			names[strings.TrimSpace(name)] = true
		}
	}
	return names
}
