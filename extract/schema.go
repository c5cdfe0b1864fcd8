package extract

import (
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/amber-crawler/amber/internal/jsonstr"
	"github.com/amber-crawler/amber/weburl"
)

// MaxAdditionalURLs is the most URLs a SearchDocument keeps in AdditionalURLs, as in the
// reference (a sample when more URLs share the content).
const MaxAdditionalURLs = 100

// SearchDocument is one line of documents.jsonl: a search document in the schema of
// Elastic's web crawler, plus the WARC record it was extracted from. Its JSON form (see
// MarshalJSON) has the schema fields first, in the order of the struct, then the custom
// fields.
type SearchDocument struct {
	ID              string    // id: DocumentID(URL)
	URL             string    // url: the canonical URL when the page names one, else the page URL
	AdditionalURLs  []string  // additional_urls: other URLs with the same content (at most MaxAdditionalURLs)
	Title           string    // title
	BodyContent     string    // body_content
	Headings        []string  // headings
	Links           []string  // links
	MetaDescription string    // meta_description
	MetaKeywords    string    // meta_keywords
	ContentHash     string    // content_hash: see NewSearchDocument
	Domains         []string  // domains: the distinct origins (scheme://host[:port]) of URL and AdditionalURLs
	URLScheme       string    // url_scheme
	URLHost         string    // url_host: host name or IP of URL, lower case, without brackets
	URLPort         string    // url_port: port of URL, or the scheme's default ("80", "443"); "" if unknown
	URLPath         string    // url_path: the path of URL as it appears in it (percent-encoded), "/" if empty
	URLPathDir1     string    // url_path_dir1: first segment of url_path ("" if none)
	URLPathDir2     string    // url_path_dir2: second segment
	URLPathDir3     string    // url_path_dir3: third segment
	LastCrawledAt   time.Time // last_crawled_at: RFC 3339 in UTC, to the second

	// WARC location of the capture, written when WARCFilename is set: the file name
	// (warc_filename, without directory) and the byte offset in that file of the response
	// (or revisit) record the document was extracted from (warc_offset).
	WARCFilename string
	WARCOffset   int64

	// Binary documents: file_name, content_type and content_length, each written when
	// ContentType is set.
	FileName      string
	ContentType   string
	ContentLength int64

	// FullHTML is the page's whole HTML (full_html), written when set (DocConfig.FullHTML).
	FullHTML string

	// Fields are the custom fields, written as top-level keys after the schema fields: a
	// string for one value, an array for several or when Field.Array is set; reserved names
	// (IsReservedField) are not written.
	Fields []Field
}

// ErrDocumentJSON is returned (wrapped) by UnmarshalJSON for a line that is not a search
// document.
var ErrDocumentJSON = errors.New("extract: invalid search document JSON")

// NewSearchDocument returns the search document of d, captured at pageURL at crawledAt.
// d is from ParseDocument or ParseBinary (nil gives a document without content), cfg gives
// ContentHashFields. The document's URL is d.Canonical when set, else pageURL; pageURL then
// starts AdditionalURLs when it differs from the URL.
//
// content_hash is the SHA-1, in lower-case hex, of the JSON array (as encoding/json writes
// it, without HTML escaping and without a trailing newline) that holds, for each name of
// cfg.ContentHashFields in order, a two-element array: the name and an array of the
// field's values. title, body_content, meta_description and meta_keywords have one value
// (possibly empty); headings and links have theirs; a custom field has its values; any
// other name has none. With the defaults that is
//
//	[["title",["T"]],["body_content",["B"]],["meta_keywords",["K"]],["meta_description",["D"]],["links",["L1","L2"]],["headings",["H"]]]
func NewSearchDocument(pageURL string, d *Document, cfg DocConfig, crawledAt time.Time) SearchDocument {
	if d == nil {
		d = &Document{}
	}
	cfg = cfg.withDefaults()
	s := SearchDocument{
		URL:             pageURL,
		Title:           d.Title,
		BodyContent:     d.Body,
		Headings:        slices.Clone(d.Headings),
		Links:           slices.Clone(d.Links),
		MetaDescription: d.MetaDescription,
		MetaKeywords:    d.MetaKeywords,
		LastCrawledAt:   crawledAt.UTC().Truncate(time.Second),
		FileName:        d.FileName,
		ContentType:     d.ContentType,
		ContentLength:   d.ContentLength,
		FullHTML:        d.FullHTML,
	}
	for _, f := range d.Fields {
		s.Fields = append(s.Fields, Field{Name: f.Name, Values: slices.Clone(f.Values), Array: f.Array})
	}
	if d.Canonical != "" {
		s.URL = d.Canonical
	}
	s.ID = DocumentID(s.URL)
	s.setURLFields()
	s.Domains = nil
	if origin := originOf(s.URL); origin != "" {
		s.Domains = append(s.Domains, origin)
	}
	s.AddURL(pageURL)
	s.ContentHash = contentHash(&s, cfg.ContentHashFields)
	return s
}

