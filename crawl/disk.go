package crawl

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
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
	Dir  string // the directory on the full filesystem: the crawl directory or its WARC directory
	Free int64  // bytes free there when the crawl stopped, less the write about to be made; -1 when it could not be measured
	Min  int64  // the free space the crawl keeps (EffectiveMinFreeSpace); 0 when the check is off
	Err  error  // the write that failed for want of room; nil when the free-space check stopped the crawl first
}

// Error reads "crawl: disk full: /crawl/warcs has 812.0 KiB free, less than the 1.0 MiB the
// crawl keeps free; make room and run the crawl again to resume".
func (e *DiskFullError) Error() string {
	free := "an unknown amount"
	if e.Free >= 0 {
		free = humanBytes(e.Free)
	}
	msg := fmt.Sprintf("%v: %s has %s free", ErrDiskFull, e.Dir, free)
	if e.Min > 0 && e.Free >= 0 && e.Free < e.Min {
		msg += fmt.Sprintf(", less than the %s the crawl keeps free", humanBytes(e.Min))
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

// diskMonitor watches the free space of the crawl directory's filesystem and, when the WARC
// directory is on another one, of that too. When one of them falls below its minimum it trips:
// once, for the rest of the run. It is checked every diskCheckEvery (watch) and before every
// WARC write (beforeWrite), which costs a statfs per directory (a few microseconds).
type diskMonitor struct {
	setting int64
	dirs    []string // crawl directory first
	log     *slog.Logger

	tripped  chan struct{} // closed by trip
	once     sync.Once
	full     *DiskFullError // set by trip before tripped is closed
	warnOnce sync.Once      // a failing statfs is logged once
}

// newDiskMonitor returns the monitor of the crawl directory dir and its WARC directory
// warcDir, or nil when the setting turns it off or the platform cannot tell free space.
func newDiskMonitor(setting int64, dir, warcDir string, log *slog.Logger) (*diskMonitor, error) {
	if setting < 0 {
		return nil, nil
	}
	u, err := diskspace.Of(dir)
	if errors.Is(err, errors.ErrUnsupported) {
		log.Warn("free disk space cannot be checked on this platform", "err", err)
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("check free space: %w", err)
	}
	m := &diskMonitor{setting: setting, dirs: []string{dir}, log: log, tripped: make(chan struct{})}
	w, err := diskspace.Of(warcDir)
	if err != nil {
		return nil, fmt.Errorf("check free space: %w", err)
	}
	if w.Device != u.Device {
		m.dirs = append(m.dirs, warcDir)
	}
	return m, nil
}

// check measures every directory and trips when one has less than its minimum free, after
// writing more bytes. It returns the monitor's *DiskFullError once it has tripped.
func (m *diskMonitor) check(more int64) *DiskFullError {
	if m == nil {
		return nil
	}
	if m.isTripped() {
		return m.full
	}
	for _, d := range m.dirs {
		u, err := diskspace.Of(d)
		if err != nil {
			m.warnOnce.Do(func() { m.log.Warn("check free space", "err", err) })
			continue
		}
		if lim := EffectiveMinFreeSpace(m.setting, u.Total); u.Free-more < lim {
			m.trip(&DiskFullError{Dir: d, Free: max(u.Free-more, 0), Min: lim})
			return m.err()
		}
	}
	return nil
}

// beforeWrite is the WARC writer's BeforeWrite hook: it trips the monitor when the write would
// take the disk below its minimum. The write goes ahead: the minimum is the room in-flight
// captures finish in.
func (m *diskMonitor) beforeWrite(n int64) { m.check(n) }

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
