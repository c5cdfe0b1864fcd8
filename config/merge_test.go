package config

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func parsed(t *testing.T, yml string) *File {
	t.Helper()
	f, err := Parse([]byte(yml), "test")
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestMerge: the rules of Merge, each with the traps of combining an Enterprise Search
// settings file, an Open Crawler file and amber's YAML.
func TestMerge(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b string
		want string // amber YAML of the result; "" with wantErr
		// wantErr, when not empty, are texts the error must hold.
		wantErr []string
	}{
		{name: "keys of one file each", a: "workers: 4\nlimits: {time: 1h}\n", b: "seeds: [https://example.org/]\nscope: {max_crawl_depth: 3}\n",
			want: "seeds: [https://example.org/]\nworkers: 4\nlimits: {time: 1h}\nscope: {max_crawl_depth: 3}\n"},
		{name: "same value twice", a: "workers: 4\nuser_agent: UA\n", b: "workers: 4\nuser_agent: UA\n", want: "workers: 4\nuser_agent: UA\n"},
		{name: "scalars disagree", a: "workers: 4\n", b: "workers: 8\n", wantErr: []string{"workers is 4 in a.yml and 8 in b.yml"}},
		{name: "pointers disagree", a: "scope: {max_crawl_depth: 5}\n", b: "scope: {max_crawl_depth: 3}\n", wantErr: []string{"scope.max_crawl_depth is 5 in a.yml and 3 in b.yml"}},
		{name: "durations disagree", a: "network: {connect_timeout: 10s}\n", b: "network: {connect_timeout: 5s}\n", wantErr: []string{"network.connect_timeout is 10s in a.yml and 5s in b.yml"}},
		{name: "zero is not set", a: "network: {verify_tls: true}\n", b: "network: {verify_tls: false}\n", want: "network: {verify_tls: true}\n"},
		{name: "seeds append in order", a: "seeds: [https://a.example/]\n", b: "seeds: [https://b.example/, https://a.example/]\n",
			want: "seeds: [https://a.example/, https://b.example/, https://a.example/]\n"},
		{name: "domains and CAs append", a: "scope: {domains: [{url: https://a.example}]}\nnetwork: {ca_certificates: [/a.pem]}\n",
			b:    "scope: {domains: [{url: https://b.example, crawl_rules: [deny begins /x]}]}\nnetwork: {ca_certificates: [/b.pem]}\n",
			want: "scope: {domains: [{url: https://a.example}, {url: https://b.example, crawl_rules: [deny begins /x]}]}\nnetwork: {ca_certificates: [/a.pem, /b.pem]}\n"},
		{name: "one-setting list the same", a: "documents: {deduplication_fields: [title]}\n", b: "documents: {deduplication_fields: [title]}\n",
			want: "documents: {deduplication_fields: [title]}\n"},
		{name: "one-setting list disagrees", a: "documents: {deduplication_fields: [title]}\n", b: "documents: {deduplication_fields: [title, body_content]}\n",
			wantErr: []string{"documents.deduplication_fields is one value in a.yml and one value in b.yml"}},
		{name: "maps merge by key", a: "documents: {exclude_tags: {'https://a.example': [nav]}}\npoliteness: {retries: {'503': 2}}\n",
			b:    "documents: {exclude_tags: {'https://b.example': [footer]}}\npoliteness: {retries: {'503': 2, net: 1}}\n",
			want: "documents: {exclude_tags: {'https://a.example': [nav], 'https://b.example': [footer]}}\npoliteness: {retries: {'503': 2, net: 1}}\n"},
		{name: "map key disagrees", a: "politeness: {retries: {'503': 2}}\n", b: "politeness: {retries: {'503': 3}}\n", wantErr: []string{"politeness.retries.503 is 2 in a.yml and 3 in b.yml"}},
		{name: "nested maps merge", a: "origin_headers: {'https://a.example': {X-A: '1'}}\n", b: "origin_headers: {'https://a.example': {X-B: '2'}}\n",
			want: "origin_headers: {'https://a.example': {X-A: '1', X-B: '2'}}\n"},
		{name: "a secret is not shown", a: "index: {url: 'http://127.0.0.1:9200', password: one}\n", b: "index: {password: two}\n",
			wantErr: []string{"index.password is a value (not shown) in a.yml"}},
		{name: "sections disagree", a: "proxy: http://p.example:3128\n", b: "proxy: http://q.example:3128\n", wantErr: []string{"proxy is one value in a.yml and one value in b.yml"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := parsed(t, tc.a), parsed(t, tc.b)
			got, err := Merge(Part{Name: "a.yml", File: a}, Part{Name: "b.yml", File: b})
			if len(tc.wantErr) > 0 {
				if !errors.Is(err, ErrConfig) {
					t.Fatalf("err %v, want ErrConfig", err)
				}
				for _, w := range tc.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("err %q lacks %q", err, w)
					}
				}
				if strings.Contains(err.Error(), `"one"`) || strings.Contains(err.Error(), `"two"`) {
					t.Errorf("err shows a secret: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(parsed(t, tc.want), got); d != "" {
				t.Errorf("merged (-want +got):\n%s", d)
			}
			// The parts are not changed.
			if d := cmp.Diff(parsed(t, tc.a), a); d != "" {
				t.Errorf("first part changed:\n%s", d)
			}
			if d := cmp.Diff(parsed(t, tc.b), b); d != "" {
				t.Errorf("second part changed:\n%s", d)
			}
		})
	}
}

