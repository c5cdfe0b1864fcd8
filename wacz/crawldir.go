package wacz

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/amber-crawler/amber/warc"
)

// crawlConfig is what the package needs of crawl.yaml, the crawl's effective configuration.
type crawlConfig struct {
	Collection  string     `yaml:"collection"`
	Description string     `yaml:"description"`
	Seeds       []seedSpec `yaml:"seeds"`
	RecrawlOf   string     `yaml:"recrawl_of"` // the earlier crawl recrawled, as amber crawl wrote it: absolute
	DedupFrom   []string   `yaml:"dedup_from"` // the earlier crawls deduplicated against, likewise
}

// seedSpec is one entry of crawl.yaml's seeds: a URL, or a mapping with a url key.
type seedSpec struct{ URL string }

// UnmarshalYAML reads either form of a seed.
func (s *seedSpec) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		s.URL = n.Value
		return nil
	}
	var m struct {
		URL string `yaml:"url"`
	}
	if err := n.Decode(&m); err != nil {
		return err
	}
	s.URL = m.URL
	return nil
}

// seeds returns the seed URLs in the order of crawl.yaml.
func (c crawlConfig) seeds() []string {
	var out []string
	for _, s := range c.Seeds {
		if s.URL != "" {
			out = append(out, s.URL)
		}
	}
	return out
}

// readCrawlConfig reads crawl.yaml; a crawl directory without one gives the zero config.
// Keys the package does not need are ignored.
func readCrawlConfig(path string) (crawlConfig, error) {
	var c crawlConfig
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, fmt.Errorf("wacz: %w", err)
	}
	if err := yaml.Unmarshal(data, &c); err != nil {
		return c, fmt.Errorf("wacz: %s: %w", path, err)
	}
	return c, nil
}

