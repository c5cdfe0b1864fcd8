package crawl

import (
	"errors"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/frontier/redisfront"
	"github.com/amber-crawler/amber/internal/redistest"
	"github.com/amber-crawler/amber/scope"
)

// TestCrawlPriority: crawl.log follows the levels: with pri, the seeds (level 1) and the
// URLs of the host a rule puts at level 1 come before the others (the default level 2);
// without levels, the hosts take turns.
func TestCrawlPriority(t *testing.T) {
	addr, _ := sitesServer(t, 3)
	tests := []struct {
		name     string
		priority Priority
		want     []string
	}{
		{"pri", Priority{Levels: 2, Default: 2, Seeds: 1, Pick: "pri",
			Rules: []PriorityRule{{Level: 1, Match: []scope.Rule{{Host: "b.test"}}}}},
			[]string{
				"http://a.test/", "http://b.test/",
				"http://b.test/1", "http://b.test/2", "http://b.test/3", "http://b.test/favicon.ico",
				"http://a.test/1", "http://a.test/2", "http://a.test/3", "http://a.test/favicon.ico",
			}},
		{"rr", Priority{Levels: 2, Default: 2, Seeds: 1, Pick: "rr",
			Rules: []PriorityRule{{Level: 1, Match: []scope.Rule{{Host: "b.test"}}}}},
			[]string{
				// a's seed (level 1), then level 2 and level 1 in turn
				"http://a.test/", "http://a.test/1", "http://b.test/", "http://a.test/2",
				"http://b.test/1", "http://a.test/3", "http://b.test/2", "http://a.test/favicon.ico",
				"http://b.test/3", "http://b.test/favicon.ico",
			}},
		{"no levels", Priority{},
			[]string{
				"http://a.test/", "http://b.test/",
				"http://a.test/1", "http://b.test/1", "http://a.test/2", "http://b.test/2",
				"http://a.test/3", "http://b.test/3", "http://a.test/favicon.ico", "http://b.test/favicon.ico",
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := sitesConfig(t, addr, "a.test", "b.test")
			cfg.Workers = 1
			cfg.Priority = tt.priority
			res, err := Run(t.Context(), cfg)
			if err != nil || res.End != EndFinished {
				t.Fatalf("Run = %+v, %v", res, err)
			}
			if diff := cmp.Diff(tt.want, crawlLogURLs(t, cfg.Dir)); diff != "" {
				t.Errorf("crawl.log order (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCrawlPriorityShared: with the shared frontier (Redis) too, crawl.log follows the levels:
// the seeds (level 1, in either order: they become ready together), then the host a rule
// puts at level 1, then the others.
func TestCrawlPriorityShared(t *testing.T) {
	addr, _ := sitesServer(t, 3)
	srv := redistest.Start(t)
	cfg := sitesConfig(t, addr, "a.test", "b.test")
	cfg.Workers = 1
	cfg.Shared = redisfront.Shared{URL: srv.URL(0), CrawlID: "priority"}
	cfg.Priority = Priority{Levels: 2, Default: 2, Seeds: 1, Pick: "pri",
		Rules: []PriorityRule{{Level: 1, Match: []scope.Rule{{Host: "b.test"}}}}}
	res, err := Run(t.Context(), cfg)
	if err != nil || res.End != EndFinished {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	got := crawlLogURLs(t, cfg.Dir)
	if len(got) != 10 {
		t.Fatalf("crawl.log %q, want 10 lines", got)
	}
	seeds := slices.Sorted(slices.Values(got[:2]))
	if diff := cmp.Diff([]string{"http://a.test/", "http://b.test/"}, seeds); diff != "" {
		t.Errorf("first two lines, the seeds (-want +got):\n%s", diff)
	}
	want := []string{
		"http://b.test/1", "http://b.test/2", "http://b.test/3", "http://b.test/favicon.ico",
		"http://a.test/1", "http://a.test/2", "http://a.test/3", "http://a.test/favicon.ico",
	}
	if diff := cmp.Diff(want, got[2:]); diff != "" {
		t.Errorf("crawl.log after the seeds (-want +got):\n%s", diff)
	}
}

// TestValidatePriority: invalid priority settings are refused, naming the field.
func TestValidatePriority(t *testing.T) {
	tests := []struct {
		name  string
		p     Priority
		redis bool
		field string // "" = valid
	}{
		{"none", Priority{}, false, ""},
		{"valid", Priority{Levels: 3, Default: 3, Seeds: 1, Pick: "wrr", Shares: map[int]int{1: 10, 2: 5},
			Rules: []PriorityRule{{Level: 1, Match: []scope.Rule{{Host: "example.org"}}}}}, false, ""},
		{"negative levels", Priority{Levels: -1}, false, "Priority.Levels"},
		{"rules without levels", Priority{Rules: []PriorityRule{{Level: 1, Match: []scope.Rule{{Host: "a"}}}}}, false, "Priority.Levels"},
		{"default above levels", Priority{Levels: 2, Default: 3}, false, "Priority.Default"},
		{"seeds above levels", Priority{Levels: 2, Seeds: 3}, false, "Priority.Seeds"},
		{"unknown pick", Priority{Levels: 2, Pick: "fifo"}, false, "Priority.Pick"},
		{"share of no level", Priority{Levels: 2, Shares: map[int]int{3: 1}}, false, "Priority.Shares"},
		{"zero share", Priority{Levels: 2, Shares: map[int]int{1: 0}}, false, "Priority.Shares"},
		{"rule level 0", Priority{Levels: 2, Rules: []PriorityRule{{Match: []scope.Rule{{Host: "a"}}}}}, false, "Priority.Rules[0].Level"},
		{"rule without match", Priority{Levels: 2, Rules: []PriorityRule{{Level: 1}}}, false, "Priority.Rules[0].Match"},
		{"bad regex", Priority{Levels: 2, Rules: []PriorityRule{{Level: 1, Match: []scope.Rule{{Regex: "("}}}}}, false, "Priority.Rules[0].Match"},
		{"ip matcher", Priority{Levels: 2, Rules: []PriorityRule{{Level: 1, Match: []scope.Rule{{IP: "10.0.0.0/8"}}}}}, false, "Priority.Rules[0].Match"},
		{"shared frontier", Priority{Levels: 2}, true, ""},
		{"shared frontier, too many levels", Priority{Levels: 256}, true, "Priority.Levels"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Config{Priority: tt.p}
			if tt.redis {
				c.Shared = redisfront.Shared{URL: "redis://127.0.0.1:1/0"}
			}
			err := c.validatePriority()
			var fe *FieldError
			switch {
			case tt.field == "" && err != nil:
				t.Errorf("validatePriority = %v, want nil", err)
			case tt.field != "" && (!errors.As(err, &fe) || fe.Field != tt.field):
				t.Errorf("validatePriority = %v, want a FieldError of %s", err, tt.field)
			}
		})
	}
}
