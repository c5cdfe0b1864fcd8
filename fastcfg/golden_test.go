package fastcfg

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/scope"
	"github.com/amber-crawler/amber/seeds"
)

var update = flag.Bool("update", false, "rewrite the golden conversions and the table of docs/fast.md")

// TestExamples converts the examples of the specification's §3, copied from it as they are
// (testdata/examples/NN-*.xml; the markdown's page breaks split §3.2 into several code blocks,
// the first closed with end tags of its own, which are joined here, and §3.3 has two files,
// one per form it shows), and compares the rendering with NN-*.yaml. Each conversion must read
// back as amber YAML and, when it has start URIs, build a scope and the fetchers' access.
func TestExamples(t *testing.T) {
	files, err := filepath.Glob("testdata/examples/*.xml")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 13 {
		t.Fatalf("%d examples, want 13 (§3.1-3.12, §3.3 twice)", len(files))
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".xml")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if !IsFAST(data) {
				t.Fatal("IsFAST = false")
			}
			cfg, cv, err := Load(f, "", false)
			if err != nil {
				t.Fatal(err)
			}
			out, err := Render(cv, "testdata/examples/"+name+".xml")
			if err != nil {
				t.Fatal(err)
			}
			golden := strings.TrimSuffix(f, ".xml") + ".yaml"
			if *update {
				if err := os.WriteFile(golden, out, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), string(out)); diff != "" {
				t.Errorf("rendering differs from %s (-want +got; go test -update rewrites it):\n%s", golden, diff)
			}
			checkConversion(t, cfg, out)
		})
	}
}

// checkConversion checks that a rendered conversion reads back as the configuration it came
// from, and that the configuration builds a scope (when it has seeds) and the fetchers' access.
func checkConversion(t *testing.T, cfg *seeds.Config, rendered []byte) {
	t.Helper()
	back, err := seeds.ParseConfig(rendered, "rendered.yaml")
	if err != nil {
		t.Fatalf("the rendering does not read back: %v", err)
	}
	// Render writes each secret as an env: reference, which the conversion holds as it is.
	for i := range min(len(back.Auth), len(cfg.Auth)) {
		if _, env := cfg.Auth[i].Password.Env(); !env {
			back.Auth[i].Password = cfg.Auth[i].Password
		}
	}
	if back.Proxy != nil && cfg.Proxy != nil {
		if _, env := cfg.Proxy.Password.Env(); !env {
			back.Proxy.Password = cfg.Proxy.Password
		}
	}
	a, err := cfg.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	b, err := back.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(a), string(b)); diff != "" {
		t.Errorf("the rendering reads back as another configuration (-converted +read back):\n%s", diff)
	}
	env := func(string) (string, bool) { return "secret", true }
	if _, err := back.Access(env); err != nil {
		t.Errorf("Access: %v", err)
	}
	if len(cfg.Seeds) == 0 {
		if !bytes.Contains(rendered, []byte("# - note: start_uris: none in the file")) {
			t.Error("no start URIs and no note saying so")
		}
		return
	}
	sc, err := back.ScopeConfig(scope.Standard)
	if err != nil {
		t.Fatalf("ScopeConfig: %v", err)
	}
	if _, err := scope.New(sc); err != nil {
		t.Fatalf("scope.New: %v", err)
	}
}

// TestSubcollectionForms checks §3.3's claim: the SubDomain element and the subdomains
// section are the same configuration.
func TestSubcollectionForms(t *testing.T) {
	a, _, err := Load("testdata/examples/03a-subcollection-element.xml", "", false)
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := Load("testdata/examples/03b-subcollection-section.xml", "", false)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("the two forms convert differently (-element +section):\n%s", diff)
	}
}

func TestRender(t *testing.T) {
	cv := &seeds.Converted{Config: &seeds.Config{Collection: "c"}, Sources: map[string]string{"collection": "info"}, Notes: []string{"ignored: x: y"}}
	out, err := Render(cv, "crawler.xml (DomainSpecification d)")
	if err != nil {
		t.Fatal(err)
	}
	want := "# amber crawl config converted from the FAST crawler configuration (MS-FSCCFG) crawler.xml (DomainSpecification d).\n" +
		"# A comment after a key names the key it came from.\n" +
		"collection: c # from info\n\n" +
		"# What amber does differently:\n# - ignored: x: y\n"
	if diff := cmp.Diff(want, string(out)); diff != "" {
		t.Errorf("Render (-want +got):\n%s", diff)
	}
}
