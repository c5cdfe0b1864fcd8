package status

import "testing"

func TestClasses(t *testing.T) {
	tests := []struct {
		code        int
		failure     bool
		disregarded bool
	}{
		{200, false, false},
		{404, false, false},
		{500, false, false},
		{Unattempted, false, false},
		{ConnectFailed, true, false},
		{ConnectBroken, true, false},
		{Timeout, true, false},
		{RuntimeError, true, false},
		{DNSFailed, true, false},
		{InvalidURL, true, false},
		{RetriesFailed, true, false},
		{Killed, true, false},
		{TooManyHops, false, true},
		{OutOfScope, false, true},
		{Blocked, false, true},
		{Robots, false, true},
	}
	for _, tt := range tests {
		if got := Failure(tt.code); got != tt.failure {
			t.Errorf("Failure(%d) = %v, want %v", tt.code, got, tt.failure)
		}
		if got := Disregarded(tt.code); got != tt.disregarded {
			t.Errorf("Disregarded(%d) = %v, want %v", tt.code, got, tt.disregarded)
		}
	}
}
