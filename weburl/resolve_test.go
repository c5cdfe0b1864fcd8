package weburl

import "testing"

func TestResolve(t *testing.T) {
	tests := []struct {
		base, ref, want string
		ok              bool
	}{
		{"http://a.example/dir/page", "other", "http://a.example/dir/other", true},
		{"http://a.example/dir/page", "/root", "http://a.example/root", true},
		{"http://a.example/dir/page", "https://b.example/x", "https://b.example/x", true},
		{"http://a.example/dir/page", "  //c.example/y  ", "http://c.example/y", true},
		{"http://a.example/dir/page", "?q=1", "http://a.example/dir/page?q=1", true},
		{"http://a.example/", "http://[::1", "", false},
		{"http://[::1", "x", "", false},
	}
	for _, tt := range tests {
		got, ok := Resolve(tt.base, tt.ref)
		if got != tt.want || ok != tt.ok {
			t.Errorf("Resolve(%q, %q) = %q, %v; want %q, %v", tt.base, tt.ref, got, ok, tt.want, tt.ok)
		}
	}
}
