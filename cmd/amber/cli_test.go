package main

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/config"
	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/fetch"
)

// writeFile writes a test input file and returns its path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestExitStatus: every mistake in the command line or in a file it names exits 2, before
// anything is written; a failure while running exits 1.
func TestExitStatus(t *testing.T) {
	tmp := t.TempDir()
	badSeeds := writeFile(t, tmp, "bad-seeds.txt", "http://www.example.com/\nhttp://www.example.org/ wide\n")
	ftpSeeds := writeFile(t, tmp, "ftp-seeds.txt", "ftp://ftp.example.com/pub/\n")
	goodSeeds := writeFile(t, tmp, "seeds.txt", "http://www.example.com/\n")
	badRule := writeFile(t, tmp, "bad-rule.yaml", "seeds: [http://www.example.com/]\nscope:\n  block: [\"regex:(\"]\n")
	badKey := writeFile(t, tmp, "bad-key.yaml", "seeds: [http://www.example.com/]\nworkerz: 3\n")
	badYAML := writeFile(t, tmp, "bad.yaml", "seeds: [http://www.example.com/\n")
	badHops := writeFile(t, tmp, "bad-hops.yaml", "seeds: [http://www.example.com/]\nscope:\n  max_hops: -2\n")
	badWorkers := writeFile(t, tmp, "bad-workers.yaml", "seeds: [http://www.example.com/]\nworkers: -1\n")
	missing := filepath.Join(tmp, "missing.txt")
	notCrawl := filepath.Join(tmp, "not-a-crawl")
	if err := os.Mkdir(notCrawl, 0o755); err != nil {
		t.Fatal(err)
	}
	const url = "http://www.example.com/"

	tests := []struct {
		name string
		args []string // "DIR" is replaced by a crawl directory that must not be created
		want int
	}{
		{"no command", nil, exitUsage},
		{"unknown command", []string{"crawlx"}, exitUsage},
		{"unknown flag", []string{"crawl", "--dir", "DIR", "--nope", url}, exitUsage},
		{"bad int flag", []string{"crawl", "--dir", "DIR", "--workers", "many", url}, exitUsage},
		{"bad duration flag", []string{"crawl", "--dir", "DIR", "--host-delay", "soon", url}, exitUsage},
		{"zero workers", []string{"crawl", "--dir", "DIR", "--workers", "0", url}, exitUsage},
		{"zero host concurrency", []string{"crawl", "--dir", "DIR", "--host-concurrency", "0", url}, exitUsage},
		{"negative host delay", []string{"crawl", "--dir", "DIR", "--host-delay", "-1s", url}, exitUsage},
		{"zero max attempts", []string{"crawl", "--dir", "DIR", "--max-attempts", "0", url}, exitUsage},
		{"negative limit", []string{"crawl", "--dir", "DIR", "--limit", "-5", url}, exitUsage},
		{"bad size", []string{"crawl", "--dir", "DIR", "--size-limit", "lots", url}, exitUsage},
		{"bad WARC size", []string{"crawl", "--dir", "DIR", "--warc-max-size", "0", url}, exitUsage},
		{"bad connect-to", []string{"crawl", "--dir", "DIR", "--connect-to", "nonsense", url}, exitUsage},
		{"bad log level", []string{"crawl", "--dir", "DIR", "--log-level", "loud", url}, exitUsage},
		{"unknown fetcher", []string{"crawl", "--dir", "DIR", "--fetcher", "wget", url}, exitUsage},
		{"unknown flavour", []string{"crawl", "--dir", "DIR", "--flavour", "wide", url}, exitUsage},
		{"negative max hops", []string{"crawl", "--dir", "DIR", "--max-hops", "-1", url}, exitUsage},
		{"zero max url length", []string{"crawl", "--dir", "DIR", "--max-url-length", "0", url}, exitUsage},
		{"zero max outlinks", []string{"crawl", "--dir", "DIR", "--max-outlinks", "0", url}, exitUsage},
		{"bad min free space", []string{"crawl", "--dir", "DIR", "--min-free-space", "lots", url}, exitUsage},
		{"bad memory limit", []string{"crawl", "--dir", "DIR", "--memory-limit", "0", url}, exitUsage},
		{"WARC prefix with a slash", []string{"crawl", "--dir", "DIR", "--warc-prefix", "../x", url}, exitUsage},
		{"bad exclude rule", []string{"crawl", "--dir", "DIR", "--exclude", "regex:(", url}, exitUsage},
		{"bad include rule kind", []string{"crawl", "--dir", "DIR", "--include", "glob:*", url}, exitUsage},
		{"unsupported seed scheme", []string{"crawl", "--dir", "DIR", "ftp://ftp.example.com/"}, exitUsage},
		{"unsupported scheme in seeds file", []string{"crawl", "--dir", "DIR", ftpSeeds}, exitUsage},
		{"malformed seeds file", []string{"crawl", "--dir", "DIR", badSeeds}, exitUsage},
		{"malformed --seeds file", []string{"crawl", "--dir", "DIR", "--seeds", badSeeds}, exitUsage},
		{"missing seeds file", []string{"crawl", "--dir", "DIR", missing}, exitUsage},
		{"missing --seeds file", []string{"crawl", "--dir", "DIR", "--seeds", missing, goodSeeds}, exitUsage},
		{"missing config", []string{"crawl", "--dir", "DIR", "--config", missing}, exitUsage},
		{"config with a bad rule", []string{"crawl", "--dir", "DIR", "--config", badRule}, exitUsage},
		{"config with an unknown key", []string{"crawl", "--dir", "DIR", "--config", badKey}, exitUsage},
		{"config that is not YAML", []string{"crawl", "--dir", "DIR", "--config", badYAML}, exitUsage},
		{"config with negative hops", []string{"crawl", "--dir", "DIR", "--config", badHops}, exitUsage},
		{"config with negative workers", []string{"crawl", "--dir", "DIR", "--config", badWorkers}, exitUsage},
		{"no seeds", []string{"crawl", "--dir", "DIR"}, exitUsage},
		{"help on an unknown topic", []string{"help", "nonsense"}, exitUsage},
		{"report without a directory", []string{"report"}, exitUsage},
		{"report on a missing directory", []string{"report", missing}, exitUsage},
		{"report on a directory that is not a crawl", []string{"report", notCrawl}, exitUsage},
		{"scope without check", []string{"scope"}, exitUsage},
		{"scope check without config", []string{"scope", "check", url}, exitUsage},
		{"scope check with a missing config", []string{"scope", "check", "--config", missing, url}, exitUsage},
		{"scope check with a bad rule", []string{"scope", "check", "--config", badRule, url}, exitUsage},
		{"scope check of a URL that does not parse", []string{"scope", "check", "--config", goodConfig(t, tmp), "http://[::1"}, exitUsage},
		{"crawl directory cannot be created", []string{"crawl", "--dir", "/dev/null/crawl", "--quiet", url}, exitFailure},
		{"version", []string{"version"}, exitOK},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(tmp, "crawl", string(rune('a'+i%26))+strings.Repeat("x", i/26))
			args := make([]string, len(tt.args))
			for j, a := range tt.args {
				if a == "DIR" {
					a = dir
				}
				args[j] = a
			}
			var stdout, stderr bytes.Buffer
			err := run(t.Context(), args, strings.NewReader(""), &stdout, &stderr)
			if got := exitCode(err); got != tt.want {
				t.Fatalf("exit status %d, want %d (err: %v)", got, tt.want, err)
			}
			if _, serr := os.Stat(dir); !os.IsNotExist(serr) {
				t.Errorf("crawl directory created despite the mistake: %v", serr)
			}
		})
	}
	// amber report created nothing in a directory that is not a crawl.
	if ents, err := os.ReadDir(notCrawl); err != nil || len(ents) != 0 {
		t.Errorf("not-a-crawl directory after amber report: %v, %v; want empty", ents, err)
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Errorf("amber report created %s: %v", missing, err)
	}
}

