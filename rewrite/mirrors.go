package rewrite

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"regexp"
	"strconv"
	"strings"
)

// Mirrors returns the rules that take URLs of mirror sites as their preferred site's (FAST's
// mirror_site_files, MS-FSCCFG §2.2.3): each group is a list of sites, the preferred one
// first, each a host name or host:port (an IPv6 address in brackets). A URL (http or https,
// any case, with or without userinfo) whose host is a mirror's is rewritten to the preferred
// site: "http://Mirror.example.org/a?b" becomes "http://preferred.example.org/a?b". A mirror
// written without a port matches its host with any port and keeps the port; one with a port
// matches that port only and takes the preferred site's port (none: the scheme's default).
// A group needs a preferred site and at least one mirror; a site may be listed once in all
// the groups. Host names are compared without case; write IDN hosts in punycode. Errors wrap
// ErrRule and name the group (from 1) and the site.
func Mirrors(groups [][]string) (Rules, error) {
	var rs Rules
	seen := map[string]int{}
	for gi, g := range groups {
		if len(g) < 2 {
			return nil, fmt.Errorf("%w: mirror group %d: want a preferred site and at least one mirror, got %q", ErrRule, gi+1, g)
		}
		sites := make([]site, len(g))
		for i, s := range g {
			st, err := parseSite(s)
			if err != nil {
				return nil, fmt.Errorf("%w: mirror group %d: %v", ErrRule, gi+1, err)
			}
			if prev, dup := seen[st.key()]; dup {
				return nil, fmt.Errorf("%w: mirror group %d: %s is listed again (first in group %d)", ErrRule, gi+1, s, prev)
			}
			seen[st.key()] = gi + 1
			sites[i] = st
		}
		for _, m := range sites[1:] {
			r, err := mirrorRule(m, sites[0])
			if err != nil {
				return nil, fmt.Errorf("%w: mirror group %d: %v", ErrRule, gi+1, err)
			}
			rs = append(rs, r)
		}
	}
	return rs, nil
}

// site is one site of a mirror group.
type site struct {
	host string // lowercase; an IPv6 address keeps its brackets
	port string // "" when not given
}

func (s site) key() string { return s.host + ":" + s.port }

func (s site) String() string {
	if s.port == "" {
		return s.host
	}
	return s.host + ":" + s.port
}

func parseSite(s string) (site, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	host, port := t, ""
	if h, p, err := net.SplitHostPort(t); err == nil {
		host, port = h, p
		if strings.Contains(h, ":") {
			host = "[" + h + "]"
		}
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 || p[0] == '0' {
			return site{}, fmt.Errorf("site %q: bad port", s)
		}
	}
	bare := strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if bare == "" || strings.ContainsAny(bare, "/?#@\\ \t*") || (!strings.HasPrefix(host, "[") && strings.Contains(host, ":")) {
		return site{}, fmt.Errorf("site %q: want a host name or host:port", s)
	}
	return site{host: host, port: port}, nil
}

// mirrorRule rewrites URLs of mirror m to preferred p. The delimiter "~" is in no host name.
func mirrorRule(m, p site) (Rule, error) {
	port := `(?::[0-9]*)?`
	if m.port != "" {
		port = ":" + m.port
	}
	pattern := `^((?i:https?)://(?:[^/?#@]*@)?)(?i:` + regexp.QuoteMeta(m.host) + `)(` + port + `)([/?#]|$)`
	repl := "${1}" + p.host + "${2}${3}"
	if m.port != "" {
		repl = "${1}" + p.host
		if p.port != "" {
			repl += ":" + p.port
		}
		repl += "${3}"
	} else if p.port != "" {
		repl = "${1}" + p.String() + "${3}" // the preferred site's port replaces the mirror's
	}
	return Parse("~" + pattern + "~" + repl + "~")
}

// ParseMirrors reads a mirror site file (FAST's mirror_site_files): one group a line, its
// sites separated by white space, the preferred site first. Blank lines and lines starting
// with "#" are skipped; a UTF-8 byte order mark is skipped. The groups are checked by
// Mirrors; errors name the line.
func ParseMirrors(data []byte) ([][]string, error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	var groups [][]string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		g := strings.Fields(line)
		if _, err := Mirrors([][]string{g}); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		groups = append(groups, g)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: mirror file: %v", ErrRule, err)
	}
	if _, err := Mirrors(groups); err != nil {
		return nil, err
	}
	return groups, nil
}
