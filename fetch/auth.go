package fetch

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/amber-crawler/amber/weburl"
)

// OriginAuth is the Authorization credential of one origin (Config.Auth).
type OriginAuth struct {
	// Origin is "scheme://host[:port]" (http or https; a trailing "/" is allowed, nothing
	// else after the authority). The host is read as a request URL's host is (IDN names in
	// punycode, numeric IPv4 spellings as the address) and an omitted port is the scheme's
	// default, so "https://Example.com" and "https://example.com:443/" are the same origin.
	Origin string
	// Basic sends "Authorization: Basic base64(Username:Password)" (RFC 7617). The user
	// name may not contain ':'.
	Basic *BasicAuth
	// Raw is the whole Authorization value ("Bearer abc", "Token xyz"). Exactly one of
	// Basic and Raw is set.
	Raw string
}

// BasicAuth is a user name and password for HTTP Basic authentication.
type BasicAuth struct {
	Username string
	Password string
}

// header returns the Authorization value of a.
func (a OriginAuth) header() string {
	if a.Basic != nil {
		return basicValue(a.Basic.Username, a.Basic.Password)
	}
	return a.Raw
}

func basicValue(user, password string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+password))
}

// validate checks a; its errors never contain the credential.
func (a OriginAuth) validate() error {
	switch {
	case a.Basic != nil && a.Raw != "":
		return errors.New("both Basic and Raw are set")
	case a.Basic == nil && a.Raw == "":
		return errors.New("neither Basic nor Raw is set")
	case a.Basic != nil && strings.Contains(a.Basic.Username, ":"):
		return errors.New("the user name of Basic contains ':'")
	case a.Basic != nil && !validHeaderValue(a.Basic.Username+a.Basic.Password):
		return errors.New("the credentials of Basic contain control characters")
	case a.Raw != "" && (!validHeaderValue(a.Raw) || strings.TrimSpace(a.Raw) != a.Raw):
		return errors.New("the Raw value has control characters or surrounding white space")
	}
	return nil
}

// parseOrigin reads "scheme://host[:port]" as OriginAuth.Origin describes and returns the
// origin key requests are matched with ("https://example.com:443").
func parseOrigin(s string) (string, error) {
	shown := redactUserinfo(s) // a password written into the origin stays out of errors
	u, err := url.Parse(s)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return "", fmt.Errorf("origin %q: %w", shown, err)
	}
	if u.User != nil || u.Opaque != "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" ||
		u.ForceQuery || u.Fragment != "" {
		return "", fmt.Errorf("origin %q: want scheme://host[:port] only", shown)
	}
	scheme, host, port, err := originParts(u)
	if err != nil {
		return "", fmt.Errorf("origin %q: %w", shown, err)
	}
	return originKey(scheme, host, port), nil
}

// originParts returns the normalised scheme (http or https), host (weburl.Host: lowercase
// ASCII, unbracketed) and port (the scheme's default when u has none) of u. Its errors
// name what is wrong without a sentinel; callers wrap them.
func originParts(u *url.URL) (scheme, host, port string, err error) {
	scheme = strings.ToLower(u.Scheme)
	defPort := ""
	switch scheme {
	case "http":
		defPort = "80"
	case "https":
		defPort = "443"
	default:
		return "", "", "", fmt.Errorf("scheme %q", u.Scheme)
	}
	host = u.Hostname()
	if host == "" {
		return "", "", "", errors.New("empty host")
	}
	// weburl.Host also refuses the characters that could split the request or the Host
	// header (controls, space, '/', '\', '@', ...).
	if host, err = weburl.Host(host); err != nil {
		return "", "", "", err
	}
	port = u.Port()
	if port == "" {
		port = defPort
	} else if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return "", "", "", fmt.Errorf("port %q", port)
	}
	return scheme, host, port, nil
}

// originKey is the key of an origin in the per-origin tables.
func originKey(scheme, host, port string) string {
	return scheme + "://" + bracket(host) + ":" + port
}

// authTable builds the Authorization value of each origin of auth.
func authTable(auth []OriginAuth) (map[string]string, error) {
	if len(auth) == 0 {
		return nil, nil
	}
	m := make(map[string]string, len(auth))
	for i, a := range auth {
		key, err := parseOrigin(a.Origin)
		if err != nil {
			return nil, fmt.Errorf("%w: Auth[%d]: %w", ErrConfig, i, err)
		}
		if err := a.validate(); err != nil {
			return nil, fmt.Errorf("%w: Auth[%d] (%s): %w", ErrConfig, i, key, err)
		}
		if _, dup := m[key]; dup {
			return nil, fmt.Errorf("%w: Auth[%d]: origin %s listed twice", ErrConfig, i, key)
		}
		m[key] = a.header()
	}
	return m, nil
}
