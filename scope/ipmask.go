package scope

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// KindIP is the matcher kind of an address mask ("ip:207.46.197.0/24"): it holds when the
// address the URL's host resolves to (Candidate.Addr) is in the mask. See ParseIPMask.
const KindIP = "ip"

// Reasons of decisions that rest on an address (Decision.ByAddr) when nothing let the URL in.
const (
	// ReasonNoAddress: the address of the URL's host is not known (it did not resolve), and an
	// accept rule whose other matchers hold has an ip matcher.
	ReasonNoAddress = "no-address"
	// ReasonAddress: an accept rule whose other matchers hold has an ip matcher that does
	// not hold the address of the URL's host.
	ReasonAddress = "address"
)

// errIPMask is wrapped by the errors of ParseIPMask.
var errIPMask = errors.New("invalid address mask")

// IPMask is a set of IPv4 or IPv6 addresses written as FAST writes its ipmask and ip6mask
// rules (MS-FSCCFG §2.2.4.1). It is comparable; the zero IPMask holds no address.
type IPMask struct {
	text   string
	form   byte       // 'r' range, 'p' prefix, 'm' bit mask
	lo, hi netip.Addr // range: lo <= a <= hi
	prefix netip.Prefix
	addr   [16]byte // bit mask: a&mask == addr&mask (IPv4 in the last 4 bytes)
	mask   [16]byte
	is6    bool
}

// ParseIPMask parses an address mask in one of these forms (IPv4 or IPv6, told by the address):
//
//   - A range: an address with one or more of its fields written "low-high", e.g.
//     "207.46.197.0-100", "207.46.190-197.100", "2002:CF2E:C500-C564:0:0:0:0",
//     "::ffff:207.46.197.0-100". It holds the addresses from the address with every such field
//     at its low end to the one with every such field at its high end, both included (so
//     "207.46.190-197.100" is 207.46.190.100 to 207.46.197.100).
//   - N most significant bits: "207.46.197.0/24", "2002:CF2E:C500::/60" (N 0-32 for IPv4,
//     0-128 for IPv6; space around "/" is allowed; bits of the address past N are ignored).
//   - A bit mask, "address:mask" for IPv4, the mask dotted ("207.46.197.0:255.255.255.0") or
//     hexadecimal with at most 8 digits ("207.46.197.0:0xffffff00"); for IPv6 (amber's own,
//     FAST's ip6mask has no such form) "[address]:mask", the mask an IPv6 address or 0x and at
//     most 32 digits. An address holds when it has the same bits as the address where the
//     mask has a 1.
//
// IPv4 addresses are dotted decimal with four fields (no octal, no shortened forms). An IPv6
// address of seven groups that ends in a zero group, as the specification's examples are
// written, is read with one more zero group. The error wraps ErrRule and says what is wrong.
func ParseIPMask(s string) (IPMask, error) {
	m, err := parseIPMask(strings.TrimSpace(s))
	if err != nil {
		return IPMask{}, fmt.Errorf("%w: %w %q: %v", ErrRule, errIPMask, s, err)
	}
	m.text = strings.TrimSpace(s)
	return m, nil
}

func parseIPMask(s string) (IPMask, error) {
	switch {
	case s == "":
		return IPMask{}, errors.New("empty")
	case strings.ContainsAny(s, " \t") && !strings.Contains(s, "/"):
		return IPMask{}, errors.New("space inside the mask")
	case strings.Contains(s, "/"):
		return parsePrefixMask(s)
	case strings.Contains(s, "-"):
		return parseRangeMask(s)
	case strings.HasPrefix(s, "["):
		return parseBitMask6(s)
	case strings.Count(s, ":") == 1 && strings.Contains(s, "."):
		return parseBitMask4(s)
	}
	a, err := parseMaskAddr(s)
	if err != nil {
		return IPMask{}, err
	}
	// A single address: the range of one.
	return IPMask{form: 'r', lo: a, hi: a, is6: a.Is6()}, nil
}

