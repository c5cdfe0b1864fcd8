package ctl_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/ctl"
)

// TestParse: the requests amber ctl makes of its arguments, and the ones it refuses before
// they reach a crawl (ErrBadRequest).
func TestParse(t *testing.T) {
	tests := []struct {
		args []string
		want ctl.Request
		bad  string // in the error, "" when none
	}{
		{[]string{"pause"}, ctl.Request{Command: ctl.CmdPause, Args: []string{}}, ""},
		{[]string{"status"}, ctl.Request{Command: ctl.CmdStatus, Args: []string{}}, ""},
		{[]string{"add-seed", "https://example.org/"}, ctl.Request{Command: ctl.CmdAddSeed, Args: []string{"https://example.org/"}}, ""},
		{[]string{"block", "contains:/calendar/"}, ctl.Request{Command: ctl.CmdBlock, Args: []string{"contains:/calendar/"}}, ""},
		{[]string{"host-delay", "Example.org:8080", "500ms"}, ctl.Request{Command: ctl.CmdHostDelay, Args: []string{"Example.org:8080", "500ms"}}, ""},
		{[]string{"host-delay", "https://example.org/x", "0s"}, ctl.Request{Command: ctl.CmdHostDelay, Args: []string{"https://example.org/x", "0s"}}, ""},
		{[]string{"limit", "0"}, ctl.Request{Command: ctl.CmdLimit, Args: []string{"0"}}, ""},
		{nil, ctl.Request{}, "no command"},
		{[]string{"frobnicate"}, ctl.Request{}, "unknown command"},
		{[]string{"pause", "now"}, ctl.Request{}, "takes 0 argument(s)"},
		{[]string{"block", "nokind"}, ctl.Request{}, "block:"},
		{[]string{"add-seed", "ftp://example.org/"}, ctl.Request{}, "add-seed:"},
		{[]string{"host-delay", "example.org/path", "1s"}, ctl.Request{}, "is not a host"},
		{[]string{"host-delay", "user@example.org", "1s"}, ctl.Request{}, "is not a host"},
		{[]string{"host-delay", "example.org", "soon"}, ctl.Request{}, "not a duration"},
		{[]string{"host-delay", "example.org", "-1s"}, ctl.Request{}, "not a duration"},
		{[]string{"limit", "-3"}, ctl.Request{}, "not a number"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			got, err := ctl.Parse(tt.args)
			if tt.bad != "" {
				if !errors.Is(err, ctl.ErrBadRequest) || !strings.Contains(err.Error(), tt.bad) {
					t.Errorf("err = %v, want ErrBadRequest with %q", err, tt.bad)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("request (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDoUnavailable: a Service takes no request before a run started it, nor once it was
// drained, and says which (ErrUnavailable).
func TestDoUnavailable(t *testing.T) {
	drained := ctl.New()
	drained.Drain()
	for _, tc := range []struct {
		name string
		svc  *ctl.Service
		want string
	}{
		{"new", ctl.New(), "starting"},
		{"drained", drained, "ending"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := tc.svc.Do("test", ctl.Request{Command: ctl.CmdPause})
			if !errors.Is(err, ctl.ErrUnavailable) || !strings.Contains(err.Error(), tc.want) || res.OK {
				t.Errorf("Do: %+v, %v; want ErrUnavailable with %q", res, err, tc.want)
			}
		})
	}
}
