package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/status"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

var reportFiles = []string{
	SeedsReportFile, HostsReportFile, MimetypeReportFile, ResponseCodeReportFile,
	CrawlReportFile, ScopeReportFile, ScopeReportJSONFile, FailedFile, HTMLReportFile,
}

// writeFixture writes the fixture's reports (writeInput).
func writeFixture(t *testing.T) (string, Input) {
	t.Helper()
	return writeInput(t, fixture())
}

// writeInput writes in's crawl.log, reads it back as `amber report` does, and writes the
// reports; it returns the reports directory and the input as read back.
func writeInput(t *testing.T, in Input) (string, Input) {
	t.Helper()
	dir := t.TempDir()
	logPath := filepath.Join(dir, "crawl.log")
	cl, err := OpenCrawlLog(logPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range in.Lines {
		if err := cl.Write(l); err != nil {
			t.Fatal(err)
		}
	}
	if err := cl.Close(); err != nil {
		t.Fatal(err)
	}
	if in.Lines, err = ReadCrawlLog(logPath); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "reports")
	if err := Write(out, in); err != nil {
		t.Fatal(err)
	}
	return out, in
}

func TestWriteGolden(t *testing.T) {
	dir, _ := writeFixture(t)
	for _, name := range reportFiles {
		t.Run(name, func(t *testing.T) {
			got, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			got = MaskTimes(got)
			golden := filepath.Join("testdata", "golden", name)
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("%s differs from %s (-want +got):\n%s", name, golden, diff)
			}
		})
	}
}

// TestWriteDeterministic: the same Input gives the same bytes, unmasked, and a second Write
// replaces the files.
func TestWriteDeterministic(t *testing.T) {
	in := fixture()
	a, b := t.TempDir(), t.TempDir()
	if err := Write(a, in); err != nil {
		t.Fatal(err)
	}
	if err := Write(b, in); err != nil {
		t.Fatal(err)
	}
	if err := Write(b, in); err != nil {
		t.Fatal(err)
	}
	for _, name := range reportFiles {
		x, _ := os.ReadFile(filepath.Join(a, name))
		y, _ := os.ReadFile(filepath.Join(b, name))
		if !bytes.Equal(x, y) {
			t.Errorf("%s differs between two writes", name)
		}
	}
	entries, _ := os.ReadDir(b)
	if len(entries) != len(reportFiles) {
		t.Errorf("%d files in the reports directory, want %d (temporary files left?)", len(entries), len(reportFiles))
	}
}

func TestMaskTimes(t *testing.T) {
	in := fixture()
	other := fixture()
	other.Ended = other.Ended.Add(17*time.Minute + 3*time.Second)
	other.Started = other.Started.Add(-time.Hour)
	a, b := t.TempDir(), t.TempDir()
	if err := Write(a, in); err != nil {
		t.Fatal(err)
	}
	if err := Write(b, other); err != nil {
		t.Fatal(err)
	}
	for _, name := range reportFiles {
		x, _ := os.ReadFile(filepath.Join(a, name))
		y, _ := os.ReadFile(filepath.Join(b, name))
		if name == CrawlReportFile || name == HTMLReportFile {
			if bytes.Equal(x, y) {
				t.Errorf("%s: unmasked reports of different durations are equal", name)
			}
		}
		if diff := cmp.Diff(string(MaskTimes(x)), string(MaskTimes(y))); diff != "" {
			t.Errorf("%s: masked reports differ:\n%s", name, diff)
		}
	}
}

// TestUnfinishedCrawl: a killed crawl (no end, no end reason) still gets consistent reports.
func TestUnfinishedCrawl(t *testing.T) {
	in := fixture()
	in.Ended, in.EndReason = time.Time{}, ""
	dir := t.TempDir()
	if err := Write(dir, in); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, CrawlReportFile))
	for _, want := range []string{"crawl status: Unfinished\n", "duration: 3s500ms\n"} {
		if !strings.Contains(string(got), want) {
			t.Errorf("crawl-report.txt lacks %q:\n%s", want, got)
		}
	}
}

