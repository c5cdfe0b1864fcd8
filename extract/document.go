package extract

import (
	"errors"
	"slices"
	"strings"
	"unicode/utf8"
)

// Default limits of DocConfig, those of Elastic's web crawler.
const (
	DefaultMaxTitleSize         = 1024
	DefaultMaxBodySize          = 5 << 20
	DefaultMaxKeywordsSize      = 512
	DefaultMaxDescriptionSize   = 1024
	DefaultMaxHeadingsCount     = 25
	DefaultMaxIndexedLinksCount = 25
)

// Limits on custom fields, which the reference leaves open: at most maxCustomFields
// distinct names, maxFieldValues values per name, and all values together at most
// DocConfig.MaxBodySize bytes.
const (
	maxCustomFields = 100
	maxFieldValues  = 100
	maxConflicts    = 100 // names kept in ReservedFieldConflicts and InvalidFieldNames
)

// ErrUnsupportedType is returned by ParseBinary for a content type that is not listed in
// DocConfig.BinaryContentTypes.
var ErrUnsupportedType = errors.New("extract: content type not configured for binary extraction")

// ErrBinary is returned (wrapped, with the cause) by ParseBinary when a binary document
// cannot be read, such as a PDF with a broken or encrypted structure.
var ErrBinary = errors.New("extract: unreadable binary document")

// DocConfig sets what a search document holds. The YAML keys are those of Elastic's open web
// crawler; the doc comments name the equivalent setting of the Elastic (App Search) web
// crawler reference. A zero or negative limit, and a nil ContentHashFields, mean the default.
type DocConfig struct {
	// MaxTitleSize is the most bytes of title kept (crawler.extraction.title_size.limit).
	// Default 1024.
	MaxTitleSize int `yaml:"max_title_size" json:"max_title_size"`
	// MaxBodySize is the most bytes of body_content kept, and of the text extracted from a
	// binary document (crawler.extraction.body_size.limit). Default 5 MiB.
	MaxBodySize int `yaml:"max_body_size" json:"max_body_size"`
	// MaxKeywordsSize is the most bytes of meta_keywords kept
	// (crawler.extraction.keywords_size.limit). Default 512.
	MaxKeywordsSize int `yaml:"max_keywords_size" json:"max_keywords_size"`
	// MaxDescriptionSize is the most bytes of meta_description kept
	// (crawler.extraction.description_size.limit). Default 1024.
	MaxDescriptionSize int `yaml:"max_description_size" json:"max_description_size"`
	// MaxHeadingsCount is the most headings kept (crawler.extraction.headings_count.limit).
	// Default 25.
	MaxHeadingsCount int `yaml:"max_headings_count" json:"max_headings_count"`
	// MaxIndexedLinksCount is the most links kept in the document's links field; every
	// link is still an outlink (crawler.extraction.indexed_links_count.limit). Default 25.
	MaxIndexedLinksCount int `yaml:"max_indexed_links_count" json:"max_indexed_links_count"`
	// ContentHashFields names, in order, the fields content_hash is computed over: schema
	// fields or custom field names (crawler.extraction.default_deduplication_fields).
	// Default: title, body_content, meta_keywords, meta_description, links, headings.
	ContentHashFields []string `yaml:"deduplication_fields" json:"deduplication_fields"`
	// BinaryContentTypes lists the media types (such as "application/pdf") whose bodies
	// ParseBinary extracts (crawler.content_extraction.mime_types). Default none. Only PDF
	// has a text extractor; other listed types give a document without body text.
	BinaryContentTypes []string `yaml:"binary_content_extraction_mime_types" json:"binary_content_extraction_mime_types"`
	// MaxElasticTagSize is the most bytes of each value of a custom field from a
	// <meta class="elastic"> tag (Elastic's max_elastic_tag_size); MaxDataAttributeSize of
	// each value from a data-elastic-name element (max_data_attribute_size). Default: no
	// limit of their own (MaxBodySize bounds all custom field values together).
	MaxElasticTagSize    int `yaml:"max_elastic_tag_size" json:"max_elastic_tag_size"`
	MaxDataAttributeSize int `yaml:"max_data_attribute_size" json:"max_data_attribute_size"`
	// ExcludeTags are HTML tag names, by origin (scheme://host[:port], as config.Origin
	// writes it), whose elements, with everything inside them, are left out of the text of
	// the origin's documents: body_content, headings and data-elastic-name fields (Elastic's
	// exclude_tags of a domain). Their links are still followed. Default none.
	ExcludeTags map[string][]string `yaml:"exclude_tags" json:"exclude_tags"`
	// FullHTML puts the whole page, decoded to UTF-8, in the document's full_html field
	// (Elastic's full_html_extraction_enabled). Default false.
	FullHTML bool `yaml:"full_html" json:"full_html"`
	// Rulesets are the extraction rulesets (Elastic's extraction_rulesets, see
	// CompileRulesets) whose fields ParseDocument and ParseBinary add to the custom fields
	// of the pages they apply to (see Rulesets.Apply; ParseBinary applies the url rules
	// only). A field the page names itself (meta tag or data-elastic-name) keeps the page's
	// values. Default none.
	Rulesets *Rulesets `yaml:"-" json:"-"`
}