// goodConfig writes a valid config with one seed.
func goodConfig(t *testing.T, dir string) string {
	return writeFile(t, dir, "good.yaml", "seeds: [http://www.example.com/]\n")
}

// TestErrorsNameTheProblem: a mistake's message says where it is (file and line, the rule, the
// flag, the field) so the archivist can fix it.
func TestErrorsNameTheProblem(t *testing.T) {
	tmp := t.TempDir()
	badSeeds := writeFile(t, tmp, "bad-seeds.txt", "http://www.example.com/\nhttp://www.example.org/ wide\n")
	badRule := writeFile(t, tmp, "bad-rule.yaml", "seeds: [http://www.example.com/]\nscope:\n  block: [\"regex:(\"]\n")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"seeds file line", []string{"crawl", badSeeds}, "bad-seeds.txt:2"},
		{"rule in config", []string{"crawl", "--config", badRule}, "scope.block[0]"},
		{"flag value", []string{"crawl", "--size-limit", "lots", "http://a.example/"}, "--size-limit"},
		{"connect-to", []string{"crawl", "--connect-to", "nonsense", "http://a.example/"}, "--connect-to"},
		{"field", []string{"crawl", "--workers", "0", "http://a.example/"}, "Workers"},
		{"unknown flag", []string{"crawl", "--nope", "http://a.example/"}, "nope"},
		{"unknown command", []string{"crawlx"}, "crawlx"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(t.Context(), tt.args, nil, &stdout, &stderr)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v does not mention %q", err, tt.want)
			}
		})
	}
	// A zero --workers is refused as crawl.Validate refuses it, not replaced by the default.
	err := run(t.Context(), []string{"crawl", "--workers", "0", "http://a.example/"}, nil, new(bytes.Buffer), new(bytes.Buffer))
	var fe *crawl.FieldError
	if !errors.As(err, &fe) || fe.Field != "Workers" || !errors.Is(err, crawl.ErrConfig) {
		t.Errorf("--workers 0: %v, want a crawl.FieldError for Workers", err)
	}
}

