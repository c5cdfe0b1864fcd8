package extract

import (
	"bytes"
	"crypto/sha1"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

var crawledAt = time.Date(2024, 5, 6, 7, 8, 9, 500, time.UTC)

// renderDoc prints what a crawl learns from one page as the golden files hold it: the
// robots flags, the outlinks ("HOP URL CONTEXT [nofollow]"), the rejected custom field
// names, and the search document as indented JSON.
func renderDoc(t *testing.T, res Result, doc *Document, pageURL string, cfg DocConfig) string {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "nofollow: %t\nnoindex: %t\ncharset: %s\n", res.NoFollow, res.NoIndex, doc.Charset)
	fmt.Fprintf(&b, "reserved field conflicts: %q\ninvalid field names: %q\noutlinks:\n", doc.ReservedFieldConflicts, doc.InvalidFieldNames)
	for _, o := range res.Outlinks {
		fmt.Fprintf(&b, "  %c %s %s", o.Hop, o.URL, o.Context)
		if o.NoFollow {
			b.WriteString(" nofollow")
		}
		b.WriteByte('\n')
	}
	sd := NewSearchDocument(pageURL, doc, cfg, crawledAt)
	line, err := sd.MarshalJSON()
	if err != nil {
		t.Fatalf("MarshalJSON: %v", err)
	}
	var indented bytes.Buffer
	if err := json.Indent(&indented, line, "", "  "); err != nil {
		t.Fatalf("json.Indent: %v", err)
	}
	b.WriteString("document:\n")
	b.Write(indented.Bytes())
	b.WriteByte('\n')
	return b.String()
}

func checkGolden(t *testing.T, golden, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", golden, diff)
	}
}

