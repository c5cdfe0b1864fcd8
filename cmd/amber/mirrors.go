package main

import (
	"fmt"
	"os"

	"github.com/amber-crawler/amber/config"
	"github.com/amber-crawler/amber/rewrite"
)

// maxMirrorFile bounds a mirror file (urls.mirror_files).
const maxMirrorFile = 1 << 20

// mirrorRules reads urls.mirror_files and returns the rewrite rules of urls.mirrors and the
// files' groups (rewrite.Mirrors): a mirror site's URLs are taken as the preferred site's.
func mirrorRules(u config.URLs) (rewrite.Rules, error) {
	groups := append([][]string(nil), u.Mirrors...)
	for _, p := range u.MirrorFiles {
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("urls.mirror_files: %w", err)
		}
		if !st.Mode().IsRegular() || st.Size() > maxMirrorFile {
			return nil, fmt.Errorf("urls.mirror_files: %s: not a regular file of at most 1 MiB", p)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("urls.mirror_files: %w", err)
		}
		gs, err := rewrite.ParseMirrors(data)
		if err != nil {
			return nil, fmt.Errorf("urls.mirror_files: %s: %w", p, err)
		}
		groups = append(groups, gs...)
	}
	rs, err := rewrite.Mirrors(groups)
	if err != nil {
		return nil, fmt.Errorf("urls.mirrors: %w", err)
	}
	return rs, nil
}
