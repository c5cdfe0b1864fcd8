package crawl_test

import (
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/scope"
	"github.com/amber-crawler/amber/status"
)

// TestRetries: Config.Retries decides per condition how often a URL is tried again (FAST's
// http_errors RETRY:n), the most specific status condition winning; what it does not name
// keeps MaxAttempts. Each URL's requests are counted at the server, and its crawl.log line
// says the attempts (Nt) and the final outcome.
func TestRetries(t *testing.T) {
	// /p/K answers, for ever, the status of its row; /p/9 never answers in time.
	codes := map[string]int{"/p/1": 503, "/p/2": 500, "/p/3": 404, "/p/4": 403, "/p/5": 429, "/p/6": 200, "/p/7": 502, "/p/8": 408}
	type want struct {
		requests int    // requests the server saw
		status   int    // the crawl.log status
		note     string // the attempts annotation ("" when there is none)
	}
	tests := []struct {
		name    string
		retries map[string]int
		want    map[string]want // by path; dead is the host that refuses connections
	}{
		{
			name:    "max_attempts only",
			retries: nil,
			want: map[string]want{
				"/p/1": {2, 503, "2t"}, "/p/2": {2, 500, "2t"}, "/p/3": {1, 404, ""}, "/p/4": {1, 403, ""},
				"/p/5": {2, 429, "2t"}, "/p/6": {1, 200, ""}, "/p/7": {2, 502, "2t"}, "/p/8": {1, 408, ""},
				"/p/9": {2, status.Timeout, "2t"}, "dead": {0, status.ConnectFailed, "2t"},
			},
		},
		{
			// FAST's example §3.8 says RETRY:3 for 5xx; amber's own conditions are counted alike.
			name:    "per condition",
			retries: map[string]int{"5xx": 3, "503": 0, "50X": 1, "4XX": 2, "403": 0, "net": 0, "ttl": 2},
			want: map[string]want{
				"/p/1": {1, 503, ""}, "/p/2": {2, 500, "2t"}, "/p/3": {3, 404, "3t"}, "/p/4": {1, 403, ""},
				"/p/5": {3, 429, "3t"}, "/p/6": {1, 200, ""}, "/p/7": {2, 502, "2t"}, "/p/8": {3, 408, "3t"},
				"/p/9": {3, status.Timeout, "3t"}, "dead": {0, status.ConnectFailed, "1t"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			site := &fastSite{pages: 9, links: []string{"http://dead.example.com/d"}, page: func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/p/9" {
					<-r.Context().Done() // no answer: the first-byte timeout
					return
				}
				code := codes[r.URL.Path]
				w.Header().Set("Content-Type", "text/html")
				w.WriteHeader(code)
				fmt.Fprintf(w, "<html><body>%d</body></html>", code)
			}}
			ts := startFAST(t, site)
			cfg := fastConfig(t, ts, crawl.FetcherHTTP)
			_, port, _ := net.SplitHostPort(closedAddr(t))
			dead, err := fetch.ParseConnectTo("dead.example.com::127.0.0.1:" + port)
			if err != nil {
				t.Fatal(err)
			}
			cfg.Fetch.ConnectTo = append([]fetch.ConnectTo{dead}, cfg.Fetch.ConnectTo...)
			accept, err := scope.ParseRule("host:dead.example.com")
			if err != nil {
				t.Fatal(err)
			}
			cfg.Scope.Accept = []scope.Rule{accept}
			cfg.IgnoreRobots = true
			cfg.RetryDelay = time.Millisecond
			cfg.Fetch.FirstByteTimeout = 300 * time.Millisecond
			cfg.Retries = tt.retries
			last := lastLines(runFAST(t, cfg))
			for path, w := range tt.want {
				u := "http://www.example.com" + path
				if path == "dead" {
					u = "http://dead.example.com/d"
				} else if got := site.requests("www.example.com", path); got != w.requests {
					t.Errorf("%s: %d requests, want %d", path, got, w.requests)
				}
				l, ok := last[u]
				if !ok {
					t.Errorf("%s: not in crawl.log", u)
					continue
				}
				var note string
				for _, a := range l.Annotations {
					if strings.HasSuffix(a, "t") {
						if _, err := strconv.Atoi(strings.TrimSuffix(a, "t")); err == nil {
							note = a
						}
					}
				}
				if l.Status != w.status || note != w.note {
					t.Errorf("%s: status %d, attempts %q (annotations %v); want %d, %q", path, l.Status, note, l.Annotations, w.status, w.note)
				}
			}
		})
	}
}
