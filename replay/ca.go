package replay

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// File names of the certificate authority in the state directory.
const (
	// CAFile is the authority's certificate (PEM), the file to give a browser or curl.
	CAFile = "ca.pem"
	// CAKeyFile holds the certificate and its private key (PEM, mode 0600).
	CAKeyFile = "ca-key.pem"
)

// Validity of the certificates made.
const (
	caValidity   = 10 * 365 * 24 * time.Hour
	leafValidity = 397 * 24 * time.Hour // the most browsers accept of a server certificate
	clockSkew    = time.Hour            // certificates are valid from this long before now
)

// authority is the certificate authority of a crawl's replay: it signs a certificate for
// each host a browser asks for through the proxy. All its certificates share one key,
// made at start.
type authority struct {
	cert    *x509.Certificate
	key     *ecdsa.PrivateKey
	path    string // CAFile's path
	leafKey *ecdsa.PrivateKey

	mu     sync.Mutex // guards leaves
	leaves map[string]*tls.Certificate
}

// loadAuthority reads the authority kept in dir, or makes one (its certificate named for
// name) and keeps it there: CAKeyFile, written once with O_EXCL so that two replays started
// at once agree on one, and CAFile beside it.
func loadAuthority(dir, name string) (*authority, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	keyPath := filepath.Join(dir, CAKeyFile)
	b, err := os.ReadFile(keyPath)
	if errors.Is(err, os.ErrNotExist) {
		if b, err = newAuthorityPEM(name); err != nil {
			return nil, err
		}
		if err = writeExclusive(keyPath, b); errors.Is(err, os.ErrExist) {
			b, err = os.ReadFile(keyPath) // made by another replay meanwhile
		}
	}
	if err != nil {
		return nil, fmt.Errorf("replay: certificate authority: %w", err)
	}
	a, err := parseAuthority(b)
	if err != nil {
		return nil, fmt.Errorf("replay: certificate authority %s: %w", keyPath, err)
	}
	a.path = filepath.Join(dir, CAFile)
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: a.cert.Raw})
	if old, err := os.ReadFile(a.path); err != nil || string(old) != string(certPEM) {
		if err := writeReplace(a.path, certPEM, 0o644); err != nil {
			return nil, fmt.Errorf("replay: %w", err)
		}
	}
	if a.leafKey, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	a.leaves = map[string]*tls.Certificate{}
	return a, nil
}

// newAuthorityPEM makes a certificate authority: its certificate and key, as PEM.
func newAuthorityPEM(name string) ([]byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	now := time.Now()
	cn := "amber replay CA"
	if name != "" {
		cn += " (" + name + ")"
	}
	if len(cn) > 64 {
		cn = cn[:64] // the most a common name may hold
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: cn, Organization: []string{"amber"}},
		NotBefore:             now.Add(-clockSkew),
		NotAfter:              now.Add(caValidity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	out := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	return append(out, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})...), nil
}

// parseAuthority reads a certificate and its ECDSA key from PEM.
func parseAuthority(b []byte) (*authority, error) {
	a := &authority{}
	for {
		var blk *pem.Block
		blk, b = pem.Decode(b)
		if blk == nil {
			break
		}
		switch blk.Type {
		case "CERTIFICATE":
			c, err := x509.ParseCertificate(blk.Bytes)
			if err != nil {
				return nil, err
			}
			a.cert = c
		case "PRIVATE KEY":
			k, err := x509.ParsePKCS8PrivateKey(blk.Bytes)
			if err != nil {
				return nil, err
			}
			ek, ok := k.(*ecdsa.PrivateKey)
			if !ok {
				return nil, fmt.Errorf("key of type %T, want ECDSA", k)
			}
			a.key = ek
		}
	}
	if a.cert == nil || a.key == nil {
		return nil, errors.New("want a CERTIFICATE and a PRIVATE KEY")
	}
	if !a.cert.IsCA {
		return nil, errors.New("the certificate is not a certificate authority's")
	}
	if pub, ok := a.cert.PublicKey.(*ecdsa.PublicKey); !ok || !pub.Equal(&a.key.PublicKey) {
		return nil, errors.New("the key is not the certificate's")
	}
	return a, nil
}

// writeExclusive writes a new file readable by its owner alone; os.ErrExist when there is one.
func writeExclusive(path string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".ca-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	// CreateTemp made it 0600. A link fails when path exists: the first one made is kept.
	return os.Link(tmp.Name(), path)
}

// writeReplace writes a file through a temporary one renamed over it.
func writeReplace(path string, b []byte, perm os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".ca-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// spki returns the base64 of the SHA-256 of a certificate's public key (its
// SubjectPublicKeyInfo), the form of Chromium's --ignore-certificate-errors-spki-list.
func spki(c *x509.Certificate) string {
	sum := sha256.Sum256(c.RawSubjectPublicKeyInfo)
	return base64.StdEncoding.EncodeToString(sum[:])
}

// leaf returns the certificate for host (a name or an IP address), made on first use and
// kept, with the authority's certificate after it in the chain.
func (a *authority) leaf(host string) (*tls.Certificate, error) {
	a.mu.Lock()
	c, ok := a.leaves[host]
	a.mu.Unlock()
	if ok {
		return c, nil
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, err
	}
	now := time.Now()
	until := now.Add(leafValidity)
	if a.cert.NotAfter.Before(until) {
		until = a.cert.NotAfter
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: host},
		NotBefore:    now.Add(-clockSkew),
		NotAfter:     until,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	if len(host) > 64 {
		tmpl.Subject.CommonName = ""
	}
	if ip := net.ParseIP(host); ip != nil {
		tmpl.IPAddresses = []net.IP{ip}
	} else {
		tmpl.DNSNames = []string{host}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, a.cert, &a.leafKey.PublicKey, a.key)
	if err != nil {
		return nil, err
	}
	c = &tls.Certificate{Certificate: [][]byte{der, a.cert.Raw}, PrivateKey: a.leafKey}
	a.mu.Lock()
	if old, ok := a.leaves[host]; ok {
		c = old // made meanwhile by another connection
	} else {
		a.leaves[host] = c
	}
	a.mu.Unlock()
	return c, nil
}
