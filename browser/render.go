package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/chromedp/chromedp"
)

// Defaults applied by Evaluate to zero RenderConfig fields.
const (
	DefaultRenderTimeout = 30 * time.Second
	DefaultRenderPoll    = 250 * time.Millisecond
)

// ErrNoResult is returned by Evaluate when the expression gave no non-empty string before
// the timeout.
var ErrNoResult = errors.New("browser: expression gave no result")

// RenderConfig configures Evaluate. Zero fields take the documented defaults.
type RenderConfig struct {
	// Path is the Chromium executable; default DefaultPath(), as for Config.Path.
	Path string
	// URL is the page to open. Required.
	URL string
	// Expression is the JavaScript evaluated in the page's main frame. Its value (after
	// awaiting it, if it is a promise) is the result when it is a non-empty string; any
	// other value (undefined, null, "", a number), or an exception, means "not yet".
	// Required.
	Expression string
	// Timeout bounds the whole call, browser start included; default 30s.
	Timeout time.Duration
	// Poll is the pause between two evaluations; default 250ms.
	Poll time.Duration
	// ViewportWidth and ViewportHeight size the window in CSS pixels; default 1366x768.
	ViewportWidth, ViewportHeight int
	// Proxy, when set, is the HTTP proxy every request of the browser goes through
	// (--proxy-server, no bypass), with no host name but the proxy's resolved by the browser
	// itself: a replay proxy such as amber replay's ("http://127.0.0.1:PORT").
	Proxy string
	// TrustSPKI are base64 SHA-256 hashes of public keys (SubjectPublicKeyInfo): the browser
	// accepts a server whose certificate chain holds one of them
	// (--ignore-certificate-errors-spki-list), such as a replay proxy's certificate authority.
	TrustSPKI []string
}

func (c RenderConfig) withDefaults() (RenderConfig, error) {
	if c.URL == "" || c.Expression == "" {
		return c, fmt.Errorf("%w: URL and Expression are required", ErrConfig)
	}
	if c.Timeout < 0 || c.Poll < 0 || c.ViewportWidth < 0 || c.ViewportHeight < 0 {
		return c, fmt.Errorf("%w: negative value", ErrConfig)
	}
	if c.Path == "" {
		c.Path = DefaultPath()
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultRenderTimeout
	}
	if c.Poll == 0 {
		c.Poll = DefaultRenderPoll
	}
	if c.ViewportWidth == 0 {
		c.ViewportWidth = DefaultViewportWidth
	}
	if c.ViewportHeight == 0 {
		c.ViewportHeight = DefaultViewportHeight
	}
	if err := executable(c.Path); err != nil {
		return c, fmt.Errorf("%w: chromium: %w", ErrConfig, err)
	}
	return c, nil
}

// Evaluate starts a fresh headless Chromium (its own temporary profile, removed afterwards),
// opens cfg.URL, and evaluates cfg.Expression in the page every cfg.Poll until it yields a
// non-empty string, which it returns. It returns an error wrapping ErrNoResult (with the
// last exception or value seen) when cfg.Timeout passes first, ErrConfig for an invalid
// config, and the context's error when ctx ends. The browser is stopped before Evaluate
// returns.
//
// Evaluate is a test and inspection helper, not a capture: unlike Fetcher, the browser talks
// to the network directly, or to cfg.Proxy (no recording, no address guard, no host
// mapping), and service workers and the cache work as in a normal browser. Each call is a
// new browser, so nothing carries over from one call to the next.
func Evaluate(ctx context.Context, cfg RenderConfig) (string, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return "", err
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()

	opts := append([]chromedp.ExecAllocatorOption(nil), chromedp.DefaultExecAllocatorOptions[:]...)
	opts = append(opts,
		chromedp.ExecPath(cfg.Path),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.WindowSize(cfg.ViewportWidth, cfg.ViewportHeight),
	)
	if cfg.Proxy != "" {
		rules := "MAP * ~NOTFOUND"
		if u, err := url.Parse(cfg.Proxy); err == nil && u.Hostname() != "" {
			rules += " , EXCLUDE " + u.Hostname() // the proxy itself
		}
		opts = append(opts,
			chromedp.ProxyServer(cfg.Proxy),
			chromedp.Flag("proxy-bypass-list", "<-loopback>"),
			chromedp.Flag("host-resolver-rules", rules))
	}
	if len(cfg.TrustSPKI) > 0 {
		opts = append(opts, chromedp.Flag("ignore-certificate-errors-spki-list", strings.Join(cfg.TrustSPKI, ",")))
	}
	// Without a UserDataDir option chromedp starts the browser with a fresh temporary
	// profile and removes it when the allocator context ends.
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	defer acancel()
	bctx, bcancel := chromedp.NewContext(actx)
	defer bcancel()

	timedOut := func(last string) error {
		if err := parent.Err(); err != nil {
			return fmt.Errorf("browser: evaluate: %w", err)
		}
		return fmt.Errorf("%w within %v (last: %s)", ErrNoResult, cfg.Timeout, last)
	}
	if err := chromedp.Do(bctx, chromedp.Navigate(cfg.URL)); err != nil {
		if ctx.Err() != nil {
			return "", timedOut("page not loaded")
		}
		return "", fmt.Errorf("browser: open %s: %w", cfg.URL, err)
	}
	last := "nothing"
	for {
		raw, err := chromedp.Run(bctx, chromedp.Evaluate[[]byte](cfg.Expression, chromedp.EvalAwaitPromise))
		var s string
		var exc *chromedp.ExceptionError
		switch {
		case errors.As(err, &exc):
			// The page is not ready for the expression yet.
			last = exc.Error()
		case err != nil:
			if ctx.Err() != nil {
				return "", timedOut(last)
			}
			return "", fmt.Errorf("browser: evaluate: %w", err)
		case json.Unmarshal(raw, &s) == nil && s != "":
			closeBrowser(bctx)
			return s, nil
		case raw == nil:
			last = "undefined"
		default:
			last = string(raw)
		}
		timer := time.NewTimer(cfg.Poll)
		select {
		case <-ctx.Done():
			timer.Stop()
			return "", timedOut(last)
		case <-timer.C:
		}
	}
}

// closeBrowser asks the browser to close gracefully, briefly; the deferred cancels of
// Evaluate kill it if it does not.
func closeBrowser(bctx context.Context) {
	ctx, cancel := context.WithTimeout(bctx, closeTimeout)
	defer cancel()
	_ = chromedp.Cancel(ctx)
}
