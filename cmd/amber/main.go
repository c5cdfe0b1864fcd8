// Command amber is a web-archiving crawler: it captures seeds and what they link to and embed,
// within Archive-It-style scope rules, into WARC files with a CDXJ index and crawl logs.
//
//	amber crawl [flags] [URL | SEEDS_FILE ...]   run or resume a crawl
//	amber scope check --config FILE [URL ...]     explain scope decisions
//	amber report DIR                              (re)write a crawl's reports
//	amber wacz DIR [-o FILE.wacz]                 package a crawl as a WACZ file
//	amber ctl DIR COMMAND [ARGS]                  steer a running crawl (pause, block, ...)
//	amber index [flags] DIR                       send a crawl's documents to a search index
//	amber index --purge|--process [--dry-run] DIR purge phase and process crawl of an index
//	amber replay [flags] DIR|FILE.wacz...         replay crawls through an HTTP proxy
//	amber qa [flags] DIR                          replay a crawl's pages and score them
//	amber patch [flags] DIR                       capture what amber qa found missing
//	amber help [COMMAND]                          print help
//	amber version
//
// Exit status: 0 success; 1 a failure while running; 2 a mistake in the command line or in a
// file it names; 11 a crawl interrupted; 14 a crawl stopped at a limit (see exitHelp).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

// Exit statuses. The crawl ones follow browsertrix-crawler's (src/util/constants.ts ExitCodes)
// where the meaning is the same.
const (
	exitOK          = 0
	exitFailure     = 1  // something failed while running (the crawl directory cannot be written)
	exitUsage       = 2  // a mistake in the command line, a config or seeds file, a rule
	exitInterrupted = 11 // the crawl was interrupted (browsertrix-crawler: SignalInterrupted)
	exitLimit       = 14 // the crawl stopped at a limit (browsertrix-crawler: SizeLimit)
)

// exitHelp explains the exit statuses in `amber crawl --help` (and in the README).
const exitHelp = `Exit status:
  0   the crawl finished (or had finished before)
  1   a failure while running (the crawl directory cannot be written, its state cannot be read)
  2   a mistake in the command line or in a file it names: an unknown flag, a bad value, a
      config or seeds file that is missing or malformed, a bad rule, an unsupported seed
  11  interrupted (Ctrl-C, SIGTERM): run the same command to resume
  14  stopped at a limit (--limit, --size-limit, --time-limit): run the same command with a
      higher limit to go on
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		// After the first signal the crawl drains; a second one ends the process at once.
		<-ctx.Done()
		stop()
	}()
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	var se statusError
	if err != nil && !errors.As(err, &se) {
		fmt.Fprintln(os.Stderr, "amber:", err)
	}
	os.Exit(exitCode(err))
}

// usageError is a mistake in what the archivist gave amber: the command line, or a config,
// seeds or rules file it names (exit status 2). It wraps the error that says what is wrong.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }

func (e usageError) Unwrap() error { return e.err }

// usagef returns a usageError with a formatted message (%w allowed).
func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// statusError ends amber with a non-zero status after a run that did what it should and already
// said so on stdout: a crawl stopped at a limit or interrupted. main prints nothing more.
type statusError struct {
	code int
	end  string // the crawl's Result.End
}

func (e statusError) Error() string { return "crawl ended: " + e.end }

// exitCode is the exit status for what run returned.
func exitCode(err error) int {
	var se statusError
	var ue usageError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &se):
		return se.code
	case errors.As(err, &ue):
		return exitUsage
	}
	return exitFailure
}

const usage = `amber: a web-archiving crawler

