package crawl_test

import (
	"path/filepath"
	"testing"

	"github.com/amber-crawler/amber/crawl"
)

// TestFinished: no state, a crawl stopped at a limit, and the same crawl run to its end.
func TestFinished(t *testing.T) {
	if fin, err := crawl.Finished(t.TempDir()); err != nil || fin {
		t.Fatalf("empty directory: %v %v", fin, err)
	}
	site := startBasic(t)
	dir := t.TempDir()
	cfg := basicConfig(t, site, dir)
	cfg.LimitURLs = 1
	if _, err := crawl.Run(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
	if fin, err := crawl.Finished(dir); err != nil || fin {
		t.Fatalf("stopped at a limit: %v %v", fin, err)
	}
	cfg.LimitURLs = 0
	if _, err := crawl.Run(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
	if fin, err := crawl.Finished(dir); err != nil || !fin {
		t.Fatalf("finished: %v %v", fin, err)
	}
	if fin, err := crawl.Finished(filepath.Join(dir, "nothing")); err != nil || fin {
		t.Fatalf("a directory inside: %v %v", fin, err)
	}
}
