package retry

import (
	"errors"
	"testing"

	"github.com/amber-crawler/amber/fetch"
)

// TestRetryAttempts: the attempts a response or failure gets, from the most specific
// condition of Retries that names it, else MaxAttempts (network errors, 5xx, 429) or one.
func TestRetryAttempts(t *testing.T) {
	checked, err := Check(map[string]int{
		"5xx": 9, "50x": 4, "5x3": 5, "503": 1, "4XX": 2, "404": 0, "net": 6, "ttl": 0, "int": 7})
	if err != nil {
		t.Fatal(err)
	}
	cfg := Policy{MaxAttempts: 3, Retries: checked}
	bare := Policy{MaxAttempts: 3}
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
		if got := cfg.StatusAttempts(tt.code); got != tt.want {
			t.Errorf("StatusAttempts(%d) = %d, want %d", tt.code, got, tt.want)
		}
		if got := bare.StatusAttempts(tt.code); got != tt.bare {
			t.Errorf("without Retries: StatusAttempts(%d) = %d, want %d", tt.code, got, tt.bare)
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
		if got := cfg.FailureAttempts(tt.err); got != tt.want {
			t.Errorf("%s: FailureAttempts = %d, want %d", tt.name, got, tt.want)
		}
		if got := bare.FailureAttempts(tt.err); got != tt.bare {
			t.Errorf("%s: without Retries: FailureAttempts = %d, want %d", tt.name, got, tt.bare)
		}
	}
	if got := cfg.MostAttempts(); got != 10 {
		t.Errorf("MostAttempts = %d, want 10", got)
	}
	if got := bare.MostAttempts(); got != 3 {
		t.Errorf("without Retries: MostAttempts = %d, want 3", got)
	}
}
