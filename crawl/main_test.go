package crawl_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if a crawl leaves a goroutine behind: every worker,
// ticker, server and browser must be stopped by the time Run returns.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
