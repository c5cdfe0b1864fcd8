package report

import (
	"bytes"
	"html"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/status"
)

// timelineText is the timeline as text lines, "START captured failed bytes" per interval with
// lines.
func timelineText(t *timeline) []string {
	var out []string
	for k := t.lo; len(t.ivs) > 0 && k <= t.hi; k++ {
		if iv, ok := t.ivs[k]; ok {
			from := t.origin.Add(time.Duration(k*t.width) * time.Second)
			out = append(out, fmtTime(from)+" "+i64(iv.captured)+" "+i64(iv.failed)+" "+strconv.FormatInt(iv.bytes, 10))
		}
	}
	return out
}

func TestTimeline(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	at := func(sec float64) time.Time { return t0.Add(time.Duration(sec * float64(time.Second))) }
	ok := func(sec float64, size int64) Line {
		return Line{Time: at(sec), Status: 200, Size: size, URL: "http://a.test/" + strconv.FormatFloat(sec, 'f', -1, 64)}
	}
	fail := func(sec float64) Line {
		return Line{Time: at(sec), Status: status.ConnectFailed, Size: -1, URL: "http://b.test/"}
	}
	out := func(sec float64) Line {
		return Line{Time: at(sec), Status: status.OutOfScope, Size: -1, URL: "http://c.test/"}
	}
	for _, tc := range []struct {
		name   string
		origin time.Time
		lines  []Line
		width  int64
		want   []string
	}{
		{"none", t0, nil, 0, nil},
		{"out of scope does not count", t0, []Line{out(1), out(2)}, 0, nil},
		{"one second each", t0, []Line{ok(0.5, 10), ok(0.9, 5), fail(2.1), ok(2.5, 1)}, 1, []string{
			"2026-03-01 10:00:00Z 2 0 15", "2026-03-01 10:00:02Z 1 1 1"}},
		{"origin from the first line", time.Time{}, []Line{ok(3.7, 1), ok(4.2, 2)}, 1, []string{
			"2026-03-01 10:00:03Z 1 0 1", "2026-03-01 10:00:04Z 1 0 2"}},
		{"line before the start", t0, []Line{ok(-1.5, 7), ok(0, 1)}, 1, []string{
			"2026-03-01 09:59:58Z 1 0 7", "2026-03-01 10:00:00Z 1 0 1"}},
		// 120 s fit one-second intervals; 121 s need two-second ones; 1000 s need 16 s.
		{"fits", t0, []Line{ok(0, 1), ok(119.9, 1)}, 1, []string{
			"2026-03-01 10:00:00Z 1 0 1", "2026-03-01 10:01:59Z 1 0 1"}},
		{"widens", t0, []Line{ok(0, 1), ok(1, 1), ok(120, 1)}, 2, []string{
			"2026-03-01 10:00:00Z 2 0 2", "2026-03-01 10:02:00Z 1 0 1"}},
		{"widens a lot", t0, []Line{ok(1000, 4), ok(0, 1), fail(15.9), ok(16, 2)}, 16, []string{
			"2026-03-01 10:00:00Z 1 1 1", "2026-03-01 10:00:16Z 1 0 2", "2026-03-01 10:16:32Z 1 0 4"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var tl timeline
			tl.start(tc.origin)
			for i := range tc.lines {
				tl.add(&tc.lines[i])
			}
			if diff := cmp.Diff(tc.want, timelineText(&tl)); diff != "" || tl.width != tc.width {
				t.Errorf("width %d, want %d; intervals (-want +got):\n%s", tl.width, tc.width, diff)
			}
			if h := tl.html(); (h == nil) != (len(tc.want) == 0) || (h != nil && len(h.Bars) != len(tc.want)) {
				t.Errorf("html: %+v, want %d bars", h, len(tc.want))
			}
		})
	}
}

// TestTimelineOrder: the same lines in any order give the same timeline, and it never holds
// more than timelineMax intervals.
func TestTimelineOrder(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	rng := rand.New(rand.NewPCG(1, 2))
	var lines []Line
	for i := range 5000 {
		st := 200
		if i%7 == 0 {
			st = status.Timeout
		}
		lines = append(lines, Line{Time: t0.Add(time.Duration(rng.IntN(3*3600)) * time.Second), Status: st, Size: int64(i), URL: "http://a.test/"})
	}
	var want []string
	for round := range 3 {
		var tl timeline
		tl.start(t0)
		for i := range lines {
			tl.add(&lines[i])
			if n := tl.hi - tl.lo + 1; n > timelineMax || len(tl.ivs) > timelineMax {
				t.Fatalf("%d intervals, %d kept; at most %d", n, len(tl.ivs), timelineMax)
			}
		}
		got := timelineText(&tl)
		if round == 0 {
			want = got
		} else if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("order %d (-first +this):\n%s", round, diff)
		}
		rng.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
	}
}

