package fast

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/amber-crawler/amber/config"
)

// content maps allowed_types, uri_search_mime and the exclude_headers section onto
// content.types, content.link_types and content.exclude_headers, cookie_timeout onto
// session_cookie_ttl and the post_payload section onto post_payloads. FAST's defaults apply to
// allowed_types and uri_search_mime when the file leaves them out. A type that is not
// type/subtype (a field * or without *) is invalid; a header pattern RE2 cannot compile is
// refused (the header's other patterns are kept).
func (c *conv) content() {
	ct := &c.c.Content
	ct.Types = c.mimeTypes("allowed_types", "content.types")
	ct.LinkTypes = c.mimeTypes("uri_search_mime", "content.link_types")
	c.cookieTimeout()
	c.postPayloads()
	s := c.secs["exclude_headers"]
	if s == nil {
		return
	}
	c.mapped(s, "content.exclude_headers")
	var from []string
	for _, a := range s.Attribs {
		name := strings.TrimSpace(a.Name)
		if !validFieldName(name) {
			c.invalid(a, "%q is not an HTTP header field name", name)
			continue
		}
		c.differs2(a, "exclude_headers")
		if len(a.Members) == 0 {
			c.same(a, "no pattern: amber excludes no response by this field")
		}
		for _, p := range a.Members {
			if _, err := regexp.Compile(p); err != nil {
				c.note(string(Refused), fmt.Sprintf("pattern %q is not an RE2 expression (amber's regexes are RE2: no lookaround or backreference)", p), a)
				continue
			}
			if ct.ExcludeHeaders == nil {
				ct.ExcludeHeaders = map[string][]string{}
			}
			key := http.CanonicalHeaderKey(name)
			if !slices.Contains(ct.ExcludeHeaders[key], p) {
				ct.ExcludeHeaders[key] = append(ct.ExcludeHeaders[key], p)
			}
			c.mapped(a, "content.exclude_headers."+key)
		}
		from = append(from, c.short[a])
	}
	if len(ct.ExcludeHeaders) > 0 {
		c.src("content.exclude_headers", strings.Join(from, ", "))
	}
}

// mimeTypes reads the list of MIME types of the collection's attrib name, FAST's default
// when the file leaves it out, for the amber key key.
func (c *conv) mimeTypes(name, key string) []string {
	a := c.top[name]
	if a == nil {
		def := strings.Split(rowDefault("", name), ", ")
		c.src(key, fastDefault(name, strings.Join(def, ", ")))
		return def
	}
	for _, m := range a.Members {
		if !validMIMEPattern(m) {
			c.invalid(a, "member %q: want a MIME type, type/subtype, a field * or without *", m)
			return nil
		}
	}
	if len(a.Members) == 0 {
		// FAST would take no type at all; amber reads an empty list as every type.
		c.note(string(Unsupported), "an empty list: amber has no setting for no type at all (an empty content list is every type)", a)
		return nil
	}
	c.differs(a)
	c.src(key, name)
	c.mapped(a, key)
	return slices.Clone(a.Members)
}

// validMIMEPattern reports whether p is type/subtype, each field * or a token without *, as
// contentfilter.Config takes it.
func validMIMEPattern(p string) bool {
	typ, sub, ok := strings.Cut(p, "/")
	field := func(f string) bool { return f == "*" || (f != "" && !strings.Contains(f, "*") && validFieldName(f)) }
	return ok && field(typ) && field(sub)
}

// validFieldName reports whether s is an HTTP token (RFC 9110 §5.6.2), as header field names
// and MIME type fields are.
func validFieldName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r >= 0x80 || !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("!#$%&'*+-.^_`|~", r)) {
			return false
		}
	}
	return true
}

// cookieTimeout maps cookie_timeout onto session_cookie_ttl when cookies are kept (FAST's
// default 900 s when the file leaves it out); without cookies it changes nothing (dependent).
func (c *conv) cookieTimeout() {
	if c.c.Cookies == nil || !*c.c.Cookies {
		return
	}
	if d, from, ok := c.seconds("cookie_timeout", 900); ok {
		c.c.SessionCookieTTL = d
		c.srcTop("session_cookie_ttl", "cookie_timeout", from)
	}
}

// postPayloads maps the post_payload section onto post_payloads: an attrib named "prefix:URI"
// is a prefix, any other name a URI; its value, the body, is never written in a note or an
// error (it may be a secret).
func (c *conv) postPayloads() {
	s := c.secs["post_payload"]
	if s == nil {
		return
	}
	c.mapped(s, "post_payloads")
	var from []string
	for _, a := range s.Attribs {
		name := strings.TrimSpace(a.Name)
		spec := config.PostPayloadSpec{Body: a.Text}
		raw, prefix := strings.CutPrefix(name, "prefix:")
		raw = strings.TrimSpace(raw)
		u, err := url.Parse(raw)
		switch {
		case err != nil || u.Scheme == "" || u.Host == "":
			c.invalid(a, "%q is not a URI (want URI or prefix:URI)", name)
			continue
		case !strings.EqualFold(u.Scheme, "http") && !strings.EqualFold(u.Scheme, "https"):
			c.items = append(c.items, item{status: string(Refused), what: c.short[a], why: whyFTP, line: a.Line, path: a.Path, strict: true})
			c.rec(a)
			continue
		case prefix:
			spec.Prefix = raw
		default:
			spec.URL = raw
		}
		c.differs2(a, "post_payload")
		c.mapped(a, fmt.Sprintf("post_payloads[%d]", len(c.c.PostPayloads)))
		c.c.PostPayloads = append(c.c.PostPayloads, spec)
		from = append(from, c.short[a])
	}
	if len(from) > 0 {
		c.src("post_payloads", strings.Join(from, ", "))
	}
}
