package report

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
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
				s := newSorter(dir, p.budget, p.fanIn)
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
	s := newSorter(dir, 64, 64)
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

// checkKeyOrder: records made of two keys each and a tail compare byte by byte as the pairs
// of keys compare field by field, whatever the tails, and the keys read back.
func checkKeyOrder(t *testing.T, a1, a2, b1, b2 string) {
	t.Helper()
	ra := append(appendKey(appendKey(nil, a1), a2), "\x00tail"...)
	rb := append(appendKey(appendKey(nil, b1), b2), "\xff"...)
	want := strings.Compare(a1, b1)
	if want == 0 {
		want = strings.Compare(a2, b2)
	}
	if want == 0 {
		return // equal keys: the tails decide
	}
	if got := bytes.Compare(ra, rb); got != want {
		t.Errorf("(%q, %q) vs (%q, %q): records compare %d, keys %d", a1, a2, b1, b2, got, want)
	}
	k1, rest, ok := cutKey(ra)
	k2, rest, ok2 := cutKey(rest)
	if !ok || !ok2 || string(k1) != a1 || string(k2) != a2 || string(rest) != "\x00tail" {
		t.Errorf("cutKey(%q) = %q, %q, rest %q (%v, %v)", ra, k1, k2, rest, ok, ok2)
	}
}

func TestKeyOrder(t *testing.T) {
	tests := [][4]string{
		{"a", "x", "b", "x"},
		{"a", "z", "ab", "a"}, // a prefix comes first, whatever the next field
		{"a", "z", "a\x00", "a"},
		{"a\x00", "z", "a\x01", "a"},
		{"a\x00b", "", "a\x00", "z"},
		{"", "b", "", "a"},
		{"", "", "\x00", ""},
		{"\xff", "", "\xff\x00", ""},
		{"http://a/", "\x00\x00", "http://a/", "\x00\x01"},
	}
	for _, tt := range tests {
		checkKeyOrder(t, tt[0], tt[1], tt[2], tt[3])
		checkKeyOrder(t, tt[2], tt[3], tt[0], tt[1])
	}
}

func FuzzKeyOrder(f *testing.F) {
	f.Add("a", "b", "a\x00", "")
	f.Add("http://a.example/", "x", "http://a.example/\x00", "\xff")
	f.Fuzz(checkKeyOrder)
}
