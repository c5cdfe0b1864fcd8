// Command testsite serves a test site from testdata/ on 127.0.0.1 for `make demo`. It prints
// the address, then the --connect-to value, and serves until interrupted.
//
//	testsite [-pages N [-page-size BYTES]] [DIR]
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/amber-crawler/amber/internal/testsite"
)

func main() {
	pages := flag.Int("pages", 0, "serve a generated site of this many pages instead of DIR")
	pageSize := flag.Int("page-size", 0, "with -pages: pages of about this many bytes of varied text (0: small pages of about 250 bytes)")
	flag.Parse()
	var (
		s   *testsite.Server
		err error
	)
	switch {
	case *pages > 0:
		s, err = testsite.StartHandler(testsite.Generated{Pages: *pages, PageSize: *pageSize})
	case flag.NArg() == 1:
		s, err = testsite.Start(flag.Arg(0))
	default:
		fmt.Fprintln(os.Stderr, "usage: testsite [-pages N [-page-size BYTES]] [DIR]")
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsite:", err)
		os.Exit(1)
	}
	fmt.Println(s.Addr)
	fmt.Println(s.ConnectTo())
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	s.Close()
}
