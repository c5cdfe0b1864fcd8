package crawl

import (
	"errors"
	"testing"
)

func TestValidateRetries(t *testing.T) {
	tests := []struct {
		name    string
		retries map[string]int
		bad     bool
	}{
		{"none", nil, false},
		{"good", map[string]int{"5xx": 1, "net": 0}, false},
		{"negative", map[string]int{"503": -1}, true},
		{"not a condition", map[string]int{"dns": 1}, true},
		{"twice", map[string]int{"4xx": 1, "4XX": 1}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := validateRetries(tt.retries)
			var fe *FieldError
			if tt.bad != (err != nil) || (err != nil && (!errors.As(err, &fe) || fe.Field != "Retries" || !errors.Is(err, ErrConfig))) {
				t.Errorf("validateRetries = %v, want an error: %v", err, tt.bad)
			}
		})
	}
}
