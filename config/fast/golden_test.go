package fast

import (
	"bytes"
	"flag"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/config"
	"github.com/amber-crawler/amber/scope"
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
func checkConversion(t *testing.T, cfg *config.File, rendered []byte) {
	t.Helper()
	back, err := config.Parse(rendered, "rendered.yaml")
	if err != nil {
		t.Fatalf("the rendering does not read back: %v", err)
	}
	// Render writes each secret as an env: reference, which the conversion holds as it is.
	for i := range min(len(back.Auth), len(cfg.Auth)) {
		if _, env := cfg.Auth[i].Password.Env(); !env {
			back.Auth[i].Password = cfg.Auth[i].Password
		}
	}
	// Logins' parameters too: each value is an env: reference named in the rendering.
	for i := range min(len(back.Logins), len(cfg.Logins)) {
		for name, v := range back.Logins[i].Parameters {
			ev, env := v.Env()
			if !env {
				t.Errorf("logins[%d] parameter %s is rendered as a value, not an env: reference", i, name)
				continue
			}
			if _, given := cfg.Logins[i].Parameters[name].Env(); !given && !bytes.Contains(rendered, []byte("# - "+ev+": the value of ")) {
				t.Errorf("logins[%d] parameter %s: %s is not listed with the secrets", i, name, ev)
			}
			back.Logins[i].Parameters[name] = cfg.Logins[i].Parameters[name]
		}
	}
	// POST bodies too: each is an env: reference listed with the secrets.
	for i := range min(len(back.PostPayloads), len(cfg.PostPayloads)) {
		ev, env := strings.CutPrefix(back.PostPayloads[i].Body, "env:")
		if !env {
			t.Errorf("post_payloads[%d] body is rendered as a value, not an env: reference", i)
			continue
		}
		if !strings.HasPrefix(cfg.PostPayloads[i].Body, "env:") && !bytes.Contains(rendered, []byte("# - "+ev+": the body of ")) {
			t.Errorf("post_payloads[%d]: %s is not listed with the secrets", i, ev)
		}
		back.PostPayloads[i].Body = cfg.PostPayloads[i].Body
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
	if _, err := back.LoginSpecs(env); err != nil {
		t.Errorf("LoginSpecs: %v", err)
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
	cv := &config.Converted{File: &config.File{Collection: "c"}, Sources: map[string]string{"collection": "info"}, Notes: []string{"ignored: x: y"}}
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

// TestRenderLoginSecrets checks that a rendering holds no login parameter's value: each is an
// env: reference listed with the attrib it stands for, after the credentials' when there are
// some, and names that come out alike are told apart.
func TestRenderLoginSecrets(t *testing.T) {
	login := func(params map[string]config.Secret) config.LoginSpec {
		return config.LoginSpec{Name: "l", Form: "https://a.example.com/login", Parameters: params}
	}
	tests := []struct {
		name    string
		cfg     *config.File
		want    []string // lines, in order
		secrets []string // values the rendering must not hold
	}{
		{"logins only", &config.File{Logins: []config.LoginSpec{login(map[string]config.Secret{"pass": "hunter2", "user": "jane"})}},
			[]string{"      pass: env:AMBER_LOGIN_0_PASS", "      user: env:AMBER_LOGIN_0_USER",
				strings.Trim(secretsHead, "\n"),
				"# - AMBER_LOGIN_0_PASS: the value of Login[l]/parameters/pass", "# - AMBER_LOGIN_0_USER: the value of Login[l]/parameters/user",
				"", "# What amber does differently:"},
			[]string{"hunter2", "jane"}},
		{"after the credentials", &config.File{
			Auth:   []config.AuthSpec{{Realm: "r", Type: "basic", Username: "u", Password: "authpw"}},
			Logins: []config.LoginSpec{login(map[string]config.Secret{"j-pass": "p1", "j_pass": "p2", "token": "env:MY_TOKEN"})}},
			[]string{"      j-pass: env:AMBER_LOGIN_0_J_PASS", "      j_pass: env:AMBER_LOGIN_0_J_PASS_2", "      token: env:MY_TOKEN",
				"# - AMBER_AUTH_0_PASSWORD: the value of auth[0].password",
				"# - AMBER_LOGIN_0_J_PASS: the value of Login[l]/parameters/j-pass", "# - AMBER_LOGIN_0_J_PASS_2: the value of Login[l]/parameters/j_pass",
				"", "# What amber does differently:"},
			[]string{"authpw", "p1", "p2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := renderSecrets(t, tt.cfg, tt.want, tt.secrets)
			if tt.cfg.Logins[0].Parameters[slices.Sorted(maps.Keys(tt.cfg.Logins[0].Parameters))[0]] == "" {
				t.Error("Render changed the conversion's parameters")
			}
			checkConversion(t, tt.cfg, out)
		})
	}
}

// renderSecrets renders cfg (its logins[0] from Login[l]) and checks that the rendering holds
// the lines want, in that order, and none of secrets; it returns the rendering.
func renderSecrets(t *testing.T, cfg *config.File, want, secrets []string) []byte {
	t.Helper()
	cv := &config.Converted{File: cfg, Sources: map[string]string{"logins[0]": "Login[l]"}, Notes: []string{"note: start_uris: none in the file: x"}}
	out, err := Render(cv, "crawler.xml")
	if err != nil {
		t.Fatal(err)
	}
	rest := string(out)
	for _, l := range want {
		i := strings.Index(rest, l+"\n")
		if i < 0 {
			t.Fatalf("no line %q after the lines before it in:\n%s", l, out)
		}
		rest = rest[i+len(l)+1:]
	}
	for _, s := range secrets {
		if strings.Contains(string(out), s) {
			t.Errorf("the rendering holds %q:\n%s", s, out)
		}
	}
	return out
}
