package entsearch

import (
	"fmt"
	"os"

	"github.com/amber-crawler/amber/config"
)

// Load reads and converts the Enterprise Search settings file at path (Parse with the
// process's environment, then Convert).
func Load(path string) (*config.File, *config.Converted, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("entsearch: %w", err)
	}
	return LoadData(data, path)
}

// LoadData is Load for the contents data of the file at path.
func LoadData(data []byte, path string) (*config.File, *config.Converted, error) {
	s, err := Parse(data, path, nil)
	if err != nil {
		return nil, nil, err
	}
	cv, err := s.Convert()
	if err != nil {
		return nil, nil, err
	}
	return cv.File, cv, nil
}