// parseMaskAddr parses one address: dotted IPv4 with four decimal fields, or IPv6 without a
// zone.
func parseMaskAddr(s string) (netip.Addr, error) {
	a, err := netip.ParseAddr(s)
	if err != nil && strings.Count(s, ":") == 6 && !strings.Contains(s, "::") && strings.HasSuffix(s, ":0") {
		// The specification's IPv6 examples have seven groups, the last ones zero
		// ("2002:CF2E:C500:0:0:0:0"): one more zero group is meant, wherever it goes.
		a, err = netip.ParseAddr(s + ":0")
	}
	if err != nil {
		return netip.Addr{}, fmt.Errorf("%q is not an IPv4 or IPv6 address", s)
	}
	if a.Zone() != "" {
		return netip.Addr{}, fmt.Errorf("%q has a zone", s)
	}
	return a, nil
}

func parsePrefixMask(s string) (IPMask, error) {
	as, ns, _ := strings.Cut(s, "/")
	as, ns = strings.TrimSpace(as), strings.TrimSpace(ns)
	a, err := parseMaskAddr(as)
	if err != nil {
		return IPMask{}, err
	}
	n, err := strconv.Atoi(ns)
	if err != nil || ns == "" || ns[0] == '+' || ns[0] == '-' {
		return IPMask{}, fmt.Errorf("%q after / is not a number of bits", ns)
	}
	if n > a.BitLen() {
		return IPMask{}, fmt.Errorf("/%d: an %s mask has 0 to %d bits", n, family(a), a.BitLen())
	}
	p, err := a.Prefix(n)
	if err != nil {
		return IPMask{}, err
	}
	return IPMask{form: 'p', prefix: p, is6: a.Is6()}, nil
}

// parseRangeMask reads an address with fields written low-high: the fields are delimited by
// "." and ":", and each ranged one is replaced by its low end for the range's start and by
// its high end for its end.
func parseRangeMask(s string) (IPMask, error) {
	start := 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && s[i] != '.' && s[i] != ':' {
			continue
		}
		field := s[start:i]
		if l, h, ranged := strings.Cut(field, "-"); ranged && (!isFieldDigits(l, s) || !isFieldDigits(h, s)) {
			return IPMask{}, fmt.Errorf("field %q: want low-high, two numbers", field)
		}
		start = i + 1
	}
	return rangeFrom(s)
}

// isFieldDigits reports whether f is a decimal (IPv4, or the dotted tail of IPv6) or
// hexadecimal (IPv6) number as a field of s.
func isFieldDigits(f, s string) bool {
	for i := 0; i < len(f); i++ {
		c := f[i]
		switch {
		case '0' <= c && c <= '9':
		case strings.Contains(s, ":") && ('a' <= c && c <= 'f' || 'A' <= c && c <= 'F'):
		default:
			return false
		}
	}
	return f != ""
}

// rangeFrom builds the range of s: every "low-high" field replaced by low, then by high.
func rangeFrom(s string) (IPMask, error) {
	end := func(high bool) string {
		var b strings.Builder
		start := 0
		for i := 0; i <= len(s); i++ {
			if i < len(s) && s[i] != '.' && s[i] != ':' {
				continue
			}
			l, h, ranged := strings.Cut(s[start:i], "-")
			if ranged && high {
				l = h
			}
			b.WriteString(l)
			if i < len(s) {
				b.WriteByte(s[i])
			}
			start = i + 1
		}
		return b.String()
	}
	lo, err := parseMaskAddr(end(false))
	if err != nil {
		return IPMask{}, fmt.Errorf("range start: %v", err)
	}
	hi, err := parseMaskAddr(end(true))
	if err != nil {
		return IPMask{}, fmt.Errorf("range end: %v", err)
	}
	if lo.Is4() != hi.Is4() || lo.Is4In6() != hi.Is4In6() {
		return IPMask{}, errors.New("range start and end are of different kinds")
	}
	if hi.Less(lo) {
		return IPMask{}, fmt.Errorf("range from %s down to %s", lo, hi)
	}
	return IPMask{form: 'r', lo: lo, hi: hi, is6: lo.Is6()}, nil
}

