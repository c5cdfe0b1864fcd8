package config

import (
	"os"
	"path/filepath"
	"testing"
)

// TestClientCertPaths: network.client_cert and client_key are read relative to the config
// file; absolute paths stay as they are.
func TestClientCertPaths(t *testing.T) {
	dir := t.TempDir()
	abs := filepath.Join(t.TempDir(), "key.pem")
	tests := []struct {
		name, yaml        string
		wantCert, wantKey string
	}{
		{name: "relative", yaml: "network: {client_cert: certs/c.pem, client_key: certs/k.pem}",
			wantCert: filepath.Join(dir, "certs/c.pem"), wantKey: filepath.Join(dir, "certs/k.pem")},
		{name: "absolute", yaml: "network: {client_cert: c.pem, client_key: " + abs + "}",
			wantCert: filepath.Join(dir, "c.pem"), wantKey: abs},
		{name: "none", yaml: "network: {verify_tls: true}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(dir, "crawl.yaml")
			if err := os.WriteFile(p, []byte(tt.yaml), 0o600); err != nil {
				t.Fatal(err)
			}
			c, err := Load(p)
			if err != nil {
				t.Fatal(err)
			}
			if c.Network.ClientCert != tt.wantCert || c.Network.ClientKey != tt.wantKey {
				t.Errorf("client_cert, client_key = %q, %q; want %q, %q", c.Network.ClientCert, c.Network.ClientKey, tt.wantCert, tt.wantKey)
			}
		})
	}
}
