package scope

import (
	"errors"
	"testing"
)

func TestRepeatsPattern(t *testing.T) {
	tests := []struct {
		path string
		n    int
		want bool
	}{
		{"/", 2, false},
		{"", 2, false},
		{"/a/a", 2, false},
		{"/a/a/a", 2, true},
		{"/a/a/a", 3, false},
		{"/a/a/a/a", 3, true},
		{"/x/a/a/a/y", 2, true},
		{"/a/b/a/b", 2, false},
		{"/a/b/a/b/a/b", 2, true},
		{"/a/b/a/b/a/b/", 2, true},
		{"/a/b/a/b/a/b", 3, false},
		{"/a/b/a/b/c", 2, false},
		{"/a/b/c/a/b/c/a/b/c", 2, true},
		{"/a/b/c/a/b/c/a/b/d", 2, false},
		{"/a/a/b/a/a/b", 1, true},
		{"/a/b/a/c", 1, false},
		{"/a/ab/ab", 1, true},
		{"/ab/a/b", 1, false},
		{"/s?/s/s/s", 2, false}, // the query is not the path
		{"/a//a", 1, false},
		{"/a////", 2, true}, // empty segments count, as in isTrap
		{"/a///", 2, false},
		{"/1/2/3/4/5/6/7/8/9/10/11/12/13/14/15/16/17/18/19/20", 5, false},
		{"/1/2/3/4/5/6/7/8/9/10/11/12/13/14/15/16/17/18/19/20/21", 5, true},
		{"/1/2/3/4/5/6/7/8/9/10/11/12/13/14/15/16/17/18/19/20/", 5, false},
	}
	for _, tt := range tests {
		if got := repeatsPattern(tt.path, tt.n); got != tt.want {
			t.Errorf("repeatsPattern(%q, %d) = %v, want %v", tt.path, tt.n, got, tt.want)
		}
	}
}

func TestMaxPathRepeats(t *testing.T) {
	n := func(v int) *int { return &v }
	seeds := []Seed{{URL: "http://example.com/"}}
	tests := []struct {
		name    string
		repeats *int
		url     string
		want    Decision
	}{
		{"default: segment 3 times", nil, "http://example.com/a/a/a", Decision{Reason: ReasonTrap}},
		{"default: pair 3 times is no trap", nil, "http://example.com/a/b/a/b/a/b", Decision{In: true, Reason: ReasonSeedPrefix}},
		{"5: segment 5 times", n(5), "http://example.com/a/a/a/a/a", Decision{In: true, Reason: ReasonSeedPrefix}},
		{"5: segment 6 times", n(5), "http://example.com/a/a/a/a/a/a", Decision{Reason: ReasonTrap}},
		{"2: pair 3 times", n(2), "http://example.com/a/b/a/b/a/b", Decision{Reason: ReasonTrap}},
		{"2: 21 segments", n(2), "http://example.com/1/2/3/4/5/6/7/8/9/10/11/12/13/14/15/16/17/18/19/20/21", Decision{Reason: ReasonTrap}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := New(Config{Seeds: seeds, MaxPathRepeats: tt.repeats})
			if err != nil {
				t.Fatal(err)
			}
			got := s.Decide(Candidate{URL: tt.url, Hops: "L", Via: "http://example.com/", Seed: "http://example.com/"})
			if got != tt.want {
				t.Fatalf("Decide(%q) = %+v, want %+v", tt.url, got, tt.want)
			}
		})
	}
	for _, bad := range []int{0, -1} {
		if _, err := New(Config{Seeds: seeds, MaxPathRepeats: n(bad)}); !errors.Is(err, ErrConfig) {
			t.Errorf("MaxPathRepeats %d: error %v, want ErrConfig", bad, err)
		}
	}
}
