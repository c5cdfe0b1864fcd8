package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/amber-crawler/amber/crawl"
)

const ctlHelp = `usage: amber ctl DIR COMMAND [ARGS]

Steers the crawl running in the crawl directory DIR on this machine, through the control
socket it listens on (DIR/control.sock, only for its own user). Every change takes effect at
once, is recorded in DIR/logs/events.jsonl (event.action crawl-control, with the user who made
it) and DIR/logs/control.log, and is written to DIR/crawl.yaml, so a crawl resumed with
'amber crawl --dir DIR' keeps it.

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
	dir := args[0]
	req, err := crawl.ParseControl(args[1:])
	if err != nil {
		return usagef("%w (see 'amber help ctl')", err)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	res, err := crawl.Control(ctx, dir, req)
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
	if req.Command == crawl.CtlStatus {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res.Status)
	}
	state := "running"
	if res.Status.Paused {
		state = "paused"
	}
	fmt.Fprintf(stdout, "%s %s: done; crawl %s, %d URLs fetched, %d queued\n", req.Command,
		strings.Join(req.Args, " "), state, res.Status.Fetched, res.Status.Frontier.Queued)
	return nil
}
