package report

import (
	"context"
	"encoding/json"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/amber-crawler/amber/status"
)

// chromiumPath returns the Chromium binary, skipping the test with -short or when there is
// none (failing instead when CI=true: in CI a missing Chromium is a failure).
func chromiumPath(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("starts Chromium; skipped with -short")
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium not found (CI=true)")
	}
	t.Skip("chromium not found")
	return ""
}

// consoleLine matches a console message Chromium logs with --enable-logging=stderr. Chromium
// logs every console level as INFO, so any message counts: report.html writes none.
var consoleLine = regexp.MustCompile(`(?m)^\[[^\]]*:CONSOLE[^\]]*\] .*$`)

// loadInChromium loads a file in headless Chromium, lets its scripts run, and returns the
// DOM afterwards and the console messages.
func loadInChromium(t *testing.T, file, fragment string, flags ...string) (dom string, console []string) {
	t.Helper()
	bin := chromiumPath(t)
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	abs, err := filepath.Abs(file)
	if err != nil {
		t.Fatal(err)
	}
	args := append([]string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir(), "--enable-logging=stderr", "--v=0",
		"--virtual-time-budget=3000", "--dump-dom"}, flags...)
	cmd := exec.CommandContext(ctx, bin, append(args, "file://"+abs+fragment)...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	return stdout.String(), consoleLine.FindAllString(stderr.String(), -1)
}

// TestConsoleDetection checks that the console check of TestHTMLInChromium sees errors.
func TestConsoleDetection(t *testing.T) {
	p := filepath.Join(t.TempDir(), "bad.html")
	os.WriteFile(p, []byte(`<!DOCTYPE html><title>x</title><script>console.error("boom"); missingFunction();</script>`), 0o644)
	_, console := loadInChromium(t, p, "")
	joined := strings.Join(console, "\n")
	if !strings.Contains(joined, "boom") || !strings.Contains(joined, "Uncaught ReferenceError") {
		t.Errorf("console errors not detected; console = %q", console)
	}
}

func TestHTMLInChromium(t *testing.T) {
	dir, _ := writeFixture(t)
	page := filepath.Join(dir, HTMLReportFile)

	t.Run("loads", func(t *testing.T) {
		dom, console := loadInChromium(t, page, "")
		if len(console) > 0 {
			t.Errorf("console messages:\n%s", strings.Join(console, "\n"))
		}
		if !strings.Contains(dom, `data-ready="true"`) {
			t.Error("the page's script did not run to its end")
		}
		for id, want := range map[string]string{
			"fig-seeds": "2 / 4", "fig-captured": "13", "fig-bytes": "149 KiB", "fig-hosts": "6",
			"fig-out-of-scope": "11", "fig-blocked": "2", "fig-robots": "1", "fig-queued": "3", "fig-failed": "1",
		} {
			re := regexp.MustCompile(`id="` + id + `"><div class="v"[^>]*>([^<]*)<`)
			m := re.FindStringSubmatch(dom)
			if m == nil || m[1] != want {
				t.Errorf("figure %s = %v, want %q", id, m, want)
			}
		}
		for _, id := range []string{"chart-status", "chart-mime", "chart-hosts-urls", "chart-hosts-bytes"} {
			i := strings.Index(dom, `id="`+id+`"`)
			if i < 0 {
				t.Errorf("chart %s missing", id)
				continue
			}
			fig := dom[i:]
			fig = fig[:strings.Index(fig, "</figure>")]
			if n := strings.Count(fig, "<rect"); n == 0 {
				t.Errorf("chart %s has no bars", id)
			}
		}
		if !strings.Contains(dom, `<span id="shown-count">13</span>`) {
			t.Errorf("unfiltered count wrong: %s", regexp.MustCompile(`<span id="shown-count">[^<]*`).FindString(dom))
		}
		if regexp.MustCompile(`(src|href)="https?:`).MatchString(dom) {
			t.Error("the page references an external resource")
		}
	})

	t.Run("filter", func(t *testing.T) {
		dom, console := loadInChromium(t, page, "#host=docs.example.org&reason=out-of-scope")
		if len(console) > 0 {
			t.Errorf("console messages:\n%s", strings.Join(console, "\n"))
		}
		if !strings.Contains(dom, `<span id="shown-count">2</span>`) {
			t.Errorf("filtered count wrong: %s", regexp.MustCompile(`<span id="shown-count">[^<]*`).FindString(dom))
		}
		rows := regexp.MustCompile(`<tr data-host="([^"]*)" data-reason="([^"]*)"( hidden="")?>`).FindAllStringSubmatch(dom, -1)
		if len(rows) != 13 {
			t.Fatalf("%d URL rows, want 13", len(rows))
		}
		for _, r := range rows {
			visible := r[3] == ""
			want := r[1] == "docs.example.org" && r[2] == "out-of-scope"
			if visible != want {
				t.Errorf("row %s %s: visible %v, want %v", r[1], r[2], visible, want)
			}
		}
	})
}

