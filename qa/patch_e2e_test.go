package qa_test

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/internal/crawltest"
	"github.com/amber-crawler/amber/patch"
	"github.com/amber-crawler/amber/qa"
	"github.com/amber-crawler/amber/report"
)

// TestPatchLoop: qa of a plain crawl of the JS site finds what its script loads missing; a
// patch crawl of those URLs captures them into the crawl; a second qa finds nothing missing
// and no console error, and, scored against a browser crawl of the site, the page's text and
// pixel scores rise from below the browser crawl's own to them.
func TestPatchLoop(t *testing.T) {
	const page = "http://www.example.com/"
	browserDir := copyDir(t, sharedCrawl(t, "js", true))
	runQA(t, browserDir, nil)
	target := readQA(t, browserDir)[page]

	dir := copyDir(t, sharedCrawl(t, "js", false))
	withRef := func(c *qa.Config) { c.Reference = browserDir }
	runQA(t, dir, withRef)
	before := readQA(t, dir)[page]
	if len(before.Missing) != 2 || *before.Text >= *target.Text || *before.Pixel >= *target.Pixel {
		t.Fatalf("before the patch: %+v; the browser crawl's: text %v, pixels %v", before, *target.Text, *target.Pixel)
	}

	urls, ok, err := patch.Read(filepath.Join(dir, "reports", report.QAFile))
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	site := crawltest.JSSite(t)
	defer site.Close()
	cfg := crawlConfig(t, site, dir, false)
	cfg.Patch = urls
	res, err := crawl.Run(t.Context(), cfg)
	if err != nil || res.End != crawl.EndFinished {
		t.Fatalf("patch crawl: %v %q", err, res.End)
	}
	if d := cmp.Diff(&patch.Result{Asked: 2, Queued: 2}, res.Patch); d != "" {
		t.Errorf("patch (-want +got):\n%s", d)
	}

	sum := runQA(t, dir, withRef)
	after := readQA(t, dir)[page]
	if len(after.Missing) != 0 || len(after.Console) != 0 || sum.Missing != 0 {
		t.Errorf("after the patch: missing %+v, console %+v", after.Missing, after.Console)
	}
	if *after.Text < *target.Text-0.005 || *after.Pixel < *target.Pixel-0.005 {
		t.Errorf("after the patch: text %v, pixels %v; the browser crawl's: %v, %v", *after.Text, *after.Pixel, *target.Text, *target.Pixel)
	}
	if sum.Previous == nil || sum.Previous.Missing != 2 {
		t.Errorf("the previous run's figures: %+v", sum.Previous)
	}
	t.Logf("text %.3f -> %.3f, pixels %.3f -> %.3f (browser crawl: %.3f, %.3f)", *before.Text, *after.Text, *before.Pixel, *after.Pixel, *target.Text, *target.Pixel)
}
