package extract

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// render prints a Result as the golden files hold it: a header, then one outlink a line as
// "HOP URL CONTEXT".
func render(res Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "base: %s\ntitle: %s\nnofollow: %t\nnoindex: %t\n", res.Base, res.Title, res.NoFollow, res.NoIndex)
	for _, o := range res.Outlinks {
		fmt.Fprintf(&b, "%c %s %s\n", o.Hop, o.URL, o.Context)
	}
	return b.String()
}

func TestGolden(t *testing.T) {
	tests := []struct {
		file        string
		pageURL     string
		contentType string
	}{
		{"page.html", "https://www.example.org/site/index.html", "text/html; charset=utf-8"},
		{"site.css", "https://www.example.org/site/css/site.css", "text/css"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			body, err := os.ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			res, err := Parse(tt.pageURL, tt.contentType, body)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			got := render(res)
			golden := filepath.Join("testdata", tt.file+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("%s (-want +got):\n%s", golden, diff)
			}
		})
	}
}
