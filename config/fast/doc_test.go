package fast

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const (
	docPath    = "../../docs/fast.md"
	tableBegin = "<!-- BEGIN TABLE: written by `go test ./config/fast -run TestDocTable -update` from fast.Table; do not edit -->\n"
	tableEnd   = "<!-- END TABLE -->\n"
)

// renderTable writes the counts and the table of docs/fast.md.
func renderTable(rows []Row) string {
	var b strings.Builder
	count := map[Status]int{}
	same := 0
	for _, r := range rows {
		count[r.Status]++
		if r.Same != "" {
			same++
		}
	}
	fmt.Fprintf(&b, "%d rows: **%d mapped** (%d of them for one value only, the one amber always has), **%d ignored**, **%d unsupported-yet**, **%d refused**.\n\n",
		len(rows), count[Mapped], same, count[Ignored], count[Unsupported], count[Refused])
	b.WriteString("| § | section | name | kind | type | FAST default | status | amber | note |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	cell := func(s string) string {
		s = strings.ReplaceAll(s, "|", `\|`)
		s = strings.ReplaceAll(s, "<", "&lt;")
		return strings.ReplaceAll(s, "\n", " ")
	}
	code := func(s string) string {
		if s == "" {
			return ""
		}
		return "`" + strings.ReplaceAll(s, "|", `\|`) + "`"
	}
	for _, r := range rows {
		name := code(r.Name)
		for _, a := range r.Aliases {
			name += ", " + code(a)
		}
		status := string(r.Status)
		if r.Same != "" {
			status += " (only " + r.Same + ")"
		}
		amber := code(r.Amber)
		if r.Like == "." {
			amber = "holds what the collection holds"
		} else if r.Like != "" {
			amber = "holds what " + code(r.Like) + " holds"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			r.Spec, code(r.Section), name, r.Kind, r.Type, cell(r.Default), status, amber, cell(r.Note))
	}
	return b.String()
}

// TestDocTable checks that docs/fast.md holds the table as Table gives it.
func TestDocTable(t *testing.T) {
	doc, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(doc, []byte(tableBegin))
	j := bytes.Index(doc, []byte(tableEnd))
	if i < 0 || j < i {
		t.Fatalf("%s has no table markers", docPath)
	}
	got := string(doc[i+len(tableBegin) : j])
	want := renderTable(Table())
	if *update {
		out := append(append(append([]byte{}, doc[:i+len(tableBegin)]...), want...), doc[j:]...)
		if err := os.WriteFile(docPath, out, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s's table is not Table's (-Table +doc; go test ./config/fast -run TestDocTable -update rewrites it):\n%s", docPath, diff)
	}
}
