package fetch

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"strings"
)

// Errors of LoadClientCert, besides those of reading the files.
var (
	// ErrKeyEncrypted: the private key file is encrypted (a PEM "ENCRYPTED PRIVATE KEY", or
	// Proc-Type 4,ENCRYPTED); amber reads unencrypted keys only.
	ErrKeyEncrypted = errors.New("fetch: client key is encrypted (decrypt it, e.g. openssl pkey -in KEY -out PLAIN)")
	// ErrKeyMismatch: the private key is not the key of the certificate.
	ErrKeyMismatch = errors.New("fetch: client key does not match the certificate")
	// ErrClientCert: a file holds no certificate or key amber can read.
	ErrClientCert = errors.New("fetch: client certificate")
)

// LoadClientCert reads a TLS client certificate (PEM, the certificate first, then any
// intermediates) and its unencrypted private key (PEM: PKCS #8, PKCS #1 or SEC 1) for
// Config.ClientCert. The errors name the file; an encrypted key is ErrKeyEncrypted, a key
// that is not the certificate's ErrKeyMismatch, a file without a certificate or key
// ErrClientCert.
func LoadClientCert(certFile, keyFile string) (*tls.Certificate, error) {
	certPEM, err := os.ReadFile(certFile)
	if err != nil {
		return nil, fmt.Errorf("fetch: client certificate: %w", err)
	}
	keyPEM, err := os.ReadFile(keyFile)
	if err != nil {
		return nil, fmt.Errorf("fetch: client key: %w", err)
	}
	var leaf *x509.Certificate
	for rest := certPEM; ; {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			break
		}
		if b.Type == "CERTIFICATE" {
			if leaf, err = x509.ParseCertificate(b.Bytes); err != nil {
				return nil, fmt.Errorf("%w: %s: %v", ErrClientCert, certFile, err)
			}
			break
		}
	}
	if leaf == nil {
		return nil, fmt.Errorf("%w: %s: no PEM CERTIFICATE block", ErrClientCert, certFile)
	}
	key, err := parseKeyPEM(keyPEM)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", keyFile, err)
	}
	pub, ok := key.(interface{ Public() crypto.PublicKey })
	if !ok {
		return nil, fmt.Errorf("%w: %s: unsupported key type %T", ErrClientCert, keyFile, key)
	}
	if eq, ok := leaf.PublicKey.(interface{ Equal(crypto.PublicKey) bool }); !ok || !eq.Equal(pub.Public()) {
		return nil, fmt.Errorf("%w: %s, %s", ErrKeyMismatch, certFile, keyFile)
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("%w: %s, %s: %v", ErrClientCert, certFile, keyFile, err)
	}
	return &cert, nil
}

// parseKeyPEM returns the first private key of a PEM file.
func parseKeyPEM(data []byte) (crypto.PrivateKey, error) {
	for rest := data; ; {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			return nil, fmt.Errorf("%w: no PEM PRIVATE KEY block", ErrClientCert)
		}
		if !strings.HasSuffix(b.Type, "PRIVATE KEY") {
			continue
		}
		if b.Type == "ENCRYPTED PRIVATE KEY" || strings.Contains(b.Headers["Proc-Type"], "ENCRYPTED") {
			return nil, ErrKeyEncrypted
		}
		if k, err := x509.ParsePKCS8PrivateKey(b.Bytes); err == nil {
			switch k.(type) {
			case *rsa.PrivateKey, *ecdsa.PrivateKey, ed25519.PrivateKey:
				return k, nil
			}
			return nil, fmt.Errorf("%w: unsupported key type %T", ErrClientCert, k)
		}
		if k, err := x509.ParsePKCS1PrivateKey(b.Bytes); err == nil {
			return k, nil
		}
		if k, err := x509.ParseECPrivateKey(b.Bytes); err == nil {
			return k, nil
		}
		return nil, fmt.Errorf("%w: %s block is not a PKCS #8, PKCS #1 or SEC 1 key", ErrClientCert, b.Type)
	}
}
