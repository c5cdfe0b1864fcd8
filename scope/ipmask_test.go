package scope

import (
	"errors"
	"net/netip"
	"testing"
)

func TestParseIPMask(t *testing.T) {
	tests := []struct {
		name    string
		mask    string
		is6     bool
		in, out []string
	}{
		{"IPv4 range in the last field", "207.46.197.0-100", false,
			[]string{"207.46.197.0", "207.46.197.50", "207.46.197.100", "::ffff:207.46.197.7"},
			[]string{"207.46.197.101", "207.46.196.50", "207.46.198.0", "2002:cf2e:c500::"}},
		{"IPv4 range in a middle field: from low to high address", "207.46.190-197.100", false,
			[]string{"207.46.190.100", "207.46.190.255", "207.46.193.0", "207.46.197.100"},
			[]string{"207.46.190.99", "207.46.197.101", "207.46.189.100"}},
		{"IPv4 N bits", "207.46.197.0/24", false,
			[]string{"207.46.197.0", "207.46.197.255"}, []string{"207.46.196.255", "207.46.198.0"}},
		{"IPv4 N bits, space before the slash (the specification's example)", "207.46.197.0 /24", false,
			[]string{"207.46.197.9"}, []string{"207.46.198.9"}},
		{"IPv4 N bits: host bits ignored", "10.1.2.3/8", false, []string{"10.200.0.1"}, []string{"11.0.0.0"}},
		{"IPv4 /0 holds every IPv4 address", "0.0.0.0/0", false, []string{"1.2.3.4", "255.255.255.255"}, []string{"::1"}},
		{"IPv4 /32", "127.0.0.2/32", false, []string{"127.0.0.2"}, []string{"127.0.0.1"}},
		{"IPv4 dotted bit mask", "207.46.197.0:255.255.255.0", false,
			[]string{"207.46.197.1", "207.46.197.255"}, []string{"207.46.196.1"}},
		{"IPv4 hexadecimal bit mask", "207.46.197.0:0xffffff00", false,
			[]string{"207.46.197.1"}, []string{"207.46.196.1"}},
		{"IPv4 hexadecimal bit mask, upper case, short", "0.0.0.5:0XF", false,
			[]string{"9.9.9.5", "1.2.3.21"}, []string{"0.0.0.6"}},
		{"IPv4 bit mask not contiguous", "10.0.0.1:255.0.0.255", false,
			[]string{"10.77.3.1", "10.0.0.1"}, []string{"10.0.0.2", "11.0.0.1"}},
		{"one IPv4 address", "127.0.0.1", false, []string{"127.0.0.1"}, []string{"127.0.0.2"}},
		{"IPv6 range (the specification's example)", "2002:CF2E:C500-C564:0:0:0:0", true,
			[]string{"2002:cf2e:c500::", "2002:cf2e:c532:1::5", "2002:cf2e:c564::"},
			[]string{"2002:cf2e:c564::1", "2002:cf2e:c4ff:ffff::", "207.46.197.0"}},
		{"IPv6 range of IPv4-mapped addresses holds IPv4 ones", "::ffff:207.46.197.0-100", true,
			[]string{"::ffff:207.46.197.5", "207.46.197.5", "207.46.197.100"}, []string{"207.46.197.101", "::207.46.197.5"}},
		{"IPv6 N bits (the specification's example)", "2002:CF2E:C500:0:0:0:0/60", true,
			[]string{"2002:cf2e:c500::1", "2002:cf2e:c500:f::"}, []string{"2002:cf2e:c500:10::", "2002:cf2e:c501::"}},
		{"IPv6 /128", "::1/128", true, []string{"::1"}, []string{"::2", "127.0.0.1"}},
		{"IPv6 bit mask in brackets", "[2001:db8::]:ffff:ffff::", true,
			[]string{"2001:db8::1", "2001:db8:ffff::"}, []string{"2001:db9::"}},
		{"IPv6 hexadecimal bit mask", "[2001:db8::]:0xffffffff000000000000000000000000", true,
			[]string{"2001:db8:1::"}, []string{"2001:db7::"}},
		{"one IPv6 address", "2001:db8::7", true, []string{"2001:db8::7"}, []string{"2001:db8::8"}},
		{"a zone on the address looked up is ignored", "fe80::/10", true, []string{"fe80::1%eth0"}, []string{"fec0::1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := ParseIPMask(tt.mask)
			if err != nil {
				t.Fatalf("ParseIPMask(%q): %v", tt.mask, err)
			}
			if m.Is6() != tt.is6 {
				t.Errorf("Is6() = %v, want %v", m.Is6(), tt.is6)
			}
			if m.String() != tt.mask {
				t.Errorf("String() = %q, want %q", m.String(), tt.mask)
			}
			for _, a := range tt.in {
				if !m.Contains(netip.MustParseAddr(a)) {
					t.Errorf("%s not in %s", a, tt.mask)
				}
			}
			for _, a := range tt.out {
				if m.Contains(netip.MustParseAddr(a)) {
					t.Errorf("%s in %s", a, tt.mask)
				}
			}
			if m.Contains(netip.Addr{}) {
				t.Errorf("the zero Addr is in %s", tt.mask)
			}
		})
	}
}