Usage:
  amber crawl [flags] [URL | SEEDS_FILE ...]   run or resume a crawl
  amber scope check --config FILE [URL ...]     explain scope decisions (stdin: JSON lines)
  amber report DIR                              (re)write the reports of a crawl directory
  amber wacz DIR [-o FILE.wacz]                 package a crawl directory as a WACZ file
  amber config convert FILE                     print an Elastic crawler config as amber YAML
  amber ctl DIR COMMAND [ARGS]                  steer a running crawl: status, pause, resume, stop,
                                                add-seed URL, block RULE, unblock RULE,
                                                host-delay HOST DUR, limit N
  amber index [flags] DIR                       send a crawl's documents to a search index
                                                (Elasticsearch 8's bulk API)
  amber index --purge DIR                       delete the indexed documents of the crawl's domains
                                                it did not see that now answer 3xx or 4xx
  amber index --process [--dry-run] DIR         delete (or list) the indexed documents of the
                                                crawl's domains its config's scope now leaves out
  amber replay [--listen ADDR] [--at TIMESTAMP] DIR|FILE.wacz...
                                                replay crawls through an HTTP(S) proxy for a
                                                browser: the archived responses, a 404 for the rest
  amber qa [flags] DIR                          load every page of a crawl in Chromium through
                                                amber replay: missing URLs, console errors, text
                                                and pixel scores (reports/qa.jsonl, report.html)
  amber patch [flags] DIR                       capture the URLs amber qa found missing into the
                                                crawl (amber crawl --dir DIR --patch)
  amber help [COMMAND]                          print help (COMMAND: crawl, scope, report, wacz, config, ctl, index, replay, qa, patch)
  amber version                                 print the version

Run 'amber help crawl' for the crawl flags and exit statuses.
`

// run is the whole program: args without the program name, streams injected for tests. Help
// goes to stdout; errors are returned (a usageError for a mistake in the command line).
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return usagef("no command")
	}
	switch args[0] {
	case "crawl":
		return runCrawl(ctx, args[1:], stdout, stderr)
	case "report":
		return runReport(ctx, args[1:], stdout)
	case "wacz":
		return runWACZ(ctx, args[1:], stdout, stderr)
	case "scope":
		return runScope(ctx, args[1:], stdin, stdout)
	case "config":
		return runConfig(args[1:], stdout)
	case "ctl":
		return runCtl(ctx, args[1:], stdout)
	case "index":
		return runIndex(ctx, args[1:], stdout)
	case "replay":
		return runReplay(ctx, args[1:], stdout, stderr)
	case "qa":
		return runQA(ctx, args[1:], stdout, stderr)
	case "patch":
		return runPatch(ctx, args[1:], stdout, stderr)
	case "version", "--version", "-version":
		fmt.Fprintln(stdout, "amber", version)
		return nil
	case "help", "-h", "-help", "--help":
		return runHelp(args[1:], stdout)
	}
	fmt.Fprint(stderr, usage)
	return usagef("unknown command %q", args[0])
}

// runHelp is `amber help [COMMAND]`: the help of a command on stdout.
func runHelp(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stdout, usage)
		return nil
	}
	if len(args) > 1 {
		return usagef("usage: amber help [COMMAND]")
	}
	switch args[0] {
	case "crawl":
		printCrawlHelp(stdout)
	case "scope":
		printScopeHelp(stdout)
	case "report":
		fmt.Fprint(stdout, reportHelp)
	case "wacz":
		fmt.Fprint(stdout, waczHelp)
	case "config":
		fmt.Fprint(stdout, configHelp)
	case "ctl":
		fmt.Fprint(stdout, ctlHelp)
	case "index":
		return runIndex(context.Background(), []string{"--help"}, stdout)
	case "replay":
		fmt.Fprint(stdout, replayHelp)
	case "qa":
		fmt.Fprint(stdout, qaHelp)
	case "patch":
		fmt.Fprint(stdout, patchHelp)
	case "version":
		fmt.Fprintln(stdout, "usage: amber version\n\nPrints amber's version.")
	case "help":
		fmt.Fprint(stdout, usage)
	default:
		return usagef("no help for %q: want crawl, scope, report, wacz, config, ctl, index, replay, qa or patch", args[0])
	}
	return nil
}
