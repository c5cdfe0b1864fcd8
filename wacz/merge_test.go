package wacz

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMergeSorted(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []string
		want string
	}{
		{"one", []string{"a 1\nb 2\n"}, "a 1\nb 2\n"},
		{"interleaved", []string{"a 1\nc 3\ne 5\n", "b 2\nd 4\n"}, "a 1\nb 2\nc 3\nd 4\ne 5\n"},
		{"equal keys keep both", []string{"a 1\n", "a 1\n"}, "a 1\na 1\n"},
		{"byte order, not length", []string{"com,a)/ 1\n", "com,a)/x 1\ncom,a,b)/ 1\n"}, "com,a)/ 1\ncom,a)/x 1\ncom,a,b)/ 1\n"},
		{"empty file", []string{"", "b 2\n"}, "b 2\n"},
		{"last line without newline", []string{"a 1\nc", "b 2\n"}, "a 1\nb 2\nc\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var srcs []string
			for i, s := range tc.in {
				p := filepath.Join(dir, strconv.Itoa(i))
				if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
					t.Fatal(err)
				}
				srcs = append(srcs, p)
			}
			out := filepath.Join(dir, "out")
			if err := mergeSorted(t.Context(), srcs, out); err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(out)
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
