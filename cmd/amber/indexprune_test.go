package main

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/scope"
	"github.com/amber-crawler/amber/searchindex"
)

// TestIndexPruneDomains: the crawl's domains are the origins of its seeds, Elastic domains
// and documents (url and additional_urls); a document is seen by its id or one of its URLs.
func TestIndexPruneDomains(t *testing.T) {
	dir := t.TempDir()
	lines := `{"id":"a","url":"http://test.com/a","additional_urls":["https://mirror.test.com:8443/a"]}
not a document
{"id":"b","url":"http://www.test.com/b"}
`
	if err := os.WriteFile(filepath.Join(dir, crawl.DocumentsFile), []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	docs, err := readCrawlDocs(dir)
	if err != nil {
		t.Fatal(err)
	}
	docs.addScope(scope.Config{Seeds: []scope.Seed{{URL: "http://seed.test.com:80/start"}},
		Domains: []scope.Domain{{URL: "https://elastic.test.com"}}})
	for _, tt := range []struct {
		url        string
		owns       bool
		id         string
		seen, miss bool
	}{
		{url: "http://test.com/other", owns: true},
		{url: "HTTP://TEST.COM:80/x", owns: true},
		{url: "https://test.com/x", owns: false}, // another origin
		{url: "http://testanother.com/x", owns: false},
		{url: "http://sub.test.com/x", owns: false},
		{url: "https://mirror.test.com:8443/z", owns: true},
		{url: "https://mirror.test.com/z", owns: false},
		{url: "http://seed.test.com/y", owns: true},
		{url: "https://elastic.test.com/y", owns: true},
		{url: "http://www.test.com/b", owns: true, seen: true},
		{url: "http://www.test.com/c", owns: true, id: "a", seen: true},
		{url: "https://mirror.test.com:8443/a", owns: true, seen: true},
		{url: "", owns: false},
		{url: "mailto:x@test.com", owns: false},
	} {
		t.Run(tt.url, func(t *testing.T) {
			if got := docs.owns(tt.url); got != tt.owns {
				t.Errorf("owns(%q) = %v, want %v", tt.url, got, tt.owns)
			}
			id := tt.id
			if id == "" {
				id = "other"
			}
			if got := docs.seen(searchindex.Indexed{ID: id, URL: tt.url}); got != tt.seen {
				t.Errorf("seen(%s, %q) = %v, want %v", id, tt.url, got, tt.seen)
			}
		})
	}
}

func TestIndexProcessVerdict(t *testing.T) {
	for _, tt := range []struct {
		name        string
		out         checkOutput
		err         error
		del, failed bool
		reason      string
	}{
		{"in", checkOutput{Decision: "in", Reason: "seed-prefix"}, nil, false, false, "seed-prefix"},
		{"blocked", checkOutput{Decision: "out", Reason: "block:contains:/private/"}, nil, true, false, "block:contains:/private/"},
		{"crawl rule", checkOutput{Decision: "out", Reason: "crawl-rule:1:deny:begins:/x"}, nil, true, false, "crawl-rule:1:deny:begins:/x"},
		{"out of scope", checkOutput{Decision: "out", Reason: "out-of-scope"}, nil, true, false, "out-of-scope"},
		{"undecidable", checkOutput{}, errors.New("bad url"), false, true, "bad url"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v := processVerdict(tt.out, tt.err)
			if v.Delete != tt.del || v.Failed != tt.failed || v.Reason != tt.reason {
				t.Errorf("processVerdict = %+v, want delete %v failed %v reason %q", v, tt.del, tt.failed, tt.reason)
			}
		})
	}
}
