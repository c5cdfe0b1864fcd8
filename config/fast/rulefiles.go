package fast

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"
)

// Bounds of one rule file (the file attrib of include_domains, exclude_domains, include_uris
// and exclude_uris).
const (
	maxRuleFileBytes = 1 << 20
	maxRuleFileRules = 100_000
)

// ruleFileKinds are the rule types a rule file of a host section (§2.2.4.1) and of a URI
// section (§2.2.4.3) may hold.
var (
	domainFileKinds = []string{"exact", "prefix", "suffix", "regexp", "ipmask", "ip6mask"}
	uriFileKinds    = []string{"exact", "prefix", "suffix", "regexp"}
)

// ruleLine is one rule of a rule file, with its line number.
type ruleLine struct {
	n          int
	kind, rule string
}

// fileRules reads the files a section's file attrib names (§2.2.4.1, §2.2.4.3): plain text,
// one rule per line as ruletype:rule, each a rule of the section as the attrib of its type
// (exact, prefix, suffix, regexp, and in include_domains and exclude_domains ipmask and
// ip6mask) holds it. A file that cannot be
// read, is too large or holds a line that is not a rule of the section makes the attrib
// invalid.
func (c *conv) fileRules(sec string, a *Attrib) []domainRule {
	c.rec(a)
	kinds := uriFileKinds
	if strings.HasSuffix(sec, "_domains") {
		kinds = domainFileKinds
	}
	var out []domainRule
	for _, name := range a.Members {
		lines, err := c.readRuleFile(name, kinds)
		if err != nil {
			c.invalid(a, "file: %v", err)
			return nil
		}
		if len(lines) == 0 {
			c.items = append(c.items, item{status: noteCaution, what: c.short[a] + " " + name, line: a.Line, path: a.Path,
				why: "the file holds no rule"})
		}
		for _, l := range lines {
			label := fmt.Sprintf("%s:%d %s:%s", name, l.n, l.kind, l.rule)
			if r := schema.section(sec).node.attrib(l.kind); r.Status != Mapped { // none now; kept for a kind not mapped
				c.items = append(c.items, item{status: string(r.Status), what: c.short[a] + " " + label, why: r.Note,
					line: a.Line, path: a.Path, strict: true})
				continue
			}
			out = append(out, domainRule{kind: l.kind, value: l.rule, label: label, from: c.short[a] + " " + label, a: a})
		}
	}
	return out
}

// readRuleFile reads a rule file, relative to opts.BaseDir: UTF-8 (a byte order mark is
// skipped), at most maxRuleFileBytes and maxRuleFileRules rules, one rule per line as
// ruletype:rule, ruletype one of kinds (any case) and the rule not empty (both trimmed of
// spaces); blank lines and lines starting with # are skipped.
func (c *conv) readRuleFile(name string, kinds []string) ([]ruleLine, error) {
	p, data, err := c.readListFile(name)
	if err != nil {
		return nil, err
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if !utf8.Valid(data) {
		return nil, fmt.Errorf("%s: not UTF-8", p)
	}
	var out []ruleLine
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), maxRuleFileBytes)
	for n := 1; sc.Scan(); n++ {
		l := strings.TrimSpace(sc.Text())
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		kind, rule, ok := strings.Cut(l, ":")
		kind, rule = strings.ToLower(strings.TrimSpace(kind)), strings.TrimSpace(rule)
		if !ok || rule == "" || !slices.Contains(kinds, kind) {
			return nil, fmt.Errorf("%s:%d: %q is not a rule: want ruletype:rule, ruletype one of %s", p, n, l, strings.Join(kinds, ", "))
		}
		if len(out) == maxRuleFileRules {
			return nil, fmt.Errorf("%s: more than %d rules", p, maxRuleFileRules)
		}
		out = append(out, ruleLine{n: n, kind: kind, rule: rule})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return out, nil
}

// readListFile reads a file a FAST attrib names (a rule file, a mirror site file), relative
// to opts.BaseDir: a regular file of at most maxRuleFileBytes. It returns the path it read.
func (c *conv) readListFile(name string) (string, []byte, error) {
	p := name
	if !filepath.IsAbs(p) {
		p = filepath.Join(c.opts.BaseDir, p)
	}
	f, err := os.Open(p)
	if err != nil {
		return p, nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return p, nil, fmt.Errorf("%s: not a regular file", p)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxRuleFileBytes+1))
	if err != nil {
		return p, nil, fmt.Errorf("%s: %w", p, err)
	}
	if len(data) > maxRuleFileBytes {
		return p, nil, fmt.Errorf("%s: larger than %d bytes", p, maxRuleFileBytes)
	}
	return p, data, nil
}
