// Package wacz packages a crawl directory as a WACZ file (Web Archive Collection Zipped,
// specification 1.1.1, https://specs.webrecorder.net/wacz/1.1.1/): the crawl's WARC files, a
// sorted CDXJ index into them, the list of captured pages and a manifest with the SHA-256 of
// every file, in one ZIP that replay tools such as ReplayWeb.page read by random access.
//
// A package holds:
//
//	archive/NAME.warc.gz       every closed WARC file of the crawl, stored as it is
//	indexes/index.cdxj         the crawl's CDXJ index, sorted, or above Options.IndexThreshold
//	indexes/index.cdx.gz       the same lines as gzip members of Options.IndexBlockLines lines
//	indexes/index.idx          and the index of those members (cdxj-gzip-1.0)
//	pages/pages.jsonl          the captured pages (json-pages-1.0), or above Options.PagesLimit
//	                           the seeds, and
//	pages/extraPages.jsonl     the other pages
//	logs/crawl.log             the crawl's Heritrix-format log
//	datapackage.json           the manifest (profile data-package, wacz_version 1.1.1; for a
//	                           crawl that built on earlier crawls, relation.requires names
//	                           their packages: see Requirement)
//	datapackage-digest.json    the SHA-256 of datapackage.json
//
// Every entry is stored (ZIP method Store, never compressed), so an entry's bytes are the
// file's bytes at a fixed place in the package; ZIP64 records are written where sizes or
// offsets pass 4 GiB. Entries are written with data descriptors (the sizes and CRC-32 follow
// the data, as Webrecorder's own packagers write them); readers that work by random access,
// ReplayWeb.page among them, take sizes and offsets from the central directory.
//
// Open reads a package back (its entries, the WARC files by random access, its pages), and
// ListPages lists the pages of crawl directories as a package of them would: what a replay of
// either shows.
package wacz

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/amber-crawler/amber/warc"
)

// Version is the WACZ specification version the packages follow. ReplayWeb.page 2.5 reads it;
// it refuses the 1.2 draft's `profile: wacz`, so the profile is `data-package`.
const Version = "1.1.1"

// Defaults of Options.
const (
	// DefaultIndexThreshold is the size of the CDXJ index above which the compressed form is
	// written. ReplayWeb.page 2.5.3 reads a plain index.cdxj whole, putting every line into
	// its browser database before it shows the first page, about 0.85 ms a line (the
	// 100,000-line index of the bench crawl: 88 s to show a page, against 3 s through an
	// index.idx, which it reads at once, one line per block, and then only the blocks a URL
	// needs). Up to 256 KiB (about 600 captures of amber's CDXJ) the wait stays under half a
	// second and the index stays greppable once unzipped.
	DefaultIndexThreshold = 256 << 10
	// DefaultIndexBlockLines is the number of CDXJ lines in one gzip member of index.cdx.gz:
	// browsertrix-crawler's figure, about 10 KB compressed, so a look-up fetches little.
	DefaultIndexBlockLines = 256
	// DefaultPagesLimit is the most pages pages.jsonl lists before the pages that are not
	// seeds go to extraPages.jsonl. ReplayWeb.page 2.5.3 loads every line of pages.jsonl before
	// it shows the first page, about 0.65 ms a line (measured on the 100,000-page bench crawl:
	// 3.5 s to show a page with the seed alone in pages.jsonl, 6.7 s with 5,000 pages, 17 s
	// with 20,000, 95 s with all), and extraPages.jsonl only when searched. Up to 1,000 the
	// wait does not show.
	DefaultPagesLimit = 1000
	// DefaultSoftware is datapackage.json's software when Options.Software is empty.
	DefaultSoftware = "amber"
)

// Paths inside the package.
const (
	ArchiveDir        = "archive/"                // the WARC files, under their own names
	IndexCDXJ         = "indexes/index.cdxj"      // the sorted CDXJ index, plain
	IndexCDXGZ        = "indexes/index.cdx.gz"    // or compressed: gzip members of CDXJ lines
	IndexIDX          = "indexes/index.idx"       // and where each member is (cdxj-gzip-1.0)
	PagesFile         = "pages/pages.jsonl"       // the pages, or above PagesLimit the seeds
	ExtraPagesFile    = "pages/extraPages.jsonl"  // the other pages, above PagesLimit
	CrawlLogEntry     = "logs/crawl.log"          // the crawl's crawl.log
	DatapackageFile   = "datapackage.json"        // the manifest
	DatapackageDigest = "datapackage-digest.json" // the manifest's SHA-256
)

