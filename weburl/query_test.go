package weburl

import "testing"

func TestSortQuery(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"no query", "http://a/b", "http://a/b"},
		{"empty query", "http://a/b?", "http://a/b?"},
		{"one parameter", "http://a/?z=1", "http://a/?z=1"},
		{"already sorted", "http://a/?a=1&b=2", "http://a/?a=1&b=2"},
		{"sorted by name", "http://a/?b=2&a=1&c=3", "http://a/?a=1&b=2&c=3"},
		{"same name keeps order", "http://a/?b=1&a=2&b=0&a=1", "http://a/?a=2&a=1&b=1&b=0"},
		{"name, not whole pair", "http://a/?a=2&a-b=1&a=1", "http://a/?a=2&a=1&a-b=1"},
		{"semicolons, separators stay", "http://a/?b=2;a=1&c", "http://a/?a=1;b=2&c"},
		{"exact bytes kept", "http://a/?z=%2f+x&A=%C3%A9", "http://a/?A=%C3%A9&z=%2f+x"},
		{"bytes, not case-folded", "http://a/?b=1&B=2&a=3", "http://a/?B=2&a=3&b=1"},
		{"no value", "http://a/?y&x=", "http://a/?x=&y"},
		{"empty parameters", "http://a/?b=1&&a=2", "http://a/?&a=2&b=1"},
		{"fragment untouched", "http://a/?b=1&a=2#z&y", "http://a/?a=2&b=1#z&y"},
		{"question mark in query", "http://a/?b=?&a=1", "http://a/?a=1&b=?"},
		{"not a query after fragment", "http://a/#x?b&a", "http://a/#x?b&a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := SortQuery(tt.in)
			if got != tt.want {
				t.Fatalf("SortQuery(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if again := SortQuery(got); again != got {
				t.Fatalf("not idempotent: %q -> %q", got, again)
			}
		})
	}
}
