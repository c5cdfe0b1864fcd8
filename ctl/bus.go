package ctl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/amber-crawler/amber/frontier/redisfront"
)

// streamLen bounds the control stream: a process reads only what arrives while it runs.
const streamLen = 1000

// streamKeys are the Redis keys of a crawl's control stream and its processes' leases. The
// lease set is redisfront's (see its package doc: P procs, a zset of instances by the expiry
// of their lease in µs of the server's clock).
func streamKeys(crawlID string) (stream, procs string) {
	p := "amber:{" + crawlID + "}:"
	return p + "ctl", p + "procs"
}

// bus is one process's end of its shared crawl's control stream.
type bus struct {
	rdb    *redis.Client
	stream string
	self   string                                 // this process's name: its own entries are skipped when read back
	do     func(who string, req Request) Response // carries out a request read, in this process only
	log    *slog.Logger
	done   sync.WaitGroup
}

// startBus connects to the shared crawl's server and reads the control stream, carrying out
// what other processes publish with do, until the returned function is called. Entries
// published before the call are not read: what they changed is in the frontier's metadata,
// which the crawl restored, and in crawl.yaml.
func startBus(shared redisfront.Shared, do func(string, Request) Response, log *slog.Logger) (*bus, func(), error) {
	opt, err := redis.ParseURL(shared.URL)
	if err != nil {
		return nil, nil, fmt.Errorf("control stream: %w", err)
	}
	stream, _ := streamKeys(shared.CrawlID)
	b := &bus{rdb: redis.NewClient(opt), stream: stream, self: shared.Process, do: do, log: log}
	// The stream's last ID now: reading starts after it.
	last := "0-0"
	if xs, err := b.rdb.XRevRangeN(context.Background(), stream, "+", "-", 1).Result(); err != nil {
		b.rdb.Close()
		return nil, nil, fmt.Errorf("control stream: %w", err)
	} else if len(xs) == 1 {
		last = xs[0].ID
	}
	ctx, cancel := context.WithCancel(context.Background())
	b.done.Go(func() { b.read(ctx, last) })
	return b, func() {
		cancel()
		b.done.Wait()
		b.rdb.Close()
	}, nil
}

// read carries out the stream's entries after last until ctx ends, reconnecting after errors.
func (b *bus) read(ctx context.Context, last string) {
	for ctx.Err() == nil {
		res, err := b.rdb.XRead(ctx, &redis.XReadArgs{Streams: []string{b.stream, last}, Block: time.Second, Count: 100}).Result()
		if err != nil {
			if errors.Is(err, redis.Nil) || ctx.Err() != nil {
				continue
			}
			b.log.Warn("read control stream", "err", err)
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

// handle carries out one entry (unless this process published it) and answers it when it asks.
func (b *bus) handle(ctx context.Context, m redis.XMessage) {
	from, _ := m.Values["from"].(string)
	if from == b.self {
		return
	}
	who, _ := m.Values["who"].(string)
	raw, _ := m.Values["req"].(string)
	var req Request
	var res Response
	if err := json.Unmarshal([]byte(raw), &req); err != nil {
		res = Response{Error: "request is not a JSON object: " + err.Error(), BadRequest: true}
	} else {
		res = b.do(fmt.Sprintf("%s via %s", who, from), req)
	}
	reply, _ := m.Values["reply"].(string)
	if reply == "" {
		return
	}
	body, _ := json.Marshal(ProcessResponse{Process: b.self, Response: res})
	pipe := b.rdb.TxPipeline()
	pipe.RPush(ctx, reply, body)
	pipe.Expire(ctx, reply, time.Minute)
	if _, err := pipe.Exec(ctx); err != nil {
		b.log.Warn("answer control request", "err", err)
	}
}

// publish sends a change this process made to the others.
func (b *bus) publish(who string, req Request) {
	raw, _ := json.Marshal(req)
	err := b.rdb.XAdd(context.Background(), &redis.XAddArgs{
		Stream: b.stream, MaxLen: streamLen, Approx: true,
		Values: []any{"from", b.self, "who", who, "req", string(raw)},
	}).Err()
	if err != nil {
		b.log.Warn("publish control change to the crawl's other processes", "err", err)
	}
}
