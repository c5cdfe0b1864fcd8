package frontier

import (
	"reflect"
	"time"
	"unsafe"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/ristretto/v2/z"
)

// Badger builds every table (a memtable flush, each table of a compaction's output) in a
// z.Allocator that it takes from a pool of 8 and gives back afterwards with all the buffers it
// grew to, in the Go heap: a table's blocks, uncompressed and compressed, in buffers doubling
// from twice the table size. An allocator that built the level-0 table of an 8 MiB memtable
// keeps 15 to 31 MiB, one that built a 512 KiB compaction table 7 MiB, and whatever builder
// takes it next keeps them too. The pool frees one allocator only after 2 s without a table
// being built, which never happens while a large crawl writes: builder allocators, pooled and
// at work, were 56 to 108 MB of a 1,000,000-page crawl's Go heap at its peak (badger v4.9.6,
// db.go: allocPool; table/builder.go: NewTableBuilder; ristretto z.AllocatorPool). Badger has
// no option for it.
//
// A builderPool bounds it: every builderPoolEvery it takes the idle allocators out of the pool,
// gives builderPoolKeep of them back trimmed to builderPoolKeepBytes (the buffers past that
// go to the garbage collector; a builder that needs them again grows them) and releases the
// others. Builders at work keep what they need (that is what small tables bound: see
// baseTableSize); only what the pool keeps between tables is bounded, to builderPoolKeep ×
// builderPoolKeepBytes.
const (
	builderPoolEvery = 250 * time.Millisecond
	// builderPoolKeep is how many idle allocators stay in the pool: one for each of the two
	// compactors' next table, so that a compaction does not allocate anew for every table.
	builderPoolKeep = 2
	// builderPoolKeepBytes is what an idle allocator keeps: the buffers of a compaction table
	// (its first buffer, twice the table size, and the two after it: 14 times the table size,
	// which holds the table's blocks uncompressed and compressed at about 4 to 1).
	builderPoolKeepBytes = 16 * baseTableSize
	// badgerPoolSize is the size of badger's pool (db.go: z.NewAllocatorPool(8)).
	badgerPoolSize = 8
	// freshAllocator is what z.AllocatorPool.Get(0, ...) allocates when the pool is empty; a
	// builder's allocator starts with twice its table size, more than that.
	freshAllocator = 512
)

// builderPool bounds the table-builder allocators badger's pool keeps (see above).
type builderPool struct {
	pool   *z.AllocatorPool
	stop   chan struct{} // closed by close
	exited chan struct{} // closed when run returns
}

// startBuilderPool starts a builderPool for db; nil when badger's pool cannot be found (a
// badger whose DB has no allocPool field: the pool is then left as it is).
func startBuilderPool(db *badger.DB) *builderPool {
	pool := allocPool(db)
	if pool == nil {
		return nil
	}
	p := &builderPool{pool: pool, stop: make(chan struct{}), exited: make(chan struct{})}
	go p.run()
	return p
}

// allocPool returns badger's table-builder allocator pool, which it does not export; nil
// when db has no such field. The field is set once, when the DB is made, and only read after.
func allocPool(db *badger.DB) *z.AllocatorPool {
	v := reflect.ValueOf(db).Elem().FieldByName("allocPool")
	if !v.IsValid() || v.Type() != reflect.TypeFor[*z.AllocatorPool]() {
		return nil
	}
	return *(**z.AllocatorPool)(unsafe.Pointer(v.UnsafeAddr()))
}

// close stops the pool's trimming; it may be nil. It must return before the DB is closed
// (which closes badger's pool).
func (p *builderPool) close() {
	if p == nil {
		return
	}
	close(p.stop)
	<-p.exited
}

func (p *builderPool) run() {
	defer close(p.exited)
	tick := time.NewTicker(builderPoolEvery)
	defer tick.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-tick.C:
		}
		p.trim()
	}
}

// trim takes the idle allocators out of the pool, gives builderPoolKeep of them back, each
// trimmed to builderPoolKeepBytes, and releases the others.
//
// An allocator whose first buffer alone is builderPoolKeepBytes or more is released too: TrimTo
// drops that buffer, and a z.Allocator without its first one would loop forever growing the
// next from nothing. A level-0 to level-0 compaction, whose output is one table of any size,
// starts its builder with a first buffer of 256 MiB (table/builder.go: maxAllocatorInitialSz).
func (p *builderPool) trim() {
	var idle []*z.Allocator
	for range badgerPoolSize {
		a := p.pool.Get(0, "TableBuilder")
		if a.Allocated() <= freshAllocator { // the pool is empty: Get made this one
			a.Release()
			break
		}
		idle = append(idle, a)
	}
	kept := 0
	for _, a := range idle {
		if kept < builderPoolKeep {
			a.TrimTo(builderPoolKeepBytes)
			if a.Allocated() > 0 {
				p.pool.Return(a)
				kept++
				continue
			}
		}
		a.Release()
	}
}
