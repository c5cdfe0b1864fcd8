package seeds

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseRetryCondition(t *testing.T) {
	tests := []struct {
		in, want string
		bad      bool
	}{
		{in: "503", want: "503"},
		{in: "5xx", want: "5XX"},
		{in: "4XX", want: "4XX"},
		{in: "50x", want: "50X"},
		{in: "5x3", want: "5X3"},
		{in: " 408 ", want: "408"},
		{in: "net", want: "net"},
		{in: "NET", want: "net"},
		{in: "ttl", want: "ttl"},
		{in: "int", want: "int"},
		{in: "XXX", bad: true}, // FAST's wildcard stands for a digit, not the whole code
		{in: "600", bad: true},
		{in: "099", bad: true},
		{in: "50", bad: true},
		{in: "5000", bad: true},
		{in: "5y3", bad: true},
		{in: "dns", bad: true},
		{in: "", bad: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseRetryCondition(tt.in)
			if tt.bad {
				if !errors.Is(err, ErrConfig) {
					t.Fatalf("ParseRetryCondition(%q) = %q, %v; want an ErrConfig", tt.in, got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseRetryCondition(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestRetriesYAML(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want map[string]int
		bad  bool
	}{
		{name: "canonical", yaml: "politeness: {retries: {\"5xx\": 10, \"503\": 3, NET: 1, ttl: 0, \"4XX\": 0}}",
			want: map[string]int{"5XX": 10, "503": 3, "net": 1, "ttl": 0, "4XX": 0}},
		{name: "none", yaml: "politeness: {max_attempts: 2}"},
		{name: "negative", yaml: "politeness: {retries: {net: -1}}", bad: true},
		{name: "twice", yaml: "politeness: {retries: {\"5xx\": 1, \"5XX\": 2}}", bad: true},
		{name: "not a condition", yaml: "politeness: {retries: {timeout: 1}}", bad: true},
		{name: "not a count", yaml: "politeness: {retries: {net: yes}}", bad: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ParseConfig([]byte(tt.yaml), "t.yaml")
			if tt.bad {
				if !errors.Is(err, ErrConfig) {
					t.Fatalf("ParseConfig: %v; want an ErrConfig", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, c.Politeness.Retries); diff != "" {
				t.Errorf("retries (-want +got):\n%s", diff)
			}
		})
	}
}