// TestHelp: help goes to stdout, with exit status 0, however it is asked for.
func TestHelp(t *testing.T) {
	tests := []struct {
		args []string
		want []string // in stdout
	}{
		{[]string{"help"}, []string{"amber crawl", "amber help"}},
		{[]string{"--help"}, []string{"amber crawl"}},
		{[]string{"-h"}, []string{"amber crawl"}},
		{[]string{"crawl", "--help"}, []string{"-max-hops", "-warc-prefix", "-seeds", "Exit status", "14", "11"}},
		{[]string{"crawl", "-h"}, []string{"-max-hops"}},
		{[]string{"crawl", "http://a.example/", "--help"}, []string{"-max-hops"}},
		{[]string{"help", "crawl"}, []string{"Usage: amber crawl", "-user-agent", "Exit status"}},
		{[]string{"help", "scope"}, []string{"amber scope check", "-config"}},
		{[]string{"scope", "--help"}, []string{"amber scope check"}},
		{[]string{"scope", "check", "-h"}, []string{"amber scope check", "-flavour"}},
		{[]string{"help", "report"}, []string{"amber report DIR"}},
		{[]string{"report", "--help"}, []string{"amber report DIR"}},
		{[]string{"help"}, []string{"amber replay"}},
		{[]string{"help", "replay"}, []string{"Usage: amber replay", "--listen", "--at", "ca.pem", "Exit status"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(t.Context(), tt.args, nil, &stdout, &stderr)
			if code := exitCode(err); code != exitOK {
				t.Fatalf("exit status %d (%v), want 0", code, err)
			}
			for _, w := range tt.want {
				if !strings.Contains(stdout.String(), w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout.String())
				}
			}
			if stderr.Len() != 0 {
				t.Errorf("stderr = %q, want nothing", stderr.String())
			}
		})
	}
	// The crawl help shows the defaults of crawl.DefaultConfig.
	var stdout bytes.Buffer
	if err := run(t.Context(), []string{"help", "crawl"}, nil, &stdout, new(bytes.Buffer)); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"(default 8)", "(default 1s)", `(default "1GB")`, `(default "100MiB")`, "(default 10s)"} {
		if !strings.Contains(stdout.String(), w) {
			t.Errorf("crawl help lacks %q", w)
		}
	}
}