// Formats and names of the package.
const (
	idxFormat           = "cdxj-gzip-1.0"
	pagesFormat         = "json-pages-1.0"
	datapackageProfile  = "data-package"
	hashPrefix          = "sha256:"
	packageFileSuffix   = ".wacz"
	warcFileSuffix      = ".warc.gz"
	openWARCFileSuffix  = ".warc.gz.open"
	tempOutputPrefix    = "."
	tempOutputSeparator = ".tmp-"
)

// Paths inside the crawl directory (the crawl package's ConfigFile, StateDir, WARCDir,
// CDXJFile, LiveCDXJFile, CrawlLogFile and DocumentsFile; wacz does not import crawl).
const (
	crawlConfigFile = "crawl.yaml"
	crawlStateDir   = "state"
	crawlWARCDir    = "warcs"
	crawlSortedCDXJ = "indexes/" + warc.SortedCDXJ
	crawlLiveCDXJ   = "indexes/" + warc.LiveCDXJ
	crawlLogFile    = "logs/crawl.log"
	crawlDocuments  = "documents.jsonl"
)

// Errors returned by Write. Callers test them with errors.Is.
var (
	// ErrNotCrawlDir: the directory is not a crawl directory (it has no state/ inside).
	ErrNotCrawlDir = errors.New("wacz: not a crawl directory")
	// ErrInUse: a running crawl holds the crawl directory.
	ErrInUse = errors.New("wacz: crawl directory in use by a running crawl")
	// ErrNoWARCs: the crawl directory holds no closed WARC file, so there is nothing to package.
	ErrNoWARCs = errors.New("wacz: no WARC files to package")
	// ErrNoIndex: the crawl directory has WARC files but no CDXJ index.
	ErrNoIndex = errors.New("wacz: no CDXJ index")
	// ErrMalformed wraps a line of crawl.log or documents.jsonl that cannot be read (a torn
	// last line, left by a killed crawl, is not one: it is ignored).
	ErrMalformed = errors.New("wacz: malformed line")
	// ErrOutput wraps problems with the output path (it must end in .wacz).
	ErrOutput = errors.New("wacz: bad output path")
	// ErrDuplicateWARC: two crawl directories given to WriteDirs hold WARC files of the same
	// name, which one package cannot hold apart (the CDXJ lines name files, not directories).
	ErrDuplicateWARC = errors.New("wacz: WARC file name in two crawl directories")
)

// Options are the settings of Write. The zero value is ready to use.
type Options struct {
	// Title is datapackage.json's title. Default: the collection named in crawl.yaml, else the
	// crawl directory's name.
	Title string
	// Software is datapackage.json's software. Default: DefaultSoftware.
	Software string
	// IndexThreshold is the size in bytes of the CDXJ index above which it is written
	// compressed (index.cdx.gz and index.idx). Zero means DefaultIndexThreshold; a negative
	// value means always compressed.
	IndexThreshold int64
	// IndexBlockLines is the number of lines in one gzip member of index.cdx.gz. Zero means
	// DefaultIndexBlockLines.
	IndexBlockLines int
	// PagesLimit is the most pages pages/pages.jsonl lists: above it, it lists the seeds and
	// pages/extraPages.jsonl the other pages. Zero means DefaultPagesLimit; a negative value
	// means always apart.
	PagesLimit int
}

// Resource is one file of the package as datapackage.json lists it.
type Resource struct {
	Name  string `json:"name"`  // the file's base name, lower case (Frictionless Data's rule)
	Path  string `json:"path"`  // its path inside the package
	Hash  string `json:"hash"`  // "sha256:" and the hex SHA-256 of its bytes
	Bytes int64  `json:"bytes"` // its size
}

// Result says what Write packaged.
type Result struct {
	Path            string        // the WACZ file written
	Bytes           int64         // its size
	Resources       []Resource    // every file in it but datapackage.json and its digest, in order
	WARCs           int           // WARC files packaged
	WARCBytes       int64         // their size
	Skipped         []string      // WARC files left out: NAME.warc.gz.open of a killed crawl (paths)
	Pages           int           // pages listed, in pages.jsonl and extraPages.jsonl
	ExtraPages      int           // of which in extraPages.jsonl
	IndexLines      int           // CDXJ lines packaged
	DroppedLines    int           // CDXJ lines left out: a killed crawl's torn line, or they point into a WARC file not packaged
	CompressedIndex bool          // the index is index.cdx.gz + index.idx, not index.cdxj
	IndexResorted   bool          // the index was sorted from live.cdxj (a killed crawl's is stale)
	MainPageURL     string        // datapackage.json's mainPageUrl ("" when no page was captured)
	Requires        []Requirement // datapackage.json's relation.requires: the earlier crawls' packages
}

