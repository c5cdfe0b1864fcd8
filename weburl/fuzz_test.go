package weburl

import (
	"errors"
	"net/netip"
	"testing"
)

func FuzzHost(f *testing.F) {
	for _, s := range []string{
		"127.0.0.1", "0x7f.1", "2130706433", "0177.0.0.1.", "1.2.3.4.5", "foo.0x", "foo.09..",
		"::1", "bücher.ch", "１２７。１", "0x.0x.0", "99999999999999999999", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, h string) {
		got, err := Host(h)
		if err != nil {
			if !errors.Is(err, ErrHost) {
				t.Fatalf("Host(%q) error %v does not wrap ErrHost", h, err)
			}
			return
		}
		again, err := Host(got)
		if err != nil || again != got {
			t.Fatalf("not idempotent: %q -> %q -> %q, %v", h, got, again, err)
		}
		if EndsInNumber(got) {
			if ip, err := netip.ParseAddr(got); err != nil || !ip.Is4() || ip.String() != got {
				t.Fatalf("Host(%q) = %q ends in a number but is no dotted IPv4 address", h, got)
			}
		}
	})
}

func FuzzSortQuery(f *testing.F) {
	for _, s := range []string{"http://a/?b=2&a=1", "http://a/?b=2;a=1&c#x", "?&;=", "http://a/#?b&a", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, u string) {
		got := SortQuery(u)
		if len(got) != len(u) {
			t.Fatalf("SortQuery(%q) = %q: length changed", u, got)
		}
		if again := SortQuery(got); again != got {
			t.Fatalf("not idempotent: %q -> %q -> %q", u, got, again)
		}
	})
}
