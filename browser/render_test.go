package browser

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/amber-crawler/amber/internal/crawltest"
)

// renderSite serves a page whose text appears only after a script's timer, and a service
// worker that answers /from-sw, a path the server itself does not know.
func renderSite(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(`<!doctype html><title>render</title><p id="late"></p>
<script>
setTimeout(() => { document.getElementById('late').textContent = 'late text'; }, 300);
navigator.serviceWorker.register('/sw.js');
</script>`))
	})
	mux.HandleFunc("GET /sw.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		w.Write([]byte(`
self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', e => e.waitUntil(self.clients.claim()));
self.addEventListener('fetch', e => {
  if (new URL(e.request.url).pathname === '/from-sw') {
    e.respondWith(new Response('answered by the service worker'));
  }
});`))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestEvaluate(t *testing.T) {
	path := crawltest.Chromium(t)
	srv := renderSite(t)
	for name, tc := range map[string]struct {
		expr string
		want string
	}{
		// Polled until the timer has run.
		"delayed text": {expr: `document.getElementById('late').textContent`, want: "late text"},
		// A promise is awaited; "" (no controller yet) means not yet. Service workers work,
		// unlike in the recording Fetcher.
		"service worker": {
			expr: `navigator.serviceWorker.controller ? fetch('/from-sw').then(r => r.text()) : ''`,
			want: "answered by the service worker",
		},
		// An exception means not yet, too.
		"exception until ready": {
			expr: `document.getElementById('late').textContent || missing.property`,
			want: "late text",
		},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := Evaluate(t.Context(), RenderConfig{Path: path, URL: srv.URL + "/", Expression: tc.expr, Timeout: 30 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestEvaluateFailures(t *testing.T) {
	path := crawltest.Chromium(t)
	srv := renderSite(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String() + "/"
	ln.Close()

	t.Run("no result", func(t *testing.T) {
		_, err := Evaluate(t.Context(), RenderConfig{Path: path, URL: srv.URL + "/", Expression: `''`, Timeout: 3 * time.Second})
		if !errors.Is(err, ErrNoResult) {
			t.Errorf("got %v, want ErrNoResult", err)
		}
	})
	t.Run("caller's deadline", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
		defer cancel()
		_, err := Evaluate(ctx, RenderConfig{Path: path, URL: srv.URL + "/", Expression: `42`, Timeout: time.Minute})
		if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrNoResult) {
			t.Errorf("got %v, want the context's error", err)
		}
	})
	t.Run("page does not load", func(t *testing.T) {
		_, err := Evaluate(t.Context(), RenderConfig{Path: path, URL: closed, Expression: `'x'`, Timeout: 20 * time.Second})
		if err == nil || errors.Is(err, ErrNoResult) {
			t.Errorf("got %v, want a navigation error", err)
		}
	})
}

func TestEvaluateConfig(t *testing.T) {
	for name, cfg := range map[string]RenderConfig{
		"no URL":           {Expression: "1"},
		"no expression":    {URL: "http://127.0.0.1/"},
		"negative timeout": {URL: "http://127.0.0.1/", Expression: "1", Timeout: -time.Second},
		"negative poll":    {URL: "http://127.0.0.1/", Expression: "1", Poll: -time.Second},
		"missing binary":   {URL: "http://127.0.0.1/", Expression: "1", Path: "/nonexistent/chromium"},
		"directory":        {URL: "http://127.0.0.1/", Expression: "1", Path: t.TempDir()},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := Evaluate(t.Context(), cfg); !errors.Is(err, ErrConfig) {
				t.Errorf("got %v, want ErrConfig", err)
			}
		})
	}
}

// TestEvaluateProxy: with Proxy, every request goes to the proxy, for hosts no resolver knows.
func TestEvaluateProxy(t *testing.T) {
	path := crawltest.Chromium(t)
	var mu sync.Mutex
	var asked []string
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked = append(asked, r.URL.String())
		mu.Unlock()
		if !r.URL.IsAbs() {
			http.Error(w, "not a proxy request", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		if r.URL.Path == "/" {
			w.Write([]byte(`<!doctype html><title>via proxy</title><img src="http://other.invalid/pixel">`))
			return
		}
		w.Write([]byte("x"))
	}))
	defer proxy.Close()
	got, err := Evaluate(t.Context(), RenderConfig{Path: path, URL: "http://archived.invalid/", Proxy: proxy.URL,
		Expression: `document.readyState === 'complete' ? document.title : ''`, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if got != "via proxy" {
		t.Errorf("title %q, want the proxy's page", got)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, want := range []string{"http://archived.invalid/", "http://other.invalid/pixel"} {
		if !slices.Contains(asked, want) {
			t.Errorf("the proxy was not asked for %s (asked: %v)", want, asked)
		}
	}
}
