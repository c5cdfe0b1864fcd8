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
	if _, err := os.Stat(state); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	front, err := frontier.Open(frontier.Config{Dir: state})
	if err != nil {
		return false, fmt.Errorf("open frontier: %w", err)
	}
	_, ok, err := front.Meta(metaFinished)
	if cerr := front.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return false, fmt.Errorf("read crawl state: %w", err)
	}
	return ok, nil
}
