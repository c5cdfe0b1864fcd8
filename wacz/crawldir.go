package wacz

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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
