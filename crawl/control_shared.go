package crawl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/user"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// Live control of a shared crawl (SharedFrontier). The processes of one crawl share a Redis
// stream, amber:{CRAWLID}:ctl. A change made to any one process (its control socket, its live
// page) is applied there and published on the stream; every other process applies it when it
// reads it, within a second, and records it in its own events.jsonl and control.log as it
// records its own. amber ctl given a Redis URL and a crawl id (ControlShared) publishes a
// request to all the processes and collects each one's answer. Changes that outlive a run
// (block rules, host delays, the URL limit) are kept where every process finds them: the
// shared frontier's metadata and each process's crawl.yaml.

// ctlStreamLen bounds the control stream: a process reads only what arrives while it runs.
const ctlStreamLen = 1000

// controlKeys are the Redis keys of a crawl's control stream and its processes' leases. The
// lease set is redisfront's (see its package doc: P procs, a zset of instances by the expiry
// of their lease in µs of the server's clock).
func controlKeys(crawlID string) (stream, procs string) {
	p := "amber:{" + crawlID + "}:"
	return p + "ctl", p + "procs"
}

// bus is one process's end of the control stream.
type bus struct {
	rdb    *redis.Client
	stream string
	self   string // this process's name: its own entries are skipped when read back
	k      *control
	stop   context.CancelFunc
	done   sync.WaitGroup
}

// startBus connects to the crawl's server and reads the control stream until the returned
// function is called. Entries published before the call are not read: what they changed is
// in the frontier's metadata, which restore applied.
func (k *control) startBus(ctx context.Context) (func(), error) {
	shared := k.h.Shared()
	opt, err := redis.ParseURL(shared.URL)
	if err != nil {
		return nil, fmt.Errorf("control stream: %w", err)
	}
	stream, _ := controlKeys(shared.CrawlID)
	b := &bus{rdb: redis.NewClient(opt), stream: stream, self: shared.Process, k: k}
	// The stream's last ID now: reading starts after it.
	last := "0-0"
	if xs, err := b.rdb.XRevRangeN(ctx, stream, "+", "-", 1).Result(); err != nil {
		b.rdb.Close()
		return nil, fmt.Errorf("control stream: %w", err)
	} else if len(xs) == 1 {
		last = xs[0].ID
	}
	rctx, cancel := context.WithCancel(context.Background())
	b.stop = cancel
	k.bus = b
	b.done.Go(func() { b.read(rctx, last) })
	return func() {
		cancel()
		b.done.Wait()
		b.rdb.Close()
	}, nil
}

// read applies the stream's entries after last until ctx ends, reconnecting after errors.
func (b *bus) read(ctx context.Context, last string) {
	for ctx.Err() == nil {
		res, err := b.rdb.XRead(ctx, &redis.XReadArgs{Streams: []string{b.stream, last}, Block: time.Second, Count: 100}).Result()
		if err != nil {
			if errors.Is(err, redis.Nil) || ctx.Err() != nil {
				continue
			}
			b.k.h.Log().Warn("read control stream", "err", err)
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
			continue
		}
		for _, s := range res {
			for _, m := range s.Messages {
				last = m.ID
				b.handle(ctx, m)
			}
		}
	}
}

// handle applies one entry (unless this process published it) and answers it when it asks.
func (b *bus) handle(ctx context.Context, m redis.XMessage) {
	from, _ := m.Values["from"].(string)
	if from == b.self {
		return
	}
	who, _ := m.Values["who"].(string)
	raw, _ := m.Values["req"].(string)
	var req ControlRequest
	var res ControlResponse
	if err := json.Unmarshal([]byte(raw), &req); err != nil {
		res = ControlResponse{Error: "request is not a JSON object: " + err.Error(), BadRequest: true}
	} else {
		res = b.k.doLocal(fmt.Sprintf("%s via %s", who, from), req)
	}
	reply, _ := m.Values["reply"].(string)
	if reply == "" {
		return
	}
	body, _ := json.Marshal(ProcessResponse{Process: b.self, ControlResponse: res})
	pipe := b.rdb.TxPipeline()
	pipe.RPush(ctx, reply, body)
	pipe.Expire(ctx, reply, time.Minute)
	if _, err := pipe.Exec(ctx); err != nil {
		b.k.h.Log().Warn("answer control request", "err", err)
	}
}

