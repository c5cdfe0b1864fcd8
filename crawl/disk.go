package crawl

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

	"github.com/amber-crawler/amber/diskspace"
)

// ErrDiskFull is wrapped by the error Run returns when the crawl stopped because a disk ran out
// of room: free space fell below MinFreeSpace, or a write failed with ENOSPC. The error is a
// *DiskFullError naming the directory. The run ended cleanly (EndDiskFull); running the crawl
// again once there is room resumes it.
var ErrDiskFull = errors.New("crawl: disk full")

// DiskFullError says which directory ran out of room. It matches ErrDiskFull with errors.Is,
// and the failed write's error (Err) too.
type DiskFullError struct {
	Dir  string // the directory on the full filesystem: the crawl directory, its WARC or its state directory
	Free int64  // bytes free there when the crawl stopped, less the write about to be made; -1 when it could not be measured
	Min  int64  // the free space the crawl keeps there: EffectiveMinFreeSpace plus Reserved
	// Reserved is the part of Min the end of the run needs: what the frontier's store needs to
	// finish its writes and close (frontier.Space.Write) and room to sort the index.
	Reserved int64
	Err      error // the write that failed for want of room; nil when the free-space check stopped the crawl first
}

// Error reads "crawl: disk full: /crawl/warcs has 812.0 KiB free, less than the 1.0 MiB the
// crawl keeps free; make room and run the crawl again to resume".
func (e *DiskFullError) Error() string {
	free := "an unknown amount"
	if e.Free >= 0 {
		free = humanBytes(e.Free)
	}
	min := humanBytes(e.Min)
	if e.Free >= 0 && free == min {
		// Rounded alike: give the bytes, so the message does not read "10.9 MiB < 10.9 MiB".
		free, min = fmt.Sprintf("%d bytes", e.Free), fmt.Sprintf("%d bytes", e.Min)
	}
	msg := fmt.Sprintf("%v: %s has %s free", ErrDiskFull, e.Dir, free)
	if e.Min > 0 && e.Free >= 0 && e.Free < e.Min {
		msg += fmt.Sprintf(", less than the %s the crawl keeps free", min)
		if e.Reserved > 0 {
			msg += fmt.Sprintf(" (%s of it to end the run: crawl state and index)", humanBytes(e.Reserved))
		}
	}
	if e.Err != nil {
		msg += fmt.Sprintf(" (%v)", e.Err)
	}
	return msg + "; make room and run the crawl again to resume"
}

// Unwrap returns ErrDiskFull and, when a write failed, its error.
func (e *DiskFullError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrDiskFull}
	}
	return []error{ErrDiskFull, e.Err}
}

// defaultMinFreeSpace is the free space kept when MinFreeSpace is 0, unless 1% of the
// filesystem is less (Heritrix's DiskSpaceMonitor keeps a fixed amount; a percentage keeps a
// small test filesystem usable).
const defaultMinFreeSpace = 1 << 30

// EffectiveMinFreeSpace is the free space, in bytes, a crawl with the MinFreeSpace setting
// keeps on a filesystem of fsSize bytes: the setting when it is positive; for 0, 1 GiB or 1% of
// the filesystem, whichever is smaller; for a negative setting 0 (no check).
func EffectiveMinFreeSpace(setting, fsSize int64) int64 {
	switch {
	case setting > 0:
		return setting
	case setting < 0:
		return 0
	}
	return min(int64(defaultMinFreeSpace), fsSize/100)
}

// diskCheckEvery is how often the monitor looks at free space between writes.
const diskCheckEvery = time.Second

// storeCheckEvery is how long a measure of what the frontier's store needs is used before
// checks measure it again. The store's needs grow with its writes; a crawl writing fast on a
// small disk outruns a measure per second.
const storeCheckEvery = 100 * time.Millisecond

// diskMonitor watches the free space of the filesystems the crawl writes to: the crawl
// directory's and, when they are other ones, the WARC directory's and the state directory's.
// Each keeps EffectiveMinFreeSpace free beyond what the end of the run needs there: on the
// state directory's, what the frontier's store needs to finish its writes and close
// (frontier.Space.Write); on the crawl directory's, sortRoom (the index sort and the
// reports). When one has less the monitor trips: once, for the rest of the run. It is checked every
// diskCheckEvery (watch) and before WARC writes (beforeWrite: a statfs per filesystem and a
// stat, at most once a recheckEvery unless the writes since could have used half the room left);
// the store's needs are measured at most once a storeCheckEvery (a read of the state directory).
type diskMonitor struct {
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
	pending  atomic.Int64  // bytes announced by beforeWrite since that check
	tripped  chan struct{} // closed by trip
	once     sync.Once
	full     *DiskFullError // set by trip before tripped is closed
	warnOnce sync.Once      // a failing measure is logged once
}

