package crawl

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/amber-crawler/amber/config"
	"github.com/amber-crawler/amber/crawldir"
	"github.com/amber-crawler/amber/scope"
	"github.com/amber-crawler/amber/seeds"
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

// control is the live control of one run: the control socket and its protocol, the shared
// crawl's control stream, and the recording of each change, made through the run's Handle.
type control struct {
	h  *Handle
	mu sync.Mutex // serialises changes: the crawl's, then crawl.yaml's

	ln      *net.UnixListener
	serving sync.WaitGroup
	connMu  sync.Mutex
	conns   map[*net.UnixConn]bool // open connections (true: answering a request); idle ones are closed when the socket stops
	closed  bool                   // the socket stopped: a connection accepted meanwhile is closed
	started bool                   // the socket is up: changes may be made (also over HTTP)
	bus     *bus                   // the shared crawl's control stream; nil without one

	stopSocket func() // stops what start started
}

func newControl(h *Handle) *control { return &control{h: h} }

// start listens on the control socket until the returned function is called.
func (k *control) start() (func(), error) {
	dir := k.h.Dir()
	path := filepath.Join(dir, ControlSocket)
	// The frontier's lock is held: no other crawl runs in dir, so a socket there is stale.
	if fi, err := os.Lstat(path); err == nil && fi.Mode().Type() == fs.ModeSocket {
		k.h.Log().Warn("replacing a control socket left by an earlier run", "path", path)
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
	k.h.Log().Info("control socket listening", "path", path)
	stopBus := func() {}
	if k.h.Shared().on() {
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

// apply makes the change req asks for, and keeps it in crawl.yaml.
func (k *control) apply(req ControlRequest) error {
	h := k.h
	k.mu.Lock()
	defer k.mu.Unlock()
	switch req.Command {
	case CtlPause:
		h.Pause(true)
	case CtlResume:
		h.Pause(false)
	case CtlStop:
		h.Stop()
	case CtlAddSeed:
		raw := req.Args[0]
		return k.keep(req.Command, h.AddSeed(raw), func(c *config.File) { c.Seeds = append(c.Seeds, config.SeedSpec{URL: raw}) })
	case CtlBlock:
		r, _ := scope.ParseRule(req.Args[0])
		return k.keep(req.Command, h.Block(r), func(c *config.File) {
			c.Scope.Block = append(c.Scope.Block, config.RuleSpec{Text: r.String()})
		})
	case CtlUnblock:
		r, _ := scope.ParseRule(req.Args[0])
		return k.keep(req.Command, h.Unblock(r), func(c *config.File) {
			c.Scope.Block = slices.DeleteFunc(c.Scope.Block, func(s config.RuleSpec) bool {
				sr, err := s.Rule()
				return err == nil && sr.String() == r.String()
			})
		})
	case CtlHostDelay:
		host, _ := controlHost(req.Args[0])
		d, _ := time.ParseDuration(req.Args[1])
		return k.keep(req.Command, h.SetHostDelay(host, d), func(c *config.File) {
			if c.Politeness.HostDelays == nil {
				c.Politeness.HostDelays = map[string]time.Duration{}
			}
			c.Politeness.HostDelays[host] = d
		})
	case CtlLimit:
		n, _ := strconv.ParseInt(req.Args[0], 10, 64)
		return k.keep(req.Command, h.SetLimit(n), func(c *config.File) { c.Limits.URLs = n })
	}
	return nil
}

// keep writes a change the crawl made (err nil) to crawl.yaml with edit, so a resumed crawl
// keeps it. A change the crawl refused is a bad request.
func (k *control) keep(command string, err error, edit func(*config.File)) error {
	if errors.Is(err, ErrRefused) {
		return fmt.Errorf("%w: %s: %w", ErrBadRequest, command, err)
	}
	if err != nil {
		return err
	}
	return k.editConfig(edit)
}

// editConfig changes crawl.yaml (written atomically). A crawl directory without crawl.yaml (a
// crawl run through the package with no EffectiveConfig) has the change in control.log only.
func (k *control) editConfig(edit func(*config.File)) error {
	path := filepath.Join(k.h.Dir(), ConfigFile)
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
	log := k.h.Log()
	if eerr := k.h.Events().CrawlControl(who, req.Command, strings.Join(req.Args, " "), err); eerr != nil {
		log.Warn("write control event", "err", eerr)
	}
	e := controlEntry{Time: time.Now().UTC(), User: who, Command: req.Command, Args: req.Args}
	if err != nil {
		e.Error = err.Error()
	}
	b, _ := json.Marshal(e)
	f, ferr := os.OpenFile(filepath.Join(k.h.Dir(), ControlLogFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if ferr == nil {
		_, ferr = f.Write(append(b, '\n'))
		if cerr := f.Close(); ferr == nil {
			ferr = cerr
		}
	}
	if ferr != nil {
		log.Warn("write control log", "err", ferr)
	}
	log.Info("crawl control", "user", who, "command", req.Command, "args", req.Args, "err", err)
}

// status is the crawl's figures and the settings control changes.
func (k *control) status() ControlStatus {
	h := k.h
	st := ControlStatus{Snapshot: h.Snapshot(), LimitURLs: h.Limit(), Block: []string{}}
	for _, r := range h.BlockRules() {
		st.Block = append(st.Block, r.String())
	}
	if ds := h.HostDelays(); len(ds) > 0 {
		st.HostDelays = map[string]string{}
		for host, d := range ds {
			st.HostDelays[host] = d.String()
		}
	}
	return st
}

// controlService runs the control socket as a Service.
type controlService struct{ k *control }

func (s controlService) Start(*Handle) error {
	stop, err := s.k.start()
	s.k.stopSocket = stop
	return err
}

func (s controlService) Drain() { s.k.stopSocket() }

func (controlService) Stop() {}

// Control carries out req for who (the name its record gives the asker) as a request on the
// control socket is, and records it the same way: the status server's POST /control. Before
// the control socket is up, and once it stopped, it takes nothing and returns an error.
func (h *Handle) Control(who string, req ControlRequest) (ControlResponse, error) {
	k := h.c.ctl
	k.connMu.Lock()
	started, closed := k.started, k.closed
	k.connMu.Unlock()
	switch {
	case closed:
		return ControlResponse{}, errors.New("the run is ending: no more changes")
	case !started:
		return ControlResponse{}, errors.New("the run is starting: try again in a moment")
	}
	return k.do(who, req), nil
}