// crawlWide reports whether a change made to one process is made to all of them: the crawl's
// definition (seeds, scope, politeness, limits) is. Pause, resume and stop are not: given to a
// process's directory they act on that process (to take one machine out, say); amber ctl
// given the crawl's Redis URL sends them to every process.
func crawlWide(command string) bool {
	switch command {
	case CtlAddSeed, CtlBlock, CtlUnblock, CtlHostDelay, CtlLimit:
		return true
	}
	return false
}

// controlUser names who runs amber ctl against a shared crawl: USER@HOST.
func controlUser() string {
	name := "unknown"
	if u, err := user.Current(); err == nil && u.Username != "" {
		name = u.Username
	}
	host, _ := os.Hostname()
	return name + "@" + host
}

// publish sends a change this process made to the others.
func (b *bus) publish(who string, req ControlRequest) {
	raw, _ := json.Marshal(req)
	err := b.rdb.XAdd(context.Background(), &redis.XAddArgs{
		Stream: b.stream, MaxLen: ctlStreamLen, Approx: true,
		Values: []any{"from", b.self, "who", who, "req", string(raw)},
	}).Err()
	if err != nil {
		b.k.h.Log().Warn("publish control change to the crawl's other processes", "err", err)
	}
}

// ProcessResponse is one process's answer to a request sent with ControlShared.
type ProcessResponse struct {
	Process string `json:"process"`
	ControlResponse
}

// ControlShared sends one request to every process of the shared crawl crawlID on the Redis
// server at redisURL and returns their answers, one per live process (a process whose lease
// has not expired), in the order they came. It waits for the answers until ctx ends or, if ctx
// has no deadline, for 5 seconds; a process that did not answer by then is missing from the
// result. It returns an error wrapping ErrNotRunning when no process of the crawl is live.
func ControlShared(ctx context.Context, redisURL, crawlID string, req ControlRequest) ([]ProcessResponse, error) {
	if err := req.check(); err != nil {
		return nil, err
	}
	opt, err := redis.ParseURL(redisURL)
	if err != nil {
		return nil, err
	}
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
	}
	stream, procs := controlKeys(crawlID)
	now, err := rdb.Time(ctx).Result()
	if err != nil {
		return nil, err
	}
	live, err := rdb.ZCount(ctx, procs, strconv.FormatInt(now.UnixMicro(), 10), "+inf").Result()
	if err != nil {
		return nil, err
	}
	if live == 0 {
		return nil, fmt.Errorf("crawl %q on %s: %w", crawlID, opt.Addr, ErrNotRunning)
	}
	n, err := rdb.Incr(ctx, stream+":n").Result()
	if err != nil {
		return nil, err
	}
	reply := stream + ":reply:" + strconv.FormatInt(n, 10)
	raw, _ := json.Marshal(req)
	if err := rdb.XAdd(ctx, &redis.XAddArgs{
		Stream: stream, MaxLen: ctlStreamLen, Approx: true,
		Values: []any{"from", "amber-ctl", "who", controlUser(), "req", string(raw), "reply", reply},
	}).Err(); err != nil {
		return nil, err
	}
	var out []ProcessResponse
	for int64(len(out)) < live {
		res, err := rdb.BLPop(ctx, time.Second, reply).Result()
		if errors.Is(err, redis.Nil) {
			continue
		}
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			return out, err
		}
		var pr ProcessResponse
		if err := json.Unmarshal([]byte(res[1]), &pr); err != nil {
			return out, fmt.Errorf("read control response: %w", err)
		}
		out = append(out, pr)
	}
	return out, nil
}