func TestScopeReportJSON(t *testing.T) {
	dir, _ := writeFixture(t)
	data, err := os.ReadFile(filepath.Join(dir, ScopeReportJSONFile))
	if err != nil {
		t.Fatal(err)
	}
	var rep ScopeReport
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	rules := map[string]string{}
	counts := map[string]ScopeCounts{}
	for _, h := range rep.Hosts {
		rules[h.Host] = h.SuggestedRule
		c := h.ScopeCounts
		c.Reasons = nil
		counts[h.Host] = c
	}
	wantRules := map[string]string{
		"other.example.org":    "surt:http://(org,example,other,)/docs/",
		"news.example.net":     "surt:http://(net,example,news,",
		"twitter.com":          "surt:http://(com,twitter,",
		"intranet.example.com": "surt:http://(com,example,intranet,:8080)/app/",
		"docs.example.org":     "surt:http://(org,example,docs,)/other/",
		"ads.example.biz":      "surt:http://(biz,example,ads,)/track/",
		"www.example.com":      "", // max-hops and block: no accept rule brings them in
	}
	for host, want := range wantRules {
		if got := rules[host]; got != want {
			t.Errorf("%s: suggested rule %q, want %q", host, got, want)
		}
	}
	wantCounts := map[string]ScopeCounts{
		"www.example.com":  {Captured: 8, OutOfScope: 1, Robots: 1, Blocked: 1, Queued: 2},
		"docs.example.org": {Captured: 2, OutOfScope: 2, Blocked: 1},
		"down.example.net": {Failed: 1},
		"slow.example.com": {Queued: 1},
	}
	for host, want := range wantCounts {
		if diff := cmp.Diff(want, counts[host]); diff != "" {
			t.Errorf("%s counts (-want +got):\n%s", host, diff)
		}
	}
	wantTotals := ScopeCounts{Captured: 13, OutOfScope: 11, Robots: 1, Blocked: 2, Queued: 3, Failed: 1,
		Reasons: map[string]int64{"out-of-scope": 10, "max-hops": 1}}
	if diff := cmp.Diff(wantTotals, rep.Totals); diff != "" {
		t.Errorf("totals (-want +got):\n%s", diff)
	}
}

func TestSeedsReport(t *testing.T) {
	dir, _ := writeFixture(t)
	got, _ := os.ReadFile(filepath.Join(dir, SeedsReportFile))
	// Heritrix's order: never fetched, then negative codes, then positive codes descending.
	want := "[code] [status] [seed] [redirect]\n" +
		"0 NOTCRAWLED http://slow.example.com/\n" +
		"-6 NOTCRAWLED http://down.example.net/\n" +
		"301 CRAWLED http://example.com/ https://www.example.com/\n" +
		"200 CRAWLED https://docs.example.org/guide/\n"
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("seeds-report.txt (-want +got):\n%s", diff)
	}
}

