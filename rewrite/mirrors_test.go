package rewrite

import (
	"errors"
	"testing"
)

func TestMirrors(t *testing.T) {
	groups := [][]string{
		{"www.example.org", "mirror.example.org", "EXAMPLE.org", "old.example.net:8080"},
		{"preferred.example.com:8443", "mirror.example.com", "[2001:db8::1]"},
	}
	rs, err := Mirrors(groups)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ in, want string }{
		{"http://mirror.example.org/a?b=1", "http://www.example.org/a?b=1"},
		{"HTTPS://Mirror.Example.ORG", "HTTPS://www.example.org"},
		{"http://mirror.example.org:81/x", "http://www.example.org:81/x"},
		{"http://user:pw@mirror.example.org/x", "http://user:pw@www.example.org/x"},
		{"http://example.org/", "http://www.example.org/"},
		{"http://example.org#top", "http://www.example.org#top"},
		{"http://old.example.net:8080/p", "http://www.example.org/p"},
		{"http://old.example.net/p", "http://old.example.net/p"},               // another port
		{"http://mirror.example.com/p", "http://preferred.example.com:8443/p"}, // the preferred site's port
		{"http://[2001:db8::1]/p", "http://preferred.example.com:8443/p"},
		// Not mirrors: another host that ends or starts like one, a path naming one.
		{"http://notmirror.example.org/", "http://notmirror.example.org/"},
		{"http://mirror.example.org.evil.net/", "http://mirror.example.org.evil.net/"},
		{"http://www.example.org/mirror.example.org/", "http://www.example.org/mirror.example.org/"},
		{"http://other.net/?u=http://mirror.example.org/", "http://other.net/?u=http://mirror.example.org/"},
		{"ftp://mirror.example.org/", "ftp://mirror.example.org/"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got, _ := rs.Apply(tt.in); got != tt.want {
				t.Errorf("Apply(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestMirrorsErrors(t *testing.T) {
	tests := []struct {
		name   string
		groups [][]string
	}{
		{"a group of one", [][]string{{"www.example.org"}}},
		{"an empty group", [][]string{{}}},
		{"a site listed twice", [][]string{{"a.example", "b.example"}, {"c.example", "B.example"}}},
		{"a preferred site that is a mirror elsewhere", [][]string{{"a.example", "b.example"}, {"b.example", "c.example"}}},
		{"a path", [][]string{{"a.example", "b.example/x"}}},
		{"a URL", [][]string{{"a.example", "http://b.example"}}},
		{"a bad port", [][]string{{"a.example", "b.example:0"}}},
		{"a port too big", [][]string{{"a.example", "b.example:65536"}}},
		{"an empty site", [][]string{{"a.example", " "}}},
		{"IPv6 without brackets", [][]string{{"a.example", "2001:db8::1"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Mirrors(tt.groups); !errors.Is(err, ErrRule) {
				t.Errorf("Mirrors(%q) = %v, want ErrRule", tt.groups, err)
			}
		})
	}
}

func TestParseMirrors(t *testing.T) {
	tests := []struct {
		name    string
		data    string
		want    [][]string
		wantErr bool
	}{
		{"groups, comments, blank lines, CRLF, BOM",
			"\ufeff# mirrors\r\nwww.example.org mirror.example.org\texample.org\r\n\r\n  a.example   b.example  \n",
			[][]string{{"www.example.org", "mirror.example.org", "example.org"}, {"a.example", "b.example"}}, false},
		{"empty", "", nil, false},
		{"a line of one site", "www.example.org\n", nil, true},
		{"a site on two lines", "a.example b.example\nc.example b.example\n", nil, true},
		{"a bad site", "a.example b.example/path\n", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseMirrors([]byte(tt.data))
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParseMirrors error = %v, want error %v", err, tt.wantErr)
			}
			if err != nil {
				if !errors.Is(err, ErrRule) {
					t.Errorf("error %v is not ErrRule", err)
				}
				return
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
			for i := range got {
				if len(got[i]) != len(tt.want[i]) {
					t.Fatalf("got %q, want %q", got, tt.want)
				}
				for j := range got[i] {
					if got[i][j] != tt.want[i][j] {
						t.Errorf("got %q, want %q", got, tt.want)
					}
				}
			}
		})
	}
}
