package warc_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/internal/warccheck"
	"github.com/amber-crawler/amber/internal/warctest"
	"github.com/amber-crawler/amber/warc"
)

// memHeld is an in-memory warc.HeldIndex; lookups take delay, so that concurrent writers of one
// capture overlap.
type memHeld struct {
	delay time.Duration
	mu    sync.Mutex
	keys  []string // in the order stored
}

func (h *memHeld) LookupHeld(key string) (bool, error) {
	time.Sleep(h.delay)
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Contains(h.keys, key), nil
}

func (h *memHeld) StoreHeld(key string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !slices.Contains(h.keys, key) {
		h.keys = append(h.keys, key)
	}
	return nil
}

// records lists the response, revisit and request records of the WARC files of dir as
// "TYPE URL", in file order, and checks the files and their CDXJ index.
func records(t *testing.T, dir, cdxj string) []string {
	t.Helper()
	reps, err := warccheck.ValidateDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range reps {
		if !r.OK() {
			t.Errorf("%s: %v", r.Path, r.Errors)
		}
		for _, rec := range r.Records {
			switch rec.Type {
			case "response", "revisit", "request", "metadata":
				if rec.TargetURI != warc.ConfigURI {
					got = append(got, rec.Type+" "+rec.TargetURI)
				}
			}
		}
	}
	if err := warccheck.CheckCDXJ(cdxj, dir); err != nil {
		t.Error(err)
	}
	return got
}

// TestWriteCaptureOnce writes captures one after the other, some marked Once: one the crawl
// holds (same URL, status and payload) is not written at all; a changed payload, another
// status or another URL with the same payload is (the latter as a revisit, as without Once);
// a capture not marked Once is written whatever the crawl holds.
func TestWriteCaptureOnce(t *testing.T) {
	css := func(body string) []byte {
		return warctest.RawResponse(200, "OK", [][2]string{{"Content-Type", "text/css"}, {"Content-Length", fmt.Sprint(len(body))}}, []byte(body))
	}
	notFound := func(status int) []byte {
		return warctest.RawResponse(status, "Gone", [][2]string{{"Content-Type", "text/plain"}, {"Content-Length", "9"}}, []byte("not found"))
	}
	a, b := css("p{color:red}"), css("p{color:blue}")
	rows := []struct {
		name string
		url  string
		resp []byte
		once bool
		want string // "response", "revisit" or "held"
	}{
		{"first capture", "http://example.com/site.css", a, true, "response"},
		{"held: nothing written", "http://example.com/site.css", a, true, "held"},
		{"not once: written all the same", "http://example.com/site.css", a, false, "revisit"},
		{"changed payload", "http://example.com/site.css", b, true, "response"},
		{"the first payload is still held", "http://example.com/site.css", a, true, "held"},
		{"the changed one too", "http://example.com/site.css", b, true, "held"},
		{"same payload, another URL", "http://example.com/copy.css", a, true, "revisit"},
		{"that URL is held now", "http://example.com/copy.css", a, true, "held"},
		{"a 404", "http://example.com/missing.png", notFound(404), true, "response"},
		{"the same 404", "http://example.com/missing.png", notFound(404), true, "held"},
		{"another status, same body", "http://example.com/missing.png", notFound(410), true, "response"},
		{"same URL, other query", "http://example.com/site.css?v=2", a, true, "revisit"},
	}
	dir := t.TempDir()
	cdxj := filepath.Join(t.TempDir(), "index.cdxj")
	held := &memHeld{}
	w := newWriter(t, warc.Config{Dir: dir, CDXJPath: cdxj, Dedup: &warctest.MemDedup{}, Held: held})
	var want []string
	for i, row := range rows {
		c := capture(row.url, t0.Add(time.Duration(i)*time.Second), row.resp)
		c.Once = row.once
		res, err := w.WriteCapture(c)
		if err != nil {
			t.Fatalf("%s: %v", row.name, err)
		}
		got := "response"
		switch {
		case res.Held:
			got = "held"
		case res.Revisit:
			got = "revisit"
		}
		if got != row.want {
			t.Errorf("%s: %s, want %s", row.name, got, row.want)
		}
		if res.Held && (res.Filename != "" || res.RecordID != "" || res.PayloadDigest == "" || res.Status == 0) {
			t.Errorf("%s: held result %+v: want no place, the response's status and digest", row.name, res)
		}
		if row.want != "held" {
			want = append(want, "request "+row.url, row.want+" "+row.url, "metadata "+row.url)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, records(t, dir, cdxj)); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
	if len(held.keys) != 6 {
		t.Errorf("held keys %q: want the 6 captures (URL, status, payload) written", held.keys)
	}
}

// TestWriteCaptureOnceWithoutIndex: without Config.Held, Once changes nothing.
func TestWriteCaptureOnceWithoutIndex(t *testing.T) {
	dir := t.TempDir()
	w := newWriter(t, warc.Config{Dir: dir, Dedup: &warctest.MemDedup{}})
	resp := warctest.RawResponse(200, "OK", [][2]string{{"Content-Type", "text/css"}, {"Content-Length", "4"}}, []byte("p{} "))
	for i := range 2 {
		c := capture("http://example.com/site.css", t0.Add(time.Duration(i)*time.Second), resp)
		c.Once = true
		if res, err := w.WriteCapture(c); err != nil || res.Held || res.Revisit != (i == 1) {
			t.Fatalf("capture %d: %+v, %v; want written, the second as a revisit", i, res, err)
		}
	}
}

// TestConcurrentOnce writes one capture marked Once from many goroutines at once: exactly one
// writes it, the others wait for it and write nothing.
func TestConcurrentOnce(t *testing.T) {
	dir := t.TempDir()
	cdxj := filepath.Join(t.TempDir(), "index.cdxj")
	w := newWriter(t, warc.Config{Dir: dir, CDXJPath: cdxj, Dedup: &warctest.MemDedup{}, Held: &memHeld{delay: 5 * time.Millisecond}})
	resp := warctest.RawResponse(200, "OK", [][2]string{{"Content-Type", "image/png"}, {"Content-Length", "5"}}, []byte("\x89PNG!"))
	const n = 16
	results := make([]warc.Result, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			c := capture("http://example.com/logo.png", time.Now(), resp)
			c.Once = true
			r, err := w.WriteCapture(c)
			if err != nil {
				t.Error(err)
			}
			results[i] = r
		})
	}
	wg.Wait()
	written := 0
	for _, r := range results {
		if !r.Held {
			written++
		}
	}
	if written != 1 {
		t.Errorf("%d captures written of one capture marked Once written %d times at once, want 1", written, n)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	want := []string{"request http://example.com/logo.png", "response http://example.com/logo.png", "metadata http://example.com/logo.png"}
	if diff := cmp.Diff(want, records(t, dir, cdxj)); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
	if b, err := os.ReadFile(cdxj); err != nil || len(b) == 0 {
		t.Errorf("index: %d bytes, %v", len(b), err)
	}
}
