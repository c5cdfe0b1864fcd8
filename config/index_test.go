package config

import (
	"strings"
	"testing"
)

func TestIndexValidate(t *testing.T) {
	neg := -1
	for _, tc := range []struct {
		name string
		ix   Index
		err  string // "" for valid
	}{
		{"none", Index{}, ""},
		{"url without sink", Index{URL: "http://127.0.0.1:9200", Name: "a"}, ""},
		{"unknown sink", Index{Sink: "solr"}, "want elasticsearch"},
		{"ok", Index{Sink: "elasticsearch", URL: "http://127.0.0.1:4080/es", Name: "crawl-1"}, ""},
		{"api key", Index{Sink: "elasticsearch", URL: "https://es:9200", Name: "a", APIKey: "env:ES_KEY"}, ""},
		{"no url", Index{Sink: "elasticsearch", Name: "a"}, "index.url: required"},
		{"ftp url", Index{Sink: "elasticsearch", URL: "ftp://x", Name: "a"}, "want http(s)"},
		{"no name", Index{Sink: "elasticsearch", URL: "http://x"}, "index.name: required"},
		{"upper name", Index{Sink: "elasticsearch", URL: "http://x", Name: "Crawl"}, "lower case"},
		{"underscore name", Index{Sink: "elasticsearch", URL: "http://x", Name: "_all"}, "start with _"},
		{"user only", Index{Sink: "elasticsearch", URL: "http://x", Name: "a", Username: "elastic"}, "go together"},
		{"both credentials", Index{Sink: "elasticsearch", URL: "http://x", Name: "a", Username: "u", Password: "p", APIKey: "k"}, "not both"},
		{"negative retries", Index{Sink: "elasticsearch", URL: "http://x", Name: "a", Retries: &neg}, "negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.ix.Validate()
			if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
				t.Errorf("Validate() = %v, want %q", err, tc.err)
			}
		})
	}
}
