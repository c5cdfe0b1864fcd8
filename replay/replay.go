// Package replay serves the captures of crawl directories and WACZ files to a browser, as an
// HTTP proxy (pywb's proxy mode): a browser whose proxy is the Server gets, for each URL it
// asks for, the archived response, and a 404 that says so for what the archive does not hold.
// The sources are an Archive, which also opens the captures of earlier crawls for a recrawl
// (package prior): the response that holds a capture's payload, found as a revisit's
// original is.
//
// The response is chosen from the CDXJ indexes: the captures of the URL's CDX key (so http
// and https, a leading "www." and the order of query parameters do not matter; a POST is
// keyed by its body as the crawl keyed it), the capture of the same scheme and host first,
// then the closest in time to the time aimed at: a request's Accept-Datetime (RFC 7089), else
// Config.At, else the earliest capture of the first source, the crawl's own time. A capture
// of a 5xx comes after the others, a 304 response record before only those, and a redirect
// to the URL asked for itself (an http capture that sends to https, asked for over https) is
// passed over. Without a capture of the key, the fuzzy rules (fuzzy.go, docs/replay.md) may
// find one of the same path.
//
// A revisit record is served with its own status and header fields and the payload of the
// record it refers to (WARC-Refers-To-Target-URI and -Date, else the same payload digest);
// one without HTTP headers (server-not-modified) with the original's. A resource record (a
// screenshot) is served as 200 with its Content-Type. The status and header fields are the
// archived ones, with these changes: the body is the payload (the chunked transfer coding
// removed, the content coding kept as captured), with a Content-Length of what is sent
// (the archived Content-Length when it is smaller than the body, as a browser would have
// read it); the hop-by-hop fields (Connection and those it names, Keep-Alive,
// Proxy-Connection, TE, Trailer, Transfer-Encoding, Upgrade) are left out; the fields that
// would follow the browser to the live site afterwards (Strict-Transport-Security, Alt-Svc,
// Public-Key-Pins, Public-Key-Pins-Report-Only, Expect-CT) are renamed X-Archive-Orig-NAME
// as pywb renames them; names are written in canonical case and fields that are not valid
// HTTP are dropped; Memento-Datetime gives the capture's time and Amber-Replay how it was
// found ("exact", or "fuzzy" with the rules and the URL captured). A GET with a Range of one
// byte range is answered 206 from a 200 capture. A 1xx status cannot be replayed.
//
// https goes through CONNECT: the Server answers the TLS handshake itself with a certificate
// for the host signed by a certificate authority it keeps in its state directory (CAFile,
// made on first use; CAKeyFile at mode 0600), which the browser must trust. A CORS preflight
// (OPTIONS with Access-Control-Request-Method) that the archive does not answer is allowed.
//
// Capture reads a capture whole for Go code (amber qa reads the crawl's screenshots with it).
// Every miss is recorded (Misses, and a line in MissesFile in the state directory). The
// host amber.replay (StartHost), and a request to the Server's own address, get a start page
// that lists the pages of the sources with their capture times; /ca.pem there is the
// authority's certificate.
package replay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/amber-crawler/amber/wacz"
)

// StartHost is the host name whose requests through the proxy the start page answers.
const StartHost = "amber.replay"

// MissesFile is the file of the state directory where each miss is appended, one JSON object
// (a Miss) per line.
const MissesFile = "misses.jsonl"

// StateDirName is the state directory's name inside a crawl directory (DefaultStateDir).
const StateDirName = "replay"

// ErrConfig wraps the problems of a Config.
var ErrConfig = errors.New("replay: invalid config")

// Config configures a Server.
type Config struct {
	// Sources are the crawl directories and WACZ files replayed, as one archive. The first is
	// the crawl: its earliest capture is the default time aimed at, and its state directory
	// the default. Required.
	Sources []string
	// StateDir holds the certificate authority and the misses; created if missing. Default:
	// DefaultStateDir(Sources[0]).
	StateDir string
	// At is the time aimed at: of the captures of a URL, the closest to it is served, unless
	// the request has an Accept-Datetime. Zero: the earliest capture of the first source.
	At time.Time
	// Logger gets a line per miss (info) and per response (debug); default: none.
	Logger *slog.Logger
}

// DefaultStateDir is the state directory of a replay whose first source is source: replay/
// in a crawl directory; for a WACZ file, replay/ in the crawl directory it lies in (where
// amber wacz writes it by default), else NAME.replay beside it.
func DefaultStateDir(source string) string {
	if fi, err := os.Stat(source); err == nil && fi.IsDir() {
		return filepath.Join(source, StateDirName)
	}
	dir := filepath.Dir(source)
	if fi, err := os.Stat(filepath.Join(dir, "state")); err == nil && fi.IsDir() {
		return filepath.Join(dir, StateDirName)
	}
	return strings.TrimSuffix(source, filepath.Ext(source)) + ".replay"
}

