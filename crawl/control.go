package crawl

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/amber-crawler/amber/chain"
	"github.com/amber-crawler/amber/config"
	"github.com/amber-crawler/amber/crawldir"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/scope"
	"github.com/amber-crawler/amber/seeds"
	"github.com/amber-crawler/amber/status"
)

// Live control of a running crawl (amber ctl). The crawl listens on a Unix socket in its crawl
// directory (ControlSocket, mode 0600, removed at the end of the run; a socket left by a killed
// crawl is replaced) and answers requests of one JSON object per line (ControlRequest) with one
// JSON object per line (ControlResponse). Every change is applied at once, recorded in
// events.jsonl (report.ActionControl) and in ControlLogFile, and written to crawl.yaml so a
// resumed crawl keeps it.
const (
	ControlSocket  = crawldir.ControlSocket
	ControlLogFile = crawldir.ControlLogFile // one JSON object per line: the history of changes (controlEntry)
)

// The commands of the control protocol (ControlRequest.Command).
const (
	CtlPause     = "pause"      // workers claim no new URL; fetches under way finish
	CtlResume    = "resume"     // workers claim again
	CtlStop      = "stop"       // a clean stop, as one Ctrl-C: the run ends cancelled and resumes later
	CtlStatus    = "status"     // the crawl's figures (ControlStatus); changes nothing
	CtlAddSeed   = "add-seed"   // URL: a new standard seed, decided and queued as the seeds are
	CtlBlock     = "block"      // RULE: a collection-level block rule
	CtlUnblock   = "unblock"    // RULE: removes a collection-level block rule
	CtlHostDelay = "host-delay" // HOST DUR: the delay between requests to one host
	CtlLimit     = "limit"      // N: the crawl's URL limit (limits.urls; 0: none)
)

// ControlRequest is one request on the control socket.
type ControlRequest struct {
	Command string   `json:"command"`
	Args    []string `json:"args,omitempty"`
}

// ControlResponse answers a ControlRequest. A request the crawl cannot take (an unknown command,
// a bad argument, a rule to unblock that is not there) has BadRequest set.
type ControlResponse struct {
	OK         bool           `json:"ok"`
	Error      string         `json:"error,omitempty"`
	BadRequest bool           `json:"bad_request,omitempty"`
	Status     *ControlStatus `json:"status,omitempty"`
}

// ControlStatus is what CtlStatus (and every successful change) answers: the figures of the
// status server's /status, and the settings control can change.
type ControlStatus struct {
	Snapshot
	LimitURLs  int64             `json:"limit_urls"`            // 0: none
	Block      []string          `json:"block"`                 // the collection's block rules now
	HostDelays map[string]string `json:"host_delays,omitempty"` // operators' per-host delays
}

// ErrNotRunning is returned by Control for a crawl directory where no crawl is running.
var ErrNotRunning = errors.New("no crawl is running there")

// ErrBadRequest is wrapped by the errors of ParseControl.
var ErrBadRequest = errors.New("bad control command")

// ParseControl makes a request from a command and its arguments, as `amber ctl DIR COMMAND
// ARGS...` gives them, and checks them: the command, the number of arguments, rules (scope
// rule syntax kind:value), URLs, durations and numbers. Errors wrap ErrBadRequest.
func ParseControl(args []string) (ControlRequest, error) {
	if len(args) == 0 {
		return ControlRequest{}, fmt.Errorf("%w: no command", ErrBadRequest)
	}
	req := ControlRequest{Command: args[0], Args: args[1:]}
	return req, req.check()
}

