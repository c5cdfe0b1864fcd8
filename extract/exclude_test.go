package extract

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestExcludeTagsAndLimits checks DocConfig.ExcludeTags (Elastic's exclude_tags: the
// elements are gone from body_content, headings and data-elastic-name fields, for the
// pages of their origin only, their links still outlinks), MaxElasticTagSize and
// MaxDataAttributeSize (each value cut), and FullHTML.
func TestExcludeTagsAndLimits(t *testing.T) {
	const page = `<html><head><title>T</title>
<meta class="elastic" name="tag_field" content="abcdefghij"></head>
<body><header><h1>Site header</h1><a href="/home">home</a></header>
<h2>Main</h2><p>Main text <span data-elastic-name="attr_field">0123456789</span></p>
<FOOTER><p data-elastic-name="foot">footer text</p></FOOTER></body></html>`
	tests := []struct {
		name     string
		pageURL  string
		cfg      DocConfig
		body     string
		headings []string
		fields   []Field
	}{
		{
			name: "no exclude_tags", pageURL: "https://a.example/p",
			body: "Site header home Main Main text 0123456789 footer text", headings: []string{"Site header", "Main"},
			fields: []Field{{Name: "tag_field", Values: []string{"abcdefghij"}}, {Name: "attr_field", Values: []string{"0123456789"}}, {Name: "foot", Values: []string{"footer text"}}},
		},
		{
			name: "header and footer excluded (tag names in any case)", pageURL: "https://a.example/p",
			cfg:  DocConfig{ExcludeTags: map[string][]string{"https://a.example": {"header", "Footer"}}},
			body: "Main Main text 0123456789", headings: []string{"Main"},
			fields: []Field{{Name: "tag_field", Values: []string{"abcdefghij"}}, {Name: "attr_field", Values: []string{"0123456789"}}},
		},
		{
			name: "another origin's exclude_tags do not apply", pageURL: "https://b.example/p",
			cfg:  DocConfig{ExcludeTags: map[string][]string{"https://a.example": {"header", "footer"}}},
			body: "Site header home Main Main text 0123456789 footer text", headings: []string{"Site header", "Main"},
			fields: []Field{{Name: "tag_field", Values: []string{"abcdefghij"}}, {Name: "attr_field", Values: []string{"0123456789"}}, {Name: "foot", Values: []string{"footer text"}}},
		},
		{
			name: "max_elastic_tag_size and max_data_attribute_size", pageURL: "https://a.example/p",
			cfg:  DocConfig{MaxElasticTagSize: 3, MaxDataAttributeSize: 4},
			body: "Site header home Main Main text 0123456789 footer text", headings: []string{"Site header", "Main"},
			fields: []Field{{Name: "tag_field", Values: []string{"abc"}}, {Name: "attr_field", Values: []string{"0123"}}, {Name: "foot", Values: []string{"foot"}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := ParseDocument(tt.pageURL, "text/html; charset=utf-8", []byte(page), tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			d := res.Document
			if d.Body != tt.body {
				t.Errorf("body %q, want %q", d.Body, tt.body)
			}
			if diff := cmp.Diff(tt.headings, d.Headings); diff != "" {
				t.Errorf("headings (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.fields, d.Fields); diff != "" {
				t.Errorf("fields (-want +got):\n%s", diff)
			}
			if !strings.Contains(strings.Join(d.Links, " "), "/home") {
				t.Errorf("links %q: the header's link is gone", d.Links)
			}
			if d.FullHTML != "" {
				t.Errorf("full_html %q without FullHTML", d.FullHTML)
			}
		})
	}
}

// TestFullHTML checks that FullHTML puts the page, decoded to UTF-8, in full_html, written
// in the document's JSON and read back.
func TestFullHTML(t *testing.T) {
	page := []byte("<html><body><p>caf\xe9</p></body></html>")
	res, err := ParseDocument("https://a.example/", "text/html; charset=iso-8859-1", page, DocConfig{FullHTML: true})
	if err != nil {
		t.Fatal(err)
	}
	want := "<html><body><p>café</p></body></html>"
	if res.Document.FullHTML != want {
		t.Fatalf("full_html %q, want %q", res.Document.FullHTML, want)
	}
	s := NewSearchDocument("https://a.example/", res.Document, DocConfig{}, crawledAt)
	line, _ := s.MarshalJSON()
	if !strings.Contains(string(line), `"full_html":"<html><body><p>café</p></body></html>"`) {
		t.Errorf("JSON %s has no full_html", line)
	}
	var back SearchDocument
	if err := back.UnmarshalJSON(line); err != nil || back.FullHTML != want {
		t.Errorf("read back: %q, %v", back.FullHTML, err)
	}
}
