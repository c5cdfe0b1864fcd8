package config

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

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
			c, err := Parse([]byte(tt.yaml), "t.yaml")
			if tt.bad {
				if !errors.Is(err, ErrConfig) {
					t.Fatalf("Parse: %v; want an ErrConfig", err)
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
