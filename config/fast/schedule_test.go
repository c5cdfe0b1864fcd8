package fast

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/config"
)

// TestConvertSchedule: variable_delay becomes politeness.delay_schedule (§3.7 and other slot
// spellings), max_sites and max_inter_docs their politeness keys, max_sites left out FAST's
// default 128; values that are not slots, delays or counts are errors at their element.
func TestConvertSchedule(t *testing.T) {
	type want struct {
		Schedule               []config.DelaySlot
		MaxSites, MaxInterDocs int
		Source                 string // the source comment of politeness.delay_schedule
	}
	tests := []struct {
		name    string
		body    string
		want    want
		badPath string // the element of an invalid value
	}{
		{"defaults", "", want{MaxSites: 128}, ""},
		{"§3.7", attrib("delay", Real, "60.0") + section("variable_delay",
			attrib("Wed:09-Wed:19", String, "20 "), attrib("Mon:09-Mon:17", String, "suspend")),
			want{Schedule: []config.DelaySlot{{From: "Wed 09:00", To: "Wed 19:00", Delay: dur(20 * time.Second)},
				{From: "Mon 09:00", To: "Mon 17:00", Suspend: true}}, MaxSites: 128,
				Source: "variable_delay/Wed:09-Wed:19, variable_delay/Mon:09-Mon:17"}, ""},
		{"minutes, across the weekend, a fraction of a second", section("variable_delay",
			attrib("Mon:21.00-Mon:22.30", String, "0.5"), attrib("fri:18.00-MON:08.00", String, "SUSPEND")),
			want{Schedule: []config.DelaySlot{{From: "Mon 21:00", To: "Mon 22:30", Delay: dur(500 * time.Millisecond)},
				{From: "Fri 18:00", To: "Mon 08:00", Suspend: true}}, MaxSites: 128,
				Source: "variable_delay/Mon:21.00-Mon:22.30, variable_delay/fri:18.00-MON:08.00"}, ""},
		{"sites", attrib("max_sites", Integer, "4") + attrib("max_inter_docs", Integer, "100"), want{MaxSites: 4, MaxInterDocs: 100}, ""},
		{"not a slot", section("variable_delay", attrib("Wednesday", String, "20")), want{}, "section[name=variable_delay]/attrib[name=Wednesday]"},
		{"not a day", section("variable_delay", attrib("Wdn:09-Wed:19", String, "20")), want{}, "section[name=variable_delay]/attrib[name=Wdn:09-Wed:19]"},
		{"hour 25", section("variable_delay", attrib("Wed:09-Wed:25", String, "20")), want{}, "section[name=variable_delay]/attrib[name=Wed:09-Wed:25]"},
		{"empty slot", section("variable_delay", attrib("Wed:09-Wed:09", String, "20")), want{}, "section[name=variable_delay]/attrib[name=Wed:09-Wed:09]"},
		{"not a delay", section("variable_delay", attrib("Wed:09-Wed:19", String, "slow")), want{}, "section[name=variable_delay]/attrib[name=Wed:09-Wed:19]"},
		{"negative delay", section("variable_delay", attrib("Wed:09-Wed:19", String, "-1")), want{}, "section[name=variable_delay]/attrib[name=Wed:09-Wed:19]"},
		{"max_sites 0", attrib("max_sites", Integer, "0"), want{}, "attrib[name=max_sites]"},
		{"max_inter_docs 0", attrib("max_inter_docs", Integer, "0"), want{}, "attrib[name=max_inter_docs]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cv, err := convert(t, startURI+tt.body, ConvertOptions{})
			if tt.badPath != "" {
				var fe *Error
				if !errors.As(err, &fe) || !errors.Is(err, ErrInvalid) {
					t.Fatalf("Convert: %v, want an *Error wrapping ErrInvalid", err)
				}
				if want := "CrawlerConfig/DomainSpecification[name=c]/" + tt.badPath; fe.Path != want {
					t.Errorf("error at %s, want %s", fe.Path, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			p := cv.File.Politeness
			got := want{Schedule: p.DelaySchedule, MaxSites: p.MaxSites, MaxInterDocs: p.MaxInterDocs, Source: cv.Sources["politeness.delay_schedule"]}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("politeness (-want +got):\n%s", diff)
			}
			// The schedule is one amber reads.
			if _, err := p.Schedule(); err != nil {
				t.Errorf("Schedule: %v", err)
			}
			for _, n := range cv.Notes {
				if strings.Contains(n, "variable_delay") && strings.Contains(n, "unsupported") {
					t.Errorf("note %q", n)
				}
			}
		})
	}
}