// EarlierCrawls returns the earlier crawls the crawl in dir built on, as its crawl.yaml names
// them: recrawl_of, then dedup_from in order (absolute paths, as amber crawl writes them),
// each once. A directory without crawl.yaml has none.
func EarlierCrawls(dir string) ([]string, error) {
	c, err := readCrawlConfig(filepath.Join(dir, crawlConfigFile))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range append([]string{c.RecrawlOf}, c.DedupFrom...) {
		if p != "" && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out, nil
}

// DefaultPath is where a package of the crawl in dir goes when no other place is given:
// dir/COLLECTION.wacz, COLLECTION being the collection named in dir's crawl.yaml, or "crawl"
// when it names none or one that is not a plain file name.
func DefaultPath(dir string) string {
	name := "crawl"
	if c, err := readCrawlConfig(filepath.Join(dir, crawlConfigFile)); err == nil && c.Collection != "" &&
		!strings.ContainsAny(c.Collection, `/\`) && c.Collection != "." && c.Collection != ".." {
		name = c.Collection
	}
	return filepath.Join(dir, name+packageFileSuffix)
}

// listWARCs returns the closed WARC files of dir in name order (which is the order they were
// written: names start with a timestamp and a serial), and the .open files it leaves out.
func listWARCs(dir string) (closed, open []string, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, nil, fmt.Errorf("wacz: list WARC files: %w", err)
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		switch name := e.Name(); {
		case strings.HasSuffix(name, warcFileSuffix):
			closed = append(closed, filepath.Join(dir, name))
		case strings.HasSuffix(name, openWARCFileSuffix):
			open = append(open, filepath.Join(dir, name))
		}
	}
	slices.Sort(closed)
	slices.Sort(open)
	return closed, open, nil
}

// indexSource returns the sorted CDXJ index to package: the crawl's own indexes/index.cdxj,
// which every run that ends sorts from live.cdxj. A killed crawl's sorted index misses the
// lines of its last run (and its live.cdxj is newer), so then live.cdxj is sorted into a file
// in work instead, and resorted is true. The crawl directory is not changed.
func indexSource(dir, work string, killed bool) (path string, resorted bool, err error) {
	sorted := filepath.Join(dir, crawlSortedCDXJ)
	live := filepath.Join(dir, crawlLiveCDXJ)
	st, serr := os.Stat(sorted)
	lt, lerr := os.Stat(live)
	if serr == nil && !killed && (lerr != nil || !st.ModTime().Before(lt.ModTime())) {
		return sorted, false, nil
	}
	if lerr != nil {
		if serr == nil {
			return sorted, false, nil
		}
		return "", false, fmt.Errorf("%w: neither %s nor %s in %s", ErrNoIndex, crawlSortedCDXJ, crawlLiveCDXJ, dir)
	}
	out := filepath.Join(work, warc.SortedCDXJ)
	if err := warc.SortCDXJ(live, out); err != nil {
		return "", false, fmt.Errorf("wacz: %w", err)
	}
	return out, true, nil
}

// sources is what the crawl directories of a package hold for it, read before anything is
// written.
type sources struct {
	dirs     []string
	cfgs     []crawlConfig  // each directory's crawl.yaml, in the order of dirs
	seeds    []string       // the seeds of every crawl.yaml, in the order of dirs
	warcs    []string       // the closed WARC files (paths), each directory's in name order
	warcDir  map[string]int // the name of a WARC file in warcs -> its directory's index in dirs
	skipped  []string       // the .open WARC files of killed crawls, left out (paths)
	killed   []bool         // by index in dirs: the directory has .open WARC files
	requires []Requirement  // the packages of the earlier crawls the crawls built on
}

// readSources reads what dirs hold for a package: their crawl.yaml, the WARC files (an error
// wrapping ErrDuplicateWARC when two directories hold one of the same name, ErrNoWARCs when
// none holds a closed one) and the packages of the earlier crawls they name (each package
// once, the first directory's first).
func readSources(ctx context.Context, dirs []string) (*sources, error) {
	s := &sources{dirs: dirs, warcDir: map[string]int{}, killed: make([]bool, len(dirs))}
	for i, dir := range dirs {
		cfg, err := readCrawlConfig(filepath.Join(dir, crawlConfigFile))
		if err != nil {
			return nil, err
		}
		s.cfgs = append(s.cfgs, cfg)
		s.seeds = append(s.seeds, cfg.seeds()...)
		closed, skipped, err := listWARCs(filepath.Join(dir, crawlWARCDir))
		if err != nil {
			return nil, err
		}
		for _, w := range closed {
			if j, dup := s.warcDir[filepath.Base(w)]; dup {
				return nil, fmt.Errorf("%w: %s in %s and in %s", ErrDuplicateWARC, filepath.Base(w), dirs[j], dir)
			}
			s.warcDir[filepath.Base(w)] = i
		}
		s.warcs = append(s.warcs, closed...)
		s.skipped = append(s.skipped, skipped...)
		s.killed[i] = len(skipped) > 0
	}
	if len(s.warcs) == 0 {
		where := make([]string, len(dirs))
		for i, d := range dirs {
			where[i] = filepath.Join(d, crawlWARCDir)
		}
		return nil, fmt.Errorf("%w: no closed *%s file in %s", ErrNoWARCs, warcFileSuffix, strings.Join(where, ", "))
	}
	var err error
	if s.requires, err = allRequirements(ctx, s.cfgs); err != nil {
		return nil, err
	}
	return s, nil
}

// index returns the sorted CDXJ index to package: a crawl directory's own (see indexSource),
// or for several their indexes merged in byte order into a file in work. resorted is true
// when a killed crawl's live.cdxj was sorted.
func (s *sources) index(ctx context.Context, work string) (path string, resorted bool, err error) {
	indexes := make([]string, 0, len(s.dirs))
	for i, dir := range s.dirs {
		dwork := filepath.Join(work, "dir-"+strconv.Itoa(i))
		if err := os.Mkdir(dwork, 0o700); err != nil {
			return "", false, fmt.Errorf("wacz: %w", err)
		}
		index, fromLive, err := indexSource(dir, dwork, s.killed[i])
		if err != nil {
			return "", false, err
		}
		resorted = resorted || fromLive
		indexes = append(indexes, index)
	}
	if len(indexes) == 1 {
		return indexes[0], resorted, nil
	}
	path = filepath.Join(work, "merged.cdxj")
	if err := mergeSorted(ctx, indexes, path); err != nil {
		return "", false, err
	}
	return path, resorted, nil
}

// crawlLog returns the crawl.log to package: a crawl directory's own, or for several their
// crawl.logs merged in time order into a file in work. The file may not exist (a crawl
// directory without one).
func (s *sources) crawlLog(work string) (string, error) {
	if len(s.dirs) == 1 {
		return filepath.Join(s.dirs[0], crawlLogFile), nil
	}
	merged := filepath.Join(work, "crawl.log")
	if err := mergeCrawlLogs(s.dirs, merged); err != nil {
		return "", err
	}
	return merged, nil
}

// title returns datapackage.json's title: given, else the first collection a crawl.yaml
// names, else the first crawl directory's name.
func (s *sources) title(given string) string {
	if given != "" {
		return given
	}
	for _, cfg := range s.cfgs {
		if cfg.Collection != "" {
			return cfg.Collection
		}
	}
	return filepath.Base(filepath.Clean(s.dirs[0]))
}

// description returns datapackage.json's description: the first a crawl.yaml gives, or "".
func (s *sources) description() string {
	for _, cfg := range s.cfgs {
		if cfg.Description != "" {
			return cfg.Description
		}
	}
	return ""
}