func TestParseIPMaskErrors(t *testing.T) {
	for _, s := range []string{
		"",
		"   ",
		"207.46.197",                // three fields
		"207.46.197.256",            // field too big
		"207.46.197.0-300",          // range end too big
		"207.46.197.100-0",          // range downwards
		"207.46.197.-100",           // range without low end
		"207.46.197.0-",             // range without high end
		"207.46.197.0-1-2",          // two hyphens in a field
		"207.46.197.a-b",            // not numbers
		"207.46.197.0/33",           // too many bits
		"207.46.197.0/-1",           // negative bits
		"207.46.197.0/",             // no bits
		"207.46.197.0/x",            // bits not a number
		"207.46.197.0/+8",           // signed
		"2001:db8::/129",            // too many bits
		"207.46.197.0:255.255.255",  // short mask
		"207.46.197.0:0x",           // hex without digits
		"207.46.197.0:0xffffffff00", // the specification's example: 40 bits
		"207.46.197.0:0xfffffg00",   // not hex
		"207.46.197.0:",             // empty mask
		"207.46.197.0:::1",          // IPv6 mask on an IPv4 address
		"[207.46.197.0]:255.0.0.0",  // IPv4 in brackets
		"[2001:db8::]:255.0.0.0",    // IPv4 mask on IPv6
		"[2001:db8::]",              // no mask
		"[2001:db8::]:0x" + "f" + "0000000000000000000000000000000000", // 33 digits
		"2001:db8::1%eth0",         // zone
		"207.46.197.0 - 100",       // space inside
		"host.example.org",         // a name
		"::ffff:207.46.197.0-1::2", // range start and end not addresses
		"0177.0.0.1",               // octal is not read
	} {
		t.Run(s, func(t *testing.T) {
			_, err := ParseIPMask(s)
			if err == nil {
				t.Fatalf("ParseIPMask(%q): no error", s)
			}
			if !errors.Is(err, ErrRule) {
				t.Errorf("ParseIPMask(%q) = %v, not ErrRule", s, err)
			}
		})
	}
}

