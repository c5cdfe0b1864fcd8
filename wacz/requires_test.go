package wacz_test

import (
	"archive/zip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/wacz"
)

// TestWriteRequires: a package of a crawl that built on earlier crawls lists their packages
// in datapackage.json's relation.requires (recrawl_of first, then dedup_from, each once): a
// WACZ given as an earlier crawl by its file name, a crawl directory by its package at
// DefaultPath, with the SHA-256 and size of each package that is there; a CDXJ file or a
// directory that is not a crawl adds none, and a crawl that built on nothing has no relation.
func TestWriteRequires(t *testing.T) {
	dir := crawlSite(t, "basic", []string{"http://www.example.com/"}, 0)
	warcs := warcFiles(t, dir)
	earlier := t.TempDir()
	write := func(path, data string) string {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	// A crawl directory packaged at its default place, one not packaged, a WACZ given as
	// itself (its bytes need not be a package: only its name and hash are read), a WACZ no
	// longer there, a CDXJ file and a directory that is not a crawl.
	packaged := filepath.Join(earlier, "museums-2026-05")
	write(filepath.Join(packaged, crawl.ConfigFile), "collection: museums\n")
	write(filepath.Join(packaged, crawl.StateDir, "x"), "")
	museums := write(filepath.Join(packaged, "museums.wacz"), "the May package")
	unpackaged := filepath.Join(earlier, "news-2026-04")
	write(filepath.Join(unpackaged, crawl.ConfigFile), "collection: news\n")
	write(filepath.Join(unpackaged, crawl.StateDir, "x"), "")
	given := write(filepath.Join(earlier, "given.wacz"), "a package given as itself")
	gone := filepath.Join(earlier, "gone.wacz")
	cdxj := write(filepath.Join(earlier, "index.cdxj"), "")
	notCrawl := filepath.Join(earlier, "empty")
	if err := os.Mkdir(notCrawl, 0o755); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name string
		yaml string // crawl.yaml after the collection
		want []wacz.Requirement
	}{
		{name: "none", yaml: ""},
		{
			name: "recrawl_of a packaged crawl directory",
			yaml: "recrawl_of: " + packaged + "\n",
			want: []wacz.Requirement{{Filename: "museums.wacz", Hash: sha256Of(t, museums), Bytes: 15}},
		},
		{
			name: "dedup_from a crawl directory not packaged",
			yaml: "dedup_from: [" + unpackaged + "]\n",
			want: []wacz.Requirement{{Filename: "news.wacz"}},
		},
		{
			name: "every kind, recrawl_of first, each once",
			yaml: "dedup_from: [" + cdxj + ", " + given + ", " + notCrawl + ", " + gone + ", " + packaged + "]\nrecrawl_of: " + given + "\n",
			want: []wacz.Requirement{
				{Filename: "given.wacz", Hash: sha256Of(t, given), Bytes: 25},
				{Filename: "gone.wacz"},
				{Filename: "museums.wacz", Hash: sha256Of(t, museums), Bytes: 15},
			},
		},
		{name: "only what is not a package", yaml: "dedup_from: [" + cdxj + ", " + notCrawl + "]\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			write(filepath.Join(dir, crawl.ConfigFile), "collection: basic\n"+tc.yaml)
			out := filepath.Join(t.TempDir(), "x.wacz")
			res, err := wacz.Write(t.Context(), dir, out, wacz.Options{})
			if err != nil {
				t.Fatal(err)
			}
			checkPackage(t, out, warcs)
			if diff := cmp.Diff(tc.want, res.Requires); diff != "" {
				t.Errorf("Result.Requires (-want +got):\n%s", diff)
			}
			rel, ok := readRelation(t, out)
			if ok != (len(tc.want) > 0) {
				t.Errorf("datapackage.json has relation %v, want it %v", ok, len(tc.want) > 0)
			}
			if diff := cmp.Diff(tc.want, rel.Requires); diff != "" {
				t.Errorf("datapackage.json relation.requires (-want +got):\n%s", diff)
			}
		})
	}
}

// relation is datapackage.json's relation as a reader sees it.
type relation struct {
	Requires []wacz.Requirement `json:"requires"`
}

// readRelation returns the relation of the package at path's datapackage.json, and whether
// it has one.
func readRelation(t *testing.T, path string) (relation, bool) {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	f, err := zr.Open(wacz.DatapackageFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	var dp struct {
		Relation *relation `json:"relation"`
	}
	if err := json.Unmarshal(data, &dp); err != nil {
		t.Fatal(err)
	}
	if dp.Relation == nil {
		return relation{}, false
	}
	return *dp.Relation, true
}

// sha256Of is "sha256:" and the hex SHA-256 of the file at path.
func sha256Of(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// TestEarlierCrawls: the earlier crawls a crawl directory's crawl.yaml names, recrawl_of first,
// each once; none without crawl.yaml.
func TestEarlierCrawls(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string // "": no crawl.yaml
		want       []string
		err        bool
	}{
		{"recrawl and dedup", "collection: c\nrecrawl_of: /crawls/may\ndedup_from: [/crawls/april, /crawls/may, /crawls/m.wacz]\n",
			[]string{"/crawls/may", "/crawls/april", "/crawls/m.wacz"}, false},
		{"dedup only", "dedup_from: [/crawls/april]\n", []string{"/crawls/april"}, false},
		{"neither", "collection: c\n", nil, false},
		{"no crawl.yaml", "", nil, false},
		{"not yaml", "recrawl_of: [\n", nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.yaml != "" {
				if err := os.WriteFile(filepath.Join(dir, crawl.ConfigFile), []byte(tc.yaml), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := wacz.EarlierCrawls(dir)
			if (err != nil) != tc.err {
				t.Fatalf("err = %v, want one: %v", err, tc.err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("EarlierCrawls (-want +got):\n%s", d)
			}
		})
	}
}
