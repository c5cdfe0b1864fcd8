package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/patch"
	"github.com/amber-crawler/amber/report"
)

const patchHelp = `Usage: amber patch [crawl flags] DIR
       amber crawl --dir DIR --patch [crawl flags]

A patch crawl of the crawl in DIR: captures the URLs that 'amber qa DIR' found missing (the
requests of its replayed pages the archive could not answer, in DIR/reports/qa.jsonl), into
new WARC files of the same crawl, whose index, reports and WACZ package then include them.
Each URL is decided by the crawl's scope as an embed of the page that needed it (hop E after
the page's hop path, the page as its via) and fetched with the crawl's politeness and
robots.txt, as the crawl's own embeds are; a URL the crawl already knows (captured, failed or
refused) is not fetched again. Their redirects and what they embed (a style sheet's imports,
fonts and images, as far as the scope lets embeds in) are followed; what they link to is not
(run amber qa again: it finds what is still missing). The crawl's crawl.yaml is the
configuration, and the crawl flags override it (--connect-to, --time-limit, --wacz, ...); its
URL and byte limits do not hold a patch.

The crawl must not be running and must have no URLs queued (resume it first). A finished crawl
is finished again when the patch is done; an interrupted patch crawl resumes with
'amber crawl --dir DIR'. Then 'amber qa DIR' shows the difference (its summary and report.html
give the previous run's figures beside the new ones).

Exit status: as amber crawl's (see 'amber help crawl'); 2 also when DIR has no qa.jsonl.
`

// runPatch is `amber patch [crawl flags] DIR`: amber crawl --dir DIR --patch.
func runPatch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	a, err := parseCrawlArgs(args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, patchHelp)
		return nil
	}
	if err != nil {
		return usagef("%w (see 'amber help patch')", err)
	}
	if len(a.positional) != 1 || a.flags.dir != "" {
		return usagef("usage: amber patch [crawl flags] DIR")
	}
	a.flags.dir, a.positional = a.positional[0], nil
	a.flags.patch, a.set["dir"], a.set["patch"] = true, true, true
	return crawlParsed(ctx, a, stdout, stderr)
}

// patchOf reads the URLs of a patch crawl (--patch): the missing URLs of --dir's qa.jsonl.
// Without --patch there are none. A patch crawl names its crawl with --dir only: seeds and
// --config are a usage error, as is a crawl without qa.jsonl.
func patchOf(a crawlArgs) ([]patch.URL, error) {
	f := a.flags
	if !f.patch {
		return nil, nil
	}
	switch {
	case f.dir == "":
		return nil, usagef("--patch: --dir names the crawl to patch")
	case len(a.positional) > 0 || len(f.seedFiles) > 0 || len(f.configs) > 0:
		return nil, usagef("--patch: a patch crawl takes no seeds or --config: its URLs are amber qa's, its configuration the crawl's crawl.yaml")
	}
	if err := checkCrawlDir(f.dir); err != nil {
		return nil, usageError{err}
	}
	path := filepath.Join(f.dir, crawl.ReportsDir, report.QAFile)
	urls, ok, err := patch.Read(path)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, usagef("--patch: %s: no such file: run amber qa %s first", path, f.dir)
	}
	return urls, nil
}

// printPatch says what a patch crawl made of its URLs.
func printPatch(w io.Writer, c crawl.Config, res crawl.Result) {
	p := res.Patch
	if p == nil {
		return
	}
	fmt.Fprintf(w, "Patch: %d URLs missing in amber qa: %d queued, %d known to the crawl already, %d out of scope, %d without their page in the crawl.\n",
		p.Asked, p.Queued, p.Known, p.OutOfScope, p.NoPage)
	if res.End == crawl.EndFinished {
		fmt.Fprintf(w, "Run amber qa %s to check the crawl again.\n", c.Dir)
	}
}
