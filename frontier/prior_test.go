package frontier

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestPriorDigests: the last capture given of a digest is kept, within a batch and across
// batches; digests longer than a key part are stored hashed; all of it survives reopening.
func TestPriorDigests(t *testing.T) {
	dir := t.TempDir()
	f := openT(t, Config{Dir: dir})
	t1, t2 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	long := "sha1:" + strings.Repeat("L", 300)
	if err := f.StorePriorDigests([]Prior{
		{Key: "sha1:A", URI: "http://a.test/1", Date: t1},
		{Key: "sha1:A", URI: "http://a.test/2", Date: t2}, // same batch: the last wins
		{Key: long, URI: "http://a.test/long", Date: t1},
	}); err != nil {
		t.Fatal(err)
	}
	if err := f.StorePriorDigests([]Prior{
		{Key: "sha1:A", URI: "http://a.test/3", Date: t1}, // later batch: the last wins
		{Key: "sha1:B", URI: "http://b.test/", Date: t2},
	}); err != nil {
		t.Fatal(err)
	}
	check := func(f *Frontier) {
		t.Helper()
		for _, tc := range []struct {
			digest, uri string
			date        time.Time
			ok          bool
		}{
			{"sha1:A", "http://a.test/3", t1, true},
			{"sha1:B", "http://b.test/", t2, true},
			{long, "http://a.test/long", t1, true},
			{long[:len(long)-1] + "M", "", time.Time{}, false}, // same first 256 bytes
			{"sha1:C", "", time.Time{}, false},
		} {
			uri, date, ok, err := f.PriorDigest(tc.digest)
			if err != nil || uri != tc.uri || !date.Equal(tc.date) || ok != tc.ok {
				t.Errorf("PriorDigest(%.20s) = %q, %v, %v, %v; want %q, %v, %v", tc.digest, uri, date, ok, err, tc.uri, tc.date, tc.ok)
			}
		}
		// The crawl's own digests are another keyspace.
		if _, _, ok, err := f.LookupDigest("sha1:A"); ok || err != nil {
			t.Errorf("LookupDigest finds an earlier crawl's digest: %v, %v", ok, err)
		}
		if _, ok, err := f.PriorURL("http://a.test/1"); ok || err != nil {
			t.Errorf("PriorURL finds a capture stored by digest: %v, %v", ok, err)
		}
	}
	check(f)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	check(openT(t, Config{Dir: dir}))
}

// TestPriorURLs: of two captures of a URL the later one is kept, whatever the order given.
func TestPriorURLs(t *testing.T) {
	f := openT(t, Config{})
	day := func(d int) time.Time { return time.Date(2025, 1, d, 0, 0, 0, 0, time.UTC) }
	long := "http://a.test/" + strings.Repeat("x", 400)
	in := []Prior{
		{Key: "http://a.test/", URI: "http://a.test/", Date: day(2), Captured: day(2), Digest: "sha1:A", ETag: `"2"`, Mime: "text/html"},
		{Key: "http://a.test/", URI: "http://a.test/", Date: day(1), Captured: day(1), Digest: "sha1:Z", ETag: `"1"`}, // older
		{Key: "http://b.test/", URI: "http://b.test/orig", Date: day(1), Captured: day(3), LastModified: "Mon, 01 Jan 2024 00:00:00 GMT"},
		{Key: long, URI: long, Date: day(4), Captured: day(4), ETag: `"long"`},
		{Key: "http://c.test/", URI: "http://c.test/", Date: day(5), Captured: day(5), ETag: `"first"`},
		{Key: "http://c.test/", URI: "http://c.test/", Date: day(5), Captured: day(5), ETag: `"same time"`},
	}
	if err := f.StorePriorURLs(in[:3]); err != nil {
		t.Fatal(err)
	}
	if err := f.StorePriorURLs(in[3:]); err != nil {
		t.Fatal(err)
	}
	// A later batch with a later capture replaces, an earlier one does not.
	if err := f.StorePriorURLs([]Prior{
		{Key: "http://b.test/", URI: "http://b.test/", Date: day(6), Captured: day(6), ETag: `"b6"`},
		{Key: "http://a.test/", URI: "http://a.test/", Date: day(1), Captured: day(1)},
	}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		url  string
		want Prior
		ok   bool
	}{
		{"http://a.test/", in[0], true},
		{"http://b.test/", Prior{Key: "http://b.test/", URI: "http://b.test/", Date: day(6), Captured: day(6), ETag: `"b6"`}, true},
		{long, in[3], true},
		{"http://c.test/", in[4], true},
		{"http://d.test/", Prior{}, false},
	} {
		got, ok, err := f.PriorURL(tc.url)
		if err != nil || ok != tc.ok {
			t.Errorf("PriorURL(%.30s): ok %v, err %v", tc.url, ok, err)
			continue
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("PriorURL(%.30s) (-want +got):\n%s", tc.url, d)
		}
	}
	if _, _, ok, err := f.PriorDigest("http://a.test/"); ok || err != nil {
		t.Errorf("PriorDigest finds a capture stored by URL: %v, %v", ok, err)
	}
}

// TestPriorBatches: a batch larger than a transaction is written in several, all of it.
func TestPriorBatches(t *testing.T) {
	f := openT(t, Config{})
	date := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	ps := make([]Prior, 30000)
	for i := range ps {
		ps[i] = Prior{Key: fmt.Sprintf("sha1:%032d", i), URI: fmt.Sprintf("http://example.test/page/%d", i), Date: date}
	}
	if err := f.StorePriorDigests(ps); err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 1, 9999, 15000, 29999} {
		uri, _, ok, err := f.PriorDigest(ps[i].Key)
		if err != nil || !ok || uri != ps[i].URI {
			t.Errorf("PriorDigest(%s) = %q, %v, %v", ps[i].Key, uri, ok, err)
		}
	}
	big := Prior{Key: "sha1:X", URI: "http://x.test/" + strings.Repeat("a", MaxRecordSize)}
	if err := f.StorePriorDigests([]Prior{big}); !errors.Is(err, ErrURL) {
		t.Errorf("oversized entry: err = %v, want ErrURL", err)
	}
}
