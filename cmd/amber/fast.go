package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/amber-crawler/amber/config"
	"github.com/amber-crawler/amber/config/elastic"
	"github.com/amber-crawler/amber/config/entsearch"
	"github.com/amber-crawler/amber/config/fast"
)

// configFile is one --config file read into amber's model: a converted file also has its
// conversion, whose notes say what amber does differently; title says what it is.
type configFile struct {
	path  string
	file  *config.File
	cv    *config.Converted
	title string
	fast  bool
}

// readConfig reads a --config file of any kind amber takes, told apart by its contents: a
// FAST crawler configuration (fast.IsFAST: root element CrawlerConfig), converted with its
// DomainSpecification fastDomain ("" when it has one), strictly or not; Enterprise Search's
// settings (entsearch.Is: crawler.* keys, or Enterprise Search's own sections); an Elastic
// Open Crawler file (elastic.Is: a domains list of maps with url, or an elasticsearch.yml);
// otherwise amber's YAML.
func readConfig(path, fastDomain string, strict bool) (configFile, error) {
	c := configFile{path: path}
	data, err := os.ReadFile(path)
	if err != nil {
		return c, fmt.Errorf("config: %w", err)
	}
	switch {
	case fast.IsFAST(data):
		d, cv, err := fast.ConvertFile(data, path, fastDomain, strict)
		if err != nil {
			return c, err
		}
		c.file, c.cv, c.fast = cv.File, cv, true
		c.title = fmt.Sprintf("the FAST crawler configuration %s (DomainSpecification %q)", path, d.Name)
	case entsearch.Is(data):
		c.file, c.cv, err = entsearch.LoadData(data, path)
		c.title = "the Enterprise Search settings " + path
	case elastic.Is(data):
		c.file, c.cv, err = elastic.LoadData(data, path)
		c.title = "the Elastic Open Crawler file " + path
	default:
		c.file, err = config.LoadData(data, path)
		c.title = "amber's own " + path
	}
	return c, err
}

// loadConfigs reads the --config files (readConfig) and combines them in order
// (config.Merge; one file is taken as it is). --fast-domain and --strict need a FAST file
// among them.
func loadConfigs(paths []string, fastDomain string, strict bool) (*config.File, []configFile, error) {
	var files []configFile
	anyFAST := false
	for _, p := range paths {
		c, err := readConfig(p, fastDomain, strict)
		if err != nil {
			return nil, nil, err
		}
		anyFAST = anyFAST || c.fast
		files = append(files, c)
	}
	if (fastDomain != "" || strict) && !anyFAST {
		return nil, nil, errors.New("--fast-domain and --strict are for FAST crawler configurations; no --config file is one (no CrawlerConfig root element)")
	}
	if len(files) == 1 {
		return files[0].file, files, nil
	}
	f, err := config.Merge(parts(files)...)
	if err != nil {
		return nil, nil, fmt.Errorf("--config: %w", err)
	}
	return f, files, nil
}

// parts are the files for config.Merge.
func parts(files []configFile) []config.Part {
	var ps []config.Part
	for _, c := range files {
		ps = append(ps, config.Part{Name: c.path, File: c.file, Converted: c.cv, Title: c.title})
	}
	return ps
}

// printConversions tells the user, for each --config file converted from another crawler's
// format (Elastic Open Crawler, Enterprise Search, FAST), what amber does differently for it.
func printConversions(w io.Writer, files []configFile) {
	for _, c := range files {
		printConversion(w, c.path, c.cv)
	}
}
