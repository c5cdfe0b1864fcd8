package frontier

import (
	"os"
	"testing"
	"time"
)

// TestGateTrustsPlenty: acquire reads the free space afresh unless its last reading is
// younger than freeFresh and leaves more than plenty beyond what the store needs, less what
// it let through since.
func TestGateTrustsPlenty(t *testing.T) {
	g, err := openGate(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer g.close()
	free, calls := int64(0), 0
	g.statfs = func(*os.File) (int64, error) { calls++; return free, nil }
	clock := time.Unix(1e9, 0)
	g.now = func() time.Time { return clock }
	acquire := func(n int64) {
		t.Helper()
		if err := g.acquire(n); err != nil {
			t.Fatal(err)
		}
		g.release(n, true)
	}

	free = maxNeed + plenty + 10<<20
	acquire(1 << 20)
	acquire(1 << 20)
	if calls != 1 {
		t.Errorf("plenty free: %d readings for two writes within %v, want 1", calls, freeFresh)
	}
	// The writes let through count against the reading: past it, a new one.
	acquire(8 << 20)
	acquire(1 << 20)
	if calls != 2 {
		t.Errorf("after 10 MiB let through of a reading 10 MiB above plenty: %d readings, want 2", calls)
	}
	clock = clock.Add(freeFresh)
	acquire(1)
	if calls != 3 {
		t.Errorf("a reading older than %v: %d readings, want 3", freeFresh, calls)
	}

	// Short of plenty, every write reads afresh.
	clock = clock.Add(freeFresh)
	calls = 0
	free = maxNeed + plenty - 1
	for range 3 {
		acquire(1)
	}
	if calls != 3 {
		t.Errorf("free below plenty: %d readings for 3 writes, want 3", calls)
	}
}
