package fast

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/amber-crawler/amber/config"
)

// The account: every attrib, section and element of the file ends under one disposition
// (config.Disposition), decided from what the conversion recorded as it read it:
//
//   - the amber keys it became (mapped),
//   - what amber does anyway that it asks for (same),
//   - the notes (items) whose path is its own: how amber differs, why it is ignored, why it
//     is refused, not supported yet or unknown.
//
// A note that amber cannot do what it says makes it refused, whatever else was recorded (a
// list of which one member is refused is refused); then a note on how amber differs, or one
// on a part of it that is ignored when the rest is mapped, makes it differ; then ignored,
// mapped, same. Notes with no path are about the file as a whole (FAST's defaults for what
// it leaves out, no start URIs) and go to the account's Notes.

// acct is what the conversion recorded of one attrib, section or element as it read it.
type acct struct {
	keys []string // the amber keys it became
	same string   // what amber does anyway, which it asks for
}

// rec returns x's record (x an *Attrib or a *Section), made when x has none.
func (c *conv) rec(x any) *acct {
	r := c.acct[x]
	if r == nil {
		r = &acct{}
		c.acct[x] = r
	}
	return r
}

// mapped records that x became the amber keys (none: x is accounted for by its notes).
func (c *conv) mapped(x any, keys ...string) {
	r := c.rec(x)
	for _, k := range keys {
		if k != "" && !slices.Contains(r.keys, k) {
			r.keys = append(r.keys, k)
		}
	}
}

// same records that x asks for what amber does anyway, which why says.
func (c *conv) same(x any, why string) {
	c.rec(x).same = why
}

// accounted reports whether the conversion recorded anything of x.
func (c *conv) accounted(x any) bool { return c.acct[x] != nil }

// statusWords names the statuses of the notes that make an entry refused, in its reason.
var statusWords = map[string]string{string(Refused): "refused", string(Unsupported): "not supported yet", noteUnknown: "unknown"}

