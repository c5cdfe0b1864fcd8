// Package certtest makes TLS certificates for tests: a certificate authority, server
// certificates for 127.0.0.1 and host names, and client certificates, as PEM files, and starts
// httptest servers on 127.0.0.1 that require a client certificate the authority signed.
package certtest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

// CA is a certificate authority for one test.
type CA struct {
	Cert *x509.Certificate
	Pool *x509.CertPool // holds Cert
	key  *ecdsa.PrivateKey
	next atomic.Int64 // serial numbers
}

// NewCA makes a certificate authority valid for a day.
func NewCA(t testing.TB) *CA {
	t.Helper()
	key := newKey(t)
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "amber test CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	ca := &CA{Cert: cert, Pool: x509.NewCertPool(), key: key}
	ca.Pool.AddCert(cert)
	ca.next.Store(1)
	return ca
}

func newKey(t testing.TB) *ecdsa.PrivateKey {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// issue signs a certificate for tmpl's subject with a new key, returning both as PEM.
func (ca *CA) issue(t testing.TB, tmpl *x509.Certificate) (certPEM, keyPEM []byte) {
	t.Helper()
	key := newKey(t)
	tmpl.SerialNumber = big.NewInt(ca.next.Add(1))
	tmpl.NotBefore = time.Now().Add(-time.Hour)
	tmpl.NotAfter = time.Now().Add(24 * time.Hour)
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder})
}

// Client makes a client certificate with common name cn and its key, as PEM.
func (ca *CA) Client(t testing.TB, cn string) (certPEM, keyPEM []byte) {
	t.Helper()
	return ca.issue(t, &x509.Certificate{Subject: pkix.Name{CommonName: cn}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
}

// ClientFiles is Client written to files in a new temporary directory: cert.pem, key.pem.
func (ca *CA) ClientFiles(t testing.TB, cn string) (certFile, keyFile string) {
	t.Helper()
	c, k := ca.Client(t, cn)
	return WriteFiles(t, c, k)
}

// WriteFiles writes a certificate and a key to cert.pem and key.pem in a new temporary
// directory.
func WriteFiles(t testing.TB, certPEM, keyPEM []byte) (certFile, keyFile string) {
	t.Helper()
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, certPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, keyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile
}

// Server makes a server certificate for 127.0.0.1, ::1 and the given host names.
func (ca *CA) Server(t testing.TB, hosts ...string) tls.Certificate {
	t.Helper()
	c, k := ca.issue(t, &x509.Certificate{
		Subject:     pkix.Name{CommonName: "127.0.0.1"},
		DNSNames:    hosts,
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	})
	cert, err := tls.X509KeyPair(c, k)
	if err != nil {
		t.Fatal(err)
	}
	return cert
}

// StartServer starts an https server on 127.0.0.1 with a certificate of ca for hosts, that
// requires a client certificate ca signed (tls.RequireAndVerifyClientCert): a client
// without one is refused in the handshake. It is closed when the test ends.
func (ca *CA) StartServer(t testing.TB, h http.Handler, hosts ...string) *httptest.Server {
	t.Helper()
	ts := httptest.NewUnstartedServer(h)
	ts.TLS = &tls.Config{
		Certificates: []tls.Certificate{ca.Server(t, hosts...)},
		ClientAuth:   tls.RequireAndVerifyClientCert,
		ClientCAs:    ca.Pool,
		MinVersion:   tls.VersionTLS12,
	}
	ts.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes are expected
	ts.StartTLS()
	t.Cleanup(ts.Close)
	return ts
}

// ClientName is the common name of the client certificate of r ("" without one).
func ClientName(r *http.Request) string {
	if r.TLS == nil || len(r.TLS.PeerCertificates) == 0 {
		return ""
	}
	return r.TLS.PeerCertificates[0].Subject.CommonName
}
