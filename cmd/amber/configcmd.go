package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/amber-crawler/amber/seeds"
)

const configHelp = `usage: amber config convert FILE

Prints, on stdout, the amber crawl config (YAML) equivalent to FILE, an Elastic Open Crawler
config (crawler.yml: a top-level domains list). Each key that came from FILE is commented with
the Elastic key it came from; a comment block at the end says what amber does differently.
A key amber does not support is an error that names the key and its line.

Exit status: 0 converted, 2 FILE is unreadable, not an Elastic crawler config, or holds a key
amber does not support.
`

// runConfig is `amber config SUBCOMMAND`.
func runConfig(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return usagef("usage: amber config convert FILE (see 'amber help config')")
	}
	switch args[0] {
	case "convert":
		return runConfigConvert(args[1:], stdout)
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, configHelp)
		return nil
	}
	return usagef("unknown config command %q: want convert", args[0])
}

// runConfigConvert is `amber config convert FILE`.
func runConfigConvert(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("config convert", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, configHelp)
			return nil
		}
		return usagef("%w (see 'amber help config')", err)
	}
	if fs.NArg() != 1 {
		return usagef("usage: amber config convert FILE")
	}
	name := fs.Arg(0)
	data, err := os.ReadFile(name)
	if err != nil {
		return usagef("%w", err)
	}
	if !seeds.IsElasticConfig(data) {
		return usagef("%s: not an Elastic Open Crawler config (no top-level domains list of maps with url); amber's own configs need no conversion", name)
	}
	e, err := seeds.ParseElastic(data, name)
	if err != nil {
		return usageError{err}
	}
	cv, err := e.Convert()
	if err != nil {
		return usageError{fmt.Errorf("%s: %w", name, err)}
	}
	out, err := cv.Render(name)
	if err != nil {
		return err
	}
	_, err = stdout.Write(out)
	return err
}