// watchedFS is one filesystem the crawl writes to.
type watchedFS struct {
	dir    string       // the directory named in errors
	device uint64       // diskspace.Usage.Device
	store  atomic.Int64 // bytes the frontier's store needs here
}

// newDiskMonitor returns the monitor of the crawl directory dir, its WARC directory warcDir,
// its state directory stateDir, its live index and its crawl.log, with store telling what the
// frontier's store needs (called at most once a storeCheckEvery). It returns nil when the
// setting turns the check off or the platform cannot tell free space.
func newDiskMonitor(setting int64, dir, warcDir, stateDir, index, crawlLog string, store func() (int64, error), log *slog.Logger) (*diskMonitor, error) {
	if setting < 0 {
		return nil, nil
	}
	m := &diskMonitor{setting: setting, store: store, index: index, crawlLog: crawlLog, log: log, tripped: make(chan struct{})}
	for _, d := range []string{dir, warcDir, stateDir} {
		u, err := diskspace.Of(d)
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
func (m *diskMonitor) measureStore(now time.Time) {
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
func (m *diskMonitor) sortRoom() int64 {
	var n int64
	for _, f := range []string{m.index, m.crawlLog} {
		if st, err := os.Stat(f); err == nil {
			n += 2 * st.Size()
		}
	}
	return n
}

// check measures every filesystem and trips when one would have less than it keeps free after
// writing more bytes. It returns the monitor's *DiskFullError once it has tripped.
func (m *diskMonitor) check(more int64) *DiskFullError {
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
		u, err := diskspace.Of(fs.dir)
		if err != nil {
			m.warnOnce.Do(func() { m.log.Warn("check free space", "err", err) })
			continue
		}
		reserved := fs.store.Load()
		if i == 0 {
			reserved += m.sortRoom()
		}
		lim := EffectiveMinFreeSpace(m.setting, u.Total) + reserved
		if u.Free-more < lim {
			m.trip(&DiskFullError{Dir: fs.dir, Free: max(u.Free-more, 0), Min: lim, Reserved: reserved})
			return m.err()
		}
		margin = min(margin, u.Free-more-lim)
	}
	m.margin.Store(margin)
	m.checkAt.Store(now.UnixNano())
	return nil
}

// recheckEvery bounds how long beforeWrite trusts the last check.
const recheckEvery = 20 * time.Millisecond

// beforeWrite is the WARC writer's BeforeWrite hook: it trips the monitor when the write would
// take the disk below its minimum. The write goes ahead: the minimum is the room in-flight
// captures finish in. It measures again when the last check is older than recheckEvery or the
// writes announced since could have used half the room that check saw; in between, a write
// costs no system call.
func (m *diskMonitor) beforeWrite(n int64) {
	if m == nil {
		return
	}
	p := m.pending.Add(n)
	if time.Now().UnixNano()-m.checkAt.Load() < int64(recheckEvery) && p < m.margin.Load()/2 && !m.isTripped() {
		return
	}
	m.check(n)
}

func (m *diskMonitor) trip(e *DiskFullError) {
	m.once.Do(func() {
		m.full = e
		close(m.tripped)
	})
}

func (m *diskMonitor) isTripped() bool {
	select {
	case <-m.tripped:
		return true
	default:
		return false
	}
}

// err is the error the monitor tripped with, nil before.
func (m *diskMonitor) err() *DiskFullError {
	if m == nil || !m.isTripped() {
		return nil
	}
	return m.full
}

// watch checks free space every diskCheckEvery until ctx is done, and calls stop with the
// *DiskFullError as soon as the monitor trips (on its own check or on a write's).
func (m *diskMonitor) watch(ctx context.Context, stop context.CancelCauseFunc) {
	t := time.NewTicker(diskCheckEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-m.tripped:
			stop(m.full)
			return
		case <-t.C:
			m.check(0)
		}
	}
}

// noSpace turns err, a write that failed with ENOSPC, into a *DiskFullError naming the
// directory with the least free space among dirs.
func noSpace(setting int64, dirs []string, err error) *DiskFullError {
	e := &DiskFullError{Dir: dirs[0], Free: -1, Err: err}
	for _, d := range dirs {
		u, uerr := diskspace.Of(d)
		if uerr != nil {
			continue
		}
		if e.Free < 0 || u.Free < e.Free {
			e.Dir, e.Free, e.Min = d, u.Free, EffectiveMinFreeSpace(setting, u.Total)
		}
	}
	return e
}

// asDiskFull returns err as a *DiskFullError when a write failed for want of room (ENOSPC,
// EDQUOT) and err is not one already; otherwise err unchanged.
func asDiskFull(err error, setting int64, dirs ...string) error {
	if err == nil || errors.Is(err, ErrDiskFull) || !diskspace.IsNoSpace(err) {
		return err
	}
	return noSpace(setting, dirs, err)
}