// TestHTMLLayoutInChromium: a hop path of hundreds of letters and a URL of hundreds of
// characters do not squeeze the URLs-left-out table or widen the page: the hop path is cut
// (whole in its title), the URL wraps, and the page has no horizontal scroll bar.
func TestHTMLLayoutInChromium(t *testing.T) {
	long := strings.Repeat("L", 400) + "E"
	u := "https://www.example.com/" + strings.Repeat("segment/", 60) + "page.html?" + strings.Repeat("k=v&", 40)
	in := fixture()
	in.URLs = append([]URLState{{URL: u, State: status.Rejected, Reason: "max-hops", Hops: long, Via: "https://www.example.com/", Seed: "http://example.com/"}}, in.URLs...)
	in.Lines = append(in.Lines, Line{Time: in.Started.Add(4 * time.Second), Status: status.Timeout, Size: -1, URL: u + "x", Hops: long})
	dir, _ := writeInput(t, in)
	b, err := os.ReadFile(filepath.Join(dir, HTMLReportFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `title="`+long+`"`) {
		t.Error("the whole hop path is not in a title")
	}
	const measure = `<script>
(function () {
  function w(el) { return Math.round(el.getBoundingClientRect().width); }
  var out = {page: document.documentElement.scrollWidth, view: document.documentElement.clientWidth};
  var row = document.querySelector('#scope-urls tr[data-reason="max-hops"]');
  out.url = w(row.cells[3]); out.hops = w(row.cells[2]); out.host = w(row.cells[0]);
  var f = document.querySelector('#failed-urls tbody tr');
  out.failedURL = w(f.cells[3]); out.failedHops = w(f.cells[2]);
  document.body.setAttribute('data-measure', JSON.stringify(out));
})();
</script>
</body>`
	page := filepath.Join(dir, "measure.html")
	if err := os.WriteFile(page, []byte(strings.Replace(string(b), "</body>", measure, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	dom, console := loadInChromium(t, page, "", "--window-size=1100,800")
	if len(console) > 0 {
		t.Errorf("console messages:\n%s", strings.Join(console, "\n"))
	}
	m := regexp.MustCompile(`data-measure="([^"]*)"`).FindStringSubmatch(dom)
	if m == nil {
		t.Fatal("the measuring script did not run")
	}
	var got struct{ Page, View, URL, Hops, Host, FailedURL, FailedHops int }
	if err := json.Unmarshal([]byte(html.UnescapeString(m[1])), &got); err != nil {
		t.Fatal(err)
	}
	if got.Page > got.View || got.URL < 200 || got.Hops > 150 || got.Host < 60 || got.FailedURL < 200 || got.FailedHops > 150 {
		t.Errorf("layout %+v: want page width <= view, URL columns >= 200px, hop columns <= 150px, host >= 60px", got)
	}
}
