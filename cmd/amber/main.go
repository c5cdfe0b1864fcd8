// Command amber is a web-archiving crawler: it captures seeds and what they link to and embed,
// within Archive-It-style scope rules, into WARC files with a CDXJ index and crawl logs.
//
//	amber crawl [flags] [URL | SEEDS_FILE ...]   run or resume a crawl
//	amber scope check --config FILE [URL ...]     explain scope decisions
//	amber report DIR                              (re)write a crawl's reports
//	amber version
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

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		// After the first signal the crawl drains; a second one ends the process at once.
		<-ctx.Done()
		stop()
	}()
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	if err != nil {
		var ue usageError
		if errors.As(err, &ue) {
			fmt.Fprintln(os.Stderr, "amber:", err)
			os.Exit(2)
		}
		fmt.Fprintln(os.Stderr, "amber:", err)
		os.Exit(1)
	}
}

// usageError is a mistake on the command line (exit status 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

const usage = `amber: a web-archiving crawler

Usage:
  amber crawl [flags] [URL | SEEDS_FILE ...]   run or resume a crawl
  amber scope check --config FILE [URL ...]     explain scope decisions (stdin: JSON lines)
  amber report DIR                              (re)write the reports of a crawl directory
  amber version                                 print the version

Run 'amber crawl -h' for the crawl flags.
`

// run is the whole program: args without the program name, streams injected for tests.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return usageError{"no command"}
	}
	switch args[0] {
	case "crawl":
		return runCrawl(ctx, args[1:], stdout, stderr)
	case "report":
		return runReport(ctx, args[1:], stdout, stderr)
	case "scope":
		return runScope(ctx, args[1:], stdin, stdout, stderr)
	case "version", "--version", "-version":
		fmt.Fprintln(stdout, "amber", version)
		return nil
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return usageError{fmt.Sprintf("unknown command %q", args[0])}
}
