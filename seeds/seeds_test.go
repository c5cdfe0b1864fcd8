package seeds

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/scope"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		want     []scope.Seed
		wantLine int // >0: a *LineError on that line
	}{
		{
			name: "types and comments",
			in: "# my seeds\n\nhttps://example.com/\nhttp://example.org/news/ standard+\n" +
				"  https://example.net/a.html One-Page   # an article\nhttps://example.edu/ ONE-PAGE+\n",
			want: []scope.Seed{
				{URL: "https://example.com/", Type: scope.StandardSeed},
				{URL: "http://example.org/news/", Type: scope.StandardPlus},
				{URL: "https://example.net/a.html", Type: scope.OnePage},
				{URL: "https://example.edu/", Type: scope.OnePagePlus},
			},
		},
		{name: "fragment is not a comment", in: "https://example.com/#top\n", want: []scope.Seed{{URL: "https://example.com/#top", Type: scope.StandardSeed}}},
		{name: "byte order mark", in: "\ufeffhttps://example.com/\n", want: []scope.Seed{{URL: "https://example.com/", Type: scope.StandardSeed}}},
		{name: "crlf", in: "https://example.com/ standard\r\n", want: []scope.Seed{{URL: "https://example.com/", Type: scope.StandardSeed}}},
		{name: "empty", in: "\n# nothing\n", want: nil},
		{name: "unknown type", in: "https://example.com/\nhttps://example.org/ everything\n", wantLine: 2},
		{name: "three fields", in: "https://example.com/ standard extra\n", wantLine: 1},
		{name: "no scheme", in: "example.com\n", wantLine: 1},
		{name: "ftp", in: "ftp://example.com/\n", wantLine: 1},
		{name: "no host", in: "http:///path\n", wantLine: 1},
		{name: "bad escape", in: "# ok\n\nhttp://example.com/%zz\n", wantLine: 3},
		{name: "line too long", in: "http://example.com/" + strings.Repeat("a", maxLineLength) + "\n", wantLine: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(strings.NewReader(tt.in), "seeds.txt")
			if tt.wantLine > 0 {
				var le *LineError
				if !errors.As(err, &le) {
					t.Fatalf("err = %v, want a *LineError", err)
				}
				if le.Line != tt.wantLine || le.File != "seeds.txt" {
					t.Errorf("error at %s:%d, want seeds.txt:%d (%v)", le.File, le.Line, tt.wantLine, err)
				}
				if got != nil {
					t.Errorf("got seeds %v with an error; want none", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got, cmp.Comparer(func(a, b scope.Rule) bool { return a.String() == b.String() })); diff != "" {
				t.Errorf("seeds (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLooksLikeURL(t *testing.T) {
	for in, want := range map[string]bool{
		"https://example.com/": true, "HTTP://x": true, "seeds.txt": false, "./seeds.txt": false,
		"dir/a://b": false, "://x": false, "c:\\seeds.txt": false,
	} {
		if got := LooksLikeURL(in); got != want {
			t.Errorf("LooksLikeURL(%q) = %v, want %v", in, got, want)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add("https://example.com/ standard+\n# c\n\nhttp://x.org/a one-page\n")
	f.Add("\ufeffhttp://[::1]:80/ ONE-PAGE+ \r\n")
	f.Add("http://%zz/ x y\n")
	f.Fuzz(func(t *testing.T, in string) {
		seeds, err := Parse(strings.NewReader(in), "fuzz.txt")
		if err != nil {
			var le *LineError
			if !errors.As(err, &le) && !strings.Contains(err.Error(), "fuzz.txt") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		for _, s := range seeds {
			if err := CheckURL(s.URL); err != nil {
				t.Fatalf("accepted seed %q fails CheckURL: %v", s.URL, err)
			}
			if _, err := scope.ParseSeedType(string(s.Type)); err != nil {
				t.Fatalf("accepted seed type %q: %v", s.Type, err)
			}
		}
	})
}
