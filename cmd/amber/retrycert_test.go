package main

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRetriesAndCertConfig: politeness.retries and network.client_cert/client_key reach
// crawl.Config, --retry and --client-cert/--client-key override them, and crawl.yaml keeps
// them (the files as absolute paths) for a resumed run.
func TestRetriesAndCertConfig(t *testing.T) {
	tests := []struct {
		name, yaml        string
		flags             []string
		want              map[string]int
		wantCert, wantKey string // relative to the config's directory
		bad               bool
	}{
		{name: "none"},
		{name: "yaml", yaml: "politeness: {retries: {\"5xx\": 3, net: 1}}\nnetwork: {client_cert: c.pem, client_key: k.pem}\n",
			want: map[string]int{"5XX": 3, "net": 1}, wantCert: "c.pem", wantKey: "k.pem"},
		{name: "flags over yaml", yaml: "politeness: {retries: {\"5xx\": 3, net: 1}}\nnetwork: {client_cert: c.pem, client_key: k.pem}\n",
			flags: []string{"--retry", "5XX=0", "--retry", "ttl=2", "--client-key", "other.pem"},
			want:  map[string]int{"5XX": 0, "net": 1, "ttl": 2}, wantCert: "c.pem", wantKey: "other.pem"},
		{name: "flags only", flags: []string{"--retry", "503=4"}, want: map[string]int{"503": 4}},
		{name: "bad condition", flags: []string{"--retry", "6xx=1"}, bad: true},
		{name: "bad count", flags: []string{"--retry", "5xx=-1"}, bad: true},
		{name: "no count", flags: []string{"--retry", "5xx"}, bad: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmp := t.TempDir()
			t.Chdir(tmp) // a flag's relative path is the working directory's
			file := writeFile(t, tmp, "c.yaml", "seeds: [http://www.example.com/]\n"+tt.yaml)
			a, err := parseCrawlArgs(append([]string{"--dir", filepath.Join(tmp, "crawl"), "--config", file}, tt.flags...))
			if err != nil {
				t.Fatal(err)
			}
			cfg, _, err := buildConfig(a)
			if err != nil {
				t.Fatal(err)
			}
			c, err := crawlConfig(cfg, a)
			if tt.bad {
				if err == nil {
					t.Fatalf("crawlConfig: no error, want one for %v", tt.flags)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, c.Retries); diff != "" {
				t.Errorf("Retries (-want +got):\n%s", diff)
			}
			abs := func(p string) string {
				if p == "" {
					return ""
				}
				return filepath.Join(tmp, p)
			}
			if c.ClientCert != abs(tt.wantCert) || c.ClientKey != abs(tt.wantKey) {
				t.Errorf("ClientCert, ClientKey = %q, %q; want %q, %q", c.ClientCert, c.ClientKey, abs(tt.wantCert), abs(tt.wantKey))
			}
			again, _ := readBack(t, c)
			if diff := cmp.Diff(tt.want, again.Politeness.Retries); diff != "" {
				t.Errorf("crawl.yaml retries (-want +got):\n%s", diff)
			}
			if again.Network.ClientCert != c.ClientCert || again.Network.ClientKey != c.ClientKey {
				t.Errorf("crawl.yaml client_cert, client_key = %q, %q; want %q, %q", again.Network.ClientCert, again.Network.ClientKey, c.ClientCert, c.ClientKey)
			}
		})
	}
}
