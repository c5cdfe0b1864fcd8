package ctl_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if a run leaves a goroutine behind: the socket's and the
// control stream's goroutines must end when the run drains the Service.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
