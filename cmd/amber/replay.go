package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"github.com/amber-crawler/amber/replay"
)

const replayHelp = `Usage: amber replay [--listen ADDR] [--at TIMESTAMP] DIR|FILE.wacz...

Replays crawl directories and WACZ files, as one archive, through an HTTP proxy (pywb's proxy
mode): a browser (or curl) whose proxy is amber gets, for each URL it asks for, the archived
response: the capture of the URL closest in time to TIMESTAMP (default: the first crawl's
earliest capture), revisits with their original's payload, status and headers as captured,
redirects as captured. Nothing is fetched from the live web: a URL the archive does not hold
gets a 404 that says so, and is recorded in STATE/misses.jsonl. The usual replay fuzzy rules
(cache-busting query parameters and the like) find captures of URLs asked for a little
differently; docs/replay.md lists them.

https goes through a certificate authority amber makes for the crawl on first use
(STATE/ca.pem, its key in STATE/ca-key.pem, mode 0600): trust it in the browser, or give
Chromium the --ignore-certificate-errors-spki-list value amber prints. The start page,
http://amber.replay/ through the proxy (or the proxy's own address), lists the crawl's pages
with their capture times. Ctrl-C stops.

Flags:
  --listen ADDR      the proxy's address (default 127.0.0.1:0: a free port, printed)
  --at TIMESTAMP     the time aimed at: 14 digits YYYYMMDDhhmmss (or fewer: 2026, 202603, ...)
                     or RFC 3339 (2026-03-04T05:06:07Z); default the first crawl's earliest
                     capture; a request's Accept-Datetime (RFC 7089) chooses its own
  --state DIR        where the certificate authority and misses.jsonl are kept (default:
                     replay/ in the first crawl directory; for a WACZ file, replay/ in the crawl
                     directory it lies in, else FILE.replay beside it)
  -v, --verbose      log every response, not only the misses

Exit status: 0 stopped (Ctrl-C); 1 a failure (the address is taken, a source cannot be read);
2 a mistake in the command line (no source, one that is neither a crawl directory nor a WACZ
file, a bad --at).
`

// runReplay is `amber replay [flags] DIR|FILE.wacz...`: it serves until ctx ends.
func runReplay(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("amber replay", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	listen := fs.String("listen", "127.0.0.1:0", "")
	atFlag := fs.String("at", "", "")
	state := fs.String("state", "", "")
	verbose := fs.Bool("verbose", false, "")
	fs.BoolVar(verbose, "v", false, "")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, replayHelp)
			return nil
		}
		return usagef("%w (see 'amber help replay')", err)
	}
	if len(pos) == 0 {
		return usagef("usage: amber replay [--listen ADDR] [--at TIMESTAMP] DIR|FILE.wacz...")
	}
	var at time.Time
	if *atFlag != "" {
		if at, err = parseAt(*atFlag); err != nil {
			return usagef("--at %q: %w", *atFlag, err)
		}
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	srv, err := replay.Open(ctx, replay.Config{Sources: pos, StateDir: *state, At: at, Logger: logger})
	if errors.Is(err, replay.ErrNotArchive) {
		return usageError{err}
	}
	if err != nil {
		return err
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return fmt.Errorf("replay: listen: %w", err)
	}
	hs := &http.Server{
		Handler:           srv,
		ReadHeaderTimeout: 30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          log.New(io.Discard, "", 0),
	}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()

	proxy := "http://" + ln.Addr().String()
	when := srv.At().Format("2006-01-02 15:04:05 UTC")
	if at.IsZero() {
		when += " (the crawl's earliest capture)"
	}
	fmt.Fprintf(stdout, "amber replay: %s\n", strings.Join(pos, ", "))
	fmt.Fprintf(stdout, "  serving the captures closest to %s\n", when)
	fmt.Fprintf(stdout, "proxy:      %s (HTTP and HTTPS)\n", proxy)
	fmt.Fprintf(stdout, "start page: http://%s/ through the proxy, or %s/\n", replay.StartHost, proxy)
	fmt.Fprintf(stdout, "CA:         %s (SPKI %s)\n", srv.CAPath(), srv.CASPKI())
	fmt.Fprintf(stdout, "misses:     %s\n", filepath.Join(srv.StateDir(), replay.MissesFile))
	fmt.Fprintf(stdout, "browse:     chromium --proxy-server=%s --ignore-certificate-errors-spki-list=%s --user-data-dir=$(mktemp -d) http://%s/\n",
		proxy, srv.CASPKI(), replay.StartHost)
	fmt.Fprintf(stdout, "            curl --proxy %s --cacert %s URL\n", proxy, srv.CAPath())
	fmt.Fprintln(stdout, "Ctrl-C stops.")

	select {
	case err := <-served:
		return fmt.Errorf("replay: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		hs.Close()
	}
	<-served
	switch n := len(srv.Misses()); n {
	case 1:
		fmt.Fprintln(stdout, "amber replay: stopped; 1 request was not in the archive")
	default:
		fmt.Fprintf(stdout, "amber replay: stopped; %d requests were not in the archive\n", n)
	}
	return nil
}

// parseAt reads --at: a CDX timestamp of 4 to 14 digits (padded with the earliest values, as
// pywb pads them) or an RFC 3339 time.
func parseAt(s string) (time.Time, error) {
	if len(s) >= 4 && len(s) <= 14 && strings.Trim(s, "0123456789") == "" {
		t, err := time.Parse("20060102150405", s+"0101000000"[max(len(s)-4, 0):])
		if err != nil {
			return time.Time{}, errors.New("not a timestamp YYYYMMDDhhmmss")
		}
		return t, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, errors.New("want 14 digits YYYYMMDDhhmmss (or fewer) or an RFC 3339 time")
	}
	return t.UTC(), nil
}
