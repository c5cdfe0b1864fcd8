package crawl

import (
	"errors"

	"github.com/amber-crawler/amber/fetch"
)

// loadClientCert reads Config.ClientCert and ClientKey into Fetch.ClientCert, for both
// fetchers (the browser fetcher's requests are made by the crawl's fetch.Client). Both or
// neither must be given.
func (c *Config) loadClientCert() error {
	switch {
	case c.ClientCert == "" && c.ClientKey == "":
		return nil
	case c.ClientCert == "":
		return &FieldError{Field: "ClientCert", Err: errors.New("required with ClientKey")}
	case c.ClientKey == "":
		return &FieldError{Field: "ClientKey", Err: errors.New("required with ClientCert")}
	}
	cert, err := fetch.LoadClientCert(c.ClientCert, c.ClientKey)
	if err != nil {
		return &FieldError{Field: "ClientCert", Err: err}
	}
	c.Fetch.ClientCert = cert
	return nil
}
