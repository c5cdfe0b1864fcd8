package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/amber-crawler/amber/wacz"
)

const waczHelp = `Usage: amber wacz DIR [-o FILE.wacz]
       amber wacz -o FILE.wacz DIR...

Packages the crawl directory DIR (finished, stopped or killed) as a WACZ file (WACZ 1.1.1),
which ReplayWeb.page and other replay tools open as it is: the WARC files; the CDXJ index
(above 256 KiB compressed, as index.cdx.gz + index.idx); the page list (the seeds and the
HTML pages captured with a 2xx status, with their titles and text when documents were on:
all in pages/pages.jsonl up to 1,000 pages, else the seeds there and the others in
pages/extraPages.jsonl, which ReplayWeb.page reads only when searched); logs/crawl.log; and
datapackage.json with the SHA-256 of every file.

The WARC files of a killed crawl still named *.warc.gz.open are left out (and said so); run
the crawl again (amber crawl --dir DIR) to close them out first. DIR must not be in use by a
running crawl. The file appears complete or not at all.

With several DIRs (the processes of one shared crawl, each with its own WARC files, CDXJ index
and crawl.log), writes one package of them all: every DIR's WARC files, their indexes merged in
order, their crawl.logs merged by time, one page list. -o is then required.

Flags:
  -o FILE   where to write the package (must end in .wacz; default DIR/COLLECTION.wacz,
            COLLECTION being the crawl's collection name; required with several DIRs)

Exit status: 0 written; 1 a failure while writing, or DIR is in use by a running crawl or
holds no WARC file, or two DIRs hold WARC files of one name; 2 a mistake in the command line (a
DIR is not a crawl directory, several DIRs without -o, FILE does not end in .wacz or its
directory does not exist); 11 interrupted (nothing was written).
`

// runWACZ is `amber wacz DIR [-o FILE.wacz]` and `amber wacz -o FILE.wacz DIR...`.
func runWACZ(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("amber wacz", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := fs.String("o", "", "")
	fs.StringVar(out, "output", "", "")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, waczHelp)
			return nil
		}
		return usagef("%w (see 'amber help wacz')", err)
	}
	switch {
	case len(pos) == 0:
		return usagef("usage: amber wacz DIR [-o FILE.wacz], or amber wacz -o FILE.wacz DIR...")
	case len(pos) > 1 && *out == "":
		return usagef("amber wacz: %d crawl directories: -o FILE.wacz names their package", len(pos))
	}
	if err := distinctDirs(pos); err != nil {
		return err
	}
	return writeWACZDirs(ctx, pos, *out, stdout, stderr)
}

// writeWACZ packages the crawl directory dir as the WACZ file out (DIR/COLLECTION.wacz when out
// is ""), as writeWACZDirs does. amber crawl --wacz calls it at the end of a run.
func writeWACZ(ctx context.Context, dir, out string, stdout, stderr io.Writer) error {
	return writeWACZDirs(ctx, []string{dir}, out, stdout, stderr)
}

// writeWACZDirs packages the crawl directories dirs as the WACZ file out (DIR/COLLECTION.wacz
// of the first DIR when out is ""), says where it is and what it holds on stdout, and warns on
// stderr about WARC files it left out. A dir that is not a crawl directory and a bad out are
// usageErrors; ctx cancelled is a statusError with the interrupted status.
func writeWACZDirs(ctx context.Context, dirs []string, out string, stdout, stderr io.Writer) error {
	if out == "" {
		out = wacz.DefaultPath(dirs[0])
	}
	if st, err := os.Stat(filepath.Dir(out)); err != nil || !st.IsDir() {
		return usagef("-o %s: no directory %s", out, filepath.Dir(out))
	}
	res, err := wacz.WriteDirs(ctx, dirs, out, wacz.Options{Software: "amber/" + version})
	switch {
	case errors.Is(err, wacz.ErrNotCrawlDir), errors.Is(err, wacz.ErrOutput):
		return usageError{err}
	case err != nil && ctx.Err() != nil:
		fmt.Fprintf(stderr, "amber: wacz interrupted; %s was not written\n", out)
		return statusError{code: exitInterrupted, end: "interrupted"}
	case err != nil:
		return err
	}
	for _, s := range res.Skipped {
		fmt.Fprintf(stderr, "amber: wacz: left out %s: the crawl was killed while writing it (run amber crawl --dir %s to close it out, then amber wacz again)\n", s, filepath.Dir(filepath.Dir(s)))
	}
	if res.DroppedLines > 0 {
		fmt.Fprintf(stderr, "amber: wacz: left out %d index lines: torn, or pointing into WARC files not in the package\n", res.DroppedLines)
	}
	index := wacz.IndexCDXJ
	if res.CompressedIndex {
		index = wacz.IndexCDXGZ + " + " + wacz.IndexIDX
	}
	fmt.Fprintf(stdout, "WACZ written: %s (%d bytes)\n", res.Path, res.Bytes)
	pages := fmt.Sprintf("%d pages", res.Pages)
	if res.ExtraPages > 0 {
		pages += fmt.Sprintf(" (%d seeds in %s, the others in %s)", res.Pages-res.ExtraPages, wacz.PagesFile, wacz.ExtraPagesFile)
	}
	fmt.Fprintf(stdout, "  %d WARC files (%d bytes), %d index lines in %s, %s\n", res.WARCs, res.WARCBytes, res.IndexLines, index, pages)
	if res.MainPageURL != "" {
		fmt.Fprintf(stdout, "  main page: %s\n", res.MainPageURL)
	}
	return nil
}
