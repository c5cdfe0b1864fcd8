package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/amber-crawler/amber/config"
	"github.com/amber-crawler/amber/config/elastic"
	"github.com/amber-crawler/amber/config/entsearch"
	"github.com/amber-crawler/amber/config/fast"
)

const configHelp = `usage: amber config convert [--fast-domain NAME] [--strict] FILE [FILE ...]

Prints, on stdout, the amber crawl config (YAML) equivalent to FILE, another crawler's config:
an Elastic Open Crawler config (crawler.yml: a top-level domains list), Elastic Enterprise
Search's web crawler settings (enterprise-search.yml: its crawler.* keys;
docs/elastic-enterprise-search.md has the whole mapping), or a FAST crawler configuration
(XML, root element CrawlerConfig; docs/fast.md has the whole mapping). Each key that came
from FILE is commented with the key or attrib it came from; a comment block at the end says
what amber does differently. For a FAST file that block names every attrib, section and
element of the file under one of five headings: mapped (with its amber key), the same as
amber's behaviour, differs (how), ignored (why) and refused (why). Secrets are written as
env:NAME references, and a comment says which variable holds which.

With several files (amber's own YAML among them, if need be; a FAST configuration converts
alone), each is converted, then they are combined in the order given as amber crawl combines
several --config files: a key that two files set to different values is an error naming
it, lists of entries (seeds, domains, ...) are appended. The comments name the file of each
key.

An Elastic or Enterprise Search key amber does not support is an error that names the key and
its line. A FAST file with several DomainSpecifications needs --fast-domain NAME; with
--strict each one under "refused", which amber does not do as the file says, is an error
(those about FAST's own processing, ignored, are not).

Exit status: 0 converted, 2 a FILE is unreadable, not a config amber converts, holds what
amber refuses, or the files disagree.
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
	if len(files) == 0 {
		return usagef("usage: amber config convert [--fast-domain NAME] [--strict] FILE [FILE ...]")
	}
	var out []byte
	if len(files) == 1 {
		out, err = convertOne(files[0], *fastDomain, *strict)
	} else {
		out, err = convertSeveral(files, *fastDomain, *strict)
	}
	if err != nil {
		return err
	}
	_, err = stdout.Write(out)
	return err
}

// convertOne renders one other crawler's file as amber YAML.
func convertOne(name, fastDomain string, strict bool) ([]byte, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, usagef("%w", err)
	}
	switch {
	case fast.IsFAST(data):
		d, cv, err := fast.ConvertFile(data, name, fastDomain, strict)
		if err != nil {
			return nil, usageError{err}
		}
		return fast.Render(cv, fmt.Sprintf("%s (DomainSpecification %q)", name, d.Name))
	case fastDomain != "" || strict:
		return nil, usagef("--fast-domain and --strict are for FAST crawler configurations; %s is not one (no CrawlerConfig root element)", name)
	case entsearch.Is(data):
		_, cv, err := entsearch.LoadData(data, name)
		if err != nil {
			return nil, usageError{err}
		}
		return cv.Render(name)
	case elastic.Is(data):
		_, cv, err := elastic.LoadData(data, name)
		if err != nil {
			return nil, usageError{err}
		}
		return cv.Render(name)
	}
	return nil, usagef("%s: neither an Elastic Open Crawler config (a top-level domains list of maps with url), Enterprise Search settings (crawler.* keys) nor a FAST crawler configuration (root element CrawlerConfig); amber's own configs need no conversion", name)
}

// convertSeveral renders files, each read as by amber crawl --config, combined in order.
// A FAST configuration is refused among several: its secrets (login parameters, POST
// bodies) are written as references by its own rendering only.
func convertSeveral(names []string, fastDomain string, strict bool) ([]byte, error) {
	_, files, err := loadConfigs(names, fastDomain, strict)
	if err != nil {
		return nil, usageError{err}
	}
	for _, c := range files {
		if c.fast {
			return nil, usagef("%s: a FAST crawler configuration converts alone (amber config convert %s), then combine its output with the other files", c.path, c.path)
		}
	}
	cv, err := config.MergeConverted(parts(files)...)
	if err != nil {
		return nil, usageError{fmt.Errorf("--config: %w", err)}
	}
	return cv.Render("")
}