// settle builds the account (c.cv.Account) from the entries, their records and their notes.
// In a strict conversion each refused entry is an *Error wrapping ErrNotMapped, in file
// order.
func (c *conv) settle() error {
	byPath := map[string][]item{}
	var fileNotes []item
	for _, it := range c.sortedItems() {
		if it.path == "" {
			fileNotes = append(fileNotes, it)
			continue
		}
		byPath[it.path] = append(byPath[it.path], it)
	}
	type settled struct {
		config.Accounted
		path string
	}
	var out []settled
	var errs []error
	for _, e := range c.entries {
		x, line, path := any(e.a), 0, ""
		if e.a != nil {
			line, path = e.a.Line, e.a.Path
		} else {
			x, line, path = e.s, e.s.Line, e.s.Path
		}
		ent, err := c.dispose(e, x, byPath[path])
		if err != nil {
			errs = append(errs, err)
			continue
		}
		ent.Line = line
		out = append(out, settled{ent, path})
		delete(byPath, path)
	}
	for _, its := range byPath {
		errs = append(errs, fmt.Errorf("fast: internal error: a note names %s, which is no attrib, section or element of the file", its[0].path))
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	slices.SortStableFunc(out, func(a, b settled) int { return a.Line - b.Line })
	acc := &config.Account{Notes: renderNotes(fileNotes)}
	var strict []error
	for _, s := range out {
		acc.Entries = append(acc.Entries, s.Accounted)
		if s.Disposition == config.Refused {
			strict = append(strict, &Error{File: c.d.File, Line: s.Line, Path: s.path, Err: ErrNotMapped, Msg: s.Key + ": " + s.Why})
		}
	}
	c.cv.Account = acc
	if c.opts.Strict && len(strict) > 0 {
		return errors.Join(strict...)
	}
	return nil
}

// dispose decides the disposition of entry e (x its attrib or section) from its record and
// its notes its.
func (c *conv) dispose(e *entry, x any, its []item) (config.Accounted, error) {
	ent := config.Accounted{Key: c.accountKey(e)}
	r := c.acct[x]
	if r == nil && len(its) == 0 {
		return ent, fmt.Errorf("fast: internal error: %s is not accounted for", e.short)
	}
	if r == nil {
		r = &acct{}
	}
	var refused, differs, ignored, caution []string
	for _, it := range its {
		why := it.why
		if d := c.detail(e, it.what); d != "" {
			why = d + ": " + why
		}
		switch {
		case it.strict:
			w := statusWords[it.status]
			if w == "" {
				w = it.status
			}
			refused = append(refused, w+": "+why)
		case it.status == noteDiffers:
			differs = append(differs, why)
		case it.status == string(Ignored):
			ignored = append(ignored, why)
		default: // noteCaution
			caution = append(caution, why)
		}
	}
	join := func(parts ...[]string) string { return strings.Join(slices.Concat(parts...), "; ") }
	switch {
	case len(refused) > 0:
		ent.Disposition, ent.Why = config.Refused, join(refused)
	case len(differs) > 0 || (len(ignored) > 0 && len(r.keys) > 0):
		ent.Disposition, ent.Amber, ent.Why = config.Differs, r.keys, join(differs, ignored, caution)
	case len(ignored) > 0:
		ent.Disposition, ent.Why = config.Ignored, join(ignored, caution)
	case len(r.keys) > 0:
		ent.Disposition, ent.Amber, ent.Why = config.Mapped, r.keys, join(caution)
	case r.same != "" || len(caution) > 0:
		ent.Disposition, ent.Why = config.Same, join([]string{r.same}, caution)
		ent.Why = strings.TrimPrefix(ent.Why, "; ")
	default:
		return ent, fmt.Errorf("fast: internal error: %s is recorded with no key, no reason and no note", e.short)
	}
	return ent, nil
}

// detail is what a note about entry e says beyond e's own name (what names it, or one of its
// members: "allowed_schemes ftp" gives "ftp"), "" when nothing.
func (c *conv) detail(e *entry, what string) string {
	if what == e.short || (e.a != nil && what == c.what(e.a)) {
		return ""
	}
	if rest, ok := strings.CutPrefix(what, e.short+" "); ok {
		return rest
	}
	return what
}

// accountKey names an entry in the account: its short path, and for an attrib that is not a
// list its value when short and no secret, quoted when it holds what would make the
// rendering ambiguous (", ", ": ", quotes, control characters, surrounding space).
func (c *conv) accountKey(e *entry) string {
	if e.a == nil || e.a.Type == ListString || len(e.a.Text) > 40 || isSecret(e.a) {
		return e.short
	}
	return e.short + "=" + quoteValue(e.a.Text)
}

// quoteValue quotes v (strconv.Quote) when it would not read back from a list of
// "NAME=VALUE" separated by ", " and ended by ": ".
func quoteValue(v string) string {
	if v == "" || strings.Contains(v, ", ") || strings.Contains(v, ": ") || strings.ContainsAny(v, "\"\\") ||
		strings.HasSuffix(v, ",") || strings.HasSuffix(v, ":") || strings.TrimSpace(v) != v ||
		strings.ContainsFunc(v, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return strconv.Quote(v)
	}
	return v
}

// accountHeads are the headings of the account, by disposition.
var accountHeads = map[config.Disposition]string{
	config.Mapped:  "Mapped (name: the amber keys it became):",
	config.Same:    "The same as amber's behaviour (name: what amber does; nothing to write):",
	config.Differs: "Differs (name: the amber keys it became, if any; how amber does it):",
	config.Ignored: "Ignored (name: why it means nothing for an amber crawl):",
	config.Refused: "Refused (name: why amber does not do what it says; amber config convert --strict fails on each):",
}

// renderAccount writes the account: the entries under one heading per disposition, in file
// order, those with the same keys and reason on one line ("NAME, NAME: KEYS; WHY"), then the
// account's notes.
func renderAccount(acc *config.Account) []byte {
	var b strings.Builder
	b.WriteString("\n# What amber makes of each attrib, section and element of the file, under one of five headings:\n")
	for _, d := range config.Dispositions {
		type line struct {
			keys []string
			tail string
		}
		var lines []*line
		byTail := map[string]*line{}
		for _, e := range acc.Entries {
			if e.Disposition != d {
				continue
			}
			tail := strings.Join(e.Amber, ", ")
			if e.Why != "" {
				if tail != "" {
					tail += "; "
				}
				tail += e.Why
			}
			l := byTail[tail]
			if l == nil {
				l = &line{tail: tail}
				byTail[tail] = l
				lines = append(lines, l)
			}
			l.keys = append(l.keys, e.Key)
		}
		b.WriteString("#\n# " + accountHeads[d] + "\n")
		if len(lines) == 0 {
			b.WriteString("#   (none)\n")
		}
		for _, l := range lines {
			b.WriteString("# - " + strings.Join(l.keys, ", ") + ": " + l.tail + "\n")
		}
	}
	if len(acc.Notes) > 0 {
		b.WriteString("\n# What the file leaves out:\n")
		for _, n := range acc.Notes {
			b.WriteString("# - " + n + "\n")
		}
	}
	return []byte(b.String())
}
