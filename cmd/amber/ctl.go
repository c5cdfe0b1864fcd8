package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/amber-crawler/amber/config"
	"github.com/amber-crawler/amber/ctl"
)

const ctlHelp = `usage: amber ctl DIR COMMAND [ARGS]
       amber ctl redis://HOST:PORT/DB CRAWLID COMMAND [ARGS]

Steers the crawl running in the crawl directory DIR on this machine, through the control
socket it listens on (DIR/control.sock, only for its own user). Every change takes effect at
once, is recorded in DIR/logs/events.jsonl (event.action crawl-control, with the user who made
it) and DIR/logs/control.log, and is written to DIR/crawl.yaml, so a crawl resumed with
'amber crawl --dir DIR' keeps it.

A crawl whose processes share a frontier (--frontier) is steered through one process's
DIR, or through the server and the crawl's id (the URL may be env:NAME), which reaches every
live process and prints each one's answer. Changes to the crawl's definition (add-seed, block,
unblock, host-delay, limit) made to one process are made by all of them within a second;
pause, resume and stop given to a DIR act on that process only, and given to the server on
every process.

Commands:
  status               the crawl's figures (as the status server's /status) as JSON, with
                       paused, limit_urls, block and host_delays
  pause                claim no new URL (fetches under way finish); the crawl stays up
  resume               go on after pause
  stop                 stop cleanly, as one Ctrl-C: the crawl ends interrupted and resumes later
  add-seed URL         a new standard seed, decided and queued as the seeds are
  block RULE           a collection block rule (scope rule syntax kind:value, such as
                       contains:/calendar/): new links are decided with it, and queued URLs it
                       matches are refused when their turn comes (crawl.log -5000
                       scope:block:RULE)
  unblock RULE         removes a collection block rule
  host-delay HOST DUR  the delay between requests to HOST (host or host:port) from now on, in
                       place of host_delay and robots.txt Crawl-delay: 500ms, 5s, 0s
  limit N              the crawl's URL limit (all runs together); 0: none

Exit status: 0 done; 1 no crawl running in DIR, or the change failed; 2 a bad command or
argument (an unknown command, a bad rule, a rule to unblock that is not there).
`

// runCtl is `amber ctl DIR COMMAND [ARGS]`.
func runCtl(ctx context.Context, args []string, stdout io.Writer) error {
	if len(args) == 1 && isHelpArg(args[0]) {
		fmt.Fprint(stdout, ctlHelp)
		return nil
	}
	if len(args) < 2 {
		return usagef("usage: amber ctl DIR COMMAND [ARGS] (see 'amber help ctl')")
	}
	if isRedisTarget(args[0]) {
		return runCtlShared(ctx, args, stdout)
	}
	dir := args[0]
	req, err := ctl.Parse(args[1:])
	if err != nil {
		return usagef("%w (see 'amber help ctl')", err)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	res, err := ctl.Send(ctx, dir, req)
	if err != nil {
		return err
	}
	if !res.OK {
		err := errors.New(res.Error)
		if res.BadRequest {
			return usageError{err}
		}
		return err
	}
	if req.Command == ctl.CmdStatus {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res.Status)
	}
	fmt.Fprintf(stdout, "%s %s: done; %s\n", req.Command, strings.Join(req.Args, " "), ctlSummary(res.Status))
	return nil
}

// ctlSummary is a process's state after a change: running or paused, fetched, queued.
func ctlSummary(st *ctl.Status) string {
	state := "running"
	if st.Paused {
		state = "paused"
	}
	return fmt.Sprintf("crawl %s, %d URLs fetched, %d queued", state, st.Fetched, st.Frontier.Queued)
}

// isRedisTarget reports whether amber ctl's target is a Redis server rather than a directory.
func isRedisTarget(t string) bool {
	for _, p := range []string{"redis://", "rediss://", "unix://", "env:"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// runCtlShared is `amber ctl redis://HOST:PORT/DB CRAWLID COMMAND [ARGS]`: the request goes to
// every live process of the crawl; each one's answer is printed (status: a JSON object of
// process name to status).
func runCtlShared(ctx context.Context, args []string, stdout io.Writer) error {
	if len(args) < 3 {
		return usagef("usage: amber ctl redis://HOST:PORT/DB CRAWLID COMMAND [ARGS] (see 'amber help ctl')")
	}
	server, err := config.FrontierSpec{Redis: args[0]}.Server(os.LookupEnv)
	if err != nil {
		return usageError{err}
	}
	req, err := ctl.Parse(args[2:])
	if err != nil {
		return usagef("%w (see 'amber help ctl')", err)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	res, err := ctl.SendShared(ctx, server, args[1], req)
	if err != nil {
		return err
	}
	var failed []string
	status := map[string]*ctl.Status{}
	for _, r := range res {
		switch {
		case !r.OK:
			failed = append(failed, r.Process+": "+r.Error)
		case req.Command == ctl.CmdStatus:
			status[r.Process] = r.Status
		default:
			fmt.Fprintf(stdout, "%s: %s %s: done; %s\n", r.Process, req.Command, strings.Join(req.Args, " "), ctlSummary(r.Status))
		}
	}
	if req.Command == ctl.CmdStatus {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(status); err != nil {
			return err
		}
	}
	if len(failed) > 0 {
		return errors.New(strings.Join(failed, "; "))
	}
	return nil
}