// DocumentID returns the id of the search document whose url is docURL: the SHA-1, in
// lower-case hex, of docURL with its scheme and host lower-cased and the scheme's default
// port (":80" for http, ":443" for https) removed. A docURL that does not parse is hashed
// as is.
func DocumentID(docURL string) string {
	key := docURL
	if u, err := url.Parse(docURL); err == nil && u.Host != "" {
		u.Scheme = strings.ToLower(u.Scheme)
		u.Host = strings.ToLower(u.Host)
		if p := u.Port(); p != "" && p == weburl.DefaultPort(u.Scheme) {
			u.Host = strings.TrimSuffix(u.Host, ":"+p)
		}
		key = u.String()
	}
	sum := sha1.Sum([]byte(key))
	return hex.EncodeToString(sum[:])
}

// AddURL records that the document's content was also found at u: u joins AdditionalURLs
// (unless it is URL, already there, or MaxAdditionalURLs are) and its origin joins
// Domains. It reports whether the document changed.
func (s *SearchDocument) AddURL(u string) bool {
	if u == "" || u == s.URL || slices.Contains(s.AdditionalURLs, u) || len(s.AdditionalURLs) >= MaxAdditionalURLs {
		return false
	}
	s.AdditionalURLs = append(s.AdditionalURLs, u)
	if origin := originOf(u); origin != "" && !slices.Contains(s.Domains, origin) {
		s.Domains = append(s.Domains, origin)
	}
	return true
}

// setURLFields fills the url_* fields from URL.
func (s *SearchDocument) setURLFields() {
	u, err := url.Parse(s.URL)
	if err != nil {
		return
	}
	s.URLScheme = strings.ToLower(u.Scheme)
	s.URLHost = strings.ToLower(u.Hostname())
	s.URLPort = u.Port()
	if s.URLPort == "" {
		s.URLPort = weburl.DefaultPort(s.URLScheme)
	}
	s.URLPath = u.EscapedPath()
	if s.URLPath == "" {
		s.URLPath = "/"
	}
	dirs := strings.Split(s.URLPath, "/")
	for i, dst := range []*string{&s.URLPathDir1, &s.URLPathDir2, &s.URLPathDir3} {
		if i+1 < len(dirs) {
			*dst = dirs[i+1]
		}
	}
}

// originOf returns scheme://host[:port] of u, lower case, or "" when u has no host.
func originOf(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.Host == "" {
		return ""
	}
	scheme := strings.ToLower(p.Scheme)
	host := strings.ToLower(p.Host)
	if port := p.Port(); port != "" && port == weburl.DefaultPort(scheme) {
		host = strings.TrimSuffix(host, ":"+port)
	}
	return scheme + "://" + host
}

