package testsite

import (
	"bytes"
	"compress/gzip"
	"net/http/httptest"
	"regexp"
	"testing"
)

// get serves path from g and returns the status and body.
func get(g Generated, path string) (int, []byte) {
	rec := httptest.NewRecorder()
	g.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	return rec.Code, rec.Body.Bytes()
}

// gzipRatio is len(b) over its gzip (level 6) size.
func gzipRatio(t *testing.T, b []byte) float64 {
	t.Helper()
	var z bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&z, 6)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return float64(len(b)) / float64(z.Len())
}

var hrefRE = regexp.MustCompile(`<a href="(/[^"]*)"`)

func TestGeneratedPageSize(t *testing.T) {
	// Written English compresses 2.3 to 2.7 to 1 in 5 KB, about 2.9 in 35 KB (gzip -6 of
	// Debian's GPL-3 and Apache-2.0 texts); HTML markup adds a little.
	tests := []struct {
		size               int
		minRatio, maxRatio float64
	}{
		{5000, 2.0, 2.8},
		{30000, 2.5, 3.4},
	}
	for _, tt := range tests {
		g := Generated{Pages: 10000, PageSize: tt.size}
		var total, sum int
		for _, i := range []int{0, 1, 77, 4999, 9999} {
			code, body := get(g, PageURL(i))
			if code != 200 {
				t.Fatalf("size %d page %d: status %d", tt.size, i, code)
			}
			if n := len(body); n < tt.size || n > tt.size*13/10 {
				t.Errorf("size %d page %d: %d bytes", tt.size, i, n)
			}
			if _, again := get(g, PageURL(i)); !bytes.Equal(body, again) {
				t.Errorf("size %d page %d: not the same when served again", tt.size, i)
			}
			links := hrefRE.FindAllSubmatch(body, -1)
			// Ten in the navigation (those past the last page left out) and the footer's home.
			if i < 4999 && len(links) != 11 {
				t.Errorf("size %d page %d: %d links, want 11", tt.size, i, len(links))
			}
			for _, l := range links {
				if c, _ := get(g, string(l[1])); c != 200 {
					t.Errorf("size %d page %d: link %s answers %d", tt.size, i, l[1], c)
				}
			}
			total += len(body)
			sum += int(gzipRatio(t, body) * 1000)
		}
		if r := float64(sum) / 5000; r < tt.minRatio || r > tt.maxRatio {
			t.Errorf("size %d: pages compress %.2f to 1, want %.1f to %.1f", tt.size, r, tt.minRatio, tt.maxRatio)
		}
		_, a := get(g, PageURL(5))
		_, b := get(g, PageURL(6))
		if bytes.Equal(a, b) {
			t.Errorf("size %d: pages 5 and 6 are the same", tt.size)
		}
		if code, css := get(g, "/style.css"); code != 200 || len(css) < 2500 || !bytes.Contains(css, []byte("url(/img/0.png)")) {
			t.Errorf("size %d: style.css %d, %d bytes", tt.size, code, len(css))
		}
		code, img := get(g, "/img/3.png")
		if code != 200 || len(img) < 2048 || !bytes.HasPrefix(img, pixelPNG) || gzipRatio(t, img) > 1.01 {
			t.Errorf("size %d: image %d, %d bytes", tt.size, code, len(img))
		}
	}
}

// The small pages stay as the earlier benchmarks measured them.
func TestGeneratedSmall(t *testing.T) {
	g := Generated{Pages: 100}
	code, body := get(g, PageURL(3))
	want := "<!doctype html><html><head><title>Page 3</title><link rel=stylesheet href=/style.css></head><body>\n" +
		"<h1>Page 3</h1><p>This is generated page number 3 of 100.</p><img src=/img/3.png>\n" +
		"<a href=\"/p/7.html\">page 7</a>\n<a href=\"/p/8.html\">page 8</a>\n</body></html>\n"
	if code != 200 || string(body) != want {
		t.Errorf("page 3: %d %q", code, body)
	}
	if _, img := get(g, "/img/3.png"); len(img) != len(pixelPNG)+1 {
		t.Errorf("image: %d bytes", len(img))
	}
	if c, _ := get(g, "/p/100.html"); c != 404 {
		t.Errorf("page past the last: %d", c)
	}
}
