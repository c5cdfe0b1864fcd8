package diskspace_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/amber-crawler/amber/diskspace"
)

func TestOf(t *testing.T) {
	dir := t.TempDir()
	u, err := diskspace.Of(dir)
	if err != nil {
		t.Fatal(err)
	}
	if u.Total <= 0 || u.Free < 0 || u.Free > u.Total {
		t.Errorf("Of(%s) = %+v, want 0 <= Free <= Total, Total > 0", dir, u)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	v, err := diskspace.Of(sub)
	if err != nil {
		t.Fatal(err)
	}
	if v.Device != u.Device || v.Total != u.Total {
		t.Errorf("a sub-directory is on another filesystem: %+v, parent %+v", v, u)
	}
}

func TestOfMissing(t *testing.T) {
	_, err := diskspace.Of(filepath.Join(t.TempDir(), "missing"))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Of(missing dir) error = %v, want one matching fs.ErrNotExist", err)
	}
}

func TestIsNoSpace(t *testing.T) {
	tests := []struct {
		err  error
		want bool
	}{
		{nil, false},
		{syscall.ENOSPC, true},
		{syscall.EDQUOT, true},
		{&fs.PathError{Op: "write", Path: "x.warc.gz.open", Err: syscall.ENOSPC}, true},
		{fmt.Errorf("write warc: %w", &fs.PathError{Op: "write", Path: "x", Err: syscall.ENOSPC}), true},
		{errors.Join(errors.New("other"), fmt.Errorf("flush: %w", syscall.EDQUOT)), true},
		{syscall.EIO, false},
		{errors.New("no space left on device"), false}, // text is not evidence
	}
	for _, tt := range tests {
		if got := diskspace.IsNoSpace(tt.err); got != tt.want {
			t.Errorf("IsNoSpace(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}

// BenchmarkOf measures what a free-space check costs (it runs before every WARC write).
func BenchmarkOf(b *testing.B) {
	dir := b.TempDir()
	for b.Loop() {
		if _, err := diskspace.Of(dir); err != nil {
			b.Fatal(err)
		}
	}
}
