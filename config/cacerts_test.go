package config

import (
	"crypto/x509"
	"encoding/pem"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
)

// TestCACertificates checks network.ca_certificates: PEM text and PEM files (relative to
// the config file) are trusted besides the system's; an entry without a certificate is
// refused.
func TestCACertificates(t *testing.T) {
	srv := httptest.NewTLSServer(nil)
	defer srv.Close()
	cert := srv.Certificate()
	text := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw}))
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ca.pem"), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "empty.pem"), []byte("nothing"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		entry string
		ok    bool
	}{
		{"PEM text", text, true},
		{"file relative to the config", "ca.pem", true},
		{"file without a certificate", "empty.pem", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &File{Seeds: []SeedSpec{{URL: "http://a.example/"}}}
			f.Network.CACertificates = []string{tc.entry}
			data, err := f.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			f, err = LoadData(data, filepath.Join(dir, "crawl.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			c, err := Build(f, Options{Dir: t.TempDir()})
			if !tc.ok {
				if err == nil {
					t.Error("accepted")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if _, err := cert.Verify(x509.VerifyOptions{Roots: c.Fetch.RootCAs, DNSName: "example.com"}); err != nil {
				t.Errorf("the server's certificate does not verify with the pool: %v", err)
			}
		})
	}
}