// check validates the request (see ParseControl).
func (r ControlRequest) check() error {
	want := map[string]int{CtlPause: 0, CtlResume: 0, CtlStop: 0, CtlStatus: 0, CtlAddSeed: 1, CtlBlock: 1,
		CtlUnblock: 1, CtlHostDelay: 2, CtlLimit: 1}
	n, ok := want[r.Command]
	if !ok {
		return fmt.Errorf("%w: unknown command %q (want pause, resume, stop, status, add-seed, block, unblock, host-delay or limit)", ErrBadRequest, r.Command)
	}
	if len(r.Args) != n {
		return fmt.Errorf("%w: %s takes %d argument(s), got %d", ErrBadRequest, r.Command, n, len(r.Args))
	}
	switch r.Command {
	case CtlAddSeed:
		if err := seeds.CheckURL(r.Args[0]); err != nil {
			return fmt.Errorf("%w: add-seed: %w", ErrBadRequest, err)
		}
	case CtlBlock, CtlUnblock:
		if _, err := scope.ParseRule(r.Args[0]); err != nil {
			return fmt.Errorf("%w: %s: %w", ErrBadRequest, r.Command, err)
		}
	case CtlHostDelay:
		if _, err := controlHost(r.Args[0]); err != nil {
			return err
		}
		if d, err := time.ParseDuration(r.Args[1]); err != nil || d < 0 {
			return fmt.Errorf("%w: host-delay: %q is not a duration such as 500ms or 2s", ErrBadRequest, r.Args[1])
		}
	case CtlLimit:
		if n, err := strconv.ParseInt(r.Args[0], 10, 64); err != nil || n < 0 {
			return fmt.Errorf("%w: limit: %q is not a number of URLs (0: no limit)", ErrBadRequest, r.Args[0])
		}
	}
	return nil
}

// controlHost is the politeness key (host[:port], lowercase) of a host argument: a host, a
// host:port, or a URL.
func controlHost(arg string) (string, error) {
	h := arg
	if strings.Contains(arg, "://") {
		u, err := url.Parse(arg)
		if err != nil {
			return "", fmt.Errorf("%w: host-delay: %q is not a host or URL", ErrBadRequest, arg)
		}
		h = u.Host
	}
	h = strings.ToLower(h)
	if h == "" || strings.ContainsAny(h, "/ ?#@") {
		return "", fmt.Errorf("%w: host-delay: %q is not a host (example.org or example.org:8080)", ErrBadRequest, arg)
	}
	return h, nil
}

