package ctl

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// Send sends one request to the crawl running in dir and returns its response. It returns an
// error wrapping ErrNotRunning when no crawl listens there (no socket, or a socket left by a
// crawl that was killed).
func Send(ctx context.Context, dir string, req Request) (Response, error) {
	path := filepath.Join(dir, Socket)
	if fi, err := os.Lstat(path); err != nil || fi.Mode().Type() != fs.ModeSocket {
		return Response{}, fmt.Errorf("%s: %w (no %s)", dir, ErrNotRunning, Socket)
	}
	addr, done, err := socketAddr(dir, Socket)
	if err != nil {
		return Response{}, err
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", addr)
	done()
	if err != nil {
		if errors.Is(err, fs.ErrPermission) {
			return Response{}, fmt.Errorf("%s: %w", dir, err)
		}
		return Response{}, fmt.Errorf("%s: %w (%s is left from a crawl that did not end cleanly)", dir, ErrNotRunning, Socket)
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	b, err := json.Marshal(req)
	if err != nil {
		return Response{}, err
	}
	if _, err := conn.Write(append(b, '\n')); err != nil {
		return Response{}, fmt.Errorf("send control request: %w", err)
	}
	line, err := bufio.NewReader(conn).ReadBytes('\n')
	if err != nil {
		return Response{}, fmt.Errorf("read control response: %w", err)
	}
	var res Response
	if err := json.Unmarshal(line, &res); err != nil {
		return Response{}, fmt.Errorf("read control response: %w", err)
	}
	return res, nil
}

// socketAddr is the address of socket name in dir. A Unix socket's path is limited to about
// 100 bytes; a longer one is reached through the directory's descriptor (/proc/self/fd/N/name,
// Linux), and done closes that descriptor once the socket is bound or dialled.
func socketAddr(dir, name string) (addr string, done func(), err error) {
	p := filepath.Join(dir, name)
	if len(p) < 100 {
		return p, func() {}, nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return "", nil, err
	}
	return fmt.Sprintf("/proc/self/fd/%d/%s", d.Fd(), name), func() { d.Close() }, nil
}

// ProcessResponse is one process's answer to a request sent with SendShared.
type ProcessResponse struct {
	Process string `json:"process"`
	Response
}

// SendShared sends one request to every process of the shared crawl crawlID on the Redis
// server at redisURL and returns their answers, one per live process (a process whose lease
// has not expired), in the order they came. It waits for the answers until ctx ends or, if ctx
// has no deadline, for 5 seconds; a process that did not answer by then is missing from the
// result. It returns an error wrapping ErrNotRunning when no process of the crawl is live,
// and one wrapping ErrBadRequest for a request Parse would refuse.
func SendShared(ctx context.Context, redisURL, crawlID string, req Request) ([]ProcessResponse, error) {
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
	stream, procs := streamKeys(crawlID)
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
		Stream: stream, MaxLen: streamLen, Approx: true,
		Values: []any{"from", "amber-ctl", "who", operator(), "req", string(raw), "reply", reply},
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

// operator names who runs amber ctl against a shared crawl: USER@HOST.
func operator() string {
	name := "unknown"
	if u, err := user.Current(); err == nil && u.Username != "" {
		name = u.Username
	}
	host, _ := os.Hostname()
	return name + "@" + host
}