// DefaultDocConfig returns the configuration with every default filled in.
func DefaultDocConfig() DocConfig {
	return DocConfig{
		MaxTitleSize:         DefaultMaxTitleSize,
		MaxBodySize:          DefaultMaxBodySize,
		MaxKeywordsSize:      DefaultMaxKeywordsSize,
		MaxDescriptionSize:   DefaultMaxDescriptionSize,
		MaxHeadingsCount:     DefaultMaxHeadingsCount,
		MaxIndexedLinksCount: DefaultMaxIndexedLinksCount,
		ContentHashFields:    []string{"title", "body_content", "meta_keywords", "meta_description", "links", "headings"},
	}
}

// withDefaults returns c with its zero values replaced by the defaults.
func (c DocConfig) withDefaults() DocConfig {
	d := DefaultDocConfig()
	set := func(v *int, def int) {
		if *v <= 0 {
			*v = def
		}
	}
	set(&c.MaxTitleSize, d.MaxTitleSize)
	set(&c.MaxBodySize, d.MaxBodySize)
	set(&c.MaxKeywordsSize, d.MaxKeywordsSize)
	set(&c.MaxDescriptionSize, d.MaxDescriptionSize)
	set(&c.MaxHeadingsCount, d.MaxHeadingsCount)
	set(&c.MaxIndexedLinksCount, d.MaxIndexedLinksCount)
	set(&c.MaxElasticTagSize, c.MaxBodySize)
	set(&c.MaxDataAttributeSize, c.MaxBodySize)
	if c.ContentHashFields == nil {
		c.ContentHashFields = d.ContentHashFields
	}
	return c
}

// ExtractsBinary reports whether the media type of contentType is listed in
// BinaryContentTypes (compared case-insensitively, parameters ignored).
func (c DocConfig) ExtractsBinary(contentType string) bool {
	mt := MediaType(contentType)
	return mt != "" && slices.ContainsFunc(c.BinaryContentTypes, func(t string) bool {
		return MediaType(t) == mt
	})
}

// Document is the content extracted from one HTML page or binary file, before it becomes a
// SearchDocument. All strings are valid UTF-8 and within the DocConfig limits they were
// extracted with.
type Document struct {
	Title           string   // text of the first <title>, whitespace collapsed
	Body            string   // visible text (body_content), whitespace collapsed
	Headings        []string // distinct non-empty texts of h1-h6, in document order
	Links           []string // distinct absolute URLs of a[href], in document order
	MetaDescription string   // content of the first <meta name=description>
	MetaKeywords    string   // content of the first <meta name=keywords>
	Canonical       string   // absolute URL of the first <link rel=canonical>; "" if none
	Charset         string   // the encoding the text was decoded from, e.g. "utf-8", "windows-1252"
	Fields          []Field  // custom fields, in order of first appearance
	FullHTML        string   // the page decoded to UTF-8, with DocConfig.FullHTML only

	// ReservedFieldConflicts lists (once each, in order) the custom field names the page
	// used that are schema fields and were therefore ignored (see IsReservedField).
	ReservedFieldConflicts []string
	// InvalidFieldNames lists (once each, in order) the custom field names that were
	// ignored because they are not 1 to 64 lower-case letters, digits and underscores
	// (names are trimmed and lower-cased first) or start with an underscore.
	InvalidFieldNames []string

	// Binary documents only.
	FileName      string // last segment of the URL path, percent-decoded
	ContentType   string // media type of the response, lower case, without parameters
	ContentLength int64  // length of the body in bytes
}

