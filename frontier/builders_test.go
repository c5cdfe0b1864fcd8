package frontier

import (
	"fmt"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/ristretto/v2/z"
	"github.com/google/go-cmp/cmp"
)

// grown returns an allocator grown as a table builder grows one: a first buffer of first
// bytes (twice the table size), then buffers doubling until n bytes were allocated.
func grown(first, n int) *z.Allocator {
	a := z.NewAllocator(first, "TableBuilder")
	for done := 0; done < n; done += 16 << 10 {
		a.Allocate(16 << 10)
	}
	return a
}

// TestBuilderPoolTrim fills a pool as badger's builders leave it and checks what trim leaves:
// at most builderPoolKeep allocators, each within builderPoolKeepBytes, and nothing in the
// way of a builder that takes one and grows it again.
func TestBuilderPoolTrim(t *testing.T) {
	const u = baseTableSize
	// Allocators as builders leave them: a first buffer of twice the table size, or of 32
	// table sizes for a level-0 to level-0 compaction (256 MiB in badger), and what they built.
	small := func(n int) [2]int { return [2]int{2 * u, n} }
	l0l0 := [2]int{32 * u, 40 * u}
	tests := []struct {
		name string
		idle [][2]int // first buffer, bytes built
		want []uint64 // what the pool keeps, in table sizes
	}{
		{"empty", nil, nil},
		{"one small", [][2]int{small(2 * u)}, []uint64{2}},
		{"one compaction table", [][2]int{small(9 * u)}, []uint64{14}},
		{"one memtable flush", [][2]int{small(100 * u)}, []uint64{14}},
		{"three", [][2]int{small(100 * u), small(9 * u), small(100 * u)}, []uint64{14, 14}},
		{"full", [][2]int{small(100 * u), small(100 * u), small(100 * u), small(100 * u), small(9 * u), small(9 * u), small(9 * u), small(9 * u)}, []uint64{14, 14}},
		{"level 0 to level 0", [][2]int{l0l0}, nil},
		{"level 0 to level 0 first", [][2]int{l0l0, small(9 * u), small(100 * u)}, []uint64{14, 14}},
		{"level 0 to level 0 between", [][2]int{small(9 * u), l0l0, small(2 * u)}, []uint64{14, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pool := z.NewAllocatorPool(badgerPoolSize)
			defer pool.Release()
			for _, a := range tt.idle {
				pool.Return(grown(a[0], a[1]))
			}
			p := &builderPool{pool: pool}
			p.trim()
			var got []uint64
			var kept []*z.Allocator
			for range badgerPoolSize {
				a := pool.Get(0, "test")
				if a.Allocated() <= freshAllocator {
					a.Release()
					break
				}
				got = append(got, a.Allocated()/u)
				kept = append(kept, a)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("allocators left in the pool, bytes (-want +got):\n%s", diff)
			}
			// A builder taking a trimmed allocator grows it again as it needs.
			for _, a := range kept {
				b := a.Allocate(50 * u)
				if len(b) != 50*u || a.Allocated() < 50*u {
					t.Errorf("after trim, Allocate(%d) = %d bytes, Allocated() = %d", 50*u, len(b), a.Allocated())
				}
				a.Release()
			}
		})
	}
}

// TestAllocPool checks that allocPool finds the pool badger's table builders use: after a
// memtable flush, the flush's allocator is in it.
func TestAllocPool(t *testing.T) {
	opts := badger.DefaultOptions(t.TempDir()).WithLogger(nil).WithMemTableSize(1 << 20).
		WithNumMemtables(1).WithNumLevelZeroTables(4).WithNumLevelZeroTablesStall(10).
		WithBaseTableSize(baseTableSize).WithValueThreshold(1 << 10).WithNumCompactors(2)
	db, err := badger.Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	pool := allocPool(db)
	if pool == nil {
		t.Fatal("allocPool = nil: badger's DB has no allocPool *z.AllocatorPool field any more; see builders.go")
	}
	val := make([]byte, 512)
	for i := 0; len(db.Tables()) == 0; i++ {
		if i == 1<<16 {
			t.Fatal("no table after writing 32 MiB")
		}
		if err := db.Update(func(txn *badger.Txn) error {
			return txn.Set(fmt.Appendf(nil, "key-%08d", i), val)
		}); err != nil {
			t.Fatal(err)
		}
	}
	// The flush gives its allocator back after adding its table; wait for it.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		a := pool.Get(0, "test")
		built := a.Allocated() > freshAllocator
		a.Release()
		if built {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("no table builder's allocator in the pool allocPool returned after a memtable flush")
		}
	}
}
