package fastcfg

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/amber-crawler/amber/seeds"
)

// Load reads the FAST crawler configuration at path and converts it (ConvertFile).
func Load(path, domain string, strict bool) (*seeds.Config, *seeds.Converted, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("fastcfg: %w", err)
	}
	_, cv, err := ConvertFile(data, path, domain, strict)
	if err != nil {
		return nil, nil, err
	}
	return cv.Config, cv, nil
}

// ConvertFile parses data, the FAST crawler configuration read from path, picks its
// DomainSpecification named domain ("" when it has one only) and converts it (Convert, with
// start_uri_files read relative to path's directory). It returns the DomainSpecification and
// the conversion, whose Notes say what amber does differently.
func ConvertFile(data []byte, path, domain string, strict bool) (*Domain, *seeds.Converted, error) {
	f, err := Parse(data, path)
	if err != nil {
		return nil, nil, err
	}
	d, err := f.Domain(domain)
	if err != nil {
		return nil, nil, err
	}
	cv, err := d.Convert(ConvertOptions{Strict: strict, BaseDir: filepath.Dir(path)})
	if err != nil {
		return nil, nil, err
	}
	return d, cv, nil
}

// elasticHeader is the first line seeds.Converted.Render writes, which names the Elastic
// crawler.
var elasticHeader = []byte("# amber crawl config converted from the Elastic Open Crawler file ")

// Render is seeds.Converted.Render for a FAST conversion: the YAML with each key commented
// with the FAST attrib it came from, then the notes, under a first line that names source
// (the XML file and its DomainSpecification, say) as a FAST crawler configuration.
func Render(cv *seeds.Converted, source string) ([]byte, error) {
	out, err := cv.Render(source)
	if err != nil {
		return nil, err
	}
	line, rest, ok := bytes.Cut(out, []byte("\n"))
	if !ok || !bytes.HasPrefix(line, elasticHeader) {
		return nil, fmt.Errorf("fastcfg: seeds.Converted.Render's first line is not the one Render replaces: %q", line)
	}
	head := fmt.Sprintf("# amber crawl config converted from the FAST crawler configuration (MS-FSCCFG) %s.\n", source)
	return append([]byte(head), rest...), nil
}