func TestSuggestRule(t *testing.T) {
	rec := func(urls ...string) []*record {
		var rs []*record
		for _, u := range urls {
			rs = append(rs, &record{url: u, kind: OutcomeOutOfScope, reason: "out-of-scope"})
		}
		return rs
	}
	tests := []struct {
		name string
		in   []*record
		want string
	}{
		{"one directory", rec("http://a.example.org/x/1.html", "https://a.example.org/x/2.html"), "surt:http://(org,example,a,)/x/"},
		{"common parent", rec("http://a.example.org/x/y/1.html", "http://a.example.org/x/z/2.html"), "surt:http://(org,example,a,)/x/"},
		{"directory case folded", rec("http://A.example.org/Docs/a"), "surt:http://(org,example,a,)/docs/"},
		{"root only", rec("http://a.example.org/1.html", "http://a.example.org/x/2.html"), "surt:http://(org,example,a,"},
		{"not a prefix of segment", rec("http://a.example.org/abc/1", "http://a.example.org/abd/2"), "surt:http://(org,example,a,"},
		{"port", rec("http://a.example.org:8080/x/1"), "surt:http://(org,example,a,:8080)/x/"},
		{"default port dropped", rec("https://a.example.org:443/x/1"), "surt:http://(org,example,a,)/x/"},
		{"ports differ", rec("http://a.example.org:8080/x/1", "http://a.example.org/x/2"), "surt:http://(org,example,a,"},
		{"ipv4", rec("http://127.2.34.5/x/1"), "surt:http://(127.2.34.5)/x/"},
		{"ipv4 root", rec("http://127.2.34.5/1"), "surt:http://(127.2.34.5)/"},
		{"no url left out by scope", []*record{{url: "http://a.example.org/x", kind: OutcomeOutOfScope, reason: "max-hops"}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var loc location
			for _, r := range tt.in {
				loc.add(r)
			}
			if got, _ := loc.suggestion(); got != tt.want {
				t.Errorf("suggestion = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestHeritrixFormats(t *testing.T) {
	for _, tt := range []struct {
		got, want string
	}{
		// Values from Heritrix 3.3 reports (netarchivesuite test data) and ArchiveUtils' docs.
		{conventionalDuration(41968 * time.Millisecond), "41s968ms"},
		{conventionalDuration(0), "0ms"},
		{conventionalDuration(5*24*time.Hour + 12*time.Hour + 13*time.Minute + 12*time.Second + 113*time.Millisecond), "5d12h13m12s113ms"},
		{conventionalDuration(time.Hour), "1h"},
		{displayBytes(153399), "150 KiB"},
		{displayBytes(7405), "7.2 KiB"},
		{displayBytes(145994), "143 KiB"},
		{displayBytes(0), "0 B"},
		{displayBytes(1023), "1,023 B"},
		{displayBytes(5 << 30), "5.0 GiB"},
		{decimal(0.36, 2, 0), "0.36"},
		{decimal(12.5, 2, 0), "12.5"},
		{decimal(3, 2, 0), "3"},
		{decimal(1234567.891, 2, 0), "1,234,567.89"},
	} {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

func TestReadCrawlLogTorn(t *testing.T) {
	l := fixture().Lines[3]
	whole := l.Format() + "\n"
	tests := []struct {
		name string
		data string
		want int
	}{
		{"complete", whole + whole, 2},
		{"torn last line", whole + whole[:40], 1},
		{"torn last line in the JSON column", whole + whole[:len(whole)-5], 1},
		{"last line without newline", whole + strings.TrimSuffix(whole, "\n"), 2},
		{"torn line repaired mid-file", whole + whole[:40] + "\n" + whole, 2},
		{"empty", "", 0},
		{"blank lines", "\n\n" + whole + "\n", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "crawl.log")
			if err := os.WriteFile(p, []byte(tt.data), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := ReadCrawlLog(p)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tt.want {
				t.Fatalf("%d lines, want %d", len(got), tt.want)
			}
			for _, g := range got {
				if g.URL != l.URL || g.Size != l.Size {
					t.Errorf("line = %+v", g)
				}
			}
		})
	}
	if _, err := ReadCrawlLog(filepath.Join(t.TempDir(), "missing.log")); !os.IsNotExist(unwrapAll(err)) {
		t.Errorf("missing file: err = %v", err)
	}
}

func unwrapAll(err error) error {
	for {
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return err
		}
		err = u.Unwrap()
	}
}

// heritrixCrawlLogColumns are the crawl.log fields as Heritrix's documentation names them
// (wiki "Logs", crawl.log), in order; the 13th is the JSON "extra" column of Heritrix 3.
var heritrixCrawlLogColumns = []string{
	"Timestamp", "Fetch Status Code", "Document Size", "Downloaded URI", "Discovery Path",
	"Referrer", "Mime Type", "Worker Thread ID", "Fetch Timestamp", "SHA1 Digest",
	"Source Tag", "Annotations", "Extra",
}

// heritrixHostsColumns are the hosts-report.txt columns of Heritrix 3's HostsReport.
var heritrixHostsColumns = []string{
	"#urls", "#bytes", "host", "#robots", "#remaining", "#novel-urls", "#novel-bytes",
	"#dup-by-hash-urls", "#dup-by-hash-bytes", "#not-modified-urls", "#not-modified-bytes",
}

// parseColumns reads whitespace-separated rows into maps keyed by column name, as a
// generic Heritrix log/report reader does.
func parseColumns(t *testing.T, data string, names []string, header bool) []map[string]string {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(data, "\n"), "\n")
	if header {
		var got []string
		for _, f := range strings.Fields(lines[0]) {
			got = append(got, strings.Trim(f, "[]"))
		}
		if diff := cmp.Diff(names, got); diff != "" {
			t.Fatalf("header (-want +got):\n%s", diff)
		}
		lines = lines[1:]
	}
	var rows []map[string]string
	for _, ln := range lines {
		f := strings.Fields(ln)
		if len(f) != len(names) {
			t.Fatalf("%d columns, want %d: %q", len(f), len(names), ln)
		}
		row := map[string]string{}
		for i, n := range names {
			row[n] = f[i]
		}
		rows = append(rows, row)
	}
	return rows
}

// TestParseWithHeritrixColumns reads crawl.log and hosts-report.txt with the column
// definitions of Heritrix's documentation, and checks that the hosts report agrees with
// crawl.log.
func TestParseWithHeritrixColumns(t *testing.T) {
	dir, in := writeFixture(t)
	logData, err := os.ReadFile(filepath.Join(filepath.Dir(dir), "crawl.log"))
	if err != nil {
		t.Fatal(err)
	}
	logRows := parseColumns(t, string(logData), heritrixCrawlLogColumns, false)
	type hostFig struct{ urls, bytes, robots int64 }
	fromLog := map[string]*hostFig{}
	for i, row := range logRows {
		if _, err := time.Parse("2006-01-02T15:04:05.000Z", row["Timestamp"]); err != nil {
			t.Errorf("row %d: Timestamp %q: %v", i, row["Timestamp"], err)
		}
		if ft := row["Fetch Timestamp"]; ft != "-" {
			ts, dur, ok := strings.Cut(ft, "+")
			if _, err := time.Parse("20060102150405", ts[:14]); err != nil || len(ts) != 17 || !ok {
				t.Errorf("row %d: Fetch Timestamp %q", i, ft)
			}
			if _, err := strconv.Atoi(dur); err != nil {
				t.Errorf("row %d: fetch duration %q", i, dur)
			}
		}
		if !strings.HasPrefix(row["Worker Thread ID"], "#") {
			t.Errorf("row %d: Worker Thread ID %q", i, row["Worker Thread ID"])
		}
		if d := row["SHA1 Digest"]; d != "-" && !strings.HasPrefix(d, "sha1:") {
			t.Errorf("row %d: SHA1 Digest %q", i, d)
		}
		if !json.Valid([]byte(row["Extra"])) {
			t.Errorf("row %d: Extra %q is not JSON", i, row["Extra"])
		}
		if row["Downloaded URI"] != in.Lines[i].URL {
			t.Errorf("row %d: Downloaded URI %q, want %q", i, row["Downloaded URI"], in.Lines[i].URL)
		}
		u, err := url.Parse(row["Downloaded URI"])
		if err != nil {
			t.Fatal(err)
		}
		code, err := strconv.Atoi(row["Fetch Status Code"])
		if err != nil {
			t.Fatalf("row %d: status %q", i, row["Fetch Status Code"])
		}
		h := fromLog[u.Hostname()]
		if h == nil {
			h = &hostFig{}
			fromLog[u.Hostname()] = h
		}
		switch {
		case code > 0:
			h.urls++
			// Heritrix's reports count content sizes (headers included), not column 3.
			var extra map[string]any
			if err := json.Unmarshal([]byte(row["Extra"]), &extra); err != nil {
				t.Fatalf("row %d: Extra %q: %v", i, row["Extra"], err)
			}
			n, ok := extra[ExtraContentSize].(float64)
			if !ok {
				t.Fatalf("row %d: no %s in %q", i, ExtraContentSize, row["Extra"])
			}
			if size, err := strconv.ParseInt(row["Document Size"], 10, 64); err != nil || size > int64(n) {
				t.Errorf("row %d: Document Size %q, content size %v", i, row["Document Size"], n)
			}
			h.bytes += int64(n)
		case code == status.Robots:
			h.robots++
		}
	}

	hostsData, err := os.ReadFile(filepath.Join(dir, HostsReportFile))
	if err != nil {
		t.Fatal(err)
	}
	hostRows := parseColumns(t, string(hostsData), heritrixHostsColumns, true)
	seen := map[string]bool{}
	for _, row := range hostRows {
		host := row["host"]
		seen[host] = true
		num := func(col string) int64 {
			n, err := strconv.ParseInt(row[col], 10, 64)
			if err != nil {
				t.Fatalf("%s: %s = %q", host, col, row[col])
			}
			return n
		}
		want := fromLog[host]
		if want == nil {
			want = &hostFig{}
		}
		if num("#urls") != want.urls || num("#bytes") != want.bytes || num("#robots") != want.robots {
			t.Errorf("%s: urls/bytes/robots = %d/%d/%d, crawl.log says %d/%d/%d", host,
				num("#urls"), num("#bytes"), num("#robots"), want.urls, want.bytes, want.robots)
		}
		if n := num("#novel-urls") + num("#dup-by-hash-urls") + num("#not-modified-urls"); n != num("#urls") {
			t.Errorf("%s: novel+dup+not-modified = %d, #urls = %d", host, n, num("#urls"))
		}
		if n := num("#novel-bytes") + num("#dup-by-hash-bytes") + num("#not-modified-bytes"); n != num("#bytes") {
			t.Errorf("%s: novel+dup+not-modified bytes = %d, #bytes = %d", host, n, num("#bytes"))
		}
	}
	for host, f := range fromLog {
		if f.urls > 0 && !seen[host] {
			t.Errorf("host %s with %d captures missing from hosts-report.txt", host, f.urls)
		}
	}
	if seen["other.example.org"] {
		t.Error("a host only ever out of scope is in hosts-report.txt")
	}
	if got := hostRows[0]["host"]; got != "www.example.com" {
		t.Errorf("first host %q, want the one with most URLs", got)
	}
	if !seen["slow.example.com"] || !seen["down.example.net"] {
		t.Error("hosts with only queued or failed URLs are missing (Heritrix lists zero-success hosts)")
	}
}

// variedInput is a crawl of about n URLs over many hosts with every outcome, seeds that
// redirect, repeated lines, lines without a frontier entry and frontier entries in no order.
func variedInput(n int) Input {
	r := rand.New(rand.NewPCG(7, 9))
	in := fixture()
	t0 := in.Started
	for i := range 12 {
		sd := "https://host" + strconv.Itoa(i) + ".example.com/"
		in.Seeds = append(in.Seeds, SeedInfo{URL: sd, Type: "standard"})
		code := []int{200, 301, 302, status.DNSFailed}[i%4]
		in.Lines = append(in.Lines, Line{Time: t0, Status: code, Size: 100, URL: sd, Seed: sd, MIME: "text/html"})
		in.URLs = append(in.URLs, URLState{URL: sd, State: status.Done, Status: code, Seed: sd})
		if code == 301 || code == 302 {
			// Two targets: the frontier's, met first, wins over the crawl.log-only one.
			in.URLs = append(in.URLs, URLState{URL: sd + "b", State: status.Queued, Hops: "R", Via: sd, Seed: sd})
			in.Lines = append(in.Lines, Line{Time: t0, Status: 302, Size: 10, URL: sd + "a", Hops: "R", Via: sd, Seed: sd},
				Line{Time: t0, Status: 200, Size: 10, URL: sd + "a2", Hops: "RR", Via: sd + "a", Seed: sd})
		}
	}
	mimes := []string{"text/html", "image/png", "text/css; charset=utf-8", "", "IMAGE/JPEG"}
	reasons := []string{"out-of-scope", "max-hops", "trap", "block:contains:/x", "block", "robots", ""}
	for i := range n {
		host := "host" + strconv.Itoa(r.IntN(40)) + ".example.com"
		if i%25 == 0 {
			host += ":8080"
		}
		u := "https://" + host + "/d" + strconv.Itoa(r.IntN(9)) + "/e" + strconv.Itoa(r.IntN(3)) + "/p" + strconv.Itoa(i) + ".html"
		if i%500 == 0 {
			u = "http://[::1" // does not parse
		}
		seed, via := in.Seeds[r.IntN(len(in.Seeds))].URL, "https://"+host+"/"
		hops := []string{"L", "LL", "LLE", "55+LLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLL"}[r.IntN(4)]
		at := t0.Add(time.Duration(r.IntN(3600000)) * time.Millisecond)
		switch k := r.IntN(100); {
		case k < 55:
			code := []int{200, 200, 404, 301, 304, 500}[r.IntN(6)]
			l := Line{Time: at, Status: code, Size: int64(r.IntN(50000)), URL: u, Hops: hops, Via: via,
				MIME: mimes[r.IntN(len(mimes))], Seed: seed, Digest: "sha1:ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"}
			if r.IntN(10) == 0 {
				l.Annotations = []string{"duplicate:digest"}
			}
			if r.IntN(3) == 0 {
				l.Extra = map[string]any{ExtraContentSize: float64(l.Size + 300)}
			}
			in.Lines = append(in.Lines, l)
			if r.IntN(8) != 0 {
				in.URLs = append(in.URLs, URLState{URL: u, Host: host, State: status.Done, Status: code, Hops: "LLLL", Via: via, Seed: seed})
			}
			if r.IntN(20) == 0 {
				l.Time, l.Status = at.Add(time.Minute), 200
				in.Lines = append(in.Lines, l)
			}
		case k < 70:
			in.URLs = append(in.URLs, URLState{URL: u, Host: host, State: status.Rejected, Reason: reasons[r.IntN(len(reasons))], Hops: hops, Via: via, Seed: seed})
		case k < 75:
			in.Lines = append(in.Lines, Line{Time: at, Status: []int{status.OutOfScope, status.TooManyHops, status.Blocked}[r.IntN(3)],
				Size: -1, URL: u, Hops: hops, Via: via, Seed: seed, Annotations: []string{"scope:" + reasons[r.IntN(len(reasons))]}})
		case k < 80:
			in.Lines = append(in.Lines, Line{Time: at, Status: status.Robots, Size: -1, URL: u, Hops: hops, Via: via, Seed: seed, Annotations: []string{"robots"}})
		case k < 92:
			in.URLs = append(in.URLs, URLState{URL: u, Host: host, State: []status.State{status.Queued, status.Inflight}[r.IntN(2)], Hops: hops, Via: via, Seed: seed})
		default:
			in.URLs = append(in.URLs, URLState{URL: u, Host: host, State: status.Failed, Status: status.Timeout, Hops: hops, Via: via, Seed: seed})
			in.Lines = append(in.Lines, Line{Time: at, Status: status.Timeout, Size: -1, URL: u, Hops: hops, Via: via, Seed: seed})
		}
	}
	r.Shuffle(len(in.URLs), func(i, j int) { in.URLs[i], in.URLs[j] = in.URLs[j], in.URLs[i] })
	return in
}

// readReports returns the content of every report file in dir, and fails if dir holds
// anything else.
func readReports(t *testing.T, dir string) map[string]string {
	t.Helper()
	got := map[string]string{}
	for _, name := range reportFiles {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		got[name] = string(b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != len(reportFiles) {
		t.Errorf("%d entries in %s, want %d (temporary files left?)", len(entries), dir, len(reportFiles))
	}
	return got
}

// TestWriteStreamed: reports made from crawl.log read from disk and the frontier's URLs
// streamed through EachURL, sorted in runs of a few KiB, are the bytes of those
// made from the same lines and URLs in memory.
func TestWriteStreamed(t *testing.T) {
	tests := []struct {
		name string
		in   Input
	}{
		{"fixture", fixture()},
		{"varied", variedInput(4000)},
		{"empty", Input{Collection: "empty"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			logPath := filepath.Join(dir, "crawl.log")
			cl, err := OpenCrawlLog(logPath)
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range tt.in.Lines {
				if err := cl.Write(l); err != nil {
					t.Fatal(err)
				}
			}
			if err := cl.Close(); err != nil {
				t.Fatal(err)
			}
			mem := tt.in
			if mem.Lines, err = ReadCrawlLog(logPath); err != nil {
				t.Fatal(err)
			}
			if err := Write(filepath.Join(dir, "mem"), mem); err != nil {
				t.Fatal(err)
			}
			want := readReports(t, filepath.Join(dir, "mem"))

			streamed := tt.in
			urls := tt.in.URLs
			streamed.Lines, streamed.CrawlLog = nil, logPath
			streamed.URLs = urls[:len(urls)/3]
			streamed.EachURL = func(fn func(URLState) error) error {
				for _, u := range urls[len(urls)/3:] {
					if err := fn(u); err != nil {
						return err
					}
				}
				return nil
			}
			for _, budget := range []int{4 << 10, 64 << 10} {
				out := filepath.Join(dir, "streamed-"+strconv.Itoa(budget))
				if err := write(out, streamed, budget); err != nil {
					t.Fatal(err)
				}
				got := readReports(t, out)
				for _, name := range reportFiles {
					if diff := cmp.Diff(want[name], got[name]); diff != "" {
						t.Errorf("budget %d: %s (-in memory +streamed):\n%s", budget, name, diff)
					}
				}
			}
		})
	}
}

// TestScopeReportJSONEncoding: scope-report.json, written piece by piece, is what
// json.MarshalIndent makes of the ScopeReport it holds.
func TestScopeReportJSONEncoding(t *testing.T) {
	for _, in := range []Input{fixture(), variedInput(500), {Collection: "<empty> & \"quoted\""}} {
		dir := t.TempDir()
		if err := write(dir, in, 1<<10); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(dir, ScopeReportJSONFile))
		if err != nil {
			t.Fatal(err)
		}
		var rep ScopeReport
		if err := json.Unmarshal(got, &rep); err != nil {
			t.Fatal(err)
		}
		want, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(want)+"\n", string(got)); diff != "" {
			t.Errorf("%s: scope-report.json (-MarshalIndent +written):\n%s", in.Collection, diff)
		}
	}
}

// TestWriteErrors: an error of EachURL stops Write and is returned; temporary files, its own
// and those a killed Write left, are removed.
func TestWriteErrors(t *testing.T) {
	dir := t.TempDir()
	stale := filepath.Join(dir, ".sort-12345")
	if err := os.MkdirAll(stale, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(stale, "run-1"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	errStore := errors.New("store failed")
	in := variedInput(300)
	in.EachURL = func(fn func(URLState) error) error {
		if err := fn(URLState{URL: "http://a.example.com/"}); err != nil {
			return err
		}
		return errStore
	}
	if err := write(dir, in, 1<<10); !errors.Is(err, errStore) {
		t.Errorf("err = %v, want the error of EachURL", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("%d entries left in the reports directory, want none", len(entries))
	}
	in.EachURL = nil
	in.CrawlLog = filepath.Join(dir, "no-such-crawl.log")
	if err := write(dir, in, 1<<10); err != nil {
		t.Errorf("missing crawl.log: %v", err)
	}
}

// TestSeedRedirectMetFirst: of two redirect targets of a seed, the seeds report names the one
// met first: a frontier entry before a URL only in crawl.log, lines in file order.
func TestSeedRedirectMetFirst(t *testing.T) {
	const seed = "http://example.com/"
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	seedLine := Line{Time: at, Status: 301, Size: 0, URL: seed, Seed: seed}
	target := func(u string) Line {
		return Line{Time: at, Status: 200, Size: 10, URL: seed + u, Hops: "R", Via: seed, Seed: seed}
	}
	tests := []struct {
		name string
		in   Input
		want string
	}{
		{"frontier first", Input{
			Lines: []Line{seedLine, target("a")},
			URLs:  []URLState{{URL: seed + "b", State: status.Queued, Hops: "R", Via: seed, Seed: seed}},
		}, seed + "b"},
		{"lines in order", Input{Lines: []Line{seedLine, target("b"), target("a")}}, seed + "b"},
		{"lines in order, other way", Input{Lines: []Line{seedLine, target("a"), target("b")}}, seed + "a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.in.Seeds = []SeedInfo{{URL: seed, Type: "standard"}}
			dir := t.TempDir()
			if err := write(dir, tt.in, 64); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(filepath.Join(dir, SeedsReportFile))
			if err != nil {
				t.Fatal(err)
			}
			want := seedsHeader + "301 CRAWLED " + seed + " " + tt.want + "\n"
			if string(got) != want {
				t.Errorf("seeds-report.txt:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}
