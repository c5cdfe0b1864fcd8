package fetch

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"testing"
	"time"
)

var errTestNXDomain = errors.New("test: no such host")

// TestResolver: connect_to first (an address as it is, a name resolved), literal addresses,
// answers and failures cached for their time, a host without addresses an error.
func TestResolver(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	lookups := map[string]int{}
	b := NewResolver([]ConnectTo{
		{Host: "mapped.example", ToHost: "127.0.0.2"},
		{Host: "named.example", ToHost: "target.example"},
		{Host: "port.example", Port: "8080", ToHost: "127.0.0.3"},
	}, 0)
	b.now = func() time.Time { return now }
	b.lookup = func(_ context.Context, host string) ([]netip.Addr, error) {
		lookups[host]++
		switch host {
		case "www.example", "target.example":
			return []netip.Addr{netip.MustParseAddr("::ffff:192.0.2.7"), netip.MustParseAddr("192.0.2.8")}, nil
		case "empty.example":
			return nil, nil
		}
		return nil, errTestNXDomain
	}
	tests := []struct {
		url     string
		want    string
		err     error
		lookups map[string]int // after this row
	}{
		{"http://mapped.example/", "127.0.0.2", nil, map[string]int{}},
		{"http://[2001:db8::1]/", "2001:db8::1", nil, map[string]int{}},
		{"http://192.0.2.1:8080/", "192.0.2.1", nil, map[string]int{}},
		{"http://www.example/a", "192.0.2.7", nil, map[string]int{"www.example": 1}},  // the first, unmapped
		{"https://www.example/b", "192.0.2.7", nil, map[string]int{"www.example": 1}}, // cached
		{"http://named.example/", "192.0.2.7", nil, map[string]int{"www.example": 1, "target.example": 1}},
		{"http://port.example:8080/", "127.0.0.3", nil, map[string]int{"www.example": 1, "target.example": 1}},
		{"http://port.example/", "", errTestNXDomain, map[string]int{"www.example": 1, "target.example": 1, "port.example": 1}},
		{"http://port.example/x", "", errTestNXDomain, map[string]int{"www.example": 1, "target.example": 1, "port.example": 1}},
		{"http://empty.example/", "", ErrNoAddress, map[string]int{"www.example": 1, "target.example": 1, "port.example": 1, "empty.example": 1}},
	}
	for _, tt := range tests {
		a, err := b.URLAddr(tt.url)
		if !errors.Is(err, tt.err) || (tt.err == nil && a.String() != tt.want) {
			t.Errorf("%s: %v, %v; want %s, %v", tt.url, a, err, tt.want, tt.err)
		}
		if len(lookups) != len(tt.lookups) {
			t.Errorf("%s: look-ups %v, want %v", tt.url, lookups, tt.lookups)
		}
		for h, n := range tt.lookups {
			if lookups[h] != n {
				t.Errorf("%s: look-ups %v, want %v", tt.url, lookups, tt.lookups)
			}
		}
	}
	// A failure is asked again after ResolverFailTTL, an answer after ResolverTTL.
	now = now.Add(ResolverFailTTL + time.Second)
	b.URLAddr("http://port.example/")
	b.URLAddr("http://www.example/")
	if lookups["port.example"] != 2 || lookups["www.example"] != 1 {
		t.Errorf("after %v: look-ups %v", ResolverFailTTL, lookups)
	}
	now = now.Add(ResolverTTL)
	b.URLAddr("http://www.example/")
	if lookups["www.example"] != 2 {
		t.Errorf("after %v: look-ups %v", ResolverTTL, lookups)
	}
}

// TestResolverPrune: the cache drops what has expired once it holds minPrune entries.
func TestResolverPrune(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	b := NewResolver(nil, 0)
	b.now = func() time.Time { return now }
	b.lookup = func(context.Context, string) ([]netip.Addr, error) {
		return []netip.Addr{netip.MustParseAddr("192.0.2.1")}, nil
	}
	for i := range minPrune - 2 {
		b.entries[fmt.Sprintf("old%d.example", i)] = resolved{until: now.Add(-time.Second)}
	}
	b.entries["fresh.example"] = resolved{until: now.Add(time.Minute)}
	if _, err := b.URLAddr("http://new.example/"); err != nil {
		t.Fatal(err)
	}
	if len(b.entries) != 2 {
		t.Errorf("%d hosts cached after pruning, want 2 (fresh and new)", len(b.entries))
	}
}
