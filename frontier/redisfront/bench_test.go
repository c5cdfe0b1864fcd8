package redisfront

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/internal/redistest"
)

// countHook counts the commands a client sends (a script is one: EVALSHA).
type countHook struct{ n atomic.Int64 }

func (h *countHook) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h *countHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.n.Add(1)
		return next(ctx, cmd)
	}
}
func (h *countHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		h.n.Add(int64(len(cmds)))
		return next(ctx, cmds)
	}
}

// info returns a field of INFO section (a number).
func info(b *testing.B, rdb *redis.Client, section, field string) int64 {
	b.Helper()
	s, err := rdb.Info(context.Background(), section).Result()
	if err != nil {
		b.Fatal(err)
	}
	for l := range strings.SplitSeq(s, "\r\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return n
		}
	}
	b.Fatalf("INFO %s has no %s", section, field)
	return 0
}

// serverCommands is the number of commands the server has run, those run by scripts included.
func serverCommands(b *testing.B, rdb *redis.Client) int64 {
	b.Helper()
	s, err := rdb.Info(context.Background(), "commandstats").Result()
	if err != nil {
		b.Fatal(err)
	}
	var n int64
	for l := range strings.SplitSeq(s, "\r\n") {
		if _, rest, ok := strings.Cut(l, ":calls="); ok {
			v, _, _ := strings.Cut(rest, ",")
			c, _ := strconv.ParseInt(v, 10, 64)
			n += c
		}
	}
	return n
}

// BenchmarkAddClaimDone adds b.N URLs over 1,000 hosts (in batches of 100), then claims and
// finishes each, on one process, and reports per URL: the round trips (commands the client
// sent, each script one), the commands the server ran (scripts' commands included, from INFO
// commandstats), and the server's memory (INFO used_memory) per queued URL (after the adds)
// and per seen URL (after all are done). Run with -benchtime=50000x for memory figures that
// the server's own allocations do not blur.
func BenchmarkAddClaimDone(b *testing.B) {
	srv := redistest.Start(b)
	f := open(b, srv, "bench", "p1", Config{HostConcurrency: 2})
	hook := &countHook{}
	f.rdb.AddHook(hook)
	ctx := context.Background()
	stats := redis.NewClient(&redis.Options{Addr: srv.Addr})
	defer stats.Close()
	us := urls(b.N, 1000)
	// Before the first measure: the server's own lazily made structures (script cache, ...).
	add(b, f, []frontier.URL{{URL: "http://warm.example/", Host: "warm.example"}})
	c, err := f.Claim(ctx)
	if err != nil {
		b.Fatal(err)
	}
	if err := f.Done(c); err != nil {
		b.Fatal(err)
	}
	mem0 := info(b, stats, "memory", "used_memory")
	cmd0 := serverCommands(b, stats)
	rt0 := hook.n.Load()

	b.ResetTimer()
	for i := 0; i < len(us); i += 100 {
		add(b, f, us[i:min(i+100, len(us))])
	}
	b.StopTimer()
	memQueued := info(b, stats, "memory", "used_memory")
	cmd1 := serverCommands(b, stats)
	b.StartTimer()
	for {
		c, err := f.Claim(ctx)
		if errors.Is(err, frontier.ErrDone) {
			break
		}
		if err != nil {
			b.Fatal(err)
		}
		if err := f.Done(c); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	memSeen := info(b, stats, "memory", "used_memory")
	// The INFO calls of stats are on another client; the measures themselves are commands
	// the server counts: 2 INFO before cmd1, and this one.
	cmd2 := serverCommands(b, stats) - 3
	n := float64(b.N)
	b.ReportMetric(float64(hook.n.Load()-rt0)/n, "roundtrips/url")
	b.ReportMetric(float64(cmd1-cmd0-2)/n, "add-cmds/url")
	b.ReportMetric(float64(cmd2-cmd0)/n, "server-cmds/url")
	b.ReportMetric(float64(memQueued-mem0)/n, "B/queued-url")
	b.ReportMetric(float64(memSeen-mem0)/n, "B/seen-url")
}
