package wacz

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Requirement is another package a package depends on: the package of an earlier crawl that
// the crawl built on (crawl.yaml's recrawl_of and dedup_from), whose captures the crawl's
// revisit records refer to instead of storing them again. datapackage.json lists them as
// relation.requires, as browsertrix-crawler lists the packages its deduplicated crawls depend
// on. Replay tools load a package's requirements from the same collection: wabac.js
// (ReplayWeb.page 2.5.3), given a multi-WACZ collection, looks up the original of a revisit it
// cannot find in the revisit's own package in each package the package requires, by the name
// the collection gives it, which therefore must be Filename.
type Requirement struct {
	// Filename is the required package's file name: the WACZ file an earlier crawl was given
	// as, or for a crawl directory the name of its package at DefaultPath.
	Filename string `json:"filename"`
	// Hash is "sha256:" and the hex SHA-256 of the required package's bytes, and Bytes its
	// size, when the file was there to read when the package was written; else empty and 0.
	Hash  string `json:"hash,omitempty"`
	Bytes int64  `json:"size,omitempty"`
}

// relation is datapackage.json's relation.
type relation struct {
	Requires []Requirement `json:"requires"`
}

// allRequirements returns the requirements of the crawls of cfgs, in order, each package
// once (by its file name).
func allRequirements(ctx context.Context, cfgs []crawlConfig) ([]Requirement, error) {
	var out []Requirement
	seen := map[string]bool{}
	for _, cfg := range cfgs {
		reqs, err := requirements(ctx, cfg)
		if err != nil {
			return nil, err
		}
		for _, r := range reqs {
			if !seen[r.Filename] {
				seen[r.Filename] = true
				out = append(out, r)
			}
		}
	}
	return out, nil
}

// requirements returns the packages of the earlier crawls cfg names (recrawl_of first, then
// dedup_from in order, each package once): for a path ending in .wacz that file, for a crawl
// directory its package at DefaultPath. A CDXJ file given as an earlier crawl is an index,
// not a package, so it adds none.
func requirements(ctx context.Context, cfg crawlConfig) ([]Requirement, error) {
	var out []Requirement
	seen := map[string]bool{}
	for _, p := range append([]string{cfg.RecrawlOf}, cfg.DedupFrom...) {
		pkg := ""
		switch {
		case p == "":
			continue
		case strings.HasSuffix(p, packageFileSuffix):
			pkg = p
		default:
			if st, err := os.Stat(filepath.Join(p, crawlStateDir)); err != nil || !st.IsDir() {
				continue
			}
			pkg = DefaultPath(p)
		}
		if seen[pkg] {
			continue
		}
		seen[pkg] = true
		r := Requirement{Filename: filepath.Base(pkg)}
		hash, n, err := hashFile(ctx, pkg)
		switch {
		case err == nil:
			r.Hash, r.Bytes = hash, n
		case !errors.Is(err, os.ErrNotExist):
			return nil, fmt.Errorf("wacz: required package: %w", err)
		}
		out = append(out, r)
	}
	return out, nil
}

// hashFile returns "sha256:" and the hex SHA-256 of the file at path, and its size.
func hashFile(ctx context.Context, path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, ctxReader{ctx, f})
	if err != nil {
		return "", 0, fmt.Errorf("%s: %w", path, err)
	}
	return hashPrefix + hex.EncodeToString(h.Sum(nil)), n, nil
}
