package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/amber-crawler/amber/config"
	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/scope"
	"github.com/amber-crawler/amber/searchindex"
	"github.com/amber-crawler/amber/weburl"
)

// Report files of `amber index --purge` and `--process`, in the crawl's reports directory:
// one JSON line (pruneLine) per document decided about, written anew by each run.
const (
	PurgeReportFile   = "index-purge.jsonl"
	ProcessReportFile = "index-process.jsonl"
)

// crawlDocs is what a crawl wrote to documents.jsonl: its documents' ids, their URLs (url and
// additional_urls) and the origins of those.
type crawlDocs struct {
	ids, urls, origins map[string]bool
}

// readCrawlDocs reads dir's documents.jsonl (none: an empty crawlDocs). A line that is not a
// document is skipped, as the sink skips it.
func readCrawlDocs(dir string) (crawlDocs, error) {
	c := crawlDocs{ids: map[string]bool{}, urls: map[string]bool{}, origins: map[string]bool{}}
	f, err := os.Open(filepath.Join(dir, crawl.DocumentsFile))
	if errors.Is(err, os.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var d struct {
			ID             string   `json:"id"`
			URL            string   `json:"url"`
			AdditionalURLs []string `json:"additional_urls"`
		}
		if json.Unmarshal(sc.Bytes(), &d) != nil || d.ID == "" {
			continue
		}
		c.ids[d.ID] = true
		for _, u := range append(d.AdditionalURLs, d.URL) {
			c.urls[u] = true
			c.addOrigin(u)
		}
	}
	if err := sc.Err(); err != nil {
		return c, fmt.Errorf("read %s: %w", crawl.DocumentsFile, err)
	}
	return c, nil
}

// urlOrigin is the origin of the http(s) URL u (scheme://host[:port], lowercase, the default
// port left out), or "" when it has none.
func urlOrigin(u string) string {
	p, err := url.Parse(strings.TrimSpace(u))
	if err != nil {
		return ""
	}
	o, err := weburl.Origin(p.Scheme + "://" + p.Host)
	if err != nil {
		return ""
	}
	return o
}

// addOrigin adds the origin of u, when it has one.
func (c crawlDocs) addOrigin(u string) {
	if o := urlOrigin(u); o != "" {
		c.origins[o] = true
	}
}

// addScope adds the origins of the seeds and Elastic domains of sc.
func (c crawlDocs) addScope(sc scope.Config) {
	for _, s := range sc.Seeds {
		c.addOrigin(s.URL)
	}
	for _, d := range sc.Domains {
		c.addOrigin(d.URL)
	}
}

// owns reports whether u is in the crawl's domains: its origin is one of the crawl's seeds,
// Elastic domains or documents.
func (c crawlDocs) owns(u string) bool {
	o := urlOrigin(u)
	return o != "" && c.origins[o]
}

// seen reports whether the crawl wrote the document d (by its id or one of its URLs).
func (c crawlDocs) seen(d searchindex.Indexed) bool { return c.ids[d.ID] || c.urls[d.URL] }

// purgeConfig is the purge phase of the crawl in dir: the documents of the crawl's domains
// that the crawl did not write are fetched again with the HTTP client of the crawl's config
// (cfgPath: its user agent, network settings and private-address guard; GET, no redirect
// followed, no robots.txt) and deleted on 3xx and 4xx. The returned close ends the client.
func purgeConfig(dir, cfgPath string, docs crawlDocs) (searchindex.PruneConfig, func() error, error) {
	var pc searchindex.PruneConfig
	f, _, err := loadConfigs([]string{cfgPath}, "", false)
	if err != nil {
		return pc, nil, err
	}
	sc, err := f.ScopeConfig(config.DefaultFlavour(f.Fetcher))
	if err != nil {
		return pc, nil, err
	}
	docs.addScope(sc)
	f.Index = config.Index{} // the index is the command's; its secrets may be *** here
	c, err := config.Build(f, config.Options{Dir: dir, Software: "amber/" + version})
	if err != nil {
		return pc, nil, err
	}
	cl, err := fetch.NewClient(c.Fetch)
	if err != nil {
		return pc, nil, err
	}
	pc.Select = func(d searchindex.Indexed) bool { return docs.owns(d.URL) && !docs.seen(d) }
	pc.Decide = func(ctx context.Context, d searchindex.Indexed) searchindex.Verdict {
		ex, err := cl.Do(ctx, fetch.Request{URL: d.URL})
		if err != nil {
			return searchindex.PurgeVerdict(0, err)
		}
		defer ex.Close()
		return searchindex.PurgeVerdict(ex.StatusCode, nil)
	}
	return pc, cl.Close, nil
}