// contentHash computes content_hash (see NewSearchDocument): the JSON array is written with
// jsonstr, byte for byte what a json.Encoder with SetEscapeHTML(false) writes of
// [][2]any{{name, values}, ...} without its reflection (3% of a crawl's CPU on 5 KB pages), into
// a pooled buffer.
func contentHash(s *SearchDocument, fields []string) string {
	bp := hashBufPool.Get().(*[]byte)
	b := append((*bp)[:0], '[')
	for i, name := range fields {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		b = jsonstr.Append(b, name, false)
		b = append(b, ',')
		b = jsonstr.AppendArray(b, s.values(name), false)
		b = append(b, ']')
	}
	b = append(b, ']')
	sum := sha1.Sum(b)
	if cap(b) <= 1<<20 {
		*bp = b
		hashBufPool.Put(bp)
	}
	return hex.EncodeToString(sum[:])
}

var hashBufPool = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

// values returns the values of the field name for content hashing, never nil.
func (s *SearchDocument) values(name string) []string {
	switch name {
	case "title":
		return []string{s.Title}
	case "body_content":
		return []string{s.BodyContent}
	case "meta_description":
		return []string{s.MetaDescription}
	case "meta_keywords":
		return []string{s.MetaKeywords}
	case "headings":
		return nonNil(s.Headings)
	case "links":
		return nonNil(s.Links)
	}
	for _, f := range s.Fields {
		if f.Name == name {
			return nonNil(f.Values)
		}
	}
	return []string{}
}

func nonNil(v []string) []string {
	if v == nil {
		return []string{}
	}
	return v
}

// MarshalJSON writes the document as one JSON object: id, url, additional_urls, title,
// body_content, headings, links, meta_description, meta_keywords, content_hash, domains,
// url_scheme, url_host, url_port (a string, as every field of the reference schema), url_path, url_path_dir1, url_path_dir2,
// url_path_dir3, last_crawled_at; then warc_filename and warc_offset when WARCFilename is
// set; then file_name, content_type and content_length when ContentType is set; then the
// custom fields (a custom field named like a schema field, or empty, is skipped). Arrays
// are [] when empty, never null. Invalid UTF-8 is written as U+FFFD; <, > and & are not
// escaped (json.Marshal escapes them again; write with a json.Encoder whose
// SetEscapeHTML is false, or call MarshalJSON, to keep them).
func (s SearchDocument) MarshalJSON() ([]byte, error) {
	return s.AppendJSON(nil), nil
}

// AppendJSON appends the document's JSON form (see MarshalJSON) to dst.
func (s SearchDocument) AppendJSON(dst []byte) []byte {
	n := 0
	key := func(k string) {
		if n > 0 {
			dst = append(dst, ',')
		}
		n++
		dst = jsonstr.Append(dst, k, false)
		dst = append(dst, ':')
	}
	str := func(k, v string) {
		key(k)
		dst = jsonstr.Append(dst, v, false)
	}
	arr := func(k string, v []string) {
		key(k)
		dst = jsonstr.AppendArray(dst, v, false)
	}
	num := func(k string, v int64) {
		key(k)
		dst = strconv.AppendInt(dst, v, 10)
	}
	dst = append(dst, '{')
	str("id", s.ID)
	str("url", s.URL)
	arr("additional_urls", s.AdditionalURLs)
	str("title", s.Title)
	str("body_content", s.BodyContent)
	arr("headings", s.Headings)
	arr("links", s.Links)
	str("meta_description", s.MetaDescription)
	str("meta_keywords", s.MetaKeywords)
	str("content_hash", s.ContentHash)
	arr("domains", s.Domains)
	str("url_scheme", s.URLScheme)
	str("url_host", s.URLHost)
	str("url_port", s.URLPort)
	str("url_path", s.URLPath)
	str("url_path_dir1", s.URLPathDir1)
	str("url_path_dir2", s.URLPathDir2)
	str("url_path_dir3", s.URLPathDir3)
	key("last_crawled_at")
	dst = append(dst, '"')
	dst = s.LastCrawledAt.UTC().AppendFormat(dst, time.RFC3339)
	dst = append(dst, '"')
	if s.WARCFilename != "" {
		str("warc_filename", s.WARCFilename)
		num("warc_offset", s.WARCOffset)
	}
	if s.ContentType != "" {
		str("file_name", s.FileName)
		str("content_type", s.ContentType)
		num("content_length", s.ContentLength)
	}
	if s.FullHTML != "" {
		str("full_html", s.FullHTML)
	}
	for i, f := range s.Fields {
		if f.Name == "" || isReserved(f.Name) || len(f.Values) == 0 || slices.ContainsFunc(s.Fields[:i], func(g Field) bool { return g.Name == f.Name && len(g.Values) > 0 }) {
			continue
		}
		if len(f.Values) == 1 && !f.Array {
			str(f.Name, f.Values[0])
		} else {
			arr(f.Name, f.Values)
		}
	}
	return append(dst, '}')
}

