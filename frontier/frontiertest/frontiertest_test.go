package frontiertest_test

import (
	"testing"

	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/frontier/frontiertest"
)

// TestBadger runs the conformance suite on the badger frontier.
func TestBadger(t *testing.T) {
	frontiertest.Run(t, func(t *testing.T, cfg frontier.Config) frontier.Store {
		f, err := frontier.Open(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return f
	})
}

// TestBadgerLevels runs the conformance tests of priority levels on the badger frontier.
func TestBadgerLevels(t *testing.T) {
	frontiertest.RunLevels(t, func(t *testing.T, cfg frontier.Config) frontier.Store {
		f, err := frontier.Open(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return f
	})
}