// TestMergeConverted: the sources of converted parts name their file, with list indexes
// moved to where the entries landed; notes name their file; Render's first line names the
// files in order.
func TestMergeConverted(t *testing.T) {
	es := &Converted{File: &File{Workers: 4, Limits: Limits{Time: time.Hour}},
		Sources: map[string]string{"workers": "crawler.crawl.threads.limit"}, Notes: []string{"a note"}}
	oc := &Converted{File: &File{Seeds: []SeedSpec{{URL: "https://b.example/"}}, Auth: []AuthSpec{{Origin: "https://b.example", Type: AuthBasic, Username: "u", Password: "pw"}}},
		Sources:    map[string]string{"seeds[0]": "domains[0].seed_urls", "auth[0]": "domains[0].auth"},
		SecretFrom: map[string]string{"auth[0].password": "domains[0].auth.password"}}
	amber := parsed(t, "seeds: [https://a.example/]\nauth: [{origin: 'https://a.example', type: basic, username: x, password: 'env:A'}]\n")
	cv, err := MergeConverted(
		Part{Name: "enterprise-search.yml", File: es.File, Converted: es, Title: "the Enterprise Search settings enterprise-search.yml"},
		Part{Name: "amber.yaml", File: amber, Title: "amber's own amber.yaml"},
		Part{Name: "crawler.yml", File: oc.File, Converted: oc, Title: "the Elastic Open Crawler file crawler.yml"},
	)
	if err != nil {
		t.Fatal(err)
	}
	wantSources := map[string]string{"workers": "enterprise-search.yml: crawler.crawl.threads.limit",
		"seeds[1]": "crawler.yml: domains[0].seed_urls", "auth[1]": "crawler.yml: domains[0].auth"}
	if d := cmp.Diff(wantSources, cv.Sources); d != "" {
		t.Errorf("sources (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]string{"auth[1].password": "crawler.yml: domains[0].auth.password"}, cv.SecretFrom); d != "" {
		t.Errorf("secrets (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"enterprise-search.yml: a note"}, cv.Notes); d != "" {
		t.Errorf("notes (-want +got):\n%s", d)
	}
	out, err := cv.Render("")
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(out), "\n")
	if want := "# amber crawl config converted from several files, combined in this order: the Enterprise Search settings enterprise-search.yml; amber's own amber.yaml; the Elastic Open Crawler file crawler.yml."; first != want {
		t.Errorf("first line %q\nwant %q", first, want)
	}
	for _, want := range []string{"password: env:A", "password: env:AMBER_AUTH_1_PASSWORD", "AMBER_AUTH_1_PASSWORD: the value of crawler.yml: domains[0].auth.password", "# from crawler.yml: domains[0].seed_urls"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("rendering lacks %q:\n%s", want, out)
		}
	}
}
