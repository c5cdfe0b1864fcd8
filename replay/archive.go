package replay

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/amber-crawler/amber/warc"
)

// Archive is crawl directories and WACZ files opened as one archive, for reading their
// captures: each source's CDXJ index is searched where it lies (a crawl directory's live
// index, when the crawl did not finish, is sorted into a temporary directory first), and
// records are read from its WARC files. The Server replays an Archive; a recrawl reads
// through one what the earlier crawl captured (package prior). It is safe for concurrent use.
type Archive struct {
	sources []*source
	work    string // temporary files (a killed crawl's index, sorted), removed by Close

	digestOnce sync.Once
	digests    map[string]candidate // payload digest -> the first response captured with it
	digestErr  error
}

// OpenArchive opens crawl directories and WACZ files (at least one) as one archive. An error
// for a path that is neither wraps ErrNotArchive. The caller closes the Archive.
func OpenArchive(ctx context.Context, paths []string) (_ *Archive, err error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("%w: no crawl directory or WACZ file", ErrConfig)
	}
	a := &Archive{}
	defer func() {
		if err != nil {
			a.Close()
		}
	}()
	if a.work, err = os.MkdirTemp("", "amber-replay-"); err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	for _, p := range paths {
		src, err := openSource(ctx, p, a.work)
		if err != nil {
			return nil, err
		}
		a.sources = append(a.sources, src)
	}
	return a, nil
}

// Close closes the sources and removes the temporary files.
func (a *Archive) Close() error {
	var errs []error
	for _, src := range a.sources {
		errs = append(errs, src.closeAll())
	}
	if a.work != "" {
		errs = append(errs, os.RemoveAll(a.work))
	}
	return errors.Join(errs...)
}

// Original opens the response record that holds the payload of a capture: the response of
// uri (a WARC-Target-URI, or a revisit's WARC-Refers-To-Target-URI) with payload digest
// ("sha1:BASE32"; any, when "") captured closest to date, found through the indexes by the
// URL's CDX key, as a replay finds a revisit's original. Unlike a replay it does not look for
// the digest under other URLs. The error is non-nil when the archive holds no such response
// or it cannot be read.
func (a *Archive) Original(uri string, date time.Time, digest string) (*warc.Record, error) {
	r, _, err := a.original(uri, date, digest, false)
	return r, err
}
