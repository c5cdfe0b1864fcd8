package fetch

import (
	"testing"
	"time"
)

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		v    string
		want time.Time
		ok   bool
	}{
		{"empty", "", time.Time{}, false},
		{"seconds", "120", now.Add(2 * time.Minute), true},
		{"seconds with spaces", " 5 ", now.Add(5 * time.Second), true},
		{"zero", "0", now, true},
		{"negative", "-5", time.Time{}, false},
		{"http date", "Sat, 28 Nov 2026 12:30:00 GMT", now.Add(30 * time.Minute), true},
		{"a date in the past", "Fri, 27 Nov 2026 12:00:00 GMT", now.Add(-24 * time.Hour), true},
		{"capped at a day", "604800", now.Add(24 * time.Hour), true},
		{"a date beyond a day, capped", "Sat, 05 Dec 2026 12:00:00 GMT", now.Add(24 * time.Hour), true},
		{"garbage", "soon", time.Time{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := RetryAfter(tt.v, now)
			if ok != tt.ok || !got.Equal(tt.want) {
				t.Errorf("RetryAfter(%q) = %v, %v; want %v, %v", tt.v, got, ok, tt.want, tt.ok)
			}
		})
	}
}