func TestIPRules(t *testing.T) {
	tests := []struct {
		name       string
		accept     []Rule
		block      []Rule
		url, addr  string
		hops       string
		wantIn     bool
		wantReason string
		wantByAddr bool
	}{
		{"accepted by an ip rule", []Rule{{IP: "10.0.0.0/8"}}, nil,
			"http://other.example/a", "10.1.2.3", "L", true, "accept:ip:10.0.0.0/8", true},
		{"not accepted: address outside", []Rule{{IP: "10.0.0.0/8"}}, nil,
			"http://other.example/a", "11.1.2.3", "L", false, ReasonAddress, true},
		{"not accepted: no address", []Rule{{IP: "10.0.0.0/8"}}, nil,
			"http://other.example/a", "", "L", false, ReasonNoAddress, true},
		{"an ip rule with a host matcher: both must hold", []Rule{{IP: "10.0.0.0/8", Host: "example.org"}}, nil,
			"http://other.example/a", "10.1.2.3", "L", false, ReasonOutOfScope, false},
		{"no address but the host matcher fails anyway", []Rule{{IP: "10.0.0.0/8", Host: "example.org"}}, nil,
			"http://other.example/a", "", "L", false, ReasonOutOfScope, false},
		{"blocked by an ip rule", nil, []Rule{{IP: "127.0.0.2"}},
			"http://seed.example/a", "127.0.0.2", "L", false, "block:ip:127.0.0.2", true},
		{"blocked embed", nil, []Rule{{IP: "127.0.0.2"}},
			"http://cdn.example/a.png", "127.0.0.2", "LE", false, "block:ip:127.0.0.2", true},
		{"a block rule without an address does not block, nor make no-address", nil, []Rule{{IP: "127.0.0.2"}},
			"http://seed.example/a", "", "L", true, ReasonSeedPrefix, false},
		{"out of scope, a block ip rule untried: out-of-scope, not no-address", nil, []Rule{{IP: "127.0.0.2"}},
			"http://other.example/a", "", "L", false, ReasonOutOfScope, false},
		{"not blocked: other address", nil, []Rule{{IP: "127.0.0.2"}},
			"http://seed.example/a", "127.0.0.1", "L", true, ReasonSeedPrefix, false},
		{"out of scope, a block ip rule failed: out-of-scope, not address", nil, []Rule{{IP: "127.0.0.2"}},
			"http://other.example/a", "127.0.0.1", "L", false, ReasonOutOfScope, false},
		{"in by the seed prefix, an accept ip rule failed: in", []Rule{{IP: "10.0.0.0/8"}}, nil,
			"http://seed.example/a", "127.0.0.1", "L", true, ReasonSeedPrefix, false},
		{"IPv6 rule, IPv4-mapped", []Rule{{IP: "::ffff:10.0.0.0/104"}}, nil,
			"http://other.example/a", "10.9.9.9", "L", true, "accept:ip:::ffff:10.0.0.0/104", true},
		{"seeds are in whatever their address", nil, []Rule{{IP: "0.0.0.0/0"}},
			"http://seed.example/", "1.2.3.4", "", true, ReasonSeed, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, fl := range []Flavour{Standard, Brozzler} {
				s, err := New(Config{Flavour: fl, Accept: tt.accept, Block: tt.block,
					Seeds: []Seed{{URL: "http://seed.example/"}}})
				if err != nil {
					t.Fatal(err)
				}
				if !s.NeedsAddr() {
					t.Errorf("%s: NeedsAddr() false", fl)
				}
				c := Candidate{URL: tt.url, Hops: tt.hops, Via: "http://seed.example/"}
				if tt.addr != "" {
					c.Addr = netip.MustParseAddr(tt.addr)
				}
				d := s.Decide(c)
				want := tt.wantReason
				if d.In != tt.wantIn || d.Reason != want || d.ByAddr != tt.wantByAddr {
					t.Errorf("%s: Decide = %+v, want in %v reason %q byAddr %v", fl, d, tt.wantIn, want, tt.wantByAddr)
				}
			}
		})
	}
}

