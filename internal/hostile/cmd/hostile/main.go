// Command hostile serves the hostile-server suite (package internal/hostile) on free ports of
// 127.0.0.1 until interrupted, and prints what a crawl of each case needs: the base URL of the
// plain listener, the --connect-to mappings, and one seed URL per case, e.g. for
//
//	/usr/bin/time -v bin/amber crawl --allow-private $(hostile-connect-to) http://endless.hostile.test/
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/amber-crawler/amber/internal/hostile"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "hostile:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("hostile", flag.ContinueOnError)
	bomb := fs.Int64("bomb-size", hostile.DefaultBombSize, "bytes the gzip bomb inflates to")
	if err := fs.Parse(args); err != nil {
		return err
	}
	s, err := hostile.Start(hostile.Config{BombSize: *bomb})
	if err != nil {
		return err
	}
	defer s.Close()
	fmt.Fprintf(stdout, "base     http://%s/\n", s.Addr)
	fmt.Fprintf(stdout, "tls      %s\nstall    %s\n", s.TLSAddr, s.StallAddr)
	fmt.Fprint(stdout, "flags   ")
	for _, ct := range s.ConnectTo() {
		fmt.Fprintf(stdout, " --connect-to %s", ct)
	}
	fmt.Fprintln(stdout)
	for _, h := range hostile.Hosts {
		fmt.Fprintf(stdout, "seed     %-20s %s\n", h, hostile.URL(h, "/"))
	}
	<-ctx.Done()
	return nil
}
