package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/amber-crawler/amber/internal/crawltest"
)

func museumsConfig(t *testing.T) string {
	return filepath.Join(crawltest.ModuleRoot(t), "testdata", "scope", "museums.yaml")
}

func TestScopeCheckArgs(t *testing.T) {
	var stdout, stderr bytes.Buffer
	args := []string{"scope", "check", "--config", museumsConfig(t),
		"https://www.example.com/about.html", "http://example.com/", "http://www.example.com/login/x", "mailto:a@b.c"}
	if err := run(t.Context(), args, nil, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	want := []checkOutput{
		{URL: "https://www.example.com/about.html", Canonical: "https://www.example.com/about.html", Decision: "in", Reason: "seed-prefix"},
		{URL: "http://example.com/", Canonical: "http://example.com/", Decision: "out", Reason: "out-of-scope"},
		{URL: "http://www.example.com/login/x", Canonical: "http://www.example.com/login/x", Decision: "out", Reason: "block:contains:/login host:example.com"},
		{URL: "mailto:a@b.c", Canonical: "mailto:a@b.c", Decision: "out", Reason: "scheme"},
	}
	if diff := cmp.Diff(want, decodeOutputs(t, stdout.String())); diff != "" {
		t.Errorf("decisions (-want +got):\n%s", diff)
	}
}

func TestScopeCheckStdin(t *testing.T) {
	in := strings.Join([]string{
		// An embed of a page two links deep is in from any host.
		`{"url": "http://cdn.example.io/a.png", "hops": "LLE", "via": "http://www.example.com/x/y.html"}`,
		// One hop off a standard+ seed is in; two hops off is not.
		`{"url": "http://elsewhere.example/", "hops": "L", "seed": "https://news.example.org/2026/", "via": "https://news.example.org/2026/a.html"}`,
		`{"url": "http://elsewhere.example/b", "hops": "LL", "seed": "https://news.example.org/2026/", "via": "http://elsewhere.example/", "via_hops_off": 1}`,
		// A one-page seed's accept rule is honoured in the standard flavour.
		`{"url": "https://example.net/files/a.pdf", "seed": "https://example.net/report.html", "via": "https://example.net/report.html"}`,
		// The seen seed redirect's target is a seed: its site is in scope.
		`{"url": "http://example.edu/courses/", "seed": "http://example.edu/"}`,
		``,
		`{"url": "http://www.example.com/disk.iso", "hops": "LE"}`,
		`{"url": "http://www.example.com/deep", "hops": "` + strings.Repeat("L", 101) + `"}`,
	}, "\n")
	var stdout, stderr bytes.Buffer
	args := []string{"scope", "check", "--config", museumsConfig(t)}
	if err := run(t.Context(), args, strings.NewReader(in), &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	got := decodeOutputs(t, stdout.String())
	wantDecisions := []struct{ decision, reason string }{
		{"in", "embed"}, {"in", "one-hop-off"}, {"out", "out-of-scope"},
		{"in", "accept:surt:http://(net,example,)/files/"}, {"in", "seed-prefix"},
		{"out", "block:regex:.*\\.iso$"}, {"out", "max-hops"},
	}
	if len(got) != len(wantDecisions) {
		t.Fatalf("got %d decisions, want %d:\n%s", len(got), len(wantDecisions), stdout.String())
	}
	for i, w := range wantDecisions {
		if got[i].Decision != w.decision || got[i].Reason != w.reason {
			t.Errorf("line %d (%s): %s/%s, want %s/%s", i+1, got[i].URL, got[i].Decision, got[i].Reason, w.decision, w.reason)
		}
	}

	// Malformed input: an error that names the line.
	stdout.Reset()
	bad := `{"url": "http://www.example.com/"}` + "\n" + `{"url": 12}` + "\n"
	err := run(t.Context(), args, strings.NewReader(bad), &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("err = %v, want one naming line 2", err)
	}
	for _, bad := range []string{`{"hops": "L"}`, `{"url": "http://a/", "extra": 1}`, `not json`} {
		if err := run(t.Context(), args, strings.NewReader(bad), &stdout, &stderr); err == nil || !strings.Contains(err.Error(), "line 1") {
			t.Errorf("%s: err = %v, want one naming line 1", bad, err)
		}
	}
}

func TestScopeCheckBrozzlerFlavour(t *testing.T) {
	var stdout, stderr bytes.Buffer
	// Brozzler scopes in only the seed's protocol and string prefix.
	args := []string{"scope", "check", "--config", museumsConfig(t), "--flavour", "brozzler",
		"http://www.example.com/about.html", "https://www.example.com/about.html"}
	if err := run(t.Context(), args, nil, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	got := decodeOutputs(t, stdout.String())
	if len(got) != 2 || got[0].Decision != "in" || got[1].Decision != "out" {
		t.Errorf("brozzler decisions: %+v", got)
	}
}

func decodeOutputs(t *testing.T, s string) []checkOutput {
	t.Helper()
	var out []checkOutput
	for _, line := range strings.Split(strings.TrimSpace(s), "\n") {
		if line == "" {
			continue
		}
		var o checkOutput
		if err := json.Unmarshal([]byte(line), &o); err != nil {
			t.Fatalf("output line %q: %v", line, err)
		}
		out = append(out, o)
	}
	return out
}

// TestScopeCheckElastic checks URLs against an Elastic Open Crawler file as it is (the test
// site's crawler.yml): the elastic flavour's reasons, and for each URL left out the change
// that would bring it in.
func TestScopeCheckElastic(t *testing.T) {
	cfg := filepath.Join(crawltest.ModuleRoot(t), "testdata", "sites", "elastic", "crawler.yml")
	in := strings.Join([]string{
		`{"url": "http://www.example.com/about.html"}`,
		`{"url": "http://www.example.com/blog/2021/post.html"}`,
		`{"url": "http://www.example.com/products/widget.html.bak"}`,
		`{"url": "http://elsewhere.example.net/"}`,
		`{"url": "http://cdn.example.net/logo.png", "hops": "LE", "via": "http://www.example.com/about.html"}`,
		`{"url": "http://www.example.com/deep/2.html", "hops": "LL"}`,
		`{"url": "http://www.example.com/deep/3.html", "hops": "LLL"}`,
		`{"url": "http://www.example.com/deep/3.html", "hops": "LLLPMM"}`,
		`{"url": "http://docs.example.com/docs/v2/guide.pdf"}`,
		`{"url": "http://docs.example.com/docs/v2/guide.pdf?dl=1"}`,
	}, "\n")
	var stdout, stderr bytes.Buffer
	if err := run(t.Context(), []string{"scope", "check", "--config", cfg}, strings.NewReader(in), &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	want := []struct{ decision, reason, suggestion string }{
		{"in", "domain", ""},
		{"out", "crawl-rule:1:deny:begins:/blog", "add crawl rule 'allow begins /blog/2021/"},
		{"out", "crawl-rule:3:deny:ends:.bak", "crawl rule 3"},
		{"out", "out-of-domain", "add domain http://elsewhere.example.net"},
		{"in", "embed", ""},
		{"in", "domain", ""},
		{"out", "max-depth", "raise max_crawl_depth to 4"},
		{"in", "domain", ""}, // a sitemap entry is depth 1 however it was found
		{"out", "crawl-rule:1:deny:ends:.pdf", "crawl rule 1"},
		{"in", "domain", ""},
	}
	got := decodeOutputs(t, stdout.String())
	if len(got) != len(want) {
		t.Fatalf("%d decisions, want %d:\n%s", len(got), len(want), stdout.String())
	}
	for i, w := range want {
		g := got[i]
		if g.Decision != w.decision || g.Reason != w.reason || !strings.Contains(g.Suggestion, w.suggestion) || (w.suggestion == "" && g.Suggestion != "") {
			t.Errorf("%s: got %s %s %q, want %s %s %q", g.URL, g.Decision, g.Reason, g.Suggestion, w.decision, w.reason, w.suggestion)
		}
	}
}

// TestScopeCheckAddr: with ip rules, scope check decides on the host's address as the crawl
// would (network.connect_to first, literal addresses as they are), takes an "addr" given on a
// line, and with --no-resolve a host without one has none (no-address); no DNS is asked here.
func TestScopeCheckAddr(t *testing.T) {
	cfgPath := filepath.Join(t.TempDir(), "ip.yaml")
	yaml := `seeds: ["http://a.test/"]
scope:
  accept: ["ip:127.0.0.0/8"]
network:
  connect_to: ["b.test:80:127.0.0.1:80"]
`
	if err := os.WriteFile(cfgPath, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	in := strings.Join([]string{
		`{"url": "http://b.test/page"}`,
		`{"url": "http://192.0.2.1/x"}`,
		`{"url": "http://nowhere.test/y", "addr": "127.0.0.9"}`,
	}, "\n")
	check := func(extra ...string) []checkOutput {
		var stdout, stderr bytes.Buffer
		args := append([]string{"scope", "check", "--config", cfgPath}, extra...)
		if err := run(t.Context(), args, strings.NewReader(in), &stdout, &stderr); err != nil {
			t.Fatalf("%v\n%s", err, stderr.String())
		}
		return decodeOutputs(t, stdout.String())
	}
	want := []checkOutput{
		{URL: "http://b.test/page", Canonical: "http://b.test/page", Decision: "in", Reason: "accept:ip:127.0.0.0/8", Addr: "127.0.0.1"},
		{URL: "http://192.0.2.1/x", Canonical: "http://192.0.2.1/x", Decision: "out", Reason: "address", Addr: "192.0.2.1"},
		{URL: "http://nowhere.test/y", Canonical: "http://nowhere.test/y", Decision: "in", Reason: "accept:ip:127.0.0.0/8", Addr: "127.0.0.9"},
	}
	if diff := cmp.Diff(want, check(), cmpopts.IgnoreFields(checkOutput{}, "Suggestion")); diff != "" {
		t.Errorf("decisions (-want +got):\n%s", diff)
	}
	got := check("--no-resolve")
	if len(got) != 3 || got[0].Decision != "out" || got[0].Reason != "no-address" || got[0].Addr != "" || got[2].Decision != "in" {
		t.Errorf("--no-resolve: %+v; want b.test out (no-address) without an address, the given addr still used", got)
	}

	var stdout, stderr bytes.Buffer
	err := run(t.Context(), []string{"scope", "check", "--config", cfgPath}, strings.NewReader(`{"url": "http://a.test/", "addr": "not-an-address"}`), &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "addr") {
		t.Errorf("a bad addr: err %v, want one naming addr", err)
	}
}

// TestScopeCheckFetched: scope check takes a URL as the crawl takes a URL it finds, with the
// config's urls section (sort_query_params, rewrite_rules, mirrors and mirror_files): the URL
// the crawl fetches is printed as "fetched" when it is not the canonical URL, and decided, as
// the crawl decides it (a block rule that matches the fetched URL alone keeps it out).
func TestScopeCheckFetched(t *testing.T) {
	const seed = "http://www.example.com/"
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "mirrors.txt"), []byte("www.example.com filed.example.com\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		urls string // the urls section of the config
		url  string
		want checkOutput
	}{
		{"no urls section: as given", "", "http://www.example.com/a?b=2&a=1",
			checkOutput{Canonical: "http://www.example.com/a?b=2&a=1", Decision: "in", Reason: "seed-prefix"}},
		{"sorted", "sort_query_params: true", "http://www.example.com/a?b=2&a=1",
			checkOutput{Canonical: "http://www.example.com/a?b=2&a=1", Fetched: "http://www.example.com/a?a=1&b=2", Decision: "in", Reason: "seed-prefix"}},
		{"sorted already", "sort_query_params: true", "http://www.example.com/a?a=1&b=2",
			checkOutput{Canonical: "http://www.example.com/a?a=1&b=2", Decision: "in", Reason: "seed-prefix"}},
		{"the block rule matches the sorted URL", "sort_query_params: true", "http://www.example.com/s?z=1&y=2",
			checkOutput{Canonical: "http://www.example.com/s?z=1&y=2", Fetched: "http://www.example.com/s?y=2&z=1", Decision: "out", Reason: `block:regex:.*\?y=2&z=1$`}},
		{"without sorting the block rule does not match", "", "http://www.example.com/s?z=1&y=2",
			checkOutput{Canonical: "http://www.example.com/s?z=1&y=2", Decision: "in", Reason: "seed-prefix"}},
		{"rewritten into scope", `rewrite_rules: ["*^http://old\\.example\\.org/*http://www.example.com/*"]`, "http://old.example.org/x?b=2&a=1",
			checkOutput{Canonical: "http://old.example.org/x?b=2&a=1", Fetched: "http://www.example.com/x?b=2&a=1", Decision: "in", Reason: "seed-prefix"}},
		{"rewritten out of scope", `rewrite_rules: ["*^http://www\\.example\\.com/ext/*http://elsewhere.example.net/*"]`, "http://www.example.com/ext/p",
			checkOutput{Canonical: "http://www.example.com/ext/p", Fetched: "http://elsewhere.example.net/p", Decision: "out", Reason: "out-of-scope"}},
		{"rewritten and sorted", "sort_query_params: true\n  rewrite_rules: [\"*/old/*/new/*\"]", "http://www.example.com/old/p?b=2&a=1",
			checkOutput{Canonical: "http://www.example.com/old/p?b=2&a=1", Fetched: "http://www.example.com/new/p?a=1&b=2", Decision: "in", Reason: "seed-prefix"}},
		{"rewritten into another scheme", `rewrite_rules: ["#^http://www\\.example\\.com/mail/(.*)$#mailto:$1#"]`, "http://www.example.com/mail/a@example.com",
			checkOutput{Canonical: "http://www.example.com/mail/a@example.com", Fetched: "mailto:a@example.com", Decision: "out", Reason: "scheme"}},
		{"a mirror", "mirrors: [[www.example.com, mirror.example.com]]", "http://Mirror.example.com/y",
			checkOutput{Canonical: "http://mirror.example.com/y", Fetched: "http://www.example.com/y", Decision: "in", Reason: "seed-prefix"}},
		{"a mirror file's mirror", "mirror_files: [mirrors.txt]", "http://filed.example.com/z",
			checkOutput{Canonical: "http://filed.example.com/z", Fetched: "http://www.example.com/z", Decision: "in", Reason: "seed-prefix"}},
		{"the mirror before the rewrite rules", "mirrors: [[www.example.com, mirror.example.com]]\n  rewrite_rules: [\"*^http://www\\\\.example\\\\.com/m/*http://elsewhere.example.net/*\"]", "http://mirror.example.com/m/1",
			checkOutput{Canonical: "http://mirror.example.com/m/1", Fetched: "http://elsewhere.example.net/1", Decision: "out", Reason: "out-of-scope"}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			yaml := "seeds: [\"" + seed + "\"]\nscope:\n  block: [\"regex:.*\\\\?y=2&z=1$\"]\n"
			if tt.urls != "" {
				yaml += "urls:\n  " + tt.urls + "\n"
			}
			cfgPath := filepath.Join(dir, fmt.Sprintf("c%d.yaml", i))
			if err := os.WriteFile(cfgPath, []byte(yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			if err := run(t.Context(), []string{"scope", "check", "--config", cfgPath, tt.url}, nil, &stdout, &stderr); err != nil {
				t.Fatalf("%v\n%s", err, stderr.String())
			}
			want := tt.want
			want.URL = tt.url
			got := decodeOutputs(t, stdout.String())
			if diff := cmp.Diff([]checkOutput{want}, got, cmpopts.IgnoreFields(checkOutput{}, "Suggestion")); diff != "" {
				t.Errorf("decision (-want +got):\n%s", diff)
			}
			if hasKey := strings.Contains(stdout.String(), `"fetched":`); hasKey != (want.Fetched != "") {
				t.Errorf("output %s: a fetched key %v, want %v", stdout.String(), hasKey, want.Fetched != "")
			}
		})
	}
}