// UnmarshalJSON reads a document written by MarshalJSON (a line of documents.jsonl). Keys
// that are not schema fields become custom fields, sorted by name; empty arrays become nil;
// their values must be strings or arrays of strings. url_port may also be a number, as
// earlier versions wrote it.
func (s *SearchDocument) UnmarshalJSON(data []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return fmt.Errorf("%w: %w", ErrDocumentJSON, err)
	}
	*s = SearchDocument{}
	var crawled string
	dst := map[string]any{
		"id": &s.ID, "url": &s.URL, "additional_urls": &s.AdditionalURLs, "title": &s.Title,
		"body_content": &s.BodyContent, "headings": &s.Headings, "links": &s.Links,
		"meta_description": &s.MetaDescription, "meta_keywords": &s.MetaKeywords,
		"content_hash": &s.ContentHash, "domains": &s.Domains, "url_scheme": &s.URLScheme,
		"url_host": &s.URLHost, "url_port": (*portField)(&s.URLPort), "url_path": &s.URLPath,
		"url_path_dir1": &s.URLPathDir1, "url_path_dir2": &s.URLPathDir2,
		"url_path_dir3": &s.URLPathDir3, "last_crawled_at": &crawled,
		"warc_filename": &s.WARCFilename, "warc_offset": &s.WARCOffset,
		"file_name": &s.FileName, "content_type": &s.ContentType, "content_length": &s.ContentLength,
		"full_html": &s.FullHTML,
	}
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v := raw[k]
		if p, ok := dst[k]; ok {
			if err := json.Unmarshal(v, p); err != nil {
				return fmt.Errorf("%w: %s: %w", ErrDocumentJSON, k, err)
			}
			continue
		}
		var one string
		if err := json.Unmarshal(v, &one); err == nil {
			s.Fields = append(s.Fields, Field{Name: k, Values: []string{one}})
			continue
		}
		var many []string
		if err := json.Unmarshal(v, &many); err != nil {
			return fmt.Errorf("%w: custom field %s: %w", ErrDocumentJSON, k, err)
		}
		s.Fields = append(s.Fields, Field{Name: k, Values: many, Array: len(many) == 1})
	}
	for _, p := range []*[]string{&s.AdditionalURLs, &s.Headings, &s.Links, &s.Domains} {
		if len(*p) == 0 {
			*p = nil
		}
	}
	if crawled != "" {
		t, err := time.Parse(time.RFC3339, crawled)
		if err != nil {
			return fmt.Errorf("%w: last_crawled_at: %w", ErrDocumentJSON, err)
		}
		s.LastCrawledAt = t
	}
	return nil
}

// portField reads url_port: a string, or a number as documents.jsonl files written before
// url_port became a string have it.
type portField string

// UnmarshalJSON implements json.Unmarshaler.
func (p *portField) UnmarshalJSON(data []byte) error {
	var n json.Number
	if err := json.Unmarshal(data, &n); err == nil {
		*p = portField(n.String())
		return nil
	}
	var v string
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*p = portField(v)
	return nil
}
