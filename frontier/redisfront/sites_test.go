package redisfront

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/internal/redistest"
)

// TestSitesAcrossProcesses: MaxSites counts the sites of all processes together, a place
// freed by one process goes to the host another waits for, and a process whose lease
// expires frees its sites.
func TestSitesAcrossProcesses(t *testing.T) {
	srv := redistest.Start(t)
	cfg := Config{MaxSites: 1, Lease: time.Second}
	a := open(t, srv, "sites", "a", cfg)
	b := open(t, srv, "sites", "b", cfg)
	add(t, a, []frontier.URL{{URL: "http://x/1", Host: "x"}, {URL: "http://y/1", Host: "y"}, {URL: "http://z/1", Host: "z"}})
	claim := func(f *Frontier) *frontier.Claim {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		c, err := f.Claim(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	noClaim := func(f *Frontier) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		if c, err := f.Claim(ctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Claim = %v, %v; want nothing: the one site place is taken", c, err)
		}
	}
	x := claim(a)
	if x.URL.Host != "x" {
		t.Fatalf("first claim %s, want host x", x.URL.URL)
	}
	noClaim(b) // y and z wait, in that order
	if st := b.Stats(); st.Sites != 1 || st.SitesWaiting != 2 {
		t.Errorf("Stats = %+v, want 1 site, 2 waiting", st)
	}
	if err := a.Done(x); err != nil {
		t.Fatal(err)
	}
	y := claim(b)
	if y.URL.Host != "y" {
		t.Fatalf("claim after x's queue emptied: %s, want host y (first in line)", y.URL.URL)
	}
	noClaim(a)
	b.abandon() // killed holding y: its lease expires, y/1 is queued again, y keeps the place
	y = claim(a)
	if y.URL.URL != "http://y/1" {
		t.Fatalf("claim after b's lease expired: %s, want http://y/1 again", y.URL.URL)
	}
	if err := a.Done(y); err != nil {
		t.Fatal(err)
	}
	if z := claim(a); z.URL.Host != "z" {
		t.Fatalf("last claim %s, want host z", z.URL.URL)
	}
}
