package redisfront

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/amber-crawler/amber/frontier"
)

// Priority levels (Config.Levels): as frontier.Levels says, with these differences. A
// host's level is the level of its first queued URL; the levels' ready hosts are the zsets
// P hosts:LEVEL, and the pick's state (rr: the next level; wrr: each level's current weight)
// is shared by every process in P lv, with the setting Open writes there. The level is the
// high part of the queue score's priority (level*16 + priority + 8, the priority clamped to
// -8..7), so at most MaxLevels levels.

// MaxLevels is the most levels of Config.Levels: a queue score stays an exact double.
const MaxLevels = 255

// checkLevels validates c.Levels.
func checkLevels(l frontier.Levels) error {
	switch {
	case l.N < 0 || l.N > MaxLevels:
		return fmt.Errorf("%w: Levels.N %d outside 0..%d", frontier.ErrConfig, l.N, MaxLevels)
	case l.N <= 1:
		return nil
	case l.Default < 0 || l.Default > l.N:
		return fmt.Errorf("%w: Levels.Default %d outside 1..%d", frontier.ErrConfig, l.Default, l.N)
	case l.Pick > frontier.PickPri:
		return fmt.Errorf("%w: Levels.Pick %v", frontier.ErrConfig, l.Pick)
	case len(l.Shares) > l.N:
		return fmt.Errorf("%w: %d Levels.Shares for %d levels", frontier.ErrConfig, len(l.Shares), l.N)
	}
	for i, s := range l.Shares {
		if s < 0 {
			return fmt.Errorf("%w: negative share of level %d", frontier.ErrConfig, i+1)
		}
	}
	return nil
}

// setLevels writes the levels' setting for the scripts (and moves the ready hosts when it
// changed).
func (f *Frontier) setLevels(ctx context.Context) error {
	l := f.cfg.Levels
	n, def := 0, 1
	if l.N > 1 {
		n, def = l.N, max(l.Default, 1)
	}
	args := []any{n, def, l.Pick.String()}
	shares := make([]string, n)
	for i := range shares {
		shares[i] = "1"
		if i < len(l.Shares) && l.Shares[i] > 0 {
			shares[i] = strconv.Itoa(l.Shares[i])
		}
	}
	args = append(args, fmt.Sprintf("%d %d %s %s", n, def, l.Pick, strings.Join(shares, ",")))
	for _, s := range shares {
		args = append(args, s)
	}
	return f.run(ctx, scriptLevels, args...).Err()
}

// level is the effective level of a stored level (0 without levels).
func (f *Frontier) level(l int) int {
	if f.cfg.Levels.N <= 1 {
		return l
	}
	if l <= 0 {
		return max(f.cfg.Levels.Default, 1)
	}
	return min(l, f.cfg.Levels.N)
}

// queuePriority is the priority of u's queue score: its Priority, and with levels its level
// above it (u.Level is set to its effective level).
func (f *Frontier) queuePriority(u *frontier.URL) string {
	if f.cfg.Levels.N <= 1 {
		return queuePriority(u.Priority)
	}
	u.Level = f.level(u.Level)
	return strconv.Itoa(u.Level*16 + min(max(u.Priority, -8), 7) + 8)
}