// Write packages the crawl directory dir as a WACZ file at out, which must end in ".wacz",
// and returns what it holds. out is written as a temporary file next to it, synced and renamed
// at the end, so a file at out is always a complete package; on an error or a cancelled ctx
// nothing is left behind. Nothing in the crawl directory is changed (out, and its temporary
// files next to it, may be inside it: amber wacz's default). While Write runs it holds the
// crawl's state lock, so a crawl cannot start in dir (and Write fails with ErrInUse while one
// runs). The WARC files of a killed crawl still named NAME.warc.gz.open are left out and
// listed in Result.Skipped, with the index lines and pages that point into them; running the
// crawl again closes them out. No WARC file is held in memory: files are streamed into the
// package and hashed as they go.
func Write(ctx context.Context, dir, out string, opts Options) (res Result, err error) {
	return WriteDirs(ctx, []string{dir}, out, opts)
}

// WriteDirs packages several crawl directories as one WACZ file at out, as Write packages one:
// the processes of one shared crawl, each with its own WARC files, CDXJ index, crawl.log and
// documents. The package holds the WARC files of every directory (two of the same name are an
// error wrapping ErrDuplicateWARC), one index (the directories' indexes merged in byte order),
// one crawl.log (theirs merged in time order, as report.MergeCrawlLogs merges them) and one
// page list made from it, each page's title and text taken from the documents of the directory
// whose WARC file holds the page. The seeds are those of every crawl.yaml, in the order of
// dirs; the default title is the first collection named. It holds every directory's state
// lock while it runs.
func WriteDirs(ctx context.Context, dirs []string, out string, opts Options) (res Result, err error) {
	opts = opts.withDefaults()
	if !strings.HasSuffix(out, packageFileSuffix) || filepath.Base(out) == packageFileSuffix {
		return Result{}, fmt.Errorf("%w: %s: want a file name ending in %s", ErrOutput, out, packageFileSuffix)
	}
	if len(dirs) == 0 {
		return Result{}, fmt.Errorf("%w: no crawl directory", ErrNotCrawlDir)
	}
	for _, dir := range dirs {
		if err := checkCrawlDir(dir); err != nil {
			return Result{}, err
		}
	}
	for _, dir := range dirs {
		unlock, err := lockState(filepath.Join(dir, crawlStateDir))
		if err != nil {
			return Result{}, err
		}
		defer unlock()
	}
	src, err := readSources(ctx, dirs)
	if err != nil {
		return Result{}, err
	}

	work, err := os.MkdirTemp(filepath.Dir(out), tempOutputPrefix+filepath.Base(out)+".work-")
	if err != nil {
		return Result{}, fmt.Errorf("wacz: %w", err)
	}
	defer os.RemoveAll(work)
	st := staged{work: work}
	if st.index, st.resorted, err = src.index(ctx, work); err != nil {
		return Result{}, err
	}
	if st.docs, err = openDocSet(ctx, dirs, src.warcDir); err != nil {
		return Result{}, err
	}
	defer st.docs.close()
	if st.crawlLog, err = src.crawlLog(work); err != nil {
		return Result{}, err
	}
	return writePackage(ctx, out, src, st, opts)
}

// staged is what a package is written from besides its sources' WARC files, made ready for it.
type staged struct {
	work     string  // the work directory, for files made on the way
	index    string  // the sorted CDXJ index
	resorted bool    // index was sorted from a killed crawl's live.cdxj
	docs     *docSet // the search documents, for the page list
	crawlLog string  // the crawl.log (a file that may not exist)
}

