package crawl_test

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/platform"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/scope"
)

// savedSite serves the pages of testdata/platforms/NAME (site.txt: "STATUS CONTENT-TYPE FILE
// PATH LOCATION" lines, saved from a real install by scripts/platforms/fixture.sh) on
// 127.0.0.1, whatever the host asked for; every other URL is a 404.
func savedSite(t *testing.T, name string) *httptest.Server {
	t.Helper()
	dir := filepath.Join("testdata", "platforms", name)
	f, err := os.Open(filepath.Join(dir, "site.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type saved struct{ status, ctype, file, location string }
	pages := map[string]saved{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) != 5 {
			t.Fatalf("site.txt: %q", sc.Text())
		}
		pages[savedKey(fs[3])] = saved{fs[0], fs[1], fs[2], fs[4]}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, ok := pages[savedKey(r.URL.RequestURI())]
		if !ok {
			http.NotFound(w, r)
			return
		}
		body, err := os.ReadFile(filepath.Join(dir, p.file))
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		if p.ctype != "-" {
			w.Header().Set("Content-Type", p.ctype)
		}
		if p.location != "-" {
			w.Header().Set("Location", p.location)
		}
		code := http.StatusOK
		if p.status == "301" {
			code = http.StatusMovedPermanently
		}
		w.WriteHeader(code)
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// savedKey is a request URI with its escapes undone, so that a URL the crawler escaped in its
// own way finds its page.
func savedKey(uri string) string {
	if k, err := url.QueryUnescape(uri); err == nil {
		return k
	}
	return uri
}

// TestPlatformRulesMediaWiki crawls pages saved from Debian's MediaWiki 1.39: with the platform
// rules on (the default) the articles, category, file pages and what they embed are captured
// and the edit forms, histories, old revisions, page information and special pages are left
// out with their own reason, counted per rule in the scope report; a rule switched off is
// crawled again; with every rule off they are fetched. (The waste report of a whole wiki
// crawled with the rules off is report's TestWasteMediaWiki.)
func TestPlatformRulesMediaWiki(t *testing.T) {
	srv := savedSite(t, "mediawiki")
	const w = "http://wiki.amber.test"
	content := []string{
		w + "/index.php?title=Main_Page", w + "/index.php?title=Category:Harbours", w + "/index.php?title=Eastern_forest_1",
		w + "/index.php?title=Broad_square_3", w + "/index.php?title=File:Plate_1.jpg",
		w + "/load.php?lang=en&modules=skins.vector.styles.legacy&only=styles&skin=vector",
		w + "/images/thumb/1/1f/Plate_1.jpg/300px-Plate_1.jpg",
	}
	machinery := map[string]string{
		w + "/index.php?title=Eastern_forest_1&action=edit":                "mediawiki/edit",
		w + "/index.php?title=Eastern_forest_1&action=edit&section=1":      "mediawiki/edit",
		w + "/index.php?title=Talk:Eastern_forest_1&action=edit&redlink=1": "mediawiki/edit",
		w + "/index.php?title=Eastern_forest_1&action=history":             "mediawiki/history",
		w + "/index.php?title=Eastern_forest_1&action=info":                "mediawiki/info",
		w + "/index.php?title=Eastern_forest_1&oldid=65":                   "mediawiki/revisions",
		w + "/index.php?title=Special:WhatLinksHere/Eastern_forest_1":      "mediawiki/special",
		w + "/index.php?title=Special:UserLogin&returnto=Eastern+forest+1": "mediawiki/special",
	}
	run := func(t *testing.T, pc platform.Config) (map[string]report.Line, string) {
		t.Helper()
		cfg := basicConfig(t, nil, t.TempDir())
		cfg.Scope = scope.Config{Seeds: []scope.Seed{{URL: w + "/", Type: scope.StandardSeed}}}
		cfg.Fetch.ConnectTo = connectAll(t, srv.Listener.Addr().String())
		cfg.Platforms = pc
		return lastLines(runFAST(t, cfg)), cfg.Dir
	}
	captured := func(l report.Line, ok bool) bool { return ok && l.Status >= 200 && l.Status < 400 }

	t.Run("on", func(t *testing.T) {
		lines, dir := run(t, platform.Config{})
		for _, u := range content {
			if l, ok := lines[u]; !captured(l, ok) {
				t.Errorf("%s: %+v, want captured", u, l)
			}
		}
		for u, rule := range machinery {
			l, ok := lines[u]
			if !ok || l.Status != -5000 || !slices.Contains(l.Annotations, "scope:platform:"+rule) {
				t.Errorf("%s: status %d %v, want -5000 scope:platform:%s", u, l.Status, l.Annotations, rule)
			}
		}
		var rep report.ScopeReport
		b, err := os.ReadFile(filepath.Join(dir, crawl.ReportsDir, report.ScopeReportJSONFile))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &rep); err != nil {
			t.Fatal(err)
		}
		left := map[string]int64{}
		for _, r := range rep.PlatformRules {
			if !r.On || r.Why == "" {
				t.Errorf("scope report: %+v, want on, with its why", r)
			}
			left[r.ID] = r.LeftOut
		}
		for _, rule := range machinery {
			if left[rule] == 0 {
				t.Errorf("scope report: %s left out %d, want some", rule, left[rule])
			}
		}
		if _, ok := left["wordpress/login"]; !ok {
			t.Errorf("scope report: the rules that left nothing out are not listed: %v", left)
		}
	})

	t.Run("history off", func(t *testing.T) {
		lines, _ := run(t, platform.Config{RulesOff: []string{"mediawiki/history"}})
		if l, ok := lines[w+"/index.php?title=Eastern_forest_1&action=history"]; !captured(l, ok) {
			t.Errorf("history with its rule off: %+v, want captured", l)
		}
		if l := lines[w+"/index.php?title=Eastern_forest_1&action=edit"]; l.Status != -5000 {
			t.Errorf("edit form: status %d, want -5000", l.Status)
		}
	})

	t.Run("off", func(t *testing.T) {
		lines, dir := run(t, platform.Config{Off: true})
		for u := range machinery {
			if l, ok := lines[u]; !captured(l, ok) {
				t.Errorf("%s with the rules off: %+v, want captured", u, l)
			}
		}
		var rep report.ScopeReport
		b, err := os.ReadFile(filepath.Join(dir, crawl.ReportsDir, report.ScopeReportJSONFile))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &rep); err != nil {
			t.Fatal(err)
		}
		for _, r := range rep.PlatformRules {
			if r.On || r.LeftOut != 0 {
				t.Errorf("scope report with the rules off: %+v", r)
			}
		}
	})
}
