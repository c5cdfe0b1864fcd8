package sitelimit

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/status"
)

// TestBackoffCap: retry delays double from the retry delay, cut to Config.MaxBackoff when set.
func TestBackoffCap(t *testing.T) {
	tests := []struct {
		max      time.Duration
		attempts int
		want     time.Duration
	}{
		{0, 0, 10 * time.Second},
		{0, 3, 80 * time.Second},
		{0, 20, 10 * time.Second << 10}, // doubled at most ten times
		{time.Minute, 0, 10 * time.Second},
		{time.Minute, 2, 40 * time.Second},
		{time.Minute, 3, time.Minute},
		{time.Minute, 20, time.Minute},
		{time.Second, 0, time.Second}, // below RetryDelay: the cap wins from the first retry
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("max=%v/attempts=%d", tt.max, tt.attempts), func(t *testing.T) {
			if got := Backoff(10*time.Second, tt.max, tt.attempts); got != tt.want {
				t.Errorf("backoff(%d) = %v, want %v", tt.attempts, got, tt.want)
			}
		})
	}
}

// TestHostFailure: what counts against a host (Config.MaxHostFailures), with its status.
func TestHostFailure(t *testing.T) {
	tests := []struct {
		name string
		err  error
		code int
		ok   bool
	}{
		{"dns", &fetch.Error{Kind: fetch.DNS}, status.DNSFailed, true},
		{"connect", &fetch.Error{Kind: fetch.Connect}, status.ConnectFailed, true},
		{"timeout", &fetch.Error{Kind: fetch.Timeout}, status.Timeout, true},
		{"tls", &fetch.Error{Kind: fetch.TLS}, status.ConnectFailed, true},
		{"broken", &fetch.Error{Kind: fetch.Broken}, status.ConnectBroken, true},
		{"protocol", &fetch.Error{Kind: fetch.Protocol}, status.ConnectBroken, true},
		{"wrapped timeout", fmt.Errorf("page: %w", &fetch.Error{Kind: fetch.Timeout}), status.Timeout, true},
		{"browser failure", errors.New("browser: page crashed"), status.ConnectBroken, true},
		{"address refused by the guard", &fetch.Error{Kind: fetch.Blocked}, 0, false},
		{"invalid URL", &fetch.Error{Kind: fetch.InvalidURL}, 0, false},
		{"cancelled", &fetch.Error{Kind: fetch.Canceled}, 0, false},
		{"proxy refused", &fetch.Error{Kind: fetch.ProxyAuth}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, ok := HostFailure(tt.err)
			if code != tt.code || ok != tt.ok {
				t.Errorf("HostFailure = %d, %v; want %d, %v", code, ok, tt.code, tt.ok)
			}
		})
	}
}
