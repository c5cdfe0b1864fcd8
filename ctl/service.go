package ctl

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/amber-crawler/amber/config"
	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/crawldir"
	"github.com/amber-crawler/amber/frontier/redisfront"
	"github.com/amber-crawler/amber/scope"
)

// Service is the live control of a crawl, a crawl.Service: from Start to Drain it answers
// the control socket in the crawl directory, and with a shared frontier reads the crawl's
// control stream; Do carries out requests from elsewhere (the status server) the same way.
// Every request that changes something, or fails, is recorded. A Service may serve several
// runs, one at a time.
type Service struct {
	mu sync.Mutex // serialises changes: the crawl's, then crawl.yaml's

	stateMu sync.Mutex             // guards the fields below
	h       *crawl.Handle          // the run served
	started bool                   // Start succeeded: requests are taken
	closed  bool                   // Drain was called: no more requests
	conns   map[*net.UnixConn]bool // open connections (true: answering a request); idle ones are closed by Drain
	calls   sync.WaitGroup         // requests being carried out for Do
	ln      *net.UnixListener
	bus     *bus   // the shared crawl's control stream; nil without one
	stopBus func() // stops bus

	serving sync.WaitGroup // the socket's goroutines
}

// New returns a Service that has not started: Do answers ErrUnavailable.
func New() *Service { return &Service{} }

var _ crawl.Service = (*Service)(nil)

// ErrUnavailable is wrapped by the error Do returns when the Service takes no request: before
// the run started it, or once the run is ending (Drain). The error's text says which.
var ErrUnavailable = errors.New("ctl: no control now")

// unavailable is an ErrUnavailable whose text is msg alone.
type unavailable struct{ msg string }

func (u unavailable) Error() string        { return u.msg }
func (u unavailable) Is(target error) bool { return target == ErrUnavailable }

// Start listens on the control socket of h's crawl directory (Socket) and, when h's frontier
// is shared, reads the crawl's control stream.
func (s *Service) Start(h *crawl.Handle) error {
	ln, err := listen(h.Dir(), h.Log())
	if err != nil {
		return err
	}
	s.stateMu.Lock()
	s.h, s.ln, s.conns, s.started, s.closed = h, ln, nil, true, false
	s.stateMu.Unlock()
	s.serving.Go(func() { s.serve(ln) })
	h.Log().Info("control socket listening", "path", filepath.Join(h.Dir(), Socket))
	if sh, ok := h.Shared().(redisfront.Shared); ok {
		b, stop, err := startBus(sh, s.doLocal, h.Log())
		if err != nil {
			s.Drain()
			return err
		}
		s.stateMu.Lock()
		s.bus, s.stopBus = b, stop
		s.stateMu.Unlock()
	}
	return nil
}

// Drain stops taking requests: the control stream is left, the socket closed and removed, an
// idle connection cut off; the requests under way (on the socket, through Do) are finished
// when it returns. Called on a Service that never started, it makes Do answer that the run is
// ending.
func (s *Service) Drain() {
	s.stateMu.Lock()
	stopBus, ln := s.stopBus, s.ln
	s.stopBus, s.bus = nil, nil
	s.stateMu.Unlock()
	if stopBus != nil {
		stopBus()
	}
	if ln != nil {
		ln.Close()
	}
	s.stateMu.Lock()
	for conn, busy := range s.conns {
		if !busy {
			conn.Close() // an idle client is cut off; a request being answered still finishes
		}
	}
	s.conns, s.closed, s.ln = nil, true, nil
	s.stateMu.Unlock()
	s.serving.Wait()
	s.calls.Wait()
	if ln != nil {
		os.Remove(filepath.Join(s.h.Dir(), Socket))
	}
}

// Stop does nothing: Drain has ended everything.
func (s *Service) Stop() {}

// Do carries out req for who (the name its record gives the asker) as a request on the socket
// is, and returns the answer. With a shared frontier a crawl-wide change is then published to
// the crawl's other processes. Before Start and from Drain on it takes nothing and returns an
// error wrapping ErrUnavailable.
func (s *Service) Do(who string, req Request) (Response, error) {
	s.stateMu.Lock()
	switch {
	case s.closed:
		s.stateMu.Unlock()
		return Response{}, unavailable{"the run is ending: no more changes"}
	case !s.started:
		s.stateMu.Unlock()
		return Response{}, unavailable{"the run is starting: try again in a moment"}
	}
	s.calls.Add(1)
	s.stateMu.Unlock()
	defer s.calls.Done()
	return s.do(who, req), nil
}

