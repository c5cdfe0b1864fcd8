package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/amber-crawler/amber/config/elastic"
	"github.com/amber-crawler/amber/config/fast"
)

const configHelp = `usage: amber config convert [--fast-domain NAME] [--strict] FILE

Prints, on stdout, the amber crawl config (YAML) equivalent to FILE, another crawler's config:
an Elastic Open Crawler config (crawler.yml: a top-level domains list), or a FAST crawler
configuration (XML, root element CrawlerConfig; docs/fast.md has the whole mapping). Each key
that came from FILE is commented with the key or attrib it came from; a comment block at the
end says what amber does differently. Secrets are written as env:NAME references, and a
comment says which variable holds which.

An Elastic key amber does not support is an error that names the key and its line. A FAST
file with several DomainSpecifications needs --fast-domain NAME; with --strict an attrib amber
does not do as the file says is an error (those about FAST's own processing are not).

Exit status: 0 converted, 2 FILE is unreadable, not a config amber converts, or holds what
amber refuses.
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
	fastDomain := fs.String("fast-domain", "", "FAST: the DomainSpecification to convert")
	strict := fs.Bool("strict", false, "FAST: an attrib amber does not do as the file says is an error")
	files, err := parseInterspersed(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, configHelp)
			return nil
		}
		return usagef("%w (see 'amber help config')", err)
	}
	if len(files) != 1 {
		return usagef("usage: amber config convert [--fast-domain NAME] [--strict] FILE")
	}
	name := files[0]
	data, err := os.ReadFile(name)
	if err != nil {
		return usagef("%w", err)
	}
	var out []byte
	switch {
	case fast.IsFAST(data):
		d, cv, err := fast.ConvertFile(data, name, *fastDomain, *strict)
		if err != nil {
			return usageError{err}
		}
		if out, err = fast.Render(cv, fmt.Sprintf("%s (DomainSpecification %q)", name, d.Name)); err != nil {
			return err
		}
	case *fastDomain != "" || *strict:
		return usagef("--fast-domain and --strict are for FAST crawler configurations; %s is not one (no CrawlerConfig root element)", name)
	case elastic.Is(data):
		_, cv, err := elastic.LoadData(data, name)
		if err != nil {
			return usageError{err}
		}
		if out, err = cv.Render(name); err != nil {
			return err
		}
	default:
		return usagef("%s: neither an Elastic Open Crawler config (a top-level domains list of maps with url) nor a FAST crawler configuration (root element CrawlerConfig); amber's own configs need no conversion", name)
	}
	_, err = stdout.Write(out)
	return err
}
