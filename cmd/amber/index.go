package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/amber-crawler/amber/config"
	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/searchindex"
)

// indexFlags are the flags of `amber index`: they override the index section of the config.
type indexFlags struct {
	config                                string
	url, name, username, password, apiKey string
	compression                           bool
	purge, process, dryRun                bool
}

// printIndexHelp prints the help of `amber index`.
func printIndexHelp(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, `Usage: amber index [flags] DIR

Sends the documents of the crawl in DIR (documents.jsonl) to a search index through
Elasticsearch 8's _bulk API, each with _id = its id, going on from what the index already
acknowledged (DIR/documents.index.json). The index is the one of --config's index section, or
of DIR/crawl.yaml's, as the flags change it; secrets crawl.yaml writes as *** are given again
by flag (a value, or env:NAME). Exits 1 when documents were refused or left unsent.

--purge and --process act on the index instead of sending (the Elastic web crawler's purge
phase and process crawls), on the documents of the crawl's domains only: the origins of the
config's seeds and Elastic domains and of the crawl's documents. Other documents are never
touched. The index is listed with _search (from/size pages).

--purge fetches again (GET, the crawl's user agent and network settings, no redirect
followed) the URL of each such document that the crawl did not write to documents.jsonl (by
id, url or additional_urls), and deletes the document when it answers 3xx or 4xx; it is kept
on 2xx, 5xx, and when the URL does not answer (reported as failed).

--process re-applies the config's scope and crawl rules (as 'amber scope check --config'
decides a URL, one link from the first seed: depth limits are not re-applied, nor
robots.txt) to such documents and deletes those now out of scope. Edit crawl.yaml, or give
the changed config with --config, and run a --dry-run first.

Both print a line per document deleted, to delete or failed, and the counts, and write a
line per document checked to DIR/reports/index-purge.jsonl or index-process.jsonl. They exit
1 when a deletion failed.

Flags:
`)
	fs.SetOutput(w)
	fs.PrintDefaults()
}

// runIndex is `amber index DIR`.
func runIndex(ctx context.Context, args []string, stdout io.Writer) error {
	var f indexFlags
	fs := flag.NewFlagSet("index", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&f.config, "config", "", "config `FILE` whose index section is used, and with --purge and --process its seeds, scope, rules and fetch settings (default: DIR/crawl.yaml)")
	fs.StringVar(&f.url, "url", "", "the server's base `URL` (index.url)")
	fs.StringVar(&f.name, "name", "", "the index `NAME` (index.name)")
	fs.StringVar(&f.username, "username", "", "user name (index.username)")
	fs.StringVar(&f.password, "password", "", "password, or env:NAME (index.password)")
	fs.StringVar(&f.apiKey, "api-key", "", "encoded API key, or env:NAME (index.api_key)")
	fs.BoolVar(&f.compression, "compression", true, "gzip the requests (index.compression; ZincSearch needs false)")
	fs.BoolVar(&f.purge, "purge", false, "purge phase: fetch again the indexed URLs of the crawl's domains that the crawl did not write, delete their documents on 3xx and 4xx")
	fs.BoolVar(&f.process, "process", false, "process crawl: delete the indexed documents of the crawl's domains that the config's scope and crawl rules now leave out")
	fs.BoolVar(&f.dryRun, "dry-run", false, "with --process or --purge: list the documents to delete, delete none")
	pos, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		printIndexHelp(stdout, fs)
		return nil
	}
	if err != nil {
		return usagef("%w (see 'amber help index')", err)
	}
	if len(pos) != 1 {
		return usagef("amber index takes one crawl directory (see 'amber help index')")
	}
	if f.purge && f.process {
		return usagef("amber index: --purge or --process, not both (see 'amber help index')")
	}
	if f.dryRun && !f.purge && !f.process {
		return usagef("amber index: --dry-run goes with --process or --purge (see 'amber help index')")
	}
	dir := pos[0]
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	ix, err := indexSection(dir, f, set)
	if err != nil {
		return usageError{err}
	}
	ic, err := ix.Engine(os.LookupEnv)
	if err != nil {
		return usageError{err}
	}
	sink, err := searchindex.New(ic)
	if err != nil {
		return usageError{err}
	}
	if f.purge || f.process {
		return pruneIndex(ctx, stdout, sink, dir, configPath(dir, f), f.purge, f.dryRun)
	}
	return sendIndex(ctx, stdout, sink, dir)
}

// configPath is --config, or DIR/crawl.yaml.
func configPath(dir string, f indexFlags) string {
	if f.config != "" {
		return f.config
	}
	return filepath.Join(dir, crawl.ConfigFile)
}

// indexSection is the index section of --config or DIR/crawl.yaml, with the flags given.
func indexSection(dir string, f indexFlags, set map[string]bool) (config.Index, error) {
	path := configPath(dir, f)
	var ix config.Index
	if cf, err := config.Load(path); err == nil {
		ix = cf.Index
	} else if f.config != "" || !set["url"] {
		return ix, err
	}
	for _, o := range []struct {
		flag     string
		to, from *string
	}{{"url", &ix.URL, &f.url}, {"name", &ix.Name, &f.name}, {"username", &ix.Username, &f.username},
		{"password", &ix.Password, &f.password}, {"api-key", &ix.APIKey, &f.apiKey}} {
		if set[o.flag] {
			*o.to = *o.from
		}
	}
	if set["compression"] {
		c := f.compression
		ix.Compression = &c
	}
	if ix.Sink == "" && ix.URL != "" {
		ix.Sink = config.IndexSinkElasticsearch
	}
	if !ix.Enabled() {
		return ix, fmt.Errorf("no index: %s has no index section; give --url and --name", path)
	}
	return ix, nil
}

// sendIndex sends what is left of dir's documents.jsonl and prints the record.
func sendIndex(ctx context.Context, stdout io.Writer, sink *searchindex.Sink, dir string) error {
	if _, err := os.Stat(filepath.Join(dir, crawl.DocumentsFile)); err != nil {
		return usagef("%s: no %s: %w", dir, crawl.DocumentsFile, err)
	}
	events, err := report.OpenEvents(filepath.Join(dir, crawl.EventsFile), report.EventsConfig{Version: "amber/" + version})
	if err != nil {
		return err
	}
	defer events.Close()
	sh, err := searchindex.Open(sink, dir, events)
	if err != nil {
		return err
	}
	shipErr := sh.Ship(ctx)
	rec, err := sh.Finish()
	if err != nil {
		return err
	}
	if err := printIndexRecord(stdout, dir, rec, true); err != nil {
		return err
	}
	return shipErr
}
