package fetch

import (
	"crypto/tls"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/amber-crawler/amber/internal/certtest"
)

// TestLoadClientCert: a certificate and its key load; a missing file, a key of another
// certificate, an encrypted key and files without PEM blocks are errors that say so.
func TestLoadClientCert(t *testing.T) {
	ca := certtest.NewCA(t)
	certPEM, keyPEM := ca.Client(t, "amber")
	_, otherKey := ca.Client(t, "other")
	block, _ := pem.Decode(keyPEM)
	encrypted := pem.EncodeToMemory(&pem.Block{Type: "ENCRYPTED PRIVATE KEY", Bytes: block.Bytes})
	legacy := pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Headers: map[string]string{
		"Proc-Type": "4,ENCRYPTED", "DEK-Info": "AES-128-CBC,00112233445566778899AABBCCDDEEFF"}, Bytes: block.Bytes})
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cert, key := write("cert.pem", certPEM), write("key.pem", keyPEM)
	both := write("both.pem", append(append([]byte{}, certPEM...), keyPEM...))
	tests := []struct {
		name              string
		certFile, keyFile string
		want              error // nil: loads
	}{
		{"good", cert, key, nil},
		{"one file", both, both, nil},
		{"missing certificate", filepath.Join(dir, "none.pem"), key, fs.ErrNotExist},
		{"missing key", cert, filepath.Join(dir, "none.pem"), fs.ErrNotExist},
		{"key of another certificate", cert, write("other.pem", otherKey), ErrKeyMismatch},
		{"encrypted PKCS #8", cert, write("enc.pem", encrypted), ErrKeyEncrypted},
		{"encrypted legacy", cert, write("legacy.pem", legacy), ErrKeyEncrypted},
		{"key as certificate", key, key, ErrClientCert},
		{"certificate as key", cert, cert, ErrClientCert},
		{"not PEM", write("junk.txt", []byte("hello")), key, ErrClientCert},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := LoadClientCert(tt.certFile, tt.keyFile)
			if tt.want == nil {
				if err != nil || got == nil || len(got.Certificate) != 1 {
					t.Fatalf("LoadClientCert = %v, %v; want one certificate", got, err)
				}
				return
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("LoadClientCert: %v; want %v", err, tt.want)
			}
		})
	}
}

// TestClientCert: with Config.ClientCert the client gets through a server that requires a
// client certificate (tls.RequireAndVerifyClientCert), which sees the certificate; without
// it, or with one the server's authority did not sign, the server refuses it.
func TestClientCert(t *testing.T) {
	ca := certtest.NewCA(t)
	ts := ca.StartServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "hello "+certtest.ClientName(r))
	}))
	good, err := LoadClientCert(ca.ClientFiles(t, "amber-crawler"))
	if err != nil {
		t.Fatal(err)
	}
	stranger, err := LoadClientCert(certtest.NewCA(t).ClientFiles(t, "stranger"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		cert *tls.Certificate
		want string // the body; "": refused
	}{
		{"certificate", good, "hello amber-crawler"},
		{"none", nil, ""},
		{"another authority's", stranger, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := NewClient(Config{UserAgent: testUA, AllowPrivate: true, RootCAs: ca.Pool, VerifyTLS: true, ClientCert: tt.cert})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			ex, err := c.Do(t.Context(), Request{URL: ts.URL + "/"})
			if tt.want == "" {
				if err == nil {
					ex.Close()
					t.Fatalf("status %d, want the server to refuse the request", ex.StatusCode)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer ex.Close()
			rc, err := ex.Body()
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(rc)
			rc.Close()
			if err != nil {
				t.Fatal(err)
			}
			body := string(b)
			if ex.StatusCode != 200 || body != tt.want {
				t.Errorf("got %d %q, want 200 %q", ex.StatusCode, body, tt.want)
			}
		})
	}
}
