package live_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if a run leaves a goroutine behind: the status server
// must be stopped by the time the crawl's Run returns.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
