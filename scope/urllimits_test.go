package scope

import "testing"

// TestURLLimits checks Config.MaxURLSegments and MaxURLParams (the Elastic Open Crawler's
// max_url_segments and max_url_params): path segments counted as the "/" of the path, query
// parameters as its non-empty "&"-separated pairs, seeds included, 0 no limit.
func TestURLLimits(t *testing.T) {
	tests := []struct {
		name       string
		segs, pars int
		url, hops  string
		want       string // reason when out, "" when in
	}{
		{"3 segments, limit 3", 3, 0, "http://a.example/a/b/c", "L", ""},
		{"4 segments, limit 3", 3, 0, "http://a.example/a/b/c/", "L", ReasonTooManySegments},
		{"a seed too", 3, 0, "http://a.example/a/b/c/d", "", ReasonTooManySegments},
		{"slashes in the query do not count", 1, 0, "http://a.example/a?x=/b/c/d", "L", ""},
		{"root has 1", 1, 0, "http://a.example/", "L", ""},
		{"2 params, limit 2", 0, 2, "http://a.example/a?x=1&y=2", "L", ""},
		{"3 params, limit 2", 0, 2, "http://a.example/a?x=1&y=2&z", "L", ReasonTooManyParams},
		{"empty pairs do not count", 0, 2, "http://a.example/a?x=1&&y=2&", "L", ""},
		{"no limits", 0, 0, "http://a.example/1/2/3/4/5/6?a&b&c&d", "L", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := New(Config{Seeds: []Seed{{URL: "http://a.example/"}}, MaxURLSegments: tt.segs, MaxURLParams: tt.pars})
			if err != nil {
				t.Fatal(err)
			}
			d := s.Decide(Candidate{URL: tt.url, Hops: tt.hops, Via: "http://a.example/"})
			if tt.want == "" && !d.In {
				t.Errorf("out (%s), want in", d.Reason)
			}
			if tt.want != "" && (d.In || d.Reason != tt.want) {
				t.Errorf("in %v reason %s, want out %s", d.In, d.Reason, tt.want)
			}
		})
	}
	if _, err := New(Config{Seeds: []Seed{{URL: "http://a.example/"}}, MaxURLParams: -1}); err == nil {
		t.Error("negative max_url_params accepted")
	}
}