// TestCrawlConfig: the crawl configuration is crawl.DefaultConfig, overlaid with the YAML
// config, overlaid with the flags that were given; nothing is defaulted twice.
func TestCrawlConfig(t *testing.T) {
	tmp := t.TempDir()
	cfgFile := writeFile(t, tmp, "c.yaml", `collection: museum
seeds: [http://www.example.com/]
workers: 3
politeness:
  host_delay: 250ms
  max_attempts: 5
warc:
  prefix: from-yaml
  max_size: 10MB
scope:
  max_hops: 7
  max_url_length: 500
limits:
  max_outlinks: 100
  min_free_space: 2GB
`)
	moreSeeds := writeFile(t, tmp, "more.txt", "http://www.example.org/ one-page\n")
	d := crawl.DefaultConfig()

	type view struct {
		Collection, WARCPrefix, Fetcher, UserAgent string
		Workers, HostConcurrency, MaxAttempts      int
		HostDelay, RetryDelay                      time.Duration
		WARCMaxSize, MaxResponseSize               int64
		Seeds                                      int
		MaxHops                                    int // -1: not set
		MaxOutlinks, MaxURLLength                  int
		MinFreeSpace                               int64
	}
	viewOf := func(c crawl.Config) view {
		v := view{c.Collection, c.WARCPrefix, c.Fetcher, c.Fetch.UserAgent, c.Workers, c.HostConcurrency,
			c.MaxAttempts, c.HostDelay, c.RetryDelay, c.WARCMaxSize, c.Fetch.MaxResponseSize, len(c.Scope.Seeds), -1,
			c.MaxOutlinks, c.Scope.MaxURLLength, c.MinFreeSpace}
		if c.Scope.MaxHops != nil {
			v.MaxHops = *c.Scope.MaxHops
		}
		return v
	}
	tests := []struct {
		name string
		args []string
		want view
	}{
		{"defaults", []string{"http://www.example.com/"}, view{
			d.Collection, "", d.Fetcher, d.Fetch.UserAgent, d.Workers, d.HostConcurrency, d.MaxAttempts,
			d.HostDelay, d.RetryDelay, d.WARCMaxSize, 0, 1, -1, d.MaxOutlinks, 0, 0}},
		{"config", []string{"--config", cfgFile}, view{
			"museum", "from-yaml", d.Fetcher, d.Fetch.UserAgent, 3, d.HostConcurrency, 5,
			250 * time.Millisecond, d.RetryDelay, 10e6, 0, 1, 7, 100, 500, 2e9}},
		{"flags over config", []string{"--config", cfgFile, "--workers", "2", "--host-delay", "0",
			"--warc-prefix", "P", "--max-hops", "2", "--seeds", moreSeeds, "--max-response-size", "1MiB",
			"--user-agent", "ua", "--warc-max-size", "2GB", "--max-outlinks", "10", "--max-url-length", "300",
			"--min-free-space", "off"}, view{
			"museum", "P", d.Fetcher, "ua", 2, d.HostConcurrency, 5, 0, d.RetryDelay, 2e9, 1 << 20, 2, 2, 10, 300, -1}},
		{"zero flag stays zero", []string{"--workers", "0", "http://www.example.com/"}, view{
			d.Collection, "", d.Fetcher, d.Fetch.UserAgent, 0, d.HostConcurrency, d.MaxAttempts,
			d.HostDelay, d.RetryDelay, d.WARCMaxSize, 0, 1, -1, d.MaxOutlinks, 0, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := parseCrawlArgs(append([]string{"--dir", filepath.Join(tmp, "crawl")}, tt.args...))
			if err != nil {
				t.Fatal(err)
			}
			cfg, _, err := buildConfig(a)
			if err != nil {
				t.Fatal(err)
			}
			c, err := crawlConfig(cfg, a)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, viewOf(c)); diff != "" {
				t.Errorf("crawl config (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEffectiveConfigRoundTrip: crawl.yaml records what ran, and reading it back (a resumed
// crawl with no seeds given) gives the same crawl configuration.
func TestEffectiveConfigRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "crawl")
	args := []string{"--dir", dir, "--workers", "3", "--host-delay", "0", "--warc-prefix", "p",
		"--connect-to", "::127.0.0.1:8080", "--allow-private", "--max-hops", "4", "http://www.example.com/"}
	first := mustCrawlConfig(t, args)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, crawl.ConfigFile, string(first.EffectiveConfig))
	resumed := mustCrawlConfig(t, []string{"--dir", dir})
	opts := cmp.Options{
		cmp.Comparer(func(a, b fetch.ConnectTo) bool { return a.String() == b.String() }),
		cmp.FilterPath(func(p cmp.Path) bool {
			// Logger, LiveStatus: not set here; EffectiveConfig compared below; Fetch.Jar: a
			// new empty jar each run, compared below.
			s := p.String()
			return s == "Logger" || s == "LiveStatus" || s == "EffectiveConfig" || s == "Fetch.Jar"
		}, cmp.Ignore()),
	}
	if first.Fetch.Jar == nil || resumed.Fetch.Jar == nil || first.Fetch.Jar == resumed.Fetch.Jar {
		t.Errorf("cookie jars %p, %p: want one of its own in each run", first.Fetch.Jar, resumed.Fetch.Jar)
	}
	if diff := cmp.Diff(first, resumed, opts); diff != "" {
		t.Errorf("resumed config (-first +resumed):\n%s", diff)
	}
	if !bytes.Equal(first.EffectiveConfig, resumed.EffectiveConfig) {
		t.Errorf("crawl.yaml changed on resume:\n%s\n---\n%s", first.EffectiveConfig, resumed.EffectiveConfig)
	}
	parsed, err := config.Parse(first.EffectiveConfig, "crawl.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if parsed.Workers != 3 || parsed.WARC.Prefix != "p" || parsed.Scope.MaxHops == nil || *parsed.Scope.MaxHops != 4 {
		t.Errorf("crawl.yaml does not record the flags:\n%s", first.EffectiveConfig)
	}
}

func mustCrawlConfig(t *testing.T, args []string) crawl.Config {
	t.Helper()
	a, err := parseCrawlArgs(args)
	if err != nil {
		t.Fatal(err)
	}
	cfg, _, err := buildConfig(a)
	if err != nil {
		t.Fatal(err)
	}
	c, err := crawlConfig(cfg, a)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestCrawlEndStatus crawls the basic test site to a limit and with the context cancelled:
// each end has its exit status, and a summary on stdout.
func TestCrawlEndStatus(t *testing.T) {
	site := startBasic(t)
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	tests := []struct {
		name    string
		ctx     context.Context
		extra   []string
		want    int
		summary string
	}{
		{"limit", t.Context(), []string{"--limit", "1"}, exitLimit, "stopped at a limit"},
		{"interrupted", cancelled, nil, exitInterrupted, "interrupted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "crawl")
			args := append([]string{"crawl", "--dir", dir, "--connect-to", site.ConnectTo(), "--allow-private",
				"--host-delay", "0", "--quiet", "http://www.example.com/"}, tt.extra...)
			var stdout, stderr bytes.Buffer
			err := run(tt.ctx, args, nil, &stdout, &stderr)
			if got := exitCode(err); got != tt.want {
				t.Fatalf("exit status %d (%v), want %d\n%s", got, err, tt.want, stderr.String())
			}
			if !strings.Contains(stdout.String(), tt.summary) {
				t.Errorf("stdout lacks %q:\n%s", tt.summary, stdout.String())
			}
		})
	}
}

func TestEndStatus(t *testing.T) {
	tests := []struct {
		end  string
		want int
	}{
		{crawl.EndFinished, exitOK},
		{crawl.EndAlreadyFinished, exitOK},
		{crawl.EndLimit, exitLimit},
		{crawl.EndCancelled, exitInterrupted},
	}
	for _, tt := range tests {
		if got := exitCode(endStatus(crawl.Result{End: tt.end})); got != tt.want {
			t.Errorf("%s: exit status %d, want %d", tt.end, got, tt.want)
		}
	}
}

// TestMemoryLimit: --memory-limit over limits.memory over the default; "off" is Go's own
// default (no limit); the value is recorded in the config (crawl.yaml) as it reads back.
func TestMemoryLimit(t *testing.T) {
	for _, tc := range []struct {
		name     string
		yaml     string
		flags    []string
		want     int64
		recorded string
		wantErr  bool
	}{
		{name: "default", want: config.DefaultMemoryLimit, recorded: "96MiB"},
		{name: "config", yaml: "64MiB", want: 64 << 20, recorded: "64MiB"},
		{name: "flag over config", yaml: "64MiB", flags: []string{"--memory-limit", "1GiB"}, want: 1 << 30, recorded: "1GiB"},
		{name: "off", flags: []string{"--memory-limit", "OFF"}, want: math.MaxInt64, recorded: "off"},
		{name: "config off", yaml: "off", want: math.MaxInt64, recorded: "off"},
		{name: "zero", flags: []string{"--memory-limit", "0"}, wantErr: true},
		{name: "not a size", yaml: "plenty", wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := parseCrawlArgs(append(tc.flags, "http://www.example.com/"))
			if err != nil {
				t.Fatal(err)
			}
			cfg := &config.File{Limits: config.Limits{Memory: tc.yaml}}
			got, err := memoryLimit(cfg, a)
			if (err != nil) != tc.wantErr {
				t.Fatalf("memoryLimit: err = %v, want error %v", err, tc.wantErr)
			}
			if err != nil {
				return
			}
			if got != tc.want || cfg.Limits.Memory != tc.recorded {
				t.Errorf("memoryLimit = %d, recorded %q; want %d, %q", got, cfg.Limits.Memory, tc.want, tc.recorded)
			}
			if back, err := config.ParseMemoryLimit(cfg.Limits.Memory); err != nil || back != got {
				t.Errorf("recorded %q reads back as %d, %v; want %d", cfg.Limits.Memory, back, err, got)
			}
		})
	}
}
