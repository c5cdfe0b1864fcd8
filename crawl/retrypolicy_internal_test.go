package crawl

import (
	"errors"
	"testing"

	"github.com/amber-crawler/amber/fetch"
)

// TestRetryAttempts: the attempts a response or failure gets, from the most specific
// condition of Retries that names it, else MaxAttempts (network errors, 5xx, 429) or one.
func TestRetryAttempts(t *testing.T) {
	cfg := Config{MaxAttempts: 3, Retries: canonicalRetries(map[string]int{
		"5xx": 9, "50x": 4, "5x3": 5, "503": 1, "4XX": 2, "404": 0, "net": 6, "ttl": 0, "int": 7})}
	bare := Config{MaxAttempts: 3}
	statuses := []struct {
		code       int
		want, bare int
	}{
		{503, 2, 3},  // "503" over "50X" and "5X3"
		{500, 5, 3},  // "50X" over "5XX"
		{513, 6, 3},  // "5X3" over "5XX"
		{520, 10, 3}, // "5XX" only
		{404, 1, 1},
		{429, 3, 3}, // "4XX"; without Retries, as a 5xx
		{408, 3, 1},
		{200, 1, 1},
		{301, 1, 1},
	}
	for _, tt := range statuses {
		if got := cfg.statusAttempts(tt.code); got != tt.want {
			t.Errorf("statusAttempts(%d) = %d, want %d", tt.code, got, tt.want)
		}
		if got := bare.statusAttempts(tt.code); got != tt.bare {
			t.Errorf("without Retries: statusAttempts(%d) = %d, want %d", tt.code, got, tt.bare)
		}
	}
	failures := []struct {
		name       string
		err        error
		want, bare int
	}{
		{"dns", &fetch.Error{Kind: fetch.DNS}, 7, 3},
		{"connect", &fetch.Error{Kind: fetch.Connect}, 7, 3},
		{"broken", &fetch.Error{Kind: fetch.Broken}, 7, 3},
		{"protocol", &fetch.Error{Kind: fetch.Protocol}, 7, 3},
		{"timeout", &fetch.Error{Kind: fetch.Timeout}, 1, 3},
		{"browser", errors.New("page crashed"), 8, 3},
		{"tls", &fetch.Error{Kind: fetch.TLS}, 1, 1},
		{"blocked", &fetch.Error{Kind: fetch.Blocked}, 1, 1},
	}
	for _, tt := range failures {
		if got := cfg.failureAttempts(tt.err); got != tt.want {
			t.Errorf("%s: failureAttempts = %d, want %d", tt.name, got, tt.want)
		}
		if got := bare.failureAttempts(tt.err); got != tt.bare {
			t.Errorf("%s: without Retries: failureAttempts = %d, want %d", tt.name, got, tt.bare)
		}
	}
	if got := cfg.frontierAttempts(); got != 10 {
		t.Errorf("frontierAttempts = %d, want 10", got)
	}
	if got := bare.frontierAttempts(); got != 3 {
		t.Errorf("without Retries: frontierAttempts = %d, want 3", got)
	}
}

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