func TestNeedsAddr(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want bool
	}{
		{"no rules", Config{Seeds: []Seed{{URL: "http://a.example/"}}}, false},
		{"rules without ip", Config{Accept: []Rule{{Host: "b.example"}}, Seeds: []Seed{{URL: "http://a.example/"}}}, false},
		{"collection ip rule", Config{Block: []Rule{{IP: "10.0.0.0/8"}}}, true},
		{"seed ip rule", Config{Seeds: []Seed{{URL: "http://a.example/", Accept: []Rule{{IP: "10.0.0.0/8"}}}}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := New(tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if got := s.NeedsAddr(); got != tt.want {
				t.Errorf("NeedsAddr() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestIPRuleText(t *testing.T) {
	tests := []struct {
		text    string
		want    Rule
		wantErr bool
	}{
		{"ip:207.46.197.0/24", Rule{IP: "207.46.197.0/24"}, false},
		{"IP: 207.46.197.0-100 ", Rule{IP: "207.46.197.0-100"}, false},
		{"ip:207.46.197.0:255.255.255.0", Rule{IP: "207.46.197.0:255.255.255.0"}, false},
		{"ip:[2001:db8::]:ffff::", Rule{IP: "[2001:db8::]:ffff::"}, false},
		{"ip:2001:db8::/32", Rule{IP: "2001:db8::/32"}, false},
		{"ip:10.0.0.0/40", Rule{}, true},
		{"ip:", Rule{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			r, err := ParseRule(tt.text)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParseRule(%q) error %v, want error %v", tt.text, err, tt.wantErr)
			}
			if err != nil {
				if !errors.Is(err, ErrRule) {
					t.Errorf("error %v is not ErrRule", err)
				}
				return
			}
			if r != tt.want {
				t.Errorf("ParseRule(%q) = %+v, want %+v", tt.text, r, tt.want)
			}
			if got := r.String(); got != "ip:"+tt.want.IP {
				t.Errorf("String() = %q", got)
			}
		})
	}
	if _, err := RuleFromMap(map[string]string{"ip": "10.0.0.0/8", "host": "example.org"}); err != nil {
		t.Errorf("RuleFromMap with ip and host: %v", err)
	}
	if _, err := New(Config{Accept: []Rule{{IP: "10.0.0.0/99"}}}); !errors.Is(err, ErrRule) {
		t.Errorf("New with a bad ip rule: %v, want ErrRule", err)
	}
}

// FuzzParseIPMask: any text parses or fails with ErrRule, never panics; a mask parses again
// from its String to the same mask, and holds the addresses its text starts from.
func FuzzParseIPMask(f *testing.F) {
	for _, s := range []string{"207.46.197.0-100", "207.46.190-197.100", "207.46.197.0/24", "207.46.197.0 /24",
		"207.46.197.0:255.255.255.0", "207.46.197.0:0xffffff00", "2002:CF2E:C500-C564:0:0:0:0",
		"::ffff:207.46.197.0-100", "2002:CF2E:C500:0:0:0:0/60", "[2001:db8::]:ffff::", "10.0.0.1", "1-2.3.4.5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseIPMask(s)
		if err != nil {
			if !errors.Is(err, ErrRule) {
				t.Fatalf("ParseIPMask(%q) = %v, not ErrRule", s, err)
			}
			return
		}
		again, err := ParseIPMask(m.String())
		if err != nil || again != m {
			t.Fatalf("ParseIPMask(%q) again = %+v, %v; want %+v", m.String(), again, err, m)
		}
		switch m.form {
		case 'r':
			if !m.Contains(m.lo) || !m.Contains(m.hi) {
				t.Fatalf("%q does not hold its ends %s and %s", s, m.lo, m.hi)
			}
		case 'p':
			if !m.Contains(m.prefix.Addr()) {
				t.Fatalf("%q does not hold %s", s, m.prefix.Addr())
			}
		case 'm':
			a := netip.AddrFrom16(m.addr)
			if !m.is6 {
				a = a.Unmap()
				if a.Is6() { // the IPv4 address is in the last four bytes, after zeros
					a = netip.AddrFrom4([4]byte(m.addr[12:]))
				}
			}
			if !m.Contains(a) {
				t.Fatalf("%q does not hold %s", s, a)
			}
		default:
			t.Fatalf("%q: form %q", s, m.form)
		}
	})
}
