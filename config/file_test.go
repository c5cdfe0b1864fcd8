package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/scope"
)

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "more.txt"), []byte("https://example.net/ one-page\n"), 0o644)
	cfgPath := filepath.Join(dir, "crawl.yaml")
	os.WriteFile(cfgPath, []byte(`
collection: museums
operator: Jane Doe <jane@example.org>
seeds:
  - https://example.com/
  - url: http://example.org/news/
    type: Standard+
    accept: ["surt:http://(org,example,cdn,"]
    block:
      - {contains: /login, host: example.org}
    max_hops: 3
seeds_file: more.txt
scope:
  accept: [ "host:static.example.com" ]
  block: [ "regex:.*\\.iso$" ]
  max_hops: 50
limits:
  urls: 1000
  time: 2h
  bytes: 10GB
politeness:
  host_delay: 250ms
  host_concurrency: 2
warc:
  max_size: 100MiB
documents:
  deduplication: false
  binary_content_extraction_mime_types: [application/pdf]
  max_headings_count: 10
`), 0o644)
	c, err := Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	if c.Collection != "museums" || len(c.Seeds) != 3 || c.Seeds[2].URL != "https://example.net/" || c.Seeds[2].Type != "one-page" {
		t.Errorf("config = %+v", c)
	}
	if c.Limits.Bytes != 10e9 || c.WARC.MaxSize != 100<<20 || c.Limits.Time.Hours() != 2 || *c.Politeness.HostDelay != 250e6 {
		t.Errorf("limits = %+v, warc = %+v, delay = %v", c.Limits, c.WARC, *c.Politeness.HostDelay)
	}
	if d := c.Documents; d.Deduplication == nil || *d.Deduplication || d.Enabled != nil || d.MaxHeadingsCount != 10 || len(d.BinaryMIMETypes) != 1 {
		t.Errorf("documents = %+v", d)
	}
	sc, err := c.ScopeConfig(scope.Standard)
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Seeds) != 3 || sc.Seeds[1].Type != scope.StandardPlus || len(sc.Seeds[1].Accept) != 1 || len(sc.Seeds[1].Block) != 1 ||
		*sc.Seeds[1].MaxHops != 3 || len(sc.Accept) != 1 || len(sc.Block) != 1 || *sc.MaxHops != 50 {
		t.Errorf("scope config = %+v", sc)
	}
	if got := sc.Seeds[1].Block[0].String(); !strings.Contains(got, "contains:/login") || !strings.Contains(got, "host:example.org") {
		t.Errorf("map rule renders as %q", got)
	}

	// The effective configuration round-trips through YAML.
	out, err := c.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	c2, err := Parse(out, "effective")
	if err != nil {
		t.Fatalf("re-parse effective config: %v\n%s", err, out)
	}
	if diff := cmp.Diff(c, c2); diff != "" {
		t.Errorf("round trip (-first +second):\n%s", diff)
	}
}

func TestConfigErrors(t *testing.T) {
	tests := []struct {
		name, yaml, want string // want: a substring naming where the problem is
	}{
		{"unknown key", "seeds: [https://example.com/]\nworkerz: 3\n", "workerz"},
		{"bad rule kind", "seeds: [https://example.com/]\nscope:\n  block: [\"nope:x\"]\n", "scope.block[0]"},
		{"bad regex", "seeds:\n  - url: https://example.com/\n    accept: [\"regex:(\"]\n", "seeds[0] (https://example.com/).accept[0]"},
		{"surt without paren", "seeds: [https://example.com/]\nscope:\n  accept: [\"surt:http://org,example\"]\n", "scope.accept[0]"},
		{"bad seed type", "seeds:\n  - url: https://example.com/\n    type: huge\n", "seeds[0]"},
		{"bad seed url", "seeds: [\"example.com\"]\n", "seeds[0]"},
		{"bad flavour", "seeds: [https://example.com/]\nscope: {flavour: wide}\n", "scope.flavour"},
		{"bad size", "seeds: [https://example.com/]\nlimits: {bytes: lots}\n", "lots"},
		{"no seeds", "collection: x\n", "no seeds"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse([]byte(tt.yaml), "c.yaml")
			if err == nil {
				_, err = c.ScopeConfig(scope.Standard)
			}
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not say %q", err, tt.want)
			}
		})
	}
}

func TestParseByteSize(t *testing.T) {
	for in, want := range map[string]ByteSize{"0": 0, "1234": 1234, "10KB": 10e3, "1.5GB": 1.5e9, "100MiB": 100 << 20, "2g": 2e9, "7 B": 7} {
		got, err := ParseByteSize(in)
		if err != nil || got != want {
			t.Errorf("ParseByteSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-1", "lots", "1XB", "1e30GB"} {
		if _, err := ParseByteSize(in); !errors.Is(err, ErrConfig) {
			t.Errorf("ParseByteSize(%q): err = %v, want ErrConfig", in, err)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("seeds: [https://example.com/]\nscope: {block: [\"contains:/x\"]}\n"))
	f.Add([]byte("seeds:\n  - url: http://a.b/\n    accept: [{regex: '.*', host: a.b}]\n"))
	f.Add([]byte(accessYAML))
	f.Fuzz(func(t *testing.T, in []byte) {
		c, err := Parse(in, "fuzz.yaml")
		if err != nil {
			return
		}
		c.ScopeConfig(scope.Standard) // must not panic
		c.Access(func(string) (string, bool) { return "", true })
		out, err := c.Marshal()
		if err != nil {
			return
		}
		// What crawl.yaml writes reads back.
		if _, err := Parse(out, "crawl.yaml"); err != nil {
			t.Errorf("marshalled config does not read back: %v\n%s", err, out)
		}
	})
}