func TestDocumentGolden(t *testing.T) {
	tests := []struct {
		file        string
		contentType string // default text/html
		golden      string // default file + ".golden"
	}{
		{file: "include-exclude.html"},
		{file: "include-exclude-nested.html"},
		{file: "include-exclude-deep.html"},
		{file: "custom-fields.html"},
		{file: "canonical.html"},
		{file: "noindex.html"},
		{file: "nofollow.html"},
		{file: "limits.html"},
		{file: "scripts.html"},
		{file: "latin1.html"},
		{file: "latin1.html", contentType: "text/html; charset=ISO-8859-1", golden: "latin1.html.header.golden"},
	}
	for _, tt := range tests {
		name := tt.file
		if tt.golden != "" {
			name = tt.golden
		}
		t.Run(name, func(t *testing.T) {
			body, err := os.ReadFile(filepath.Join("testdata", "docs", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			ct := tt.contentType
			if ct == "" {
				ct = "text/html"
			}
			pageURL := "https://www.example.com/docs/" + tt.file
			cfg := DefaultDocConfig()
			res, err := ParseDocument(pageURL, ct, body, cfg)
			if err != nil {
				t.Fatalf("ParseDocument: %v", err)
			}
			if res.Document == nil {
				t.Fatal("no document")
			}
			golden := filepath.Join("testdata", "docs", tt.file+".golden")
			if tt.golden != "" {
				golden = filepath.Join("testdata", "docs", tt.golden)
			}
			checkGolden(t, golden, renderDoc(t, res, res.Document, pageURL, cfg))
		})
	}
}

func TestPDFGolden(t *testing.T) {
	file := filepath.Join("testdata", "docs", "sample.pdf")
	if *update {
		if err := os.WriteFile(file, samplePDF(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	body, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	const pageURL = "https://www.example.com/files/annual%20report.pdf"
	cfg := DefaultDocConfig()
	cfg.BinaryContentTypes = []string{"application/pdf"}
	doc, err := ParseBinary(pageURL, "Application/PDF; qs=0.9", body, cfg)
	if err != nil {
		t.Fatalf("ParseBinary: %v", err)
	}
	checkGolden(t, file+".golden", renderDoc(t, Result{}, doc, pageURL, cfg))
}

// TestReferenceInclusionExample is the reference's nested example, word for word.
func TestReferenceInclusionExample(t *testing.T) {
	const page = `<body> test1 <div data-elastic-exclude> test2 <p data-elastic-include> test3 <span data-elastic-exclude> test4 <span data-elastic-include>test5</span> </span> </p> test6 </div> test7 </body>`
	res, err := ParseDocument("http://example.com/", "text/html", []byte(page), DefaultDocConfig())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res.Document.Body, "test1 test3 test5 test7"; got != want {
		t.Errorf("body = %q, want %q", got, want)
	}
}

func TestDocumentText(t *testing.T) {
	tests := []struct {
		name, html, want string
	}{
		{"entities", `<p>a &amp; b &lt;c&gt; &eacute;&#233;&#xE9; &nbsp;x`, "a & b <c> ééé x"},
		{"inline elements join", `<p>re<b>mark</b>able <span>x</span>y`, "remarkable xy"},
		{"blocks separate", `<div>a</div><div>b</div><p>c<p>d`, "a b c d"},
		{"br separates", `a<br>b<br/>c<hr>d`, "a b c d"},
		{"comments dropped", `a<!-- b -->c`, "ac"},
		{"script style dropped", `a<script>b</script><style>c</style>d`, "ad"},
		{"unclosed script eats rest", `a<script>b`, "a"},
		{"template dropped", `a<template><p>b</p></template>c`, "ac"},
		{"title not body", `<title>t</title>b`, "b"},
		{"text in head goes to body", `<head><meta name=x content=y>hello</head>`, "hello"},
		{"svg math dropped", `a<svg><text>b</text></svg><math><mi>c</mi></math>d`, "ad"},
		{"self-closing div is not closed", `<div data-elastic-exclude/>a</div>b`, "b"},
		{"exclude closes at end tag", `<div data-elastic-exclude><p>a</div>b`, "b"},
		{"exclude on custom element", `<x-a data-elastic-exclude>a<x-b>b</x-b></x-a>c`, "c"},
		{"stray end tags", `</div></p>a</span>b`, "ab"},
		{"include alone", `<p data-elastic-include>a</p>b`, "a b"},
		{"nbsp and unicode spaces collapse", "a\u00a0\u2003 \u3000b", "a b"},
		{"textarea kept", `<textarea>a &amp; b</textarea>`, "a & b"},
		{"controls dropped", "a\x00\x00b\x01\x1f c\x7f", "ab c"},
		{"a body of NULs is empty", strings.Repeat("\x00", 1000), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := ParseDocument("http://example.com/", "text/html", []byte(tt.html), DocConfig{})
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Document.Body; got != tt.want {
				t.Errorf("body = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestTruncate(t *testing.T) {
	tests := []struct {
		s    string
		max  int
		want string
	}{
		{"abc", 3, "abc"},
		{"abcd", 3, "abc"},
		{"ab é", 4, "ab"}, // é is 2 bytes: cut before it, trailing space dropped
		{"abé", 3, "ab"},
		{"€€", 5, "€"},
		{"€", 0, ""},
	}
	for _, tt := range tests {
		if got := truncate(tt.s, tt.max); got != tt.want {
			t.Errorf("truncate(%q, %d) = %q, want %q", tt.s, tt.max, got, tt.want)
		}
	}
}

func TestDocumentLimits(t *testing.T) {
	cfg := DocConfig{MaxBodySize: 10, MaxTitleSize: 5, MaxHeadingsCount: 2, MaxIndexedLinksCount: 1}
	page := `<title>ééééé</title><h1>a</h1><h2>b</h2><h3>c</h3><a href=/1>x</a><a href=/2>y</a> zzzzzzzzzz`
	res, err := ParseDocument("http://example.com/", "text/html", []byte(page), cfg)
	if err != nil {
		t.Fatal(err)
	}
	d := res.Document
	got := []any{d.Title, d.Body, d.Headings, d.Links, len(res.Outlinks)}
	want := []any{"éé", "a b c xy z", []string{"a", "b"}, []string{"http://example.com/1"}, 2}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestCharsets(t *testing.T) {
	tests := []struct {
		name, contentType string
		body              []byte
		wantTitle         string
		wantCharset       string
		wantLink          string
	}{
		{"utf-8 undeclared", "text/html", []byte("<title>café</title><a href='/é?q=é'>"), "café", "utf-8", "http://example.com/%C3%A9?q=%C3%A9"},
		{"latin-1 sniffed", "text/html", []byte("<title>caf\xe9</title><a href='/\xe9?q=\xe9'>"), "café", "windows-1252", "http://example.com/%C3%A9?q=%E9"},
		{"header beats meta", "text/html; charset=utf-8", []byte("<meta charset=iso-8859-1><title>caf\xc3\xa9</title>"), "café", "utf-8", ""},
		{"meta declared but body is utf-8", "text/html", []byte("<meta charset=iso-8859-1><title>caf\xc3\xa9</title>"), "café", "utf-8", ""},
		{"invalid utf-8 declared", "text/html; charset=utf-8", []byte("<title>caf\xe9</title>"), "caf\uFFFD", "utf-8", ""},
		{"utf-16 bom", "text/html", []byte("\xff\xfe<\x00t\x00i\x00t\x00l\x00e\x00>\x00\xe9\x00"), "é", "utf-16le", ""},
		{"shift_jis", "text/html; charset=Shift_JIS", []byte("<title>\x93\xfa\x96\x7b</title><a href='/?q=\x93\xfa'>"), "日本", "shift_jis", "http://example.com/?q=%93%FA"},
		{"unencodable query char", "text/html; charset=iso-8859-1", []byte("<a href='/?q=&#x65E5;'>"), "", "windows-1252", "http://example.com/?q=%26%2326085%3B"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := ParseDocument("http://example.com/", tt.contentType, tt.body, DocConfig{})
			if err != nil {
				t.Fatal(err)
			}
			d := res.Document
			if d.Title != tt.wantTitle || d.Charset != tt.wantCharset {
				t.Errorf("title, charset = %q, %q; want %q, %q", d.Title, d.Charset, tt.wantTitle, tt.wantCharset)
			}
			if tt.wantLink != "" && (len(res.Outlinks) == 0 || res.Outlinks[0].URL != tt.wantLink) {
				t.Errorf("outlinks = %v, want %s first", res.Outlinks, tt.wantLink)
			}
		})
	}
}

func TestSearchDocument(t *testing.T) {
	d := &Document{Title: "T", Body: "B", Canonical: "HTTPS://Example.COM:443/a/b/c/d.html?x=1",
		Fields: []Field{{"many", []string{"a", "b"}, false}, {"one", []string{"1"}, false}}}
	s := NewSearchDocument("http://www.example.com:8080/dup", d, DocConfig{}, crawledAt)
	if want := DocumentID("https://example.com/a/b/c/d.html?x=1"); s.ID != want {
		t.Errorf("id = %s, want %s (same URL normalised)", s.ID, want)
	}
	got := []any{s.URL, s.AdditionalURLs, s.Domains, s.URLScheme, s.URLHost, s.URLPort, s.URLPath, s.URLPathDir1, s.URLPathDir2, s.URLPathDir3}
	want := []any{"HTTPS://Example.COM:443/a/b/c/d.html?x=1", []string{"http://www.example.com:8080/dup"},
		[]string{"https://example.com", "http://www.example.com:8080"}, "https", "example.com", "443", "/a/b/c/d.html", "a", "b", "c"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}

	// The content hash ignores the URL, and follows the configured fields.
	other := NewSearchDocument("http://elsewhere.example/", &Document{Title: "T", Body: "B"}, DocConfig{}, crawledAt)
	if other.ContentHash != s.ContentHash {
		t.Errorf("same content, different hashes %s, %s", s.ContentHash, other.ContentHash)
	}
	byField := NewSearchDocument("http://elsewhere.example/", &Document{Title: "T", Body: "B"}, DocConfig{ContentHashFields: []string{"title", "many"}}, crawledAt)
	if byField.ContentHash == s.ContentHash {
		t.Error("different hash fields, same hash")
	}
	for i := 0; i < MaxAdditionalURLs+5; i++ {
		s.AddURL(fmt.Sprintf("http://h%d.example/", i))
	}
	if len(s.AdditionalURLs) != MaxAdditionalURLs || s.AddURL(s.URL) {
		t.Errorf("additional_urls: %d, want %d", len(s.AdditionalURLs), MaxAdditionalURLs)
	}

	s.WARCFilename, s.WARCOffset = "amber-20240506070809000-00000-host.warc.gz", 1234
	line, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back SearchDocument
	if err := json.Unmarshal(line, &back); err != nil {
		t.Fatalf("Unmarshal: %v", err)
	}
	if diff := cmp.Diff(s, back); diff != "" {
		t.Errorf("JSON round trip (-want +got):\n%s", diff)
	}
	// url_port is a string (Elastic's schema: strings and arrays of strings); lines written
	// when it was a number still read.
	if !strings.Contains(string(line), `"url_port":"443"`) {
		t.Errorf("url_port not a string in %s", line)
	}
	for _, in := range []string{`{"url_port": 8080}`, `{"url_port": "8080"}`} {
		var d SearchDocument
		if err := json.Unmarshal([]byte(in), &d); err != nil || d.URLPort != "8080" {
			t.Errorf("Unmarshal(%s): url_port %q, %v; want 8080", in, d.URLPort, err)
		}
	}
	if err := json.Unmarshal([]byte(`{"url_port": [1]}`), &back); !errors.Is(err, ErrDocumentJSON) {
		t.Errorf("url_port array: err = %v, want ErrDocumentJSON", err)
	}
	if err := json.Unmarshal([]byte(`{"x": 1}`), &back); !errors.Is(err, ErrDocumentJSON) {
		t.Errorf("custom field of a number: err = %v, want ErrDocumentJSON", err)
	}
}

func TestContentHashDefinition(t *testing.T) {
	d := &Document{Title: "T", Body: "<b>", Links: []string{"http://a/"}}
	s := NewSearchDocument("http://example.com/", d, DocConfig{ContentHashFields: []string{"title", "body_content", "links", "headings", "nope"}}, crawledAt)
	const canonical = `[["title",["T"]],["body_content",["<b>"]],["links",["http://a/"]],["headings",[]],["nope",[]]]`
	if want := fmt.Sprintf("%x", sha1.Sum([]byte(canonical))); s.ContentHash != want {
		t.Errorf("content_hash = %s, want SHA-1 of %s = %s", s.ContentHash, canonical, want)
	}
}

// content_hash is the SHA-1 of what encoding/json (HTML not escaped) writes of the fields and
// their values: hashes stored by earlier crawls and in search indexes must not change.
func TestContentHashMatchesEncodingJSON(t *testing.T) {
	oracle := func(s *SearchDocument, fields []string) string {
		parts := make([][2]any, 0, len(fields))
		for _, name := range fields {
			parts = append(parts, [2]any{name, s.values(name)})
		}
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(parts); err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("%x", sha1.Sum(bytes.TrimSuffix(b.Bytes(), []byte("\n"))))
	}
	tests := []struct {
		name   string
		doc    Document
		fields []string
	}{
		{"none", Document{Title: "T"}, []string{}},
		{"the default fields", Document{Title: "T", Body: "B", Links: []string{"http://a/"}}, DefaultDocConfig().ContentHashFields},
		{"plain", Document{Title: "Page", Body: "Some text."}, []string{"title", "body_content"}},
		{"escapes", Document{Title: "a \"quoted\" <b>&amp;</b> \\ \t\n\r\b\f \x01\x1f", Body: "\u2028\u2029 é 日本"}, []string{"title", "body_content"}},
		{"invalid UTF-8", Document{Title: "\xff\xfe bad \xc3", Body: "ok\xed\xa0\x80"}, []string{"body_content", "title"}},
		{"lists", Document{Headings: []string{"one", "", "<h2>"}, Links: []string{"http://a/?x=1&y=2"}}, []string{"headings", "links", "meta_keywords", "unknown"}},
		{"repeated field", Document{Title: "T"}, []string{"title", "title"}},
	}
	for _, tt := range tests {
		s := NewSearchDocument("http://example.com/", &tt.doc, DocConfig{ContentHashFields: tt.fields}, crawledAt)
		if want := oracle(&s, tt.fields); s.ContentHash != want {
			t.Errorf("%s: content_hash %s, encoding/json gives %s", tt.name, s.ContentHash, want)
		}
	}
}

func TestParseBinaryErrors(t *testing.T) {
	cfg := DocConfig{BinaryContentTypes: []string{"application/pdf", "application/msword"}}
	if _, err := ParseBinary("http://example.com/a.pdf", "application/pdf", []byte("%PDF-1.4\nnot really"), cfg); !errors.Is(err, ErrBinary) {
		t.Errorf("broken PDF: err = %v, want ErrBinary", err)
	}
	if _, err := ParseBinary("http://example.com/a.pdf", "application/pdf", samplePDF(), DocConfig{}); !errors.Is(err, ErrUnsupportedType) {
		t.Errorf("type not configured: err = %v, want ErrUnsupportedType", err)
	}
	if _, err := ParseBinary("a.pdf", "application/pdf", samplePDF(), cfg); !errors.Is(err, ErrPageURL) {
		t.Errorf("relative page URL: err = %v, want ErrPageURL", err)
	}
	doc, err := ParseBinary("http://example.com/d/x.doc?v=1", "application/msword", []byte("\xd0\xcf\x11\xe0"), cfg)
	if err != nil || doc.Body != "" || doc.FileName != "x.doc" || doc.ContentLength != 4 {
		t.Errorf("msword: %+v, %v", doc, err)
	}
	// A page tree that contains itself ends.
	loop := makePDF([]string{"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [2 0 R] /Count 1 >>"})
	if _, err := ParseBinary("http://example.com/loop.pdf", "application/pdf", loop, cfg); err != nil {
		t.Errorf("cyclic page tree: %v", err)
	}
}

func TestPDFBodyLimit(t *testing.T) {
	cfg := DocConfig{BinaryContentTypes: []string{"application/pdf"}, MaxBodySize: 8}
	doc, err := ParseBinary("http://example.com/s.pdf", "application/pdf", samplePDF(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Body != "Hello, P" {
		t.Errorf("body = %q", doc.Body)
	}
}

// samplePDF is the fixture testdata/docs/sample.pdf: two pages of text in Helvetica with
// WinAnsiEncoding, using Td, T*, ' and TJ with a word-sized gap.
func samplePDF() []byte {
	page1 := "BT /F1 24 Tf 72 720 Td (Hello, PDF world!) Tj 0 -30 Td [(Kerned)-300(words) 20(joined)] TJ 14 TL T* (Next line \\(escaped\\)) Tj ET"
	page2 := "BT /F1 12 Tf 72 720 Td (Page two: caf\\351 cr\\350me, 20\\260C.) Tj (Second) ' ET"
	return makePDF([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 6 0 R >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 7 0 R >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(page1)+1, page1),
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(page2)+1, page2),
	})
}

// makePDF returns a PDF 1.4 file whose objects 1, 2, ... are objs, with object 1 as root.
func makePDF(objs []string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}

func FuzzDocument(f *testing.F) {
	addFileSeeds(f, "*.html")
	addFileSeeds(f, "docs/*.html")
	for _, s := range []string{
		`<div data-elastic-exclude><p data-elastic-include>a<span data-elastic-exclude>b`,
		`<meta class=elastic name=title content=x><meta class="swiftype" name=a content="&#xD800;">`,
		`<h1 data-elastic-name=a data-swiftype-name=b>x<h2>y</h1>`, "<title>\xff\xfe</title>\xc3",
		`<link rel=canonical href="//x/y"><a rel=nofollow href=/a><a href=/a>`,
		"<meta charset=shift_jis>\x93\xfa<a href='?q=\x93\xfa'>", "\xff\xfe<\x00p\x00>\x00",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, ct := range []string{"text/html", "text/html; charset=windows-1252"} {
			const pageURL = "http://example.com/a/b.html"
			cfg := DocConfig{MaxBodySize: 300, MaxTitleSize: 20, MaxHeadingsCount: 3, MaxIndexedLinksCount: 3}
			res, err := ParseDocument(pageURL, ct, body, cfg)
			if err != nil {
				t.Fatalf("ParseDocument: %v", err)
			}
			checkOutlinks(t, pageURL, res.Outlinks)
			d := res.Document
			strs := []string{d.Title, d.Body, d.MetaDescription, d.MetaKeywords, d.Canonical}
			strs = append(strs, d.Headings...)
			strs = append(strs, d.Links...)
			strs = append(strs, d.ReservedFieldConflicts...)
			strs = append(strs, d.InvalidFieldNames...)
			for _, fl := range d.Fields {
				strs = append(strs, fl.Name)
				strs = append(strs, fl.Values...)
			}
			for _, s := range strs {
				if !utf8.ValidString(s) {
					t.Fatalf("invalid UTF-8: %q", s)
				}
			}
			if len(d.Title) > 20 || len(d.Body) > 300 || len(d.Headings) > 3 || len(d.Links) > 3 {
				t.Fatalf("limits exceeded: %+v", d)
			}
			sd := NewSearchDocument(pageURL, d, cfg, crawledAt)
			line, err := json.Marshal(sd)
			if err != nil {
				t.Fatalf("json.Marshal: %v", err)
			}
			if !utf8.Valid(line) || !json.Valid(line) {
				t.Fatalf("invalid JSON line: %q", line)
			}
			var back SearchDocument
			if err := json.Unmarshal(line, &back); err != nil {
				t.Fatalf("Unmarshal: %v", err)
			}
		}
	})
}

func FuzzPDF(f *testing.F) {
	f.Add(samplePDF())
	f.Add(makePDF([]string{"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [2 0 R] /Count 1 >>"}))
	cfg := DocConfig{BinaryContentTypes: []string{"application/pdf"}, MaxBodySize: 1000}
	f.Fuzz(func(t *testing.T, body []byte) {
		doc, err := ParseBinary("http://example.com/f.pdf", "application/pdf", body, cfg)
		if err != nil {
			if !errors.Is(err, ErrBinary) {
				t.Fatalf("err = %v, want ErrBinary", err)
			}
			return
		}
		if !utf8.ValidString(doc.Body) || len(doc.Body) > 1000 {
			t.Fatalf("body %q", doc.Body)
		}
	})
}
