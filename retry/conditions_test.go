package retry

import (
	"errors"
	"testing"
)

func TestParseCondition(t *testing.T) {
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
			got, err := ParseCondition(tt.in)
			if tt.bad {
				if !errors.Is(err, ErrConfig) {
					t.Fatalf("ParseCondition(%q) = %q, %v; want an ErrConfig", tt.in, got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseCondition(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}