func parseBitMask4(s string) (IPMask, error) {
	as, ms, _ := strings.Cut(s, ":")
	a, err := parseMaskAddr(as)
	if err != nil {
		return IPMask{}, err
	}
	if !a.Is4() {
		return IPMask{}, fmt.Errorf("%q is not an IPv4 address", as)
	}
	var mask [4]byte
	if hex, ok := strings.CutPrefix(strings.ToLower(ms), "0x"); ok {
		if len(hex) == 0 || len(hex) > 8 {
			return IPMask{}, fmt.Errorf("mask %q: a 32-bit mask has 1 to 8 hexadecimal digits", ms)
		}
		v, err := strconv.ParseUint(hex, 16, 32)
		if err != nil {
			return IPMask{}, fmt.Errorf("mask %q is not hexadecimal", ms)
		}
		mask = [4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}
	} else {
		m, err := netip.ParseAddr(ms)
		if err != nil || !m.Is4() {
			return IPMask{}, fmt.Errorf("mask %q is neither a dotted IPv4 address nor 0x and hexadecimal digits", ms)
		}
		mask = m.As4()
	}
	x := IPMask{form: 'm'}
	a4 := a.As4()
	copy(x.addr[12:], a4[:])
	copy(x.mask[12:], mask[:])
	return x, nil
}

func parseBitMask6(s string) (IPMask, error) {
	as, ms, ok := strings.Cut(s[1:], "]:")
	if !ok {
		return IPMask{}, errors.New("want [address]:mask")
	}
	a, err := parseMaskAddr(as)
	if err != nil {
		return IPMask{}, err
	}
	if !a.Is6() {
		return IPMask{}, fmt.Errorf("%q in brackets is not an IPv6 address", as)
	}
	x := IPMask{form: 'm', is6: true, addr: a.As16()}
	if hex, ok := strings.CutPrefix(strings.ToLower(ms), "0x"); ok {
		if len(hex) == 0 || len(hex) > 32 {
			return IPMask{}, fmt.Errorf("mask %q: a 128-bit mask has 1 to 32 hexadecimal digits", ms)
		}
		hex = strings.Repeat("0", 32-len(hex)) + hex
		for i := range 16 {
			v, err := strconv.ParseUint(hex[2*i:2*i+2], 16, 8)
			if err != nil {
				return IPMask{}, fmt.Errorf("mask %q is not hexadecimal", ms)
			}
			x.mask[i] = byte(v)
		}
		return x, nil
	}
	m, err := netip.ParseAddr(ms)
	if err != nil || !m.Is6() || m.Zone() != "" {
		return IPMask{}, fmt.Errorf("mask %q is neither an IPv6 address nor 0x and hexadecimal digits", ms)
	}
	x.mask = m.As16()
	return x, nil
}

func family(a netip.Addr) string {
	if a.Is4() {
		return "IPv4"
	}
	return "IPv6"
}

// Is6 reports whether the mask holds IPv6 addresses (IPv4-mapped ones, ::ffff:a.b.c.d,
// included); else it holds IPv4 addresses.
func (m IPMask) Is6() bool { return m.is6 }

// String returns the mask as it was given, space around it trimmed.
func (m IPMask) String() string { return m.text }

// Contains reports whether a is in the mask. An IPv4 mask holds IPv4 addresses and their
// IPv4-mapped IPv6 forms; an IPv6 mask holds IPv6 addresses, and IPv4 addresses in their
// IPv4-mapped form (::ffff:a.b.c.d). A zone is ignored; the invalid Addr is in no mask.
func (m IPMask) Contains(a netip.Addr) bool {
	if !a.IsValid() {
		return false
	}
	a = a.WithZone("")
	if m.is6 {
		a = netip.AddrFrom16(a.As16())
	} else {
		a = a.Unmap()
		if !a.Is4() {
			return false
		}
	}
	switch m.form {
	case 'r':
		return !a.Less(m.lo) && !m.hi.Less(a)
	case 'p':
		return m.prefix.Contains(a)
	case 'm':
		b := a.As16()
		for i := range b {
			if b[i]&m.mask[i] != m.addr[i]&m.mask[i] {
				return false
			}
		}
		return true
	}
	return false
}