// Control sends one request to the crawl running in dir and returns its response. It returns an
// error wrapping ErrNotRunning when no crawl listens there (no socket, or a socket left by a
// crawl that was killed).
func Control(ctx context.Context, dir string, req ControlRequest) (ControlResponse, error) {
	path := filepath.Join(dir, ControlSocket)
	if fi, err := os.Lstat(path); err != nil || fi.Mode().Type() != fs.ModeSocket {
		return ControlResponse{}, fmt.Errorf("%s: %w (no %s)", dir, ErrNotRunning, ControlSocket)
	}
	addr, done, err := socketAddr(dir, ControlSocket)
	if err != nil {
		return ControlResponse{}, err
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", addr)
	done()
	if err != nil {
		if errors.Is(err, fs.ErrPermission) {
			return ControlResponse{}, fmt.Errorf("%s: %w", dir, err)
		}
		return ControlResponse{}, fmt.Errorf("%s: %w (%s is left from a crawl that did not end cleanly)", dir, ErrNotRunning, ControlSocket)
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	b, err := json.Marshal(req)
	if err != nil {
		return ControlResponse{}, err
	}
	if _, err := conn.Write(append(b, '\n')); err != nil {
		return ControlResponse{}, fmt.Errorf("send control request: %w", err)
	}
	line, err := bufio.NewReader(conn).ReadBytes('\n')
	if err != nil {
		return ControlResponse{}, fmt.Errorf("read control response: %w", err)
	}
	var res ControlResponse
	if err := json.Unmarshal(line, &res); err != nil {
		return ControlResponse{}, fmt.Errorf("read control response: %w", err)
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

// metaControlBlock + rule marks a block rule added by control ("1"; "" once it is removed): a
// queued URL it matches is refused when claimed, in this run and the later ones.
const metaControlBlock = "crawl/control/block/"

// control is the live control of one run: the pause gate, the URL limit, the scope as changed,
// and the control socket.
type control struct {
	c         *crawler
	stopRun   context.CancelFunc // cancels the run, as Ctrl-C
	limitURLs atomic.Int64       // Config.LimitURLs, as changed

	gateMu      sync.Mutex
	paused      bool
	suspended   bool            // by a slot of the delay schedule (delayschedule.go)
	resumed     chan struct{}   // closed when neither paused nor suspended; set while one is
	pauseCtx    context.Context // cancelled on pause and on a new limit: claims waiting in the frontier give up
	pauseCancel context.CancelFunc
	// claimCtx ends with claimParent (the workers' context) or with pauseCtx: made once per
	// pause epoch and shared by every claim, not made per claim.
	claimCtx    context.Context
	claimParent context.Context
	claimEpoch  context.Context // the pauseCtx claimCtx was made for

	mu         sync.Mutex   // serialises changes (scope rebuilds, crawl.yaml, promotions)
	scopeCfg   scope.Config // the scope configuration now
	ctlBlocks  []scope.Rule // block rules added by control, checked when a URL is claimed
	blockCheck atomic.Pointer[scope.Scope]
	hostDelays map[string]time.Duration

	ln      *net.UnixListener
	serving sync.WaitGroup
	connMu  sync.Mutex
	conns   map[*net.UnixConn]bool // open connections (true: answering a request); idle ones are closed when the socket stops
	closed  bool                   // the socket stopped: a connection accepted meanwhile is closed
	started bool                   // the socket is up: changes may be made (also over HTTP)
	bus     *bus                   // the shared crawl's control stream; nil without one
}

func newControl(c *crawler, stopRun context.CancelFunc) *control {
	k := &control{c: c, stopRun: stopRun, scopeCfg: c.cfg.Scope, hostDelays: map[string]time.Duration{}}
	k.limitURLs.Store(c.cfg.LimitURLs)
	k.pauseCtx, k.pauseCancel = context.WithCancel(context.Background())
	maps.Copy(k.hostDelays, c.cfg.HostDelays)
	return k
}

// restore applies what earlier runs' control changes left in the frontier and the config: the
// operators' host delays, and the block rules to check at claim time.
func (k *control) restore() error {
	for h, d := range k.hostDelays {
		k.c.front.SetHostDelayOverride(h, d)
	}
	inScope := map[string]bool{}
	for _, r := range k.scopeCfg.Block {
		inScope[r.String()] = true
	}
	err := k.c.front.ScanMeta(metaControlBlock, func(key string, v []byte) error {
		text := strings.TrimPrefix(key, metaControlBlock)
		if string(v) != "1" || !inScope[text] {
			return nil // removed since, or no longer in the config
		}
		r, err := scope.ParseRule(text)
		if err != nil {
			return nil
		}
		k.ctlBlocks = append(k.ctlBlocks, r)
		return nil
	})
	if err != nil {
		return fmt.Errorf("restore control block rules: %w", err)
	}
	return k.rebuildBlockCheck()
}

// rebuildBlockCheck makes the scope that holds only the control's block rules (nil: none).
func (k *control) rebuildBlockCheck() error {
	if len(k.ctlBlocks) == 0 {
		k.blockCheck.Store(nil)
		return nil
	}
	cfg := k.scopeCfg
	s, err := scope.New(scope.Config{Flavour: cfg.Flavour, Block: k.ctlBlocks, MaxURLLength: cfg.MaxURLLength,
		Domains: cfg.Domains, MaxCrawlDepth: cfg.MaxCrawlDepth})
	if err != nil {
		return err
	}
	k.blockCheck.Store(s)
	return nil
}

// claimContext waits while the crawl is paused, then returns the context a claim waits with:
// it ends with ctx, and when the crawl is paused or its limit changes (so a worker waiting for
// a URL claims none). It returns nil when ctx ended. The context is made once per pause epoch
// and worker context, and shared: a claim costs no context of its own.
func (k *control) claimContext(ctx context.Context) context.Context {
	for {
		k.gateMu.Lock()
		if k.paused || k.suspended {
			ch := k.resumed
			k.gateMu.Unlock()
			select {
			case <-ch:
				continue
			case <-ctx.Done():
				return nil
			}
		}
		if k.claimParent != ctx || k.claimEpoch != k.pauseCtx {
			cctx, cancel := context.WithCancel(ctx)
			context.AfterFunc(k.pauseCtx, cancel) // a new epoch cancels the old one's context
			k.claimCtx, k.claimParent, k.claimEpoch = cctx, ctx, k.pauseCtx
		}
		cc := k.claimCtx
		k.gateMu.Unlock()
		return cc
	}
}

func (k *control) isPaused() bool {
	k.gateMu.Lock()
	defer k.gateMu.Unlock()
	return k.paused
}

func (k *control) setPaused(p bool) {
	k.gateMu.Lock()
	defer k.gateMu.Unlock()
	closed := k.paused || k.suspended
	k.paused = p
	k.gate(closed)
}

// setSuspended suspends claims (a slot of the delay schedule), or ends the suspension, as a
// pause does; the two are independent: a crawl claims again once neither holds it.
func (k *control) setSuspended(s bool) {
	k.gateMu.Lock()
	defer k.gateMu.Unlock()
	closed := k.paused || k.suspended
	k.suspended = s
	k.gate(closed)
}

// gate closes or opens the claim gate after paused or suspended changed; wasClosed is whether
// one of them held it before. It needs gateMu held.
func (k *control) gate(wasClosed bool) {
	closed := k.paused || k.suspended
	if closed == wasClosed {
		return
	}
	if closed {
		k.resumed = make(chan struct{})
		k.pauseCancel()
		return
	}
	close(k.resumed)
	k.pauseCtx, k.pauseCancel = context.WithCancel(context.Background())
}

// wake makes the claims waiting in the frontier give up and start over, as a pause does, so
// that a worker that reserved its claim under the old URL limit reserves it again under the new.
func (k *control) wake() {
	k.gateMu.Lock()
	defer k.gateMu.Unlock()
	if !k.paused && !k.suspended {
		k.pauseCancel()
		k.pauseCtx, k.pauseCancel = context.WithCancel(context.Background())
	}
}

// close releases the pause gate's context.
func (k *control) close() {
	k.gateMu.Lock()
	k.pauseCancel()
	k.gateMu.Unlock()
}

// start listens on the control socket until the returned function is called.
func (k *control) start() (func(), error) {
	dir := k.c.cfg.Dir
	path := filepath.Join(dir, ControlSocket)
	// The frontier's lock is held: no other crawl runs in dir, so a socket there is stale.
	if fi, err := os.Lstat(path); err == nil && fi.Mode().Type() == fs.ModeSocket {
		k.c.log.Warn("replacing a control socket left by an earlier run", "path", path)
		os.Remove(path)
	}
	// Bound in a directory of its own (0700) and made 0600 before it is moved into place, so no
	// other user can connect at any moment.
	tmp, err := os.MkdirTemp(dir, ".control-")
	if err != nil {
		return nil, fmt.Errorf("control socket: %w", err)
	}
	defer os.RemoveAll(tmp)
	addr, done, err := socketAddr(tmp, ControlSocket)
	if err != nil {
		return nil, fmt.Errorf("control socket: %w", err)
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: addr, Net: "unix"})
	done()
	if err != nil {
		return nil, fmt.Errorf("control socket: %w", err)
	}
	ln.SetUnlinkOnClose(false)
	if err := os.Chmod(filepath.Join(tmp, ControlSocket), 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("control socket: %w", err)
	}
	if err := os.Rename(filepath.Join(tmp, ControlSocket), path); err != nil {
		ln.Close()
		return nil, fmt.Errorf("control socket: %w", err)
	}
	k.ln = ln
	k.connMu.Lock()
	k.started = true
	k.connMu.Unlock()
	k.serving.Go(k.serve)
	k.c.log.Info("control socket listening", "path", path)
	stopBus := func() {}
	if k.c.cfg.Shared.on() {
		if stopBus, err = k.startBus(context.Background()); err != nil {
			ln.Close()
			k.serving.Wait()
			os.Remove(path)
			return nil, err
		}
	}
	return func() {
		stopBus()
		ln.Close()
		k.connMu.Lock()
		for conn, busy := range k.conns {
			if !busy {
				conn.Close() // an idle client is cut off; a request being answered still finishes
			}
		}
		k.conns, k.closed = nil, true
		k.connMu.Unlock()
		k.serving.Wait()
		os.Remove(path)
	}, nil
}

func (k *control) serve() {
	for {
		conn, err := k.ln.AcceptUnix()
		if err != nil {
			return // closed
		}
		k.connMu.Lock()
		if k.closed {
			k.connMu.Unlock()
			conn.Close()
			return
		}
		if k.conns == nil {
			k.conns = map[*net.UnixConn]bool{}
		}
		k.conns[conn] = false
		k.connMu.Unlock()
		k.serving.Go(func() {
			k.handle(conn)
			k.connMu.Lock()
			delete(k.conns, conn)
			k.connMu.Unlock()
		})
	}
}

// handle answers the requests of one connection, one line each, until it is closed or idle.
func (k *control) handle(conn *net.UnixConn) {
	defer conn.Close()
	who := peerUser(conn)
	r := bufio.NewReader(conn)
	for {
		conn.SetDeadline(time.Now().Add(10 * time.Second))
		line, err := r.ReadBytes('\n')
		if len(line) == 0 && err != nil {
			return
		}
		if !k.setBusy(conn, true) {
			return // the socket stopped while the request came
		}
		var req ControlRequest
		var res ControlResponse
		if jerr := json.Unmarshal(line, &req); jerr != nil {
			res = ControlResponse{Error: "request is not a JSON object: " + jerr.Error(), BadRequest: true}
		} else {
			res = k.do(who, req)
		}
		b, _ := json.Marshal(res)
		_, werr := conn.Write(append(b, '\n'))
		if !k.setBusy(conn, false) || werr != nil || err != nil {
			return
		}
	}
}

// setBusy marks a connection as answering a request or idle; false once the socket has
// stopped (the connection is then done).
func (k *control) setBusy(conn *net.UnixConn, busy bool) bool {
	k.connMu.Lock()
	defer k.connMu.Unlock()
	if k.closed {
		return false
	}
	k.conns[conn] = busy
	return true
}

// do carries out one request made to this process and records it; with a shared frontier a
// crawl-wide change is then published to the crawl's other processes.
func (k *control) do(who string, req ControlRequest) ControlResponse {
	res := k.doLocal(who, req)
	if res.OK && k.bus != nil && crawlWide(req.Command) {
		k.bus.publish(who, req)
	}
	return res
}

// doLocal carries out one request in this process and records it.
func (k *control) doLocal(who string, req ControlRequest) ControlResponse {
	if err := req.check(); err != nil {
		k.record(who, req, err)
		return ControlResponse{Error: err.Error(), BadRequest: true}
	}
	err := k.apply(req)
	if req.Command != CtlStatus {
		k.record(who, req, err)
	}
	if err != nil {
		return ControlResponse{Error: err.Error(), BadRequest: errors.Is(err, ErrBadRequest)}
	}
	st := k.status()
	return ControlResponse{OK: true, Status: &st}
}

func (k *control) apply(req ControlRequest) error {
	switch req.Command {
	case CtlPause:
		k.setPaused(true)
	case CtlResume:
		k.setPaused(false)
	case CtlStop:
		k.stopRun()
	case CtlStatus:
	case CtlAddSeed:
		return k.addSeed(req.Args[0])
	case CtlBlock:
		return k.block(req.Args[0])
	case CtlUnblock:
		return k.unblock(req.Args[0])
	case CtlHostDelay:
		h, _ := controlHost(req.Args[0])
		d, _ := time.ParseDuration(req.Args[1])
		k.mu.Lock()
		defer k.mu.Unlock()
		k.c.front.SetHostDelayOverride(h, d)
		k.hostDelays[h] = d
		return k.editConfig(func(c *config.File) {
			if c.Politeness.HostDelays == nil {
				c.Politeness.HostDelays = map[string]time.Duration{}
			}
			c.Politeness.HostDelays[h] = d
		})
	case CtlLimit:
		n, _ := strconv.ParseInt(req.Args[0], 10, 64)
		k.mu.Lock()
		defer k.mu.Unlock()
		k.limitURLs.Store(n)
		k.wake()
		return k.editConfig(func(c *config.File) { c.Limits.URLs = n })
	}
	return nil
}

// swapScope makes cfg the crawl's scope, with the seed redirects promoted so far. k.mu is held.
func (k *control) swapScope(cfg scope.Config) error {
	s, err := scope.New(cfg)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	c := k.c
	err = c.front.ScanMeta(metaPromoted, func(key string, v []byte) error {
		seed, hops, _ := strings.Cut(string(v), "\x00")
		s.PromoteRedirect(seed, strings.TrimPrefix(key, metaPromoted), hops)
		return nil
	})
	if err != nil {
		return fmt.Errorf("restore seed redirects: %w", err)
	}
	c.scope.Store(s)
	k.scopeCfg = cfg
	return nil
}

func (k *control) addSeed(raw string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	cu, err := scope.Canonicalize(raw, k.scopeCfg.Flavour)
	if err != nil {
		return fmt.Errorf("%w: add-seed: %w", ErrBadRequest, err)
	}
	for _, s := range k.scopeCfg.Seeds {
		if c, err := scope.Canonicalize(s.URL, k.scopeCfg.Flavour); err == nil && c == cu {
			return fmt.Errorf("%w: add-seed: %s is a seed already", ErrBadRequest, cu)
		}
	}
	cfg := k.scopeCfg
	sd := scope.Seed{URL: raw, Type: scope.StandardSeed}
	cfg.Seeds = append(slices.Clip(cfg.Seeds), sd)
	if err := k.swapScope(cfg); err != nil {
		return err
	}
	if err := k.editConfig(func(c *config.File) { c.Seeds = append(c.Seeds, config.SeedSpec{URL: raw}) }); err != nil {
		return err
	}
	return k.c.queueSeeds([]scope.Seed{sd})
}

func (k *control) block(text string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	r, _ := scope.ParseRule(text)
	if slices.ContainsFunc(k.scopeCfg.Block, func(b scope.Rule) bool { return b.String() == r.String() }) {
		return fmt.Errorf("%w: block: %s is a block rule already", ErrBadRequest, r)
	}
	cfg := k.scopeCfg
	cfg.Block = append(slices.Clip(cfg.Block), r)
	if err := k.swapScope(cfg); err != nil {
		return err
	}
	k.ctlBlocks = append(k.ctlBlocks, r)
	if err := k.rebuildBlockCheck(); err != nil {
		return err
	}
	if err := k.c.front.PutMeta(metaControlBlock+r.String(), []byte("1")); err != nil {
		return fmt.Errorf("record block rule: %w", err)
	}
	return k.editConfig(func(c *config.File) {
		c.Scope.Block = append(c.Scope.Block, config.RuleSpec{Text: r.String()})
	})
}

func (k *control) unblock(text string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	r, _ := scope.ParseRule(text)
	same := func(b scope.Rule) bool { return b.String() == r.String() }
	if !slices.ContainsFunc(k.scopeCfg.Block, same) {
		return fmt.Errorf("%w: unblock: %s is not a block rule of the collection (see status)", ErrBadRequest, r)
	}
	cfg := k.scopeCfg
	cfg.Block = slices.DeleteFunc(slices.Clone(cfg.Block), same)
	if err := k.swapScope(cfg); err != nil {
		return err
	}
	k.ctlBlocks = slices.DeleteFunc(k.ctlBlocks, same)
	if err := k.rebuildBlockCheck(); err != nil {
		return err
	}
	if err := k.c.front.PutMeta(metaControlBlock+r.String(), nil); err != nil {
		return fmt.Errorf("record block rule: %w", err)
	}
	return k.editConfig(func(c *config.File) {
		c.Scope.Block = slices.DeleteFunc(c.Scope.Block, func(s config.RuleSpec) bool {
			sr, err := s.Rule()
			return err == nil && same(sr)
		})
	})
}

// editConfig changes crawl.yaml (written atomically). A crawl directory without crawl.yaml (a
// crawl run through the package with no EffectiveConfig) has the change in control.log only.
func (k *control) editConfig(edit func(*config.File)) error {
	path := filepath.Join(k.c.cfg.Dir, ConfigFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", ConfigFile, err)
	}
	cfg, err := config.Parse(b, path)
	if err != nil {
		return err
	}
	edit(cfg)
	if b, err = cfg.Marshal(); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", ConfigFile, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", ConfigFile, err)
	}
	return nil
}

// controlEntry is one line of ControlLogFile.
type controlEntry struct {
	Time    time.Time `json:"time"`
	User    string    `json:"user"`
	Command string    `json:"command"`
	Args    []string  `json:"args,omitempty"`
	Error   string    `json:"error,omitempty"`
}

// record writes a request to events.jsonl and control.log.
func (k *control) record(who string, req ControlRequest, err error) {
	c := k.c
	if eerr := c.events.CrawlControl(who, req.Command, strings.Join(req.Args, " "), err); eerr != nil {
		c.log.Warn("write control event", "err", eerr)
	}
	e := controlEntry{Time: time.Now().UTC(), User: who, Command: req.Command, Args: req.Args}
	if err != nil {
		e.Error = err.Error()
	}
	b, _ := json.Marshal(e)
	f, ferr := os.OpenFile(filepath.Join(c.cfg.Dir, ControlLogFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if ferr == nil {
		_, ferr = f.Write(append(b, '\n'))
		if cerr := f.Close(); ferr == nil {
			ferr = cerr
		}
	}
	if ferr != nil {
		c.log.Warn("write control log", "err", ferr)
	}
	c.log.Info("crawl control", "user", who, "command", req.Command, "args", req.Args, "err", err)
}

func (k *control) status() ControlStatus {
	c := k.c
	st := ControlStatus{Snapshot: c.snapshot(c.started, c.startN), LimitURLs: k.limitURLs.Load(), Block: []string{}}
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, r := range k.scopeCfg.Block {
		st.Block = append(st.Block, r.String())
	}
	if len(k.hostDelays) > 0 {
		st.HostDelays = map[string]string{}
		for h, d := range k.hostDelays {
			st.HostDelays[h] = d.String()
		}
	}
	return st
}

// blockRefuser is the chain's first step: it refuses a claimed URL that a block rule added
// by control matches (it was queued before the rule), logged as a refused link is (-5000
// scope:block:RULE) and never fetched. Seeds are not refused (scope takes every seed).
type blockRefuser struct{ k *control }

// blockRefuser returns the control's step of the chain.
func (k *control) blockRefuser() blockRefuser { return blockRefuser{k} }

func (blockRefuser) Name() string { return "ctl block" }

// Before refuses the URL when a block rule added by control matches it.
func (b blockRefuser) Before(_ context.Context, r *chain.Record) (chain.Verdict, error) {
	bc := b.k.blockCheck.Load()
	u := r.URL()
	if bc == nil || u.Hops == "" {
		return chain.Proceed, nil
	}
	d := bc.Decide(scope.Candidate{URL: u.URL, Hops: u.Hops, Via: u.Via, Seed: u.Seed})
	if d.In || !strings.HasPrefix(d.Reason, scope.ReasonBlockPrefix) {
		return chain.Proceed, nil
	}
	return chain.Finish(chain.Outcome{Status: status.OutOfScope, Annotations: []string{"scope:" + d.Reason},
		Denied: report.DenyOutOfScope, ScopeReason: d.Reason}), nil
}
