package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"

	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/internal/testsite"
	"github.com/amber-crawler/amber/internal/zinctest"
)

// pruneSite serves host: "/" links to links; the paths of status answer with that status
// (a 301 to "/"); any other path is a page.
func pruneSite(t *testing.T, host string, links []string, status map[string]int) *testsite.Server {
	t.Helper()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Host != host {
			http.Error(w, "unknown host", http.StatusMisdirectedRequest)
			return
		}
		if code, ok := status[r.URL.Path]; ok {
			if code/100 == 3 {
				w.Header().Set("Location", "/")
			}
			w.WriteHeader(code)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		var b strings.Builder
		fmt.Fprintf(&b, "<html><head><title>page %s</title></head><body><p>The page %s.</p>", r.URL.Path, r.URL.Path)
		if r.URL.Path == "/" {
			for _, l := range links {
				fmt.Fprintf(&b, `<a href="%s">%s</a> `, l, l)
			}
		}
		b.WriteString("</body></html>")
		w.Write([]byte(b.String()))
	})
	site, err := testsite.StartHandler(h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { site.Close() })
	return site
}

// crawlIntoIndex crawls seed on site into index, and returns the crawl directory once the
// index has every document of it.
func crawlIntoIndex(t *testing.T, s *zinctest.Server, site *testsite.Server, index, seed string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "crawl")
	args := []string{"crawl", "--dir", dir, "--config", indexConfig(t, s, index, zinctest.Password),
		"--connect-to", site.ConnectTo(), "--allow-private", "--host-delay", "0", "--retry-delay", "10ms",
		"--quiet", seed}
	var stdout, stderr bytes.Buffer
	if err := run(t.Context(), args, nil, &stdout, &stderr); err != nil {
		t.Fatalf("crawl: %v\n%s\n%s", err, stdout.String(), stderr.String())
	}
	checkIndexed(t, s, index, dir)
	return dir
}

// putDocs indexes a document for each URL, with the id "extra:" + URL.
func putDocs(t *testing.T, s *zinctest.Server, index string, urls ...string) {
	t.Helper()
	for _, u := range urls {
		id := "extra-" + strings.NewReplacer(":", "-", "/", "-", ".", "-").Replace(u)
		if err := s.Do(http.MethodPut, "/"+index+"/_doc/"+id, map[string]any{"id": id, "url": u, "title": "indexed before"}, nil); err != nil {
			t.Fatal(err)
		}
	}
}

// indexedURLs returns the urls of the documents of index, sorted, once there are want of
// them, or after 10 s.
func indexedURLs(t *testing.T, s *zinctest.Server, index string, want int) []string {
	t.Helper()
	var got []string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		hits, err := s.Search(index, "*")
		if err != nil {
			t.Fatal(err)
		}
		got = got[:0]
		for _, h := range hits {
			u, _ := h.Source["url"].(string)
			got = append(got, u)
		}
		if len(got) == want || time.Now().After(deadline) {
			break
		}
	}
	slices.Sort(got)
	return got
}

// reportLines reads a purge or process report: "action url" per line, sorted.
func reportLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var got []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l pruneLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		got = append(got, l.Action+" "+l.URL)
	}
	slices.Sort(got)
	return got
}

// TestIndexPurge: documents of the crawl's domain that the crawl did not see are fetched
// again: deleted on 404 and 301, kept on 200 and 500 and when the URL does not answer;
// another domain's documents and the crawl's own are neither fetched nor deleted.
func TestIndexPurge(t *testing.T) {
	s := zinc(t)
	const host = "purge.example.com"
	site := pruneSite(t, host, []string{"/a"}, map[string]int{"/gone": 404, "/moved": 301, "/broken": 500})
	index := "index-purge"
	dir := crawlIntoIndex(t, s, site, index, "http://"+host+"/")
	crawled := indexedURLs(t, s, index, len(docIDs(t, dir)))
	putDocs(t, s, index, "http://"+host+"/gone", "http://"+host+"/moved", "http://"+host+"/still",
		"http://"+host+"/broken", "http://other.example.com/gone", "https://"+host+"/gone")
	indexedURLs(t, s, index, len(crawled)+6)

	var stdout, stderr bytes.Buffer
	args := []string{"index", "--purge", "--password", zinctest.Password, dir}
	if err := run(t.Context(), args, nil, &stdout, &stderr); err != nil {
		t.Fatalf("amber index --purge: %v\n%s\n%s", err, stdout.String(), stderr.String())
	}
	want := slices.Concat(crawled, []string{"http://" + host + "/broken", "http://" + host + "/still",
		"http://other.example.com/gone", "https://" + host + "/gone"})
	slices.Sort(want)
	if diff := cmp.Diff(want, indexedURLs(t, s, index, len(want))); diff != "" {
		t.Errorf("left in the index (-want +got):\n%s", diff)
	}
	for _, p := range []string{"/gone", "/moved", "/still", "/broken"} {
		if site.Hits(host, p) != 1 {
			t.Errorf("%s fetched %d times, want once", p, site.Hits(host, p))
		}
	}
	if site.Hits("other.example.com", "/gone") != 0 {
		t.Error("another domain's URL was fetched")
	}
	wantReport := []string{"deleted http://" + host + "/gone", "deleted http://" + host + "/moved",
		"kept http://" + host + "/broken", "kept http://" + host + "/still"}
	if diff := cmp.Diff(wantReport, reportLines(t, filepath.Join(dir, crawl.ReportsDir, PurgeReportFile))); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
	for _, w := range []string{"deleted http://" + host + "/gone (404 Not Found)", "deleted http://" + host + "/moved (301",
		fmt.Sprintf("%d documents, 4 of the crawl's domains checked: 2 kept, 2 deleted, 0 failed", len(crawled)+6)} {
		if !strings.Contains(stdout.String(), w) {
			t.Errorf("output lacks %q:\n%s", w, stdout.String())
		}
	}

	// A URL that no longer answers is kept and reported as failed.
	site.Close()
	putDocs(t, s, index, "http://"+host+"/gone")
	indexedURLs(t, s, index, len(want)+1)
	stdout.Reset()
	if err := run(t.Context(), args, nil, &stdout, &stderr); err != nil {
		t.Fatalf("amber index --purge, site down: %v\n%s", err, stdout.String())
	}
	if !strings.Contains(stdout.String(), "3 of the crawl's domains checked: 0 kept, 0 deleted, 3 failed") {
		t.Errorf("site down:\n%s", stdout.String())
	}
	if got := indexedURLs(t, s, index, len(want)+1); len(got) != len(want)+1 {
		t.Errorf("documents deleted with the site down: %v left", got)
	}
}