// writePackage writes the package of src and st at out: the WARC files, the index, the page
// list, the crawl.log and the manifest, and commits it. On an error nothing is left at out.
func writePackage(ctx context.Context, out string, src *sources, st staged, opts Options) (res Result, err error) {
	z, err := createPackage(out)
	if err != nil {
		return Result{}, err
	}
	defer func() {
		if err != nil {
			z.abort()
		}
	}()
	res = Result{Skipped: src.skipped, IndexResorted: st.resorted, Requires: src.requires}
	packaged := make(map[string]bool, len(src.warcs))
	for _, w := range src.warcs {
		r, err := z.addFile(ctx, ArchiveDir+filepath.Base(w), w)
		if err != nil {
			return Result{}, err
		}
		packaged[filepath.Base(w)] = true
		res.WARCs++
		res.WARCBytes += r.Bytes
	}
	ix, err := writeIndex(ctx, z, st.index, packaged, opts)
	if err != nil {
		return Result{}, err
	}
	res.IndexLines, res.DroppedLines, res.CompressedIndex = ix.lines, ix.dropped, ix.compressed
	pg, err := writePages(ctx, z, st.crawlLog, packaged, st.docs, src.seeds, opts.PagesLimit, st.work)
	if err != nil {
		return Result{}, err
	}
	res.Pages, res.ExtraPages, res.MainPageURL = pg.count, pg.extra, pg.mainURL
	if _, err := os.Stat(st.crawlLog); err == nil {
		if _, err := z.addFile(ctx, CrawlLogEntry, st.crawlLog); err != nil {
			return Result{}, err
		}
	}
	dp := newDatapackage(src, opts, pg, z.resources)
	if err := z.writeManifest(dp); err != nil {
		return Result{}, err
	}
	res.Resources = dp.Resources
	if res.Bytes, err = z.commit(); err != nil {
		return Result{}, err
	}
	res.Path = out
	return res, nil
}

// withDefaults fills in the defaults of the zero fields.
func (o Options) withDefaults() Options {
	if o.Software == "" {
		o.Software = DefaultSoftware
	}
	if o.IndexThreshold == 0 {
		o.IndexThreshold = DefaultIndexThreshold
	}
	if o.IndexBlockLines <= 0 {
		o.IndexBlockLines = DefaultIndexBlockLines
	}
	if o.PagesLimit == 0 {
		o.PagesLimit = DefaultPagesLimit
	}
	return o
}

// datapackage is datapackage.json.
type datapackage struct {
	Profile      string     `json:"profile"`
	WACZVersion  string     `json:"wacz_version"`
	Title        string     `json:"title"`
	Description  string     `json:"description,omitempty"`
	Created      string     `json:"created"`
	Software     string     `json:"software"`
	MainPageURL  string     `json:"mainPageUrl,omitempty"`
	MainPageDate string     `json:"mainPageDate,omitempty"`
	Resources    []Resource `json:"resources"`
	Relation     *relation  `json:"relation,omitempty"`
}

// newDatapackage returns datapackage.json of a package of src, created now, that holds
// resources and lists the pages pg: its title is opts.Title or src's (see sources.title).
func newDatapackage(src *sources, opts Options, pg pagesResult, resources []Resource) datapackage {
	dp := datapackage{
		Profile:      datapackageProfile,
		WACZVersion:  Version,
		Title:        src.title(opts.Title),
		Description:  src.description(),
		Created:      time.Now().UTC().Format(time.RFC3339),
		Software:     opts.Software,
		MainPageURL:  pg.mainURL,
		MainPageDate: pg.mainTS,
		Resources:    resources,
	}
	if len(src.requires) > 0 {
		dp.Relation = &relation{Requires: src.requires}
	}
	return dp
}

// digestFile is datapackage-digest.json.
type digestFile struct {
	Path string `json:"path"`
	Hash string `json:"hash"`
}

// manifest returns datapackage.json and datapackage-digest.json for dp.
func manifest(dp datapackage) (pkg, digest []byte, err error) {
	if dp.Resources == nil {
		dp.Resources = []Resource{}
	}
	pkg, err = json.MarshalIndent(dp, "", "  ")
	if err != nil {
		return nil, nil, fmt.Errorf("wacz: encode %s: %w", DatapackageFile, err)
	}
	pkg = append(pkg, '\n')
	sum := sha256.Sum256(pkg)
	digest, err = json.MarshalIndent(digestFile{Path: DatapackageFile, Hash: hashPrefix + hex.EncodeToString(sum[:])}, "", "  ")
	if err != nil {
		return nil, nil, fmt.Errorf("wacz: encode %s: %w", DatapackageDigest, err)
	}
	return pkg, append(digest, '\n'), nil
}

// checkCrawlDir reports whether dir is a crawl directory: it holds the crawl state that amber
// crawl creates first.
func checkCrawlDir(dir string) error {
	st, err := os.Stat(filepath.Join(dir, crawlStateDir))
	if err == nil && st.IsDir() {
		return nil
	}
	if _, derr := os.Stat(dir); derr != nil {
		return fmt.Errorf("%w: %w", ErrNotCrawlDir, derr)
	}
	return fmt.Errorf("%w: %s (no %s/ inside; amber crawl --dir makes one)", ErrNotCrawlDir, dir, crawlStateDir)
}