// Field is a custom field: a name and its values in document order. JSON renders one value
// as a string and several as an array; with Array set (an extraction rule's join_as: array,
// or an array of one read back from JSON) it is an array whatever the number of values, so that a
// rule matching once gives an array of one, as in Elastic's crawler.
type Field struct {
	Name   string
	Values []string
	Array  bool
}

// Field returns the values of the custom field name, or nil.
func (d *Document) Field(name string) []string {
	for _, f := range d.Fields {
		if f.Name == name {
			return f.Values
		}
	}
	return nil
}

// reservedFields are the schema field names a custom field cannot take.
var reservedFields = [...]string{
	"id", "url", "additional_urls", "title", "body_content", "headings", "links",
	"meta_description", "meta_keywords", "content_hash", "domains", "url_scheme", "url_host",
	"url_port", "url_path", "url_path_dir1", "url_path_dir2", "url_path_dir3",
	"last_crawled_at", "warc_filename", "warc_offset", "file_name", "content_type",
	"content_length", "full_html",
}

// IsReservedField reports whether name is a field of the search document schema, which a
// custom field cannot take: the reference's reserved list (additional_urls, body_content,
// domains, headings, last_crawled_at, links, meta_description, meta_keywords, title, url,
// url_host, url_path, url_path_dir1-3, url_port, url_scheme) plus id, content_hash,
// warc_filename, warc_offset, file_name, content_type, content_length and full_html.
func IsReservedField(name string) bool { return slices.Contains(reservedFields[:], name) }

func isReserved(name string) bool { return IsReservedField(name) }

// fieldSet collects custom fields under the limits.
type fieldSet struct {
	fields   []Field
	budget   int // bytes of values still allowed
	reserved []string
	invalid  []string
}

// add appends value to the field name, after checking the name.
func (s *fieldSet) add(name, value string) {
	name = strings.ToLower(strings.TrimSpace(name))
	if isReserved(name) {
		if !slices.Contains(s.reserved, name) && len(s.reserved) < maxConflicts {
			s.reserved = append(s.reserved, name)
		}
		return
	}
	if !validFieldName(name) {
		name = strings.ToValidUTF8(name, "\uFFFD")
		name = truncate(name, 128)
		if !slices.Contains(s.invalid, name) && len(s.invalid) < maxConflicts {
			s.invalid = append(s.invalid, name)
		}
		return
	}
	value = truncate(value, s.budget)
	if value == "" {
		return
	}
	i := slices.IndexFunc(s.fields, func(f Field) bool { return f.Name == name })
	if i < 0 {
		if len(s.fields) == maxCustomFields {
			return
		}
		s.fields = append(s.fields, Field{Name: name})
		i = len(s.fields) - 1
	}
	if len(s.fields[i].Values) == maxFieldValues {
		return
	}
	s.fields[i].Values = append(s.fields[i].Values, value)
	s.budget -= len(value)
}

// validFieldName reports whether name may name a custom field: 1 to 64 of [a-z0-9_], not
// starting with '_' (the App Search field name rules).
func validFieldName(name string) bool {
	if name == "" || len(name) > 64 || name[0] == '_' {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// truncate returns the longest prefix of s of at most max bytes that ends on a UTF-8
// boundary, with trailing spaces removed when it was cut.
func truncate(s string, max int) string {
	if len(s) <= max {
		return s
	}
	if max <= 0 {
		return ""
	}
	i := max
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return strings.TrimRight(s[:i], " ")
}
