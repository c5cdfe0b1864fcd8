package warc_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/amber-crawler/amber/internal/warccheck"
	"github.com/amber-crawler/amber/internal/warctest"
	"github.com/amber-crawler/amber/warc"
)

// fullDisk hands out files that accept a limited number of bytes and then fail with ENOSPC,
// part-way through a write, as a full filesystem does. A budget below zero is no limit.
type fullDisk struct {
	mu       sync.Mutex // guards the budgets
	warcLeft int64      // bytes the WARC files (*.open) still accept, together
	cdxjLeft int64      // bytes the CDXJ index still accepts
}

func (d *fullDisk) set(warcLeft, cdxjLeft int64) {
	d.mu.Lock()
	d.warcLeft, d.cdxjLeft = warcLeft, cdxjLeft
	d.mu.Unlock()
}

func (d *fullDisk) create(name string, flag int, perm os.FileMode) (warc.File, error) {
	f, err := os.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	left := &d.cdxjLeft
	if strings.HasSuffix(name, ".open") {
		left = &d.warcLeft
	}
	return &limitedFile{File: f, d: d, left: left}, nil
}

type limitedFile struct {
	*os.File
	d    *fullDisk
	left *int64
}

func (f *limitedFile) Write(p []byte) (int, error) {
	f.d.mu.Lock()
	n := len(p)
	if *f.left >= 0 {
		n = int(min(int64(n), *f.left))
		*f.left -= int64(n)
	}
	f.d.mu.Unlock()
	m, err := f.File.Write(p[:n])
	if err == nil && m < len(p) {
		err = &fs.PathError{Op: "write", Path: f.Name(), Err: syscall.ENOSPC}
	}
	return m, err
}

// TestWriteNoSpace fills the disk in the middle of a capture, of its CDXJ line and of a new
// file's header: the write fails with an error matching ENOSPC, the WARC file is cut back to
// its last whole capture and closed (it validates, nothing is left .open), the index has no
// line of the failed capture, and once there is space again the next capture goes into a new
// file.
func TestWriteNoSpace(t *testing.T) {
	page := func(i int) warc.Capture {
		body := []byte(strings.Repeat("page body ", 50) + string(rune('a'+i)))
		return capture("http://example.com/p"+string(rune('a'+i)), t0, warctest.RawResponse(200, "OK", [][2]string{{"Content-Type", "text/plain"}}, body))
	}
	tests := []struct {
		name               string
		warcLeft, cdxjLeft int64 // the budgets when the second capture is written
		wantFiles          int   // WARC files after the failed capture
	}{
		{"WARC file full in the middle of a record", 300, -1, 1},
		{"WARC file full at the first byte", 0, -1, 1},
		{"index full in the middle of a line", -1, 40, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			cdxj := filepath.Join(dir, "indexes", warc.LiveCDXJ)
			disk := &fullDisk{warcLeft: -1, cdxjLeft: -1}
			w, err := warc.NewWriterCreate(warc.Config{Dir: dir, Hostname: "testhost", Info: testInfo, CDXJPath: cdxj}, disk.create)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			first, err := w.WriteCapture(page(0))
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, first.Filename)
			good := fileSize(t, path+".open")
			goodIndex := fileSize(t, cdxj)

			disk.set(tt.warcLeft, tt.cdxjLeft)
			_, err = w.WriteCapture(page(1))
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("WriteCapture on a full disk: error %v, want one matching ENOSPC", err)
			}
			if got := fileSize(t, path); got != good {
				t.Errorf("WARC file is %d bytes after the failed capture, want %d (cut back to the last whole capture)", got, good)
			}
			if got := fileSize(t, cdxj); got != goodIndex {
				t.Errorf("index is %d bytes after the failed capture, want %d", got, goodIndex)
			}
			checkDir(t, dir, cdxj, tt.wantFiles, []string{page(0).URL})

			disk.set(-1, -1)
			second, err := w.WriteCapture(page(2))
			if err != nil {
				t.Fatalf("WriteCapture once there is space again: %v", err)
			}
			if second.Filename == first.Filename {
				t.Errorf("capture after the failure went into the closed file %s", first.Filename)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			checkDir(t, dir, cdxj, tt.wantFiles+1, []string{page(0).URL, page(2).URL})
		})
	}
}

