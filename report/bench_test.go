package report

import (
	"strconv"
	"testing"
	"time"

	"github.com/amber-crawler/amber/status"
)

// benchInput is a crawl of n URLs over 200 hosts: 70% captured, 10% out of scope, 5% blocked
// by robots.txt, 5% blocked by a rule, 8% queued, 2% failed.
func benchInput(n int) Input {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	in := Input{Collection: "bench", Started: t0, Ended: t0.Add(time.Hour), EndReason: EndFinished}
	mimes := []string{"text/html", "image/png", "text/css", "application/javascript", "image/jpeg"}
	for i := range 20 {
		in.Seeds = append(in.Seeds, SeedInfo{URL: "https://host" + strconv.Itoa(i) + ".example.com/", Type: "standard"})
	}
	for i := range n {
		host := "host" + strconv.Itoa(i%200) + ".example.com"
		u := "https://" + host + "/dir" + strconv.Itoa(i%37) + "/page" + strconv.Itoa(i) + ".html"
		seed := in.Seeds[i%20].URL
		via := "https://" + host + "/"
		switch r := i % 100; {
		case r < 70:
			in.Lines = append(in.Lines, Line{Time: t0.Add(time.Duration(i) * time.Millisecond), Status: []int{200, 200, 200, 404, 301}[i%5],
				Size: int64(1000 + i%50000), URL: u, Hops: "LL", Via: via, MIME: mimes[i%5], Seed: seed,
				Digest: "sha1:ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"})
			in.URLs = append(in.URLs, URLState{URL: u, State: status.Done, Status: 200, Hops: "LL", Via: via, Seed: seed})
		case r < 80:
			in.URLs = append(in.URLs, URLState{URL: u, State: status.Rejected, Reason: "out-of-scope", Hops: "LLL", Via: via, Seed: seed})
		case r < 85:
			in.Lines = append(in.Lines, Line{Time: t0, Status: status.Robots, Size: -1, URL: u, Hops: "LL", Via: via, Seed: seed})
		case r < 90:
			in.URLs = append(in.URLs, URLState{URL: u, State: status.Rejected, Reason: "block:contains:/dir", Hops: "LL", Via: via, Seed: seed})
		case r < 98:
			in.URLs = append(in.URLs, URLState{URL: u, State: status.Queued, Hops: "LL", Via: via, Seed: seed})
		default:
			in.URLs = append(in.URLs, URLState{URL: u, State: status.Failed, Status: status.Timeout, Hops: "LL", Via: via, Seed: seed})
		}
	}
	return in
}

// BenchmarkWrite100k writes every report of a 100,000-URL crawl.
func BenchmarkWrite100k(b *testing.B) {
	in := benchInput(100_000)
	dir := b.TempDir()
	b.ReportAllocs()
	for b.Loop() {
		if err := Write(dir, in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEventsURLFetch writes url-fetch events.
func BenchmarkEventsURLFetch(b *testing.B) {
	ev, err := OpenEvents(b.TempDir()+"/events.jsonl", EventsConfig{CrawlID: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	defer ev.Close()
	u := URLInfo{URL: "https://www.example.com/a/b.html", Hops: "LL", Via: "https://www.example.com/", Seed: "https://www.example.com/"}
	b.ReportAllocs()
	for b.Loop() {
		if err := ev.URLFetch(u, 200, 5120, time.Millisecond); err != nil {
			b.Fatal(err)
		}
	}
}
