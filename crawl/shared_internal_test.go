package crawl

import (
	"errors"
	"fmt"
	"log/slog"
	"testing"

	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/frontier/redisfront"
)

// TestFrontierErr: a claim taken back from this process (its lease expired) ends the URL's
// work without ending the crawl when the frontier is shared, and is a fault with the crawl's
// own frontier; other frontier errors are faults either way.
func TestFrontierErr(t *testing.T) {
	shared := redisfront.Shared{URL: "redis://127.0.0.1:6379/0"}
	for _, tc := range []struct {
		name   string
		shared frontier.Shared
		err    error
		fatal  bool
	}{
		{"none", shared, nil, false},
		{"lease expired, shared", shared, fmt.Errorf("done: %w", frontier.ErrClaimFinished), false},
		{"finished twice, own frontier", nil, frontier.ErrClaimFinished, true},
		{"no space, shared", shared, frontier.ErrNoSpace, true},
		{"closed, shared", shared, frontier.ErrClosed, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &crawler{cfg: Config{Shared: tc.shared}, log: slog.New(slog.DiscardHandler)}
			got := c.frontierErr(tc.err)
			if (got != nil) != tc.fatal {
				t.Fatalf("frontierErr(%v) = %v, want fatal %v", tc.err, got, tc.fatal)
			}
			if got != nil && !errors.Is(got, tc.err) {
				t.Errorf("frontierErr(%v) = %v, does not wrap it", tc.err, got)
			}
		})
	}
}
