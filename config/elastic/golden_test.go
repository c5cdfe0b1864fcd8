package elastic

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata")

// withoutSchedule is the uncommented crawler.yml.example without its schedule section,
// which amber refuses (amber runs one crawl; cron runs amber).
func withoutSchedule(t *testing.T, data []byte) []byte {
	t.Helper()
	const sched = "schedule:\n  pattern: \"0 12 * * *\"     # every day at noon\n"
	if !strings.Contains(string(data), sched) {
		t.Fatal("crawler.yml: no schedule section to take out")
	}
	return []byte(strings.Replace(string(data), sched, "", 1))
}

// TestCurrentExamplesGolden converts elastic/crawler's current crawler.yml.example and
// elasticsearch.yml.example, every key uncommented (testdata), and compares amber's YAML
// with its notes to the golden files (refresh with -update). With its schedule the
// crawler.yml is refused, naming schedule and cron.
func TestCurrentExamplesGolden(t *testing.T) {
	crawler, err := os.ReadFile(filepath.Join("testdata", "crawler.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Parse(crawler, "crawler.yml"); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "schedule") || !strings.Contains(err.Error(), "cron") {
		t.Errorf("with schedule: err %v, want the schedule refused", err)
	}
	es, err := os.ReadFile(filepath.Join("testdata", "elasticsearch.yml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, golden string
		data         []byte
	}{
		{"crawler.yml", "crawler.yml.golden", withoutSchedule(t, crawler)},
		{"elasticsearch.yml", "elasticsearch.yml.golden", es},
		{"simple.yml", "simple.yml.golden", read(t, "simple.yml")},
		{"parks-australia.yml", "parks-australia.yml.golden", read(t, "parks-australia.yml")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !Is(tc.data) {
				t.Fatal("not recognised as an Elastic file")
			}
			_, cv, err := LoadData(tc.data, tc.name)
			if err != nil {
				t.Fatal(err)
			}
			got, err := cv.Render(tc.name)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", tc.golden)
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("%s (-want +got):\n%s", path, diff)
			}
		})
	}
}

func read(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestConvertIndex checks the mapping of the elasticsearch keys onto index: host and port
// (port wins, a bare host is http), retry_on_failure true and false, pipeline_enabled
// false, dotted keys as nested ones, and an ERB environment reference as env:NAME.
func TestConvertIndex(t *testing.T) {
	const d = "domains: [{url: https://a.example}]\noutput_sink: elasticsearch\noutput_index: docs\n"
	three, zero := 3, 0
	tests := []struct {
		name, body string
		url        string
		retries    *int
		pipeline   string
		apiKey     string
	}{
		{"port wins over host's", d + "elasticsearch: {host: 'https://es.example:9243', port: 9200}\n", "https://es.example:9200", nil, defaultPipeline, ""},
		{"bare host", d + "elasticsearch: {host: es.example, port: 9200, retry_on_failure: true}\n", "http://es.example:9200", &three, defaultPipeline, ""},
		{"dotted keys", d + "elasticsearch.host: http://127.0.0.1:4080/es\nelasticsearch.retry_on_failure: false\nelasticsearch.pipeline_enabled: false\n", "http://127.0.0.1:4080/es", &zero, "", ""},
		{"ERB env", d + "elasticsearch:\n  host: http://es\n  api_key: \"<%= ENV['ES_API_KEY'] %>\"\n  pipeline: mine\n", "http://es", nil, "mine", "env:ES_API_KEY"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, _, err := LoadData([]byte(tt.body), "x.yml")
			if err != nil {
				t.Fatal(err)
			}
			ix := f.Index
			if ix.Sink != "elasticsearch" || ix.Name != "docs" || ix.URL != tt.url || ix.Pipeline != tt.pipeline || ix.APIKey != tt.apiKey {
				t.Errorf("index %+v", ix)
			}
			if (ix.Retries == nil) != (tt.retries == nil) || (ix.Retries != nil && *ix.Retries != *tt.retries) {
				t.Errorf("retries %v, want %v", ix.Retries, tt.retries)
			}
			if err := ix.Validate(); err != nil {
				t.Errorf("Validate: %v", err)
			}
		})
	}
}
