package diskspace

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// ErrFull is wrapped by the error of a crawl stopped because a disk ran out of room: free
// space fell below the minimum it keeps (a Monitor tripped), or a write failed with ENOSPC.
// The error is a *FullError naming the directory; running the crawl again once there is room
// resumes it.
var ErrFull = errors.New("diskspace: disk full")

// FullError says which directory ran out of room. It matches ErrFull with errors.Is, and the
// failed write's error (Err) too.
type FullError struct {
	Dir  string // the directory on the full filesystem: the crawl directory, its WARC or its state directory
	Free int64  // bytes free there when the crawl stopped, less the write about to be made; -1 when it could not be measured
	Min  int64  // the free space the crawl keeps there: EffectiveMin plus Reserved
	// Reserved is the part of Min the end of the run needs: what the frontier's store needs to
	// finish its writes and close (frontier.Space.Write) and room to sort the index.
	Reserved int64
	Err      error // the write that failed for want of room; nil when the free-space check stopped the crawl first
}

// Error reads "diskspace: disk full: /crawl/warcs has 812.0 KiB free, less than the 1.0 MiB the
// crawl keeps free; make room and run the crawl again to resume".
func (e *FullError) Error() string {
	free := "an unknown amount"
	if e.Free >= 0 {
		free = HumanSize(e.Free)
	}
	min := HumanSize(e.Min)
	if e.Free >= 0 && free == min {
		// Rounded alike: give the bytes, so the message does not read "10.9 MiB < 10.9 MiB".
		free, min = fmt.Sprintf("%d bytes", e.Free), fmt.Sprintf("%d bytes", e.Min)
	}
	msg := fmt.Sprintf("%v: %s has %s free", ErrFull, e.Dir, free)
	if e.Min > 0 && e.Free >= 0 && e.Free < e.Min {
		msg += fmt.Sprintf(", less than the %s the crawl keeps free", min)
		if e.Reserved > 0 {
			msg += fmt.Sprintf(" (%s of it to end the run: crawl state and index)", HumanSize(e.Reserved))
		}
	}
	if e.Err != nil {
		msg += fmt.Sprintf(" (%v)", e.Err)
	}
	return msg + "; make room and run the crawl again to resume"
}

// Unwrap returns ErrFull and, when a write failed, its error.
func (e *FullError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrFull}
	}
	return []error{ErrFull, e.Err}
}

// defaultMinFreeSpace is the free space kept when the setting is 0, unless 1% of the
// filesystem is less (Heritrix's DiskSpaceMonitor keeps a fixed amount; a percentage keeps a
// small test filesystem usable).
const defaultMinFreeSpace = 1 << 30

// EffectiveMin is the free space, in bytes, a crawl with the min_free_space setting keeps on a
// filesystem of fsSize bytes: the setting when it is positive; for 0, 1 GiB or 1% of
// the filesystem, whichever is smaller; for a negative setting 0 (no check).
func EffectiveMin(setting, fsSize int64) int64 {
	switch {
	case setting > 0:
		return setting
	case setting < 0:
		return 0
	}
	return min(int64(defaultMinFreeSpace), fsSize/100)
}

// checkEvery is how often the monitor looks at free space between writes.
const checkEvery = time.Second

// storeCheckEvery is how long a measure of what the frontier's store needs is used before
// checks measure it again. The store's needs grow with its writes; a crawl writing fast on a
// small disk outruns a measure per second.
const storeCheckEvery = 100 * time.Millisecond

// Monitor watches the free space of the filesystems a crawl writes to: the crawl directory's
// and, when they are other ones, the WARC directory's and the state directory's. Each keeps
// EffectiveMin free beyond what the end of the run needs there: on the state directory's,
// what the frontier's store needs to finish its writes and close (frontier.Space.Write); on
// the crawl directory's, sortRoom (the index sort and the reports). When one has less the
// monitor trips: once, for the rest of the run. It is checked every checkEvery (Watch) and
// before WARC writes (BeforeWrite: a statfs per filesystem and a stat, at most once a
// recheckEvery unless the writes since could have used half the room left); the store's
// needs are measured at most once a storeCheckEvery (a read of the state directory). A nil
// *Monitor (the check off) never trips.
type Monitor struct {
	setting  int64
	fss      []*watchedFS // the crawl directory's first
	stateFS  *watchedFS   // the one holding the state directory
	store    func() (int64, error)
	index    string // the live index
	crawlLog string // crawl.log
	log      *slog.Logger

	storeAt  atomic.Int64  // UnixNano of the last measure of the store's needs, or of one under way
	checkAt  atomic.Int64  // UnixNano of the last check
	margin   atomic.Int64  // the least room above its minimum a filesystem had at that check
	pending  atomic.Int64  // bytes announced by BeforeWrite since that check
	tripped  chan struct{} // closed by trip
	once     sync.Once
	full     *FullError // set by trip before tripped is closed
	warnOnce sync.Once  // a failing measure is logged once
}

// watchedFS is one filesystem the crawl writes to.
type watchedFS struct {
	dir    string       // the directory named in errors
	device uint64       // Usage.Device
	store  atomic.Int64 // bytes the frontier's store needs here
}

