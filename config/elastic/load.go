package elastic

import (
	"fmt"
	"os"

	"github.com/amber-crawler/amber/config"
)

// Load reads a crawl configuration file of either kind: amber's own YAML (config.Load), or an
// Elastic Open Crawler file (recognised by Is), which is parsed strictly and converted to
// amber's model (Convert). For an Elastic file it also returns the conversion,
// whose Notes say what amber does differently; for amber's YAML that is nil.
func Load(path string) (*config.File, *config.Converted, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("elastic: %w", err)
	}
	return LoadData(data, path)
}

// LoadData is Load for the contents data of the file at path (a seeds_file is read relative
// to path's directory).
func LoadData(data []byte, path string) (*config.File, *config.Converted, error) {
	if !Is(data) {
		c, err := config.LoadData(data, path)
		return c, nil, err
	}
	e, err := Parse(data, path)
	if err != nil {
		return nil, nil, err
	}
	cv, err := e.Convert()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return cv.File, cv, nil
}
