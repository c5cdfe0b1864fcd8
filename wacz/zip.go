package wacz

import (
	"archive/zip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// copyBufferSize is the size of the reads that stream a file into the package.
const copyBufferSize = 1 << 20

// pkg is a package being written to a temporary file next to its final path.
type pkg struct {
	f         *os.File
	out       string
	zw        *zip.Writer
	resources []Resource // the files written so far, for datapackage.json
	buf       []byte
	created   time.Time // modification time of the files made here (pages, index, manifest)
}

// createPackage starts a package that commit renames to out.
func createPackage(out string) (*pkg, error) {
	f, err := os.CreateTemp(filepath.Dir(out), tempOutputPrefix+filepath.Base(out)+tempOutputSeparator+"*")
	if err != nil {
		return nil, fmt.Errorf("wacz: %w", err)
	}
	// CreateTemp makes the file private; a package is as readable as the WARC files in it.
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("wacz: %w", err)
	}
	return &pkg{f: f, out: out, zw: zip.NewWriter(f), buf: make([]byte, copyBufferSize), created: time.Now().UTC()}, nil
}

// entry is a file being written into the package: what is written through it is counted and
// hashed on its way into the ZIP entry.
type entry struct {
	name string
	w    io.Writer
	h    hash.Hash
	n    int64
}

func (e *entry) Write(p []byte) (int, error) {
	n, err := e.w.Write(p)
	e.h.Write(p[:n])
	e.n += int64(n)
	return n, err
}

// create starts a stored entry. Until finish, nothing else may be written to the package.
func (p *pkg) create(name string, modified time.Time) (*entry, error) {
	w, err := p.zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store, Modified: modified.UTC()})
	if err != nil {
		return nil, fmt.Errorf("wacz: add %s: %w", name, err)
	}
	return &entry{name: name, w: w, h: sha256.New()}, nil
}

// finish records a written entry among the package's resources and returns it.
func (p *pkg) finish(e *entry) Resource {
	r := Resource{
		Name:  strings.ToLower(path.Base(e.name)),
		Path:  e.name,
		Hash:  hashPrefix + hex.EncodeToString(e.h.Sum(nil)),
		Bytes: e.n,
	}
	p.resources = append(p.resources, r)
	return r
}

// addFile streams the file src into the package as name.
func (p *pkg) addFile(ctx context.Context, name, src string) (Resource, error) {
	f, err := os.Open(src)
	if err != nil {
		return Resource{}, fmt.Errorf("wacz: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return Resource{}, fmt.Errorf("wacz: %w", err)
	}
	e, err := p.create(name, st.ModTime())
	if err != nil {
		return Resource{}, err
	}
	if _, err := io.CopyBuffer(e, ctxReader{ctx, f}, p.buf); err != nil {
		return Resource{}, fmt.Errorf("wacz: add %s: %w", src, err)
	}
	return p.finish(e), nil
}

// addBytes writes b into the package as name without listing it among the resources (the
// manifest and its digest).
func (p *pkg) addBytes(name string, b []byte) error {
	w, err := p.zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store, Modified: p.created})
	if err == nil {
		_, err = w.Write(b)
	}
	if err != nil {
		return fmt.Errorf("wacz: add %s: %w", name, err)
	}
	return nil
}

// writeManifest adds datapackage.json and datapackage-digest.json.
func (p *pkg) writeManifest(dp datapackage) error {
	data, digest, err := manifest(dp)
	if err != nil {
		return err
	}
	if err := p.addBytes(DatapackageFile, data); err != nil {
		return err
	}
	return p.addBytes(DatapackageDigest, digest)
}

// commit writes the central directory, syncs the file, renames it to its final path and
// returns its size.
func (p *pkg) commit() (int64, error) {
	if err := p.zw.Close(); err != nil {
		return 0, fmt.Errorf("wacz: %w", err)
	}
	if err := p.f.Sync(); err != nil {
		return 0, fmt.Errorf("wacz: %w", err)
	}
	st, err := p.f.Stat()
	if err != nil {
		return 0, fmt.Errorf("wacz: %w", err)
	}
	if err := p.f.Close(); err != nil {
		return 0, fmt.Errorf("wacz: %w", err)
	}
	if err := os.Rename(p.f.Name(), p.out); err != nil {
		return 0, fmt.Errorf("wacz: %w", err)
	}
	// The rename is durable once the directory is synced; a filesystem that cannot sync a
	// directory has no better way to offer.
	if d, err := os.Open(filepath.Dir(p.out)); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return st.Size(), nil
}

// abort removes the temporary file of a package that failed.
func (p *pkg) abort() {
	_ = p.f.Close()
	_ = os.Remove(p.f.Name())
}

// ctxReader reads from r until ctx is done. It hides r's WriterTo, so copies go through the
// caller's buffer and look at ctx between reads.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