// TestOpenFileNoSpace fills the disk while a new file's header is written: the file is
// removed, and the index keeps no line of its crawl-config record.
func TestOpenFileNoSpace(t *testing.T) {
	for _, budgets := range [][2]int64{{200, -1}, {-1, 10}} {
		dir := t.TempDir()
		cdxj := filepath.Join(dir, "indexes", warc.LiveCDXJ)
		disk := &fullDisk{warcLeft: budgets[0], cdxjLeft: budgets[1]}
		w, err := warc.NewWriterCreate(warc.Config{Dir: dir, Hostname: "testhost", Info: testInfo, CDXJPath: cdxj}, disk.create)
		if err != nil {
			t.Fatal(err)
		}
		_, err = w.WriteCapture(capture("http://example.com/", t0, warctest.RawResponse(200, "OK", nil, []byte("hello"))))
		if !errors.Is(err, syscall.ENOSPC) {
			t.Errorf("budgets %v: error %v, want one matching ENOSPC", budgets, err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if !e.IsDir() {
				t.Errorf("budgets %v: %s left behind", budgets, e.Name())
			}
		}
		if n := fileSize(t, cdxj); n != 0 {
			t.Errorf("budgets %v: index has %d bytes, want none", budgets, n)
		}
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

// checkDir checks that dir holds n closed, valid WARC files whose responses are those of urls,
// and that every line of the index points at a record.
func checkDir(t *testing.T, dir, cdxj string, n int, urls []string) {
	t.Helper()
	reps, err := warccheck.ValidateDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(reps) != n {
		t.Errorf("%d WARC files, want %d", len(reps), n)
	}
	var got []string
	for _, r := range reps {
		for _, rec := range r.Records {
			if rec.Type == "response" {
				got = append(got, rec.TargetURI)
			}
		}
	}
	if strings.Join(got, " ") != strings.Join(urls, " ") {
		t.Errorf("responses %v, want %v", got, urls)
	}
	if err := warccheck.CheckCDXJ(cdxj, dir); err != nil {
		t.Error(err)
	}
}

// TestBeforeWrite: the hook sees every capture and resource before it is appended, with the
// number of bytes it adds to the file.
func TestBeforeWrite(t *testing.T) {
	dir := t.TempDir()
	var calls []int64
	var path string
	var sizes []int64 // file size when the hook was called
	w := newWriter(t, warc.Config{Dir: dir, BeforeWrite: func(n int64) {
		calls = append(calls, n)
		if path != "" {
			sizes = append(sizes, fileSize(t, path))
		}
	}})
	res, err := w.WriteCapture(capture("http://example.com/", t0, warctest.RawResponse(200, "OK", nil, []byte("hello"))))
	if err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(dir, res.Filename+".open")
	if _, err := w.WriteCapture(capture("http://example.com/b", t0, warctest.RawResponse(200, "OK", nil, []byte("other")))); err != nil {
		t.Fatal(err)
	}
	if _, err := w.WriteResource("urn:screenshot:http://example.com/", "image/png", t0, []byte("png"), res.RecordID); err != nil {
		t.Fatal(err)
	}
	end := fileSize(t, path)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if len(calls) != 3 || len(sizes) != 2 {
		t.Fatalf("BeforeWrite called %d times (%v), want 3", len(calls), calls)
	}
	if got, want := []int64{sizes[1] - sizes[0], end - sizes[1]}, calls[1:]; got[0] != want[0] || got[1] != want[1] {
		t.Errorf("bytes added by the second capture and the resource: %v, BeforeWrite said %v", got, want)
	}
}