// Miss is a request the archive could not answer.
type Miss struct {
	Time    time.Time `json:"time"`
	Method  string    `json:"method"`
	URL     string    `json:"url"`
	Referer string    `json:"referer,omitempty"` // the page that asked, as the browser gave it
	Dest    string    `json:"dest,omitempty"`    // Sec-Fetch-Dest: document, image, script, style, font, empty (fetch/XHR) ...
	Reason  string    `json:"reason"`            // "not in the archive", or why a capture could not be replayed
}

// Server is the replay proxy: an http.Handler for proxy requests (absolute URLs and CONNECT)
// and for requests to its own address (the start page). It is safe for concurrent use.
type Server struct {
	archive  *Archive  // the sources
	at       time.Time // Config.At, or zero
	crawlAt  time.Time // the earliest capture of the first source
	stateDir string
	ca       *authority
	log      *slog.Logger
	mitm     *mitm

	missMu   sync.Mutex // guards misses
	misses   []Miss
	missFile *os.File // O_APPEND: each line is one write

	pagesOnce sync.Once
	pages     []page
	pagesErr  error
}

// Open opens the sources and the certificate authority (made on first use) and returns a
// Server ready to serve. The caller closes it.
func Open(ctx context.Context, cfg Config) (_ *Server, err error) {
	if len(cfg.Sources) == 0 {
		return nil, fmt.Errorf("%w: no crawl directory or WACZ file", ErrConfig)
	}
	s := &Server{at: cfg.At.UTC(), log: cfg.Logger, stateDir: cfg.StateDir}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.stateDir == "" {
		s.stateDir = DefaultStateDir(cfg.Sources[0])
	}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	if s.archive, err = OpenArchive(ctx, cfg.Sources); err != nil {
		return nil, err
	}
	// Made once the sources are known to be there.
	if err := os.MkdirAll(s.stateDir, 0o755); err != nil {
		return nil, fmt.Errorf("replay: state directory: %w", err)
	}
	if s.crawlAt, err = s.archive.sources[0].earliest(); err != nil {
		return nil, err
	}
	if s.ca, err = loadAuthority(s.stateDir, filepath.Base(filepath.Clean(cfg.Sources[0]))); err != nil {
		return nil, err
	}
	if s.missFile, err = os.OpenFile(filepath.Join(s.stateDir, MissesFile), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644); err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	s.mitm = newMITM(s)
	return s, nil
}

// Close stops the connections the Server intercepts and closes the sources.
func (s *Server) Close() error {
	var errs []error
	if s.mitm != nil {
		errs = append(errs, s.mitm.close())
	}
	if s.archive != nil {
		errs = append(errs, s.archive.Close())
	}
	if s.missFile != nil {
		errs = append(errs, s.missFile.Close())
	}
	return errors.Join(errs...)
}

// At returns the time the Server aims at by default: Config.At, else the earliest capture of
// the first source (zero when it has none).
func (s *Server) At() time.Time {
	if !s.at.IsZero() {
		return s.at
	}
	return s.crawlAt
}

// CAPath returns the path of the certificate authority's certificate (PEM).
func (s *Server) CAPath() string { return s.ca.path }

// CASPKI returns the base64 SHA-256 of the authority's public key, the value of Chromium's
// --ignore-certificate-errors-spki-list that makes it accept the Server's certificates
// (every one is sent with the authority's after it).
func (s *Server) CASPKI() string { return spki(s.ca.cert) }

// StateDir returns the state directory.
func (s *Server) StateDir() string { return s.stateDir }

// Misses returns the requests the archive could not answer so far, in order.
func (s *Server) Misses() []Miss {
	s.missMu.Lock()
	defer s.missMu.Unlock()
	return append([]Miss(nil), s.misses...)
}

// ServeHTTP answers a proxy request: CONNECT (intercepted), an absolute URL (replayed), or a
// request to the Server's own address (the start page, /ca.pem).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodConnect:
		s.connect(w, r)
	case r.URL.IsAbs():
		s.replay(w, r, r.URL.String())
	default:
		s.own(w, r)
	}
}

// page is a page of the start page's list.
type page struct {
	wacz.Page
	at time.Time
}

// loadPages reads the pages of every source once.
func (s *Server) loadPages(ctx context.Context) ([]page, error) {
	s.pagesOnce.Do(func() {
		for _, src := range s.archive.sources {
			ps, err := src.pages(context.WithoutCancel(ctx))
			if err != nil {
				s.pagesErr = fmt.Errorf("%s: %w", src.path, err)
				return
			}
			for _, p := range ps {
				p.Text = "" // a WACZ's pages may hold it: not shown
				s.pages = append(s.pages, page{Page: p, at: p.Time()})
			}
		}
	})
	return s.pages, s.pagesErr
}

// logWriter writes the intercepting server's error log (TLS handshakes a browser gave up on)
// to the debug log.
type logWriter struct{ log *slog.Logger }

func (l logWriter) Write(p []byte) (int, error) {
	l.log.Debug(strings.TrimSpace(string(p)))
	return len(p), nil
}

var _ io.Writer = logWriter{}
