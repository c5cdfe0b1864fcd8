//go:build !linux

package frontier

import "github.com/dgraph-io/badger/v4"

// trimmer is Linux's (see trim_linux.go); elsewhere the table mappings are left as they are.
type trimmer struct{}

func startTrimmer(*badger.DB, string) *trimmer { return nil }

func (t *trimmer) close() {}
