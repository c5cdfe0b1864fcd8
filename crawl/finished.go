package crawl

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/amber-crawler/amber/frontier"
)

// Finished reports whether dir holds a finished crawl, one that Run would leave as it is
// (EndAlreadyFinished). A directory without crawl state holds none. It reads the crawl's
// state, so it fails while a crawl runs in dir (the state is locked).
func Finished(dir string) (bool, error) {
	state := filepath.Join(dir, StateDir)
	// badger's MANIFEST: a directory without one holds no frontier (a shared crawl's process
	// keeps only its lock there).
	if _, err := os.Stat(filepath.Join(state, "MANIFEST")); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	front, err := frontier.Open(frontier.Config{Dir: state})
	if err != nil {
		return false, fmt.Errorf("open frontier: %w", err)
	}
	v, ok, err := front.Meta(metaFinished)
	if cerr := front.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return false, fmt.Errorf("read crawl state: %w", err)
	}
	// Empty: a patch crawl reopened the crawl (preparePatch).
	return ok && len(v) > 0, nil
}
