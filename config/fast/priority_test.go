package fast

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/config"
)

// TestConvertPriority: workqueue_priority becomes politeness.priority (levels, default,
// start_uri_pri, pop_scheme, shares, and with put_scheme include the level sections' rules);
// values amber cannot take are errors naming the attrib.
func TestConvertPriority(t *testing.T) {
	wq := func(body ...string) string { return section("workqueue_priority", body...) }
	a005 := "regex:https?://(?:[^/?#@]*@)?[^/?#:@]*web005\\.contoso\\.com(?::[0-9]+)?/.*"
	tests := []struct {
		name    string
		body    string
		want    *config.Priority
		wantErr bool
	}{
		{"none", "", nil, false},
		{"one level", wq(attrib("levels", Integer, "1"), attrib("pop_scheme", String, "pri")), nil, false},
		{"pri", wq(attrib("levels", Integer, "3"), attrib("default", Integer, "3"), attrib("start_uri_pri", Integer, "2"), attrib("pop_scheme", String, "pri")),
			&config.Priority{Levels: 3, Default: 3, Seeds: 2, Pick: "pri"}, false},
		{"default scheme is wrr", wq(attrib("levels", Integer, "2"), section("2", attrib("share", Integer, "4"))),
			&config.Priority{Levels: 2, Pick: "wrr", Shares: map[int]int{2: 4}}, false},
		{"rr: no shares, no rules", wq(attrib("levels", Integer, "2"), attrib("pop_scheme", String, "rr"), attrib("put_scheme", String, "include"),
			section("1", attrib("share", Integer, "4"), section("include_domains", members("suffix", "web005.contoso.com")))),
			&config.Priority{Levels: 2, Pick: "rr"}, false},
		{"include", wq(attrib("levels", Integer, "2"), attrib("pop_scheme", String, "wrr"), attrib("put_scheme", String, "include"),
			section("1", section("include_domains", members("suffix", "web005.contoso.com")), section("include_uris", members("prefix", "http://www.example.com/news/")))),
			&config.Priority{Levels: 2, Pick: "wrr", Rules: []config.PriorityRule{{Level: 1, Match: []config.RuleSpec{
				{Text: a005}, {Text: "regex:http://www\\.example\\.com/news/.*"},
			}}}}, false},
		{"put_scheme default: no rules", wq(attrib("levels", Integer, "2"), section("1", section("include_domains", members("suffix", "web005.contoso.com")))),
			&config.Priority{Levels: 2, Pick: "wrr"}, false},
		{"levels 0", wq(attrib("levels", Integer, "0")), nil, true},
		{"default above levels", wq(attrib("levels", Integer, "2"), attrib("default", Integer, "3")), nil, true},
		{"start_uri_pri 0", wq(attrib("levels", Integer, "2"), attrib("start_uri_pri", Integer, "0")), nil, true},
		{"unknown pop_scheme", wq(attrib("levels", Integer, "2"), attrib("pop_scheme", String, "fifo")), nil, true},
		{"unknown put_scheme", wq(attrib("levels", Integer, "2"), attrib("put_scheme", String, "exclude")), nil, true},
		{"level section above levels", wq(attrib("levels", Integer, "2"), section("3", attrib("share", Integer, "1"))), nil, true},
		{"level section not a number", wq(attrib("levels", Integer, "2"), section("high", attrib("share", Integer, "1"))), nil, true},
		{"share 0", wq(attrib("levels", Integer, "2"), section("1", attrib("share", Integer, "0"))), nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cv, err := convert(t, startURI+tt.body, ConvertOptions{})
			if tt.wantErr {
				if !errors.Is(err, ErrInvalid) {
					t.Fatalf("convert = %v, want ErrInvalid", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, cv.File.Politeness.Priority); diff != "" {
				t.Errorf("politeness.priority (-want +got):\n%s", diff)
			}
		})
	}
}