// TestIndexProcess: after a block rule is added to the config, a dry run lists the documents
// it leaves out and deletes nothing; the real run deletes exactly those; another domain's
// documents are not touched, even where the rule matches them.
func TestIndexProcess(t *testing.T) {
	s := zinc(t)
	const host = "process.example.com"
	site := pruneSite(t, host, []string{"/a", "/private/b", "/private/c"}, nil)
	index := "index-process"
	dir := crawlIntoIndex(t, s, site, index, "http://"+host+"/")
	putDocs(t, s, index, "http://other.example.com/private/x")
	all := indexedURLs(t, s, index, len(docIDs(t, dir))+1)
	if !slices.Contains(all, "http://"+host+"/private/b") {
		t.Fatalf("indexed: %v", all)
	}

	// The config edited: crawl.yaml with a block rule.
	b, err := os.ReadFile(filepath.Join(dir, crawl.ConfigFile))
	if err != nil {
		t.Fatal(err)
	}
	var y map[string]any
	if err := yaml.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	sc, _ := y["scope"].(map[string]any)
	if sc == nil {
		sc = map[string]any{}
	}
	sc["block"] = []string{"contains:/private/"}
	y["scope"] = sc
	edited := filepath.Join(t.TempDir(), "edited.yaml")
	if b, err = yaml.Marshal(y); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(edited, b, 0o644); err != nil {
		t.Fatal(err)
	}
	report := filepath.Join(dir, crawl.ReportsDir, ProcessReportFile)
	wantReport := []string{"kept http://" + host + "/", "kept http://" + host + "/a", "kept http://" + host + "/favicon.ico",
		"would-delete http://" + host + "/private/b", "would-delete http://" + host + "/private/c"}

	var stdout, stderr bytes.Buffer
	args := []string{"index", "--process", "--dry-run", "--config", edited, "--password", zinctest.Password, dir}
	if err := run(t.Context(), args, nil, &stdout, &stderr); err != nil {
		t.Fatalf("amber index --process --dry-run: %v\n%s\n%s", err, stdout.String(), stderr.String())
	}
	if diff := cmp.Diff(wantReport, reportLines(t, report)); diff != "" {
		t.Errorf("dry run's report (-want +got):\n%s", diff)
	}
	if !strings.Contains(stdout.String(), "would-delete http://"+host+"/private/b (block:") ||
		!strings.Contains(stdout.String(), "5 of the crawl's domains checked: 3 kept, 2 to delete (dry run: nothing deleted), 0 failed") {
		t.Errorf("dry run's output:\n%s", stdout.String())
	}
	if diff := cmp.Diff(all, indexedURLs(t, s, index, len(all))); diff != "" {
		t.Errorf("the dry run changed the index (-want +got):\n%s", diff)
	}

	stdout.Reset()
	args = slices.DeleteFunc(args, func(a string) bool { return a == "--dry-run" })
	if err := run(t.Context(), args, nil, &stdout, &stderr); err != nil {
		t.Fatalf("amber index --process: %v\n%s\n%s", err, stdout.String(), stderr.String())
	}
	want := slices.DeleteFunc(slices.Clone(all), func(u string) bool { return strings.HasPrefix(u, "http://"+host+"/private/") })
	if diff := cmp.Diff(want, indexedURLs(t, s, index, len(want))); diff != "" {
		t.Errorf("left in the index (-want +got):\n%s", diff)
	}
	for i, l := range wantReport {
		wantReport[i] = strings.Replace(l, "would-delete", "deleted", 1)
	}
	slices.Sort(wantReport)
	if diff := cmp.Diff(wantReport, reportLines(t, report)); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
}
