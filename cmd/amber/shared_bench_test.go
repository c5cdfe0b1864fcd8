package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/amber-crawler/amber/internal/redistest"
	"github.com/amber-crawler/amber/internal/testsite"
)

// BenchmarkSharedCrawl crawls a site of 40 hosts of 50 pages whose every response takes 50 ms
// (a slow site, where one process's workers wait and more processes help) with 1, 2 and 4
// amber processes sharing one frontier in redis-server (16 workers each, host concurrency 2,
// no host delay), and reports pages per second and the Redis commands per URL the crawl made
// (INFO commandstats, commands run inside Lua scripts included, and calls to the scripts
// themselves). Run it with a fixed count:
//
//	go test -run '^$' -bench SharedCrawl -benchtime 1x ./cmd/amber/
func BenchmarkSharedCrawl(b *testing.B) {
	const hosts, pages = 40, 50
	bin := amberBinary(b)
	site := &sharedSite{hosts: hosts, pages: pages, current: map[string]int{}, most: map[string]int{}, delay: 50 * time.Millisecond}
	ts, err := testsite.StartHandler(site)
	if err != nil {
		b.Fatal(err)
	}
	defer ts.Close()
	srv := redistest.Start(b)
	opt, err := redis.ParseURL(srv.URL(0))
	if err != nil {
		b.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	for _, n := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("processes=%d", n), func(b *testing.B) {
			for i := range b.N {
				root := b.TempDir()
				id := fmt.Sprintf("bench-%d-%d", n, i)
				before := redisCalls(b, rdb)
				start := time.Now()
				cmds := make([]*exec.Cmd, n)
				for p := range n {
					args := []string{"crawl", "--dir", filepath.Join(root, fmt.Sprint("p", p)), "--frontier", srv.URL(0),
						"--crawl-id", id, "--connect-to", ts.ConnectTo(), "--allow-private", "--host-delay", "0",
						"--host-concurrency", "2", "--workers", "16", "--quiet"}
					for h := range hosts {
						args = append(args, site.url(h, 0))
					}
					cmds[p] = exec.Command(bin, args...)
					if err := cmds[p].Start(); err != nil {
						b.Fatal(err)
					}
				}
				for _, c := range cmds {
					if err := c.Wait(); err != nil {
						b.Fatal(err)
					}
				}
				el := time.Since(start)
				urls := 0
				for p := range n {
					urls += countLines(filepath.Join(root, fmt.Sprint("p", p), "logs", "crawl.log"))
				}
				calls := redisCalls(b, rdb) - before
				b.ReportMetric(float64(hosts*pages)/el.Seconds(), "pages/s")
				b.ReportMetric(float64(calls)/float64(urls), "redis-cmds/url")
			}
		})
	}
}

// redisCalls is the server's count of commands run (INFO commandstats, summed).
func redisCalls(b *testing.B, rdb *redis.Client) int64 {
	info, err := rdb.Info(context.Background(), "commandstats").Result()
	if err != nil {
		b.Fatal(err)
	}
	var total int64
	sc := bufio.NewScanner(strings.NewReader(info))
	for sc.Scan() {
		_, rest, ok := strings.Cut(sc.Text(), "calls=")
		if !ok {
			continue
		}
		v, _, _ := strings.Cut(rest, ",")
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			fmt.Fprintln(os.Stderr, "commandstats:", sc.Text())
			continue
		}
		total += n
	}
	return total
}
