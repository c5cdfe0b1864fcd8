// Package seeds parses seed lists: the seeds of a crawl given on the command line or in a file.
//
// A seeds file is plain text with one seed per line, `URL [TYPE]`, where TYPE is one of the
// Archive-It seed types (one-page, one-page+, standard, standard+, in any of Archive-It's
// spellings). Blank lines and lines starting with `#` are ignored; a `#` after whitespace starts
// a comment. A malformed line is an error that names the file and the line.
package seeds

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"

	"github.com/amber-crawler/amber/scope"
)

// ErrSeed is wrapped by every error about a seed (a bad URL, an unknown type).
var ErrSeed = errors.New("seeds: invalid seed")

// maxLineLength bounds one line of a seeds file; longer lines are an error, not a slow parse.
const maxLineLength = 64 << 10

// LineError reports a problem on one line of a seeds file.
type LineError struct {
	File string // the file name as given
	Line int    // 1-based line number
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err) }

func (e *LineError) Unwrap() error { return e.Err }

// ParseFile reads a seeds file. See Parse.
func ParseFile(path string) ([]scope.Seed, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("seeds: %w", err)
	}
	defer f.Close()
	return Parse(f, path)
}

// Parse reads seeds from r, one per line, `URL [TYPE]`. name is used in error messages. On the
// first malformed line it returns a *LineError and no seeds: nothing is crawled from a seed list
// the archivist has to fix first.
func Parse(r io.Reader, name string) ([]scope.Seed, error) {
	var out []scope.Seed
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxLineLength)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if n == 1 {
			line = strings.TrimPrefix(line, "\ufeff") // a byte-order mark from Windows editors
		}
		line = stripComment(line)
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if len(fields) > 2 {
			return nil, &LineError{name, n, fmt.Errorf("%w: want `URL [TYPE]`, got %d fields", ErrSeed, len(fields))}
		}
		s := scope.Seed{URL: fields[0]}
		if len(fields) == 2 {
			t, err := scope.ParseSeedType(fields[1])
			if err != nil {
				return nil, &LineError{name, n, fmt.Errorf("%w: %w", ErrSeed, err)}
			}
			s.Type = t
		} else {
			s.Type = scope.StandardSeed
		}
		if err := CheckURL(s.URL); err != nil {
			return nil, &LineError{name, n, err}
		}
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, &LineError{name, n + 1, fmt.Errorf("%w: line longer than %d bytes", ErrSeed, maxLineLength)}
		}
		return nil, fmt.Errorf("seeds: read %s: %w", name, err)
	}
	return out, nil
}

// stripComment removes a comment: a line starting with `#`, or ` #...` after whitespace. A `#`
// inside a URL (a fragment) is kept.
func stripComment(line string) string {
	t := strings.TrimSpace(line)
	if strings.HasPrefix(t, "#") {
		return ""
	}
	for i := 1; i < len(line); i++ {
		if line[i] == '#' && (line[i-1] == ' ' || line[i-1] == '\t') {
			return line[:i]
		}
	}
	return line
}

// CheckURL reports whether s can be a seed: an absolute http or https URL with a host that
// canonicalises. The error wraps ErrSeed and says what is wrong.
func CheckURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("%w: %q is not a URL: %v", ErrSeed, s, err)
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	case "":
		return fmt.Errorf("%w: %q has no scheme (write http:// or https://)", ErrSeed, s)
	default:
		return fmt.Errorf("%w: %q: scheme %q is not http or https", ErrSeed, s, u.Scheme)
	}
	if u.Host == "" {
		return fmt.Errorf("%w: %q has no host", ErrSeed, s)
	}
	if _, err := scope.Canonicalize(s, scope.Standard); err != nil {
		return fmt.Errorf("%w: %q: %v", ErrSeed, s, err)
	}
	return nil
}

// LooksLikeURL reports whether a command-line argument is meant as a URL rather than a file
// name: it has a scheme followed by "://".
func LooksLikeURL(arg string) bool {
	i := strings.Index(arg, "://")
	if i <= 0 {
		return false
	}
	for _, r := range arg[:i] {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.') {
			return false
		}
	}
	return true
}
