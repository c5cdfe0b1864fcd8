package fast

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse feeds Parse hostile input: it must not panic, a file it accepts must be one IsFAST
// recognises, and converting any collection of it must not panic or find a mapped attrib it
// cannot convert.
func FuzzParse(f *testing.F) {
	files, err := filepath.Glob("testdata/examples/*.xml")
	if err != nil {
		f.Fatal(err)
	}
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(everyRow()))
	f.Add([]byte(`<CrawlerConfig><DomainSpecification name="a"><attrib name="x" type="list-string"><member>&#x41;&amp;&</member></attrib></DomainSpecification></CrawlerConfig>`))
	f.Add([]byte("\xef\xbb\xbf<!-- c --><CrawlerConfig><DomainSpecification name=\"\"/></CrawlerConfig>"))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse(data, "fuzz.xml")
		if err != nil {
			return
		}
		if !IsFAST(data) {
			t.Fatal("Parse accepted a file IsFAST does not recognise")
		}
		if bytes.Contains(data, []byte("start_uri_files")) {
			return // it names files to read
		}
		for _, d := range file.Domains {
			for _, strict := range []bool{false, true} {
				cv, err := d.Convert(ConvertOptions{Strict: strict, BaseDir: t.TempDir()})
				if err != nil {
					if strings.Contains(err.Error(), "internal error") {
						t.Fatal(err)
					}
					continue
				}
				if _, err := Render(cv, "fuzz.xml"); err != nil {
					t.Fatalf("Render: %v", err)
				}
			}
		}
	})
}