// do carries out one request made to this process and records it; with a shared frontier a
// crawl-wide change is then published to the crawl's other processes.
func (s *Service) do(who string, req Request) Response {
	res := s.doLocal(who, req)
	s.stateMu.Lock()
	b := s.bus
	s.stateMu.Unlock()
	if res.OK && b != nil && crawlWide(req.Command) {
		b.publish(who, req)
	}
	return res
}

// doLocal carries out one request in this process and records it.
func (s *Service) doLocal(who string, req Request) Response {
	if err := req.check(); err != nil {
		s.record(who, req, err)
		return Response{Error: err.Error(), BadRequest: true}
	}
	err := s.apply(req)
	if req.Command != CmdStatus {
		s.record(who, req, err)
	}
	if err != nil {
		return Response{Error: err.Error(), BadRequest: errors.Is(err, ErrBadRequest)}
	}
	st := s.status()
	return Response{OK: true, Status: &st}
}

// apply makes the change req asks for, and keeps it in crawl.yaml.
func (s *Service) apply(req Request) error {
	h := s.h
	s.mu.Lock()
	defer s.mu.Unlock()
	switch req.Command {
	case CmdPause:
		h.Pause(true)
	case CmdResume:
		h.Pause(false)
	case CmdStop:
		h.Stop()
	case CmdAddSeed:
		raw := req.Args[0]
		return s.keep(req.Command, h.AddSeed(raw), func(c *config.File) { c.Seeds = append(c.Seeds, config.SeedSpec{URL: raw}) })
	case CmdBlock:
		r, _ := scope.ParseRule(req.Args[0])
		return s.keep(req.Command, h.Block(r), func(c *config.File) {
			c.Scope.Block = append(c.Scope.Block, config.RuleSpec{Text: r.String()})
		})
	case CmdUnblock:
		r, _ := scope.ParseRule(req.Args[0])
		return s.keep(req.Command, h.Unblock(r), func(c *config.File) {
			c.Scope.Block = slices.DeleteFunc(c.Scope.Block, func(sp config.RuleSpec) bool {
				sr, err := sp.Rule()
				return err == nil && sr.String() == r.String()
			})
		})
	case CmdHostDelay:
		host, _ := hostKey(req.Args[0])
		d, _ := time.ParseDuration(req.Args[1])
		return s.keep(req.Command, h.SetHostDelay(host, d), func(c *config.File) {
			if c.Politeness.HostDelays == nil {
				c.Politeness.HostDelays = map[string]time.Duration{}
			}
			c.Politeness.HostDelays[host] = d
		})
	case CmdLimit:
		n, _ := strconv.ParseInt(req.Args[0], 10, 64)
		return s.keep(req.Command, h.SetLimit(n), func(c *config.File) { c.Limits.URLs = n })
	}
	return nil
}

// keep writes a change the crawl made (err nil) to crawl.yaml with edit, so a resumed crawl
// keeps it. A change the crawl refused (crawl.ErrRefused) is a bad request.
func (s *Service) keep(command string, err error, edit func(*config.File)) error {
	if errors.Is(err, crawl.ErrRefused) {
		return fmt.Errorf("%w: %s: %w", ErrBadRequest, command, err)
	}
	if err != nil {
		return err
	}
	return editConfig(s.h.Dir(), edit)
}

// editConfig changes crawl.yaml in dir (written atomically). A crawl directory without
// crawl.yaml (a crawl run through package crawl with no EffectiveConfig) has the change in
// control.log only.
func editConfig(dir string, edit func(*config.File)) error {
	name := crawldir.ConfigFile
	path := filepath.Join(dir, name)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", name, err)
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
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	return nil
}

// logEntry is one line of LogFile.
type logEntry struct {
	Time    time.Time `json:"time"`
	User    string    `json:"user"`
	Command string    `json:"command"`
	Args    []string  `json:"args,omitempty"`
	Error   string    `json:"error,omitempty"`
}

// record writes a request to events.jsonl and control.log.
func (s *Service) record(who string, req Request, err error) {
	h := s.h
	log := h.Log()
	if eerr := h.Events().CrawlControl(who, req.Command, strings.Join(req.Args, " "), err); eerr != nil {
		log.Warn("write control event", "err", eerr)
	}
	e := logEntry{Time: time.Now().UTC(), User: who, Command: req.Command, Args: req.Args}
	if err != nil {
		e.Error = err.Error()
	}
	b, _ := json.Marshal(e)
	f, ferr := os.OpenFile(filepath.Join(h.Dir(), LogFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
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
func (s *Service) status() Status {
	h := s.h
	st := Status{Snapshot: h.Snapshot(), LimitURLs: h.Limit(), Block: []string{}}
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
