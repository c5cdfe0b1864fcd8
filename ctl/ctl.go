// Package ctl is live control of a running crawl (amber ctl): the operator's side of the
// changes package crawl makes through a crawl.Handle.
//
// A crawl run with a Service listens on a Unix socket in its crawl directory (Socket, mode
// 0600, removed when the run ends; a socket left by a killed crawl is replaced) and answers
// requests of one JSON object per line (Request) with one JSON object per line (Response).
// Send is the client. Every change is made at once through the run's Handle, recorded in
// events.jsonl (report.ActionControl, with the user who asked) and in LogFile, and written to
// crawl.yaml (with the file model of package config), so that a crawl resumed from its
// directory keeps it; the crawl itself never reads or rewrites crawl.yaml. The status server
// (package live) takes the same requests over HTTP and hands them to Service.Do: both paths
// run the same code and record the same way.
//
// The processes of a shared crawl (redisfront.Shared) share a control stream in its Redis
// server, amber:{CRAWLID}:ctl. A change to the crawl's definition (add-seed, block, unblock,
// host-delay, limit) made to one process is published there, and every other process makes it
// within a second and records it as its own; pause, resume and stop act on the process they
// are given to. SendShared sends a request to every live process of a shared crawl and
// collects their answers.
package ctl

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/crawldir"
	"github.com/amber-crawler/amber/scope"
	"github.com/amber-crawler/amber/seeds"
)

// The files of live control in the crawl directory.
const (
	Socket  = crawldir.ControlSocket  // the control socket of a running crawl (mode 0600)
	LogFile = crawldir.ControlLogFile // the history of changes, one JSON object per line
)

// The commands of the control protocol (Request.Command).
const (
	CmdPause     = "pause"      // workers claim no new URL; fetches under way finish
	CmdResume    = "resume"     // workers claim again
	CmdStop      = "stop"       // a clean stop, as one Ctrl-C: the run ends cancelled and resumes later
	CmdStatus    = "status"     // the crawl's figures (Status); changes nothing
	CmdAddSeed   = "add-seed"   // URL: a new standard seed, decided and queued as the seeds are
	CmdBlock     = "block"      // RULE: a collection-level block rule
	CmdUnblock   = "unblock"    // RULE: removes a collection-level block rule
	CmdHostDelay = "host-delay" // HOST DUR: the delay between requests to one host
	CmdLimit     = "limit"      // N: the crawl's URL limit (limits.urls; 0: none)
)

// Request is one request of the control protocol.
type Request struct {
	Command string   `json:"command"`
	Args    []string `json:"args,omitempty"`
}

// Response answers a Request. A request the crawl cannot take (an unknown command, a bad
// argument, a rule to unblock that is not there) has BadRequest set; Status is set when OK.
type Response struct {
	OK         bool    `json:"ok"`
	Error      string  `json:"error,omitempty"`
	BadRequest bool    `json:"bad_request,omitempty"`
	Status     *Status `json:"status,omitempty"`
}

// Status is what CmdStatus (and every successful change) answers: the crawl's figures (the
// status server's /status), and the settings control can change.
type Status struct {
	crawl.Snapshot
	LimitURLs  int64             `json:"limit_urls"`            // 0: none
	Block      []string          `json:"block"`                 // the collection's block rules now
	HostDelays map[string]string `json:"host_delays,omitempty"` // operators' per-host delays
}

// ErrNotRunning is returned by Send for a crawl directory where no crawl is running, and by
// SendShared for a shared crawl with no live process.
var ErrNotRunning = errors.New("no crawl is running there")

// ErrBadRequest is wrapped by the errors of Parse, and by the error of a change the crawl
// refused because of what was asked (crawl.ErrRefused).
var ErrBadRequest = errors.New("bad control command")

// Parse makes a request from a command and its arguments, as `amber ctl DIR COMMAND ARGS...`
// gives them, and checks them: the command, the number of arguments, rules (scope rule syntax
// kind:value), URLs, durations and numbers. Errors wrap ErrBadRequest.
func Parse(args []string) (Request, error) {
	if len(args) == 0 {
		return Request{}, fmt.Errorf("%w: no command", ErrBadRequest)
	}
	req := Request{Command: args[0], Args: args[1:]}
	return req, req.check()
}

// check validates the request (see Parse).
func (r Request) check() error {
	want := map[string]int{CmdPause: 0, CmdResume: 0, CmdStop: 0, CmdStatus: 0, CmdAddSeed: 1, CmdBlock: 1,
		CmdUnblock: 1, CmdHostDelay: 2, CmdLimit: 1}
	n, ok := want[r.Command]
	if !ok {
		return fmt.Errorf("%w: unknown command %q (want pause, resume, stop, status, add-seed, block, unblock, host-delay or limit)", ErrBadRequest, r.Command)
	}
	if len(r.Args) != n {
		return fmt.Errorf("%w: %s takes %d argument(s), got %d", ErrBadRequest, r.Command, n, len(r.Args))
	}
	switch r.Command {
	case CmdAddSeed:
		if err := seeds.CheckURL(r.Args[0]); err != nil {
			return fmt.Errorf("%w: add-seed: %w", ErrBadRequest, err)
		}
	case CmdBlock, CmdUnblock:
		if _, err := scope.ParseRule(r.Args[0]); err != nil {
			return fmt.Errorf("%w: %s: %w", ErrBadRequest, r.Command, err)
		}
	case CmdHostDelay:
		if _, err := hostKey(r.Args[0]); err != nil {
			return err
		}
		if d, err := time.ParseDuration(r.Args[1]); err != nil || d < 0 {
			return fmt.Errorf("%w: host-delay: %q is not a duration such as 500ms or 2s", ErrBadRequest, r.Args[1])
		}
	case CmdLimit:
		if n, err := strconv.ParseInt(r.Args[0], 10, 64); err != nil || n < 0 {
			return fmt.Errorf("%w: limit: %q is not a number of URLs (0: no limit)", ErrBadRequest, r.Args[0])
		}
	}
	return nil
}

// hostKey is the politeness key (host[:port], lowercase) of a host argument: a host, a
// host:port, or a URL.
func hostKey(arg string) (string, error) {
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

// crawlWide reports whether a change made to one process of a shared crawl is made to all of
// them: the crawl's definition (seeds, scope, politeness, limits) is. Pause, resume and stop
// are not: given to a process's directory they act on that process (to take one machine out,
// say); SendShared sends them to every process.
func crawlWide(command string) bool {
	switch command {
	case CmdAddSeed, CmdBlock, CmdUnblock, CmdHostDelay, CmdLimit:
		return true
	}
	return false
}
