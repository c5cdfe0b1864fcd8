package report

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func randomRecords(n int) [][]byte {
	r := rand.New(rand.NewPCG(3, 4))
	recs := make([][]byte, n)
	for i := range recs {
		b := make([]byte, r.IntN(60))
		for j := range b {
			b[j] = "ab\x00\xffz"[r.IntN(5)]
		}
		recs[i] = b
	}
	return recs
}

// TestSorter sorts with budgets small enough to write many runs and merge them in several
// rounds, and compares with an in-memory sort.
func TestSorter(t *testing.T) {
	inputs := []struct {
		name string
		recs [][]byte
	}{
		{"none", nil},
		{"one", [][]byte{[]byte("x")}},
		{"empty records and duplicates", [][]byte{{}, []byte("b"), {}, []byte("a"), []byte("b")}},
		{"prefix first", [][]byte{[]byte("ab"), []byte("a"), []byte("a\x00"), []byte("\xff")}},
		{"random", randomRecords(5000)},
	}
	params := []struct {
		budget, fanIn int
		spills        bool // the input of more than budget bytes must be written in runs
	}{
		{1 << 20, 64, false},
		{256, 2, true},
		{4096, 3, true},
		{1024, 64, true},
	}
	for _, in := range inputs {
		want := slices.Clone(in.recs)
		slices.SortFunc(want, bytes.Compare)
		size := 0
		for _, r := range in.recs {
			size += len(r)
		}
		for _, p := range params {
			t.Run(fmt.Sprintf("%s/budget=%d,fanin=%d", in.name, p.budget, p.fanIn), func(t *testing.T) {
				dir := t.TempDir()
				s := newSorter(dir, p.budget, p.fanIn, bytes.Compare)
				for _, r := range in.recs {
					if err := s.add(r); err != nil {
						t.Fatal(err)
					}
				}
				if spilled := len(s.runs) > 0; p.spills && size > 2*p.budget && !spilled {
					t.Fatalf("%d bytes with a budget of %d: no runs written", size, p.budget)
				}
				st, err := s.sorted()
				if err != nil {
					t.Fatal(err)
				}
				var got [][]byte
				for {
					rec, ok, err := st.next()
					if err != nil {
						t.Fatal(err)
					}
					if !ok {
						break
					}
					got = append(got, bytes.Clone(rec))
				}
				if err := st.Close(); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, got, cmp.Comparer(bytes.Equal)); diff != "" {
					t.Errorf("sorted (-want +got):\n%s", diff)
				}
				if left, _ := os.ReadDir(dir); len(left) != 0 {
					t.Errorf("%d files left in the temporary directory", len(left))
				}
			})
		}
	}
}

// TestSorterCorruptRun: a run file cut short is an error, not a shorter result.
func TestSorterCorruptRun(t *testing.T) {
	dir := t.TempDir()
	s := newSorter(dir, 64, 64, bytes.Compare)
	for _, r := range randomRecords(200) {
		if err := s.add(r); err != nil {
			t.Fatal(err)
		}
	}
	if len(s.runs) == 0 {
		t.Fatal("no runs written")
	}
	fi, err := os.Stat(s.runs[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(s.runs[0], fi.Size()-1); err != nil {
		t.Fatal(err)
	}
	st, err := s.sorted()
	if err == nil {
		for {
			_, ok, nerr := st.next()
			if nerr != nil || !ok {
				err = nerr
				break
			}
		}
		st.Close()
	}
	if !errors.Is(err, errCorruptRun) {
		t.Errorf("err = %v, want errCorruptRun", err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) != 0 {
		t.Errorf("files left: %v", left)
	}
}
