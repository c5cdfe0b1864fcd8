package fast

import "path/filepath"

// clientCert maps cert_file and key_file onto network.client_cert and client_key (a relative
// path is read from ConvertOptions.BaseDir, the XML file's directory). One without the other
// is not supported: amber needs both.
func (c *conv) clientCert() {
	cert, key := c.top["cert_file"], c.top["key_file"]
	switch {
	case cert == nil && key == nil:
		return
	case key == nil:
		c.note(string(Unsupported), "a certificate without its key (key_file): amber needs both", cert)
		return
	case cert == nil:
		c.note(string(Unsupported), "a key without its certificate (cert_file): amber needs both", key)
		return
	}
	path := func(p string) string {
		if p != "" && !filepath.IsAbs(p) && c.opts.BaseDir != "" {
			return filepath.Join(c.opts.BaseDir, p)
		}
		return p
	}
	c.c.Network.ClientCert, c.c.Network.ClientKey = path(cert.Text), path(key.Text)
	c.src("network.client_cert", "cert_file")
	c.src("network.client_key", "key_file")
	c.mapped(cert, "network.client_cert")
	c.mapped(key, "network.client_key")
}