// TestHTMLTimelineFixture: report.html's timeline of the fixture (masked in the golden file):
// every captured and failed line counted once.
func TestHTMLTimelineFixture(t *testing.T) {
	dir, _ := writeFixture(t)
	b, err := os.ReadFile(filepath.Join(dir, HTMLReportFile))
	if err != nil {
		t.Fatal(err)
	}
	fig := regexp.MustCompile(`(?s)<figure id="timeline">.*?</figure>`).Find(b)
	if fig == nil {
		t.Fatal("no timeline")
	}
	titles := regexp.MustCompile(`<title>([^<]*)</title>`).FindAllSubmatch(fig, -1)
	var got []string
	for _, m := range titles {
		got = append(got, html.UnescapeString(string(m[1])))
	}
	// The fixture's lines: 13 captured and 1 failed (DNS), from 1.0 to 3.5 s after the start;
	// bytes are content sizes (the body and 200 bytes of headers).
	want := []string{
		"2026-03-01 10:00:01Z +1s: 4 captured, 0 failed, 6.2 KiB", // 120+0+310+5120 + 4×200
		"2026-03-01 10:00:02Z +1s: 5 captured, 0 failed, 129 KiB", // 2048+40960+81920+3072+3072 + 5×200
		"2026-03-01 10:00:03Z +1s: 4 captured, 1 failed, 14 KiB",  // 512+7000+6000+0 + 4×200
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("timeline bars (-want +got):\n%s", diff)
	}
	if !bytes.Contains(fig, []byte("13 captured, 1 failed")) {
		t.Errorf("timeline caption: %s", fig[:min(len(fig), 300)])
	}
}

// TestFailedList: report.html lists the first htmlMaxFailed failed URLs by URL, says how many
// more there are, and failed.txt lists them all.
func TestFailedList(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	for _, n := range []int{0, 3, htmlMaxFailed, htmlMaxFailed + 37} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			in := Input{Collection: "f", Started: t0}
			var want []string
			for i := range n {
				u := "http://down" + strconv.Itoa(1000+i) + ".test/"
				in.Lines = append(in.Lines, Line{Time: t0.Add(time.Second), Status: status.ConnectFailed, Size: -1, URL: u, Hops: "L", Via: "http://a.test/"})
				want = append(want, "-2 "+u+" L http://a.test/")
			}
			in.Lines = append(in.Lines, Line{Time: t0.Add(time.Second), Status: 200, Size: 10, URL: "http://a.test/"})
			dir, _ := writeInput(t, in)
			txt, err := os.ReadFile(filepath.Join(dir, FailedFile))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			if len(txt) > 0 {
				got = strings.Split(strings.TrimSuffix(string(txt), "\n"), "\n")
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s (-want +got):\n%s", FailedFile, diff)
			}
			page, _ := os.ReadFile(filepath.Join(dir, HTMLReportFile))
			rows := regexp.MustCompile(`<td class="u">(http://down[^<]*)</td>`).FindAllSubmatch(page, -1)
			if len(rows) != min(n, htmlMaxFailed) {
				t.Errorf("%d failed rows in report.html, want %d", len(rows), min(n, htmlMaxFailed))
			}
			more := n - htmlMaxFailed
			if hasMore := bytes.Contains(page, []byte(strconv.Itoa(more)+` more in <a href="failed.txt">`)); hasMore != (more > 0) {
				t.Errorf("report.html says %d more: %v", more, hasMore)
			}
		})
	}
}

// TestTimelineExported: Timeline gives the intervals report.html draws, empty ones included.
func TestTimelineExported(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	tl := NewTimeline(t0)
	if w, ivs := tl.Intervals(); w != 0 || ivs != nil {
		t.Errorf("empty: %v %v", w, ivs)
	}
	for _, l := range []Line{
		{Time: t0.Add(1500 * time.Millisecond), Status: 200, Size: 100, URL: "http://a.test/"},
		{Time: t0.Add(3 * time.Second), Status: status.DNSFailed, Size: -1, URL: "http://b.test/"},
		{Time: t0.Add(3 * time.Second), Status: status.Robots, Size: -1, URL: "http://a.test/x"},
	} {
		tl.Add(l)
	}
	w, ivs := tl.Intervals()
	want := []Interval{
		{Start: t0.Add(time.Second), Captured: 1, Bytes: 100},
		{Start: t0.Add(2 * time.Second)},
		{Start: t0.Add(3 * time.Second), Failed: 1},
	}
	if diff := cmp.Diff(want, ivs); diff != "" || w != time.Second {
		t.Errorf("interval %v; (-want +got):\n%s", w, diff)
	}
}