// NewMonitor returns the monitor of the crawl directory dir, its WARC directory warcDir,
// its state directory stateDir, its live index and its crawl.log, with store telling what the
// frontier's store needs (called at most once a storeCheckEvery). It returns nil when the
// setting turns the check off or the platform cannot tell free space.
func NewMonitor(setting int64, dir, warcDir, stateDir, index, crawlLog string, store func() (int64, error), log *slog.Logger) (*Monitor, error) {
	if setting < 0 {
		return nil, nil
	}
	m := &Monitor{setting: setting, store: store, index: index, crawlLog: crawlLog, log: log, tripped: make(chan struct{})}
	for _, d := range []string{dir, warcDir, stateDir} {
		u, err := Of(d)
		if errors.Is(err, errors.ErrUnsupported) {
			log.Warn("free disk space cannot be checked on this platform", "err", err)
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("check free space: %w", err)
		}
		i := slices.IndexFunc(m.fss, func(fs *watchedFS) bool { return fs.device == u.Device })
		if i < 0 {
			m.fss, i = append(m.fss, &watchedFS{dir: d, device: u.Device}), len(m.fss)
		}
		if d == stateDir {
			m.stateFS = m.fss[i]
		}
	}
	m.measureStore(time.Now())
	return m, nil
}

// measureStore updates what the frontier's store needs, unless it was measured less than a
// storeCheckEvery before now (or is being measured by another check).
func (m *Monitor) measureStore(now time.Time) {
	last := m.storeAt.Load()
	if m.store == nil || now.UnixNano()-last < int64(storeCheckEvery) || !m.storeAt.CompareAndSwap(last, now.UnixNano()) {
		return
	}
	n, err := m.store()
	if err != nil {
		m.warnOnce.Do(func() { m.log.Warn("check free space", "err", err) })
		return
	}
	m.stateFS.store.Store(n)
}

// sortRoom is the room the end of a run needs on the crawl directory's filesystem: sorting
// the live index (its runs and the sorted copy, twice the index) and the reports' sort files
// (crawl.log and the frontier's URLs sorted on disk, about twice crawl.log).
func (m *Monitor) sortRoom() int64 {
	var n int64
	for _, f := range []string{m.index, m.crawlLog} {
		if st, err := os.Stat(f); err == nil {
			n += 2 * st.Size()
		}
	}
	return n
}

// Check measures every filesystem and trips when one would have less than it keeps free after
// writing more bytes. It returns the monitor's *FullError once it has tripped; nil from a nil
// Monitor.
func (m *Monitor) Check(more int64) *FullError {
	if m == nil {
		return nil
	}
	if m.isTripped() {
		return m.full
	}
	now := time.Now()
	m.pending.Store(0)
	m.measureStore(now)
	margin := int64(math.MaxInt64)
	for i, fs := range m.fss {
		u, err := Of(fs.dir)
		if err != nil {
			m.warnOnce.Do(func() { m.log.Warn("check free space", "err", err) })
			continue
		}
		reserved := fs.store.Load()
		if i == 0 {
			reserved += m.sortRoom()
		}
		lim := EffectiveMin(m.setting, u.Total) + reserved
		if u.Free-more < lim {
			m.trip(&FullError{Dir: fs.dir, Free: max(u.Free-more, 0), Min: lim, Reserved: reserved})
			return m.Err()
		}
		margin = min(margin, u.Free-more-lim)
	}
	m.margin.Store(margin)
	m.checkAt.Store(now.UnixNano())
	return nil
}

// recheckEvery bounds how long BeforeWrite trusts the last check.
const recheckEvery = 20 * time.Millisecond

// BeforeWrite is the WARC writer's BeforeWrite hook: it trips the monitor when the write would
// take the disk below its minimum. The write goes ahead: the minimum is the room in-flight
// captures finish in. It measures again when the last check is older than recheckEvery or the
// writes announced since could have used half the room that check saw; in between, a write
// costs no system call.
func (m *Monitor) BeforeWrite(n int64) {
	if m == nil {
		return
	}
	p := m.pending.Add(n)
	if time.Now().UnixNano()-m.checkAt.Load() < int64(recheckEvery) && p < m.margin.Load()/2 && !m.isTripped() {
		return
	}
	m.Check(n)
}

func (m *Monitor) trip(e *FullError) {
	m.once.Do(func() {
		m.full = e
		close(m.tripped)
	})
}

func (m *Monitor) isTripped() bool {
	select {
	case <-m.tripped:
		return true
	default:
		return false
	}
}

// Err is the error the monitor tripped with, nil before (and from a nil Monitor).
func (m *Monitor) Err() *FullError {
	if m == nil || !m.isTripped() {
		return nil
	}
	return m.full
}

// Watch checks free space every checkEvery until ctx is done, and calls stop with the
// *FullError as soon as the monitor trips (on its own check or on a write's).
func (m *Monitor) Watch(ctx context.Context, stop context.CancelCauseFunc) {
	t := time.NewTicker(checkEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-m.tripped:
			stop(m.full)
			return
		case <-t.C:
			m.Check(0)
		}
	}
}

// noSpace turns err, a write that failed with ENOSPC, into a *FullError naming the
// directory with the least free space among dirs.
func noSpace(setting int64, dirs []string, err error) *FullError {
	e := &FullError{Dir: dirs[0], Free: -1, Err: err}
	for _, d := range dirs {
		u, uerr := Of(d)
		if uerr != nil {
			continue
		}
		if e.Free < 0 || u.Free < e.Free {
			e.Dir, e.Free, e.Min = d, u.Free, EffectiveMin(setting, u.Total)
		}
	}
	return e
}

// AsFull returns err as a *FullError naming the directory of dirs with the least free space
// when a write failed for want of room (ENOSPC, EDQUOT) and err is not one already; otherwise
// err unchanged. setting is the crawl's min_free_space (EffectiveMin).
func AsFull(err error, setting int64, dirs ...string) error {
	if err == nil || errors.Is(err, ErrFull) || !IsNoSpace(err) {
		return err
	}
	return noSpace(setting, dirs, err)
}

// HumanSize writes a number of bytes as its messages do: "812 B", "1.5 KiB", "10.9 MiB".
func HumanSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
