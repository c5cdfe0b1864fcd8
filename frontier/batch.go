package frontier

import (
	"errors"
	"sync"

	"github.com/dgraph-io/badger/v4"
)

// Group commit. Every write of the frontier is an op applied by one goroutine, the writer,
// which applies the ops that arrived while it committed the previous group together, in one
// badger transaction, and then lets each caller go on. A caller returns only once its op is
// committed (or has failed), as with a transaction of its own; what grouping saves is
// badger's per-transaction work (timestamps, watermarks, a trip to badger's own writer per
// transaction) and one statfs per group instead of one per write.
//
// As the writer is the only goroutine that writes, and its transactions run one after the
// other, a transaction cannot conflict with another: badger runs without conflict detection,
// and an op that reads before it writes (the seen check of AddBatch, Reject, StoreDigest's
// first capture) sees every op committed before it, and the ops before it in its group.

// op is one write. apply stages the op's reads and writes in the group's transaction; it may
// run more than once (in a group that had to be applied again without another op), so it
// sets all its results afresh each time. Its error is the op's: the group is applied again
// without it.
type op struct {
	size  int64 // about the log bytes the op writes (see entrySize), for the space gate
	n     int   // entries the op writes at most
	apply func(txn *badger.Txn) error
	err   error
	done  chan struct{} // receives once the op is committed or has failed
}

// Bounds of a group: well below badger's limits on one transaction (maxBatchSize bytes,
// maxBatchCount entries). An op larger than them goes alone.
const (
	maxGroupSize    = maxBatchSize / 2
	maxGroupEntries = maxBatchCount / 2
)

// writer is the goroutine that commits ops in groups.
type writer struct {
	db    *badger.DB
	space *gate
	pool  sync.Pool // of *op

	mu    sync.Mutex // guards queue
	queue []*op

	kick   chan struct{} // cap 1: there are ops in queue
	stop   chan struct{} // closed by close
	exited chan struct{} // closed when run returns
}

func startWriter(db *badger.DB, space *gate) *writer {
	w := &writer{
		db:     db,
		space:  space,
		kick:   make(chan struct{}, 1),
		stop:   make(chan struct{}),
		exited: make(chan struct{}),
	}
	w.pool.New = func() any { return &op{done: make(chan struct{}, 1)} }
	go w.run()
	return w
}

// close stops the writer once no op is waiting; the caller makes sure that none is submitted
// meanwhile (Frontier.ops is zero).
func (w *writer) close() {
	close(w.stop)
	<-w.exited
}

// write commits fn, which writes at most n entries of about size log bytes in all, and
// returns once it is committed (or has failed).
func (w *writer) write(size int64, n int, fn func(txn *badger.Txn) error) error {
	o := w.pool.Get().(*op)
	o.size, o.n, o.apply, o.err = size, n, fn, nil
	w.mu.Lock()
	w.queue = append(w.queue, o)
	w.mu.Unlock()
	select {
	case w.kick <- struct{}{}:
	default:
	}
	<-o.done
	err := o.err
	o.apply, o.err = nil, nil
	w.pool.Put(o)
	return err
}

func (w *writer) run() {
	defer close(w.exited)
	var ops []*op
	for {
		select {
		case <-w.kick:
		case <-w.stop:
			return
		}
		w.mu.Lock()
		ops, w.queue = w.queue, ops[:0]
		w.mu.Unlock()
		for rest := ops; len(rest) > 0; {
			n, size, entries := 0, int64(txnOverhead), 0
			for ; n < len(rest); n++ {
				o := rest[n]
				if n > 0 && (size+o.size > maxGroupSize || entries+o.n > maxGroupEntries) {
					break
				}
				size += o.size
				entries += o.n
			}
			w.commit(rest[:n], size)
			rest = rest[n:]
		}
		clear(ops)
	}
}

// commit applies a group of ops in one transaction and lets their callers go. size is the
// group's log bytes, overhead included.
func (w *writer) commit(g []*op, size int64) {
	if err := w.space.acquire(size); err != nil {
		if len(g) > 1 {
			// The group does not fit; some of its ops alone may.
			w.each(g)
			return
		}
		finish(g, err)
		return
	}
	var err error
	for i := 0; ; i++ {
		txn := w.db.NewTransaction(true)
		failed := -1
		for j, o := range g {
			if err = o.apply(txn); err != nil {
				failed = j
				break
			}
		}
		if failed >= 0 {
			txn.Discard()
			if errors.Is(err, badger.ErrTxnTooBig) && len(g) > 1 {
				w.space.release(size, false)
				w.each(g)
				return
			}
			o := g[failed]
			g = append(g[:failed], g[failed+1:]...) // in place: g is the caller's to clear
			finish([]*op{o}, noSpace(err))
			if len(g) == 0 {
				break
			}
			continue
		}
		err = txn.Commit()
		// No transaction runs concurrently with the writer's, so there is no conflict to
		// retry; the loop only guards against one all the same.
		if errors.Is(err, badger.ErrConflict) && i < 1000 {
			continue
		}
		break
	}
	w.space.release(size, err == nil)
	finish(g, noSpace(err))
}

// each commits the ops of g one by one.
func (w *writer) each(g []*op) {
	for _, o := range g {
		w.commit([]*op{o}, o.size+txnOverhead)
	}
}

func finish(g []*op, err error) {
	for _, o := range g {
		o.err = err
		o.done <- struct{}{}
	}
}