// processConfig is the process crawl of the crawl in dir: the documents of the crawl's
// domains are decided with the scope of the config cfgPath as `amber scope check --config`
// decides them, and deleted when out.
func processConfig(cfgPath string, docs crawlDocs) (searchindex.PruneConfig, error) {
	var pc searchindex.PruneConfig
	k, err := newScopeChecker(scopeFlags{configs: stringList{cfgPath}})
	if err != nil {
		return pc, err
	}
	docs.addScope(k.sc)
	pc.Select = func(d searchindex.Indexed) bool { return docs.owns(d.URL) }
	pc.Decide = func(_ context.Context, d searchindex.Indexed) searchindex.Verdict {
		return processVerdict(k.check(checkInput{URL: d.URL}))
	}
	return pc, nil
}

// processVerdict is a process crawl's decision from a scope check's: deleted when out (with
// the scope's reason), kept when in, failed when the URL cannot be decided.
func processVerdict(out checkOutput, err error) searchindex.Verdict {
	switch {
	case err != nil:
		return searchindex.Verdict{Failed: true, Reason: err.Error()}
	case out.Decision == "in":
		return searchindex.Verdict{Reason: out.Reason}
	default:
		return searchindex.Verdict{Delete: true, Reason: out.Reason}
	}
}

// pruneLine is one line of a purge or process report.
type pruneLine struct {
	ID  string `json:"id"`
	URL string `json:"url"`
	// Action is kept, deleted, would-delete (dry run) or failed (kept: the URL did not answer,
	// it could not be decided, or the deletion failed).
	Action string `json:"action"`
	Reason string `json:"reason"`
}

// lineOf is the report line of o.
func lineOf(o searchindex.Outcome) pruneLine {
	l := pruneLine{ID: o.ID, URL: o.URL, Action: "kept", Reason: o.Reason}
	switch {
	case o.DeleteError != "":
		l.Action, l.Reason = "failed", o.Reason+"; delete: "+o.DeleteError
	case o.Failed:
		l.Action = "failed"
	case o.Deleted:
		l.Action = "deleted"
	case o.Delete:
		l.Action = "would-delete"
	}
	return l
}

// pruneIndex runs the purge phase (purge) or a process crawl of the crawl in dir against
// sink's index, writes the report file and prints a line per document deleted (or to delete)
// or failed, and the counts. A deletion that failed makes it fail; a URL that did not answer
// is reported, its document kept.
func pruneIndex(ctx context.Context, stdout io.Writer, sink *searchindex.Sink, dir, cfgPath string, purge, dryRun bool) error {
	docs, err := readCrawlDocs(dir)
	if err != nil {
		return err
	}
	name, file := "process", ProcessReportFile
	var pc searchindex.PruneConfig
	if purge {
		name, file = "purge", PurgeReportFile
		var closeClient func() error
		if pc, closeClient, err = purgeConfig(dir, cfgPath, docs); err != nil {
			return usageError{err}
		}
		defer closeClient()
	} else if pc, err = processConfig(cfgPath, docs); err != nil {
		return err
	}
	pc.DryRun = dryRun
	r, err := searchindex.Prune(ctx, sink, pc)
	if werr := writePruneReport(dir, file, r); werr != nil {
		return errors.Join(err, werr)
	}
	if err != nil {
		return err
	}
	return printPrune(stdout, name, sink.Config(), filepath.Join(dir, crawl.ReportsDir, file), r, dryRun)
}

// writePruneReport writes the report file of r (a line per outcome) in dir's reports.
func writePruneReport(dir, file string, r searchindex.PruneResult) error {
	if err := os.MkdirAll(filepath.Join(dir, crawl.ReportsDir), 0o755); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, crawl.ReportsDir, file))
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, o := range r.Outcomes {
		if err := enc.Encode(lineOf(o)); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// printPrune prints a line per document deleted, to delete or failed, and the counts. A
// failed deletion is the error.
func printPrune(stdout io.Writer, name string, ic searchindex.Config, report string, r searchindex.PruneResult, dryRun bool) error {
	bw := bufio.NewWriter(stdout)
	failedDeletes := 0
	for _, o := range r.Outcomes {
		l := lineOf(o)
		if l.Action != "kept" {
			fmt.Fprintf(bw, "%s %s (%s)\n", l.Action, l.URL, l.Reason)
		}
		if o.DeleteError != "" {
			failedDeletes++
		}
	}
	deleted := "deleted"
	if dryRun {
		deleted = "to delete (dry run: nothing deleted)"
	}
	fmt.Fprintf(bw, "Index %s at %s, %s: %d documents, %d of the crawl's domains checked: %d kept, %d %s, %d failed; report: %s\n",
		ic.Index, ic.URL, name, r.Listed, r.Checked, r.Kept, r.Deleted, deleted, r.Failed, report)
	if err := bw.Flush(); err != nil {
		return err
	}
	if failedDeletes > 0 {
		return fmt.Errorf("index %s: %d documents could not be deleted (see %s)", ic.Index, failedDeletes, report)
	}
	return nil
}
