package post

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/chain"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/scope"
)

// TestPayloadFor: the payload for exactly the URL wins wherever it is listed, else the longest
// prefix; a prefix is a byte prefix of the URL, and an exact URL matches nothing longer.
func TestPayloadFor(t *testing.T) {
	exact := Payload{URL: "http://example.com/a/b", Body: "exact"}
	short := Payload{URL: "http://example.com/", Prefix: true, Body: "short"}
	long := Payload{URL: "http://example.com/a/", Prefix: true, Body: "long"}
	other := Payload{URL: "http://example.com/a/", Prefix: true, Body: "other"} // same length as long
	tests := []struct {
		name   string
		ps     []Payload
		u      string
		want   Payload
		wantOK bool
	}{
		{"none", nil, "http://example.com/", Payload{}, false},
		{"exact", []Payload{exact}, "http://example.com/a/b", exact, true},
		{"exact is not a prefix", []Payload{exact}, "http://example.com/a/bc", Payload{}, false},
		{"exact needs the whole URL", []Payload{exact}, "http://example.com/a/", Payload{}, false},
		{"exact before prefixes", []Payload{exact, short, long}, "http://example.com/a/b", exact, true},
		{"exact after prefixes", []Payload{short, long, exact}, "http://example.com/a/b", exact, true},
		{"exact over a prefix of the same URL", []Payload{{URL: exact.URL, Prefix: true, Body: "p"}, exact}, exact.URL, exact, true},
		{"exact over a prefix of the same URL, listed first", []Payload{exact, {URL: exact.URL, Prefix: true, Body: "p"}}, exact.URL, exact, true},
		{"prefix", []Payload{short}, "http://example.com/x", short, true},
		{"prefix matches itself", []Payload{long}, "http://example.com/a/", long, true},
		{"longest prefix, listed last", []Payload{short, long}, "http://example.com/a/c", long, true},
		{"longest prefix, listed first", []Payload{long, short}, "http://example.com/a/c", long, true},
		{"shorter prefix when the longer does not match", []Payload{short, long}, "http://example.com/b", short, true},
		{"equal prefixes: the first", []Payload{long, other}, "http://example.com/a/c", long, true},
		// A prefix is bytes, not a host: example.com/ does not cover example.com.evil/.
		{"prefix is bytes", []Payload{{URL: "http://example.com", Prefix: true}}, "http://example.com.evil/", Payload{URL: "http://example.com", Prefix: true}, true},
		{"prefix of another host", []Payload{short}, "http://example.org/", Payload{}, false},
		{"https is another prefix", []Payload{short}, "https://example.com/", Payload{}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := payloadFor(tc.ps, tc.u)
			if ok != tc.wantOK {
				t.Fatalf("payloadFor(%q) ok = %v, want %v", tc.u, ok, tc.wantOK)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("payloadFor(%q) mismatch (-want +got):\n%s", tc.u, diff)
			}
		})
	}
}

// record returns a chain record of a claim of u, its request made of u.
func record(u string) *chain.Record {
	return &chain.Record{
		Claim:   &frontier.Claim{URL: frontier.URL{URL: u}},
		Request: fetch.Request{URL: u},
	}
}

// TestPayloadsBefore: a URL with a payload is requested as a POST of its body as a form; other
// URLs are left alone; headers already set on the request are kept.
func TestPayloadsBefore(t *testing.T) {
	ps := Payloads{
		{URL: "http://example.com/form", Body: "a=1&b=2"},
		{URL: "http://example.com/api/", Prefix: true, Body: "q=x"},
		{URL: "http://example.com/api/v2/", Prefix: true, Body: "q=v2"},
	}
	form := "application/x-www-form-urlencoded"
	tests := []struct {
		name   string
		u      string
		header http.Header
		want   fetch.Request
	}{
		{
			name: "exact",
			u:    "http://example.com/form",
			want: fetch.Request{URL: "http://example.com/form", Method: http.MethodPost, Body: []byte("a=1&b=2"), Header: http.Header{"Content-Type": {form}}},
		},
		{
			name: "prefix",
			u:    "http://example.com/api/search",
			want: fetch.Request{URL: "http://example.com/api/search", Method: http.MethodPost, Body: []byte("q=x"), Header: http.Header{"Content-Type": {form}}},
		},
		{
			name: "longest prefix",
			u:    "http://example.com/api/v2/search",
			want: fetch.Request{URL: "http://example.com/api/v2/search", Method: http.MethodPost, Body: []byte("q=v2"), Header: http.Header{"Content-Type": {form}}},
		},
		{
			name:   "header kept",
			u:      "http://example.com/form",
			header: http.Header{"Referer": {"http://example.com/"}, "Content-Type": {"text/plain"}},
			want: fetch.Request{URL: "http://example.com/form", Method: http.MethodPost, Body: []byte("a=1&b=2"),
				Header: http.Header{"Referer": {"http://example.com/"}, "Content-Type": {form}}},
		},
		{
			name: "no payload",
			u:    "http://example.com/formx",
			want: fetch.Request{URL: "http://example.com/formx"},
		},
		{
			name:   "no payload, header untouched",
			u:      "http://example.com/other",
			header: http.Header{"Referer": {"http://example.com/"}},
			want:   fetch.Request{URL: "http://example.com/other", Header: http.Header{"Referer": {"http://example.com/"}}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := record(tc.u)
			r.Request.Header = tc.header
			v, err := ps.Before(context.Background(), r)
			if err != nil {
				t.Fatalf("Before(%q): %v", tc.u, err)
			}
			if diff := cmp.Diff(chain.Proceed, v); diff != "" {
				t.Errorf("Before(%q) verdict, want Proceed (-want +got):\n%s", tc.u, diff)
			}
			if diff := cmp.Diff(tc.want, r.Request, cmp.Comparer(func(a, b fetch.Admit) bool { return a == nil && b == nil })); diff != "" {
				t.Errorf("Before(%q) request mismatch (-want +got):\n%s", tc.u, diff)
			}
		})
	}
}

// TestPayloadsBeforeKeepsHeaderMap: the request's own header map is added to, not replaced.
func TestPayloadsBeforeKeepsHeaderMap(t *testing.T) {
	ps := Payloads{{URL: "http://example.com/form", Body: "a=1"}}
	r := record("http://example.com/form")
	h := http.Header{"Cookie": {"s=1"}}
	r.Request.Header = h
	if _, err := ps.Before(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	if got := h.Get("Content-Type"); got != "application/x-www-form-urlencoded" {
		t.Errorf("the request's header map: Content-Type = %q, want the form's (map replaced?)", got)
	}
	if got := r.Request.Header.Get("Cookie"); got != "s=1" {
		t.Errorf("Cookie = %q, want s=1", got)
	}
}

// TestPayloadsAfter: the first capture of a POST request is annotated "post", once; a GET's
// captures, and the captures after the first, are not.
func TestPayloadsAfter(t *testing.T) {
	tests := []struct {
		name     string
		method   string
		captures []chain.Capture
		want     [][]string
	}{
		{"post", http.MethodPost, []chain.Capture{{}}, [][]string{{Note}}},
		{"post, earlier notes kept", http.MethodPost, []chain.Capture{{Annotations: []string{"3t"}}}, [][]string{{"3t", Note}}},
		{"post, first capture only", http.MethodPost, []chain.Capture{{}, {}}, [][]string{{Note}, nil}},
		{"get", http.MethodGet, []chain.Capture{{}}, [][]string{nil}},
		{"default method", "", []chain.Capture{{}, {}}, [][]string{nil, nil}},
		{"head", http.MethodHead, []chain.Capture{{}}, [][]string{nil}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := record("http://example.com/form")
			r.Request.Method = tc.method
			r.Captures = tc.captures
			v, err := Payloads{}.After(context.Background(), r)
			if err != nil {
				t.Fatalf("After: %v", err)
			}
			if diff := cmp.Diff(chain.Proceed, v); diff != "" {
				t.Errorf("After verdict, want Proceed (-want +got):\n%s", diff)
			}
			var got [][]string
			for _, k := range r.Captures {
				got = append(got, k.Annotations)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("annotations mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPayloadsAfterSharedAnnotations: captures of one fetch that share their annotations'
// array do not see each other's "post".
func TestPayloadsAfterSharedAnnotations(t *testing.T) {
	shared := make([]string, 1, 4)
	shared[0] = "x"
	r := record("http://example.com/form")
	r.Request.Method = http.MethodPost
	r.Captures = []chain.Capture{{Annotations: shared}, {Annotations: shared}}
	if _, err := (Payloads{}).After(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"x", Note}, r.Captures[0].Annotations); diff != "" {
		t.Errorf("first capture (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"x"}, r.Captures[1].Annotations); diff != "" {
		t.Errorf("second capture (-want +got):\n%s", diff)
	}
}

// TestBeforeThenAfter: a URL made a POST by Before is annotated by After; one left alone is
// not.
func TestBeforeThenAfter(t *testing.T) {
	ps := Payloads{{URL: "http://example.com/", Prefix: true, Body: "a=1"}}
	for _, tc := range []struct {
		u    string
		want []string
	}{
		{"http://example.com/x", []string{Note}},
		{"http://example.org/x", nil},
	} {
		t.Run(tc.u, func(t *testing.T) {
			r := record(tc.u)
			if _, err := ps.Before(context.Background(), r); err != nil {
				t.Fatal(err)
			}
			r.Captures = []chain.Capture{{}}
			if _, err := ps.After(context.Background(), r); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, r.Captures[0].Annotations); diff != "" {
				t.Errorf("annotations (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPayloadsName: the processor's name is the configuration's key.
func TestPayloadsName(t *testing.T) {
	if got := (Payloads{}).Name(); got != "post_payloads" {
		t.Errorf("Name() = %q, want post_payloads", got)
	}
	var _ chain.Before = Payloads{}
	var _ chain.After = Payloads{}
}

// TestValidate: the first payload whose URL is no http(s) URL with a host, or does not
// canonicalise in the flavour, is reported as a *chain.FieldError of its index.
func TestValidate(t *testing.T) {
	ok := Payload{URL: "http://example.com/form", Body: "a=1"}
	tests := []struct {
		name      string
		ps        []Payload
		flavour   scope.Flavour
		wantField string // "" for no error
		wantURL   bool   // the error wraps scope.ErrURL (Canonicalize refused it)
	}{
		{name: "none"},
		{name: "http", ps: []Payload{ok}},
		{name: "https", ps: []Payload{{URL: "https://example.com/"}}},
		{name: "upper-case scheme", ps: []Payload{{URL: "HTTPS://Example.COM/"}}},
		{name: "prefix", ps: []Payload{{URL: "http://example.com/a", Prefix: true}}},
		{name: "host only", ps: []Payload{{URL: "http://example.com"}}},
		{name: "port", ps: []Payload{{URL: "http://example.com:8080/"}}},
		{name: "brozzler", ps: []Payload{{URL: "http://example.com//a"}}, flavour: scope.Brozzler},
		{name: "empty", ps: []Payload{{URL: ""}}, wantField: "[0]"},
		{name: "relative", ps: []Payload{{URL: "/form"}}, wantField: "[0]"},
		{name: "no scheme", ps: []Payload{{URL: "example.com/form"}}, wantField: "[0]"},
		{name: "ftp", ps: []Payload{{URL: "ftp://example.com/"}}, wantField: "[0]"},
		{name: "mailto", ps: []Payload{{URL: "mailto:a@example.com"}}, wantField: "[0]"},
		{name: "opaque http", ps: []Payload{{URL: "http:example.com"}}, wantField: "[0]"},
		{name: "no host", ps: []Payload{{URL: "http:///form"}}, wantField: "[0]"},
		{name: "unparsable", ps: []Payload{{URL: "http://exa mple.com/"}}, wantField: "[0]"},
		{name: "bad escape in host", ps: []Payload{{URL: "http://%zz/"}}, wantField: "[0]"},
		{name: "port too large", ps: []Payload{{URL: "http://example.com:99999/"}}, wantField: "[0]", wantURL: true},
		{name: "not an ipv4 address", ps: []Payload{{URL: "http://1.2.3.4.5/"}}, wantField: "[0]", wantURL: true},
		{name: "bad host character", ps: []Payload{{URL: "http://exa!mple.com/"}}, wantField: "[0]", wantURL: true},
		{name: "second", ps: []Payload{ok, {URL: "ftp://example.com/"}}, wantField: "[1]"},
		{name: "first of two", ps: []Payload{ok, {URL: "x"}, {URL: "y"}}, wantField: "[1]"},
		{name: "third", ps: []Payload{ok, ok, {URL: "http://1.2.3.4.5/", Prefix: true}}, wantField: "[2]", wantURL: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Validate(tc.ps, tc.flavour)
			if tc.wantField == "" {
				if err != nil {
					t.Fatalf("Validate = %v, want nil", err)
				}
				return
			}
			var fe *chain.FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("Validate = %v (%T), want a *chain.FieldError", err, err)
			}
			if fe.Field != tc.wantField {
				t.Errorf("Field = %q, want %q", fe.Field, tc.wantField)
			}
			if fe.Err == nil {
				t.Errorf("FieldError.Err = nil, want the cause")
			}
			if got := errors.Is(err, scope.ErrURL); got != tc.wantURL {
				t.Errorf("errors.Is(%v, scope.ErrURL) = %v, want %v", err, got, tc.wantURL)
			}
		})
	}
}

// TestCanonical: the payloads' URLs are canonical in the flavour, the rest of each payload
// kept; the caller's slice is not modified; a URL that does not canonicalise is kept as given.
func TestCanonical(t *testing.T) {
	tests := []struct {
		name    string
		ps      []Payload
		flavour scope.Flavour
		want    Payloads
	}{
		{name: "none", ps: nil, want: nil},
		{
			name: "standard",
			ps: []Payload{
				{URL: "HTTP://Example.COM:80/a/../b?x=1#frag", Body: "a=1"},
				{URL: "https://example.com:443", Prefix: true, Body: "p"},
				{URL: "http://example.com/a//b"},
				{URL: "http://example.com/%7euser"},
			},
			want: Payloads{
				{URL: "http://example.com/b?x=1", Body: "a=1"},
				{URL: "https://example.com/", Prefix: true, Body: "p"},
				{URL: "http://example.com/a//b"},
				{URL: "http://example.com/~user"},
			},
		},
		{
			name:    "brozzler collapses slashes",
			ps:      []Payload{{URL: "http://example.com/a//b", Body: "b"}},
			flavour: scope.Brozzler,
			want:    Payloads{{URL: "http://example.com/a/b", Body: "b"}},
		},
		{
			name: "already canonical",
			ps:   []Payload{{URL: "http://example.com/form?b=2&a=1"}},
			want: Payloads{{URL: "http://example.com/form?b=2&a=1"}},
		},
		{
			name: "does not canonicalise: kept",
			ps:   []Payload{{URL: "http://1.2.3.4.5/"}, {URL: "HTTP://EXAMPLE.com/"}},
			want: Payloads{{URL: "http://1.2.3.4.5/"}, {URL: "http://example.com/"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := slices.Clone(tc.ps)
			got := Canonical(tc.ps, tc.flavour, false)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Canonical mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(in, tc.ps); diff != "" {
				t.Errorf("Canonical modified its input (-before +after):\n%s", diff)
			}
		})
	}
}

// TestCanonicalIdempotent: canonical payloads stay as they are, and still validate.
func TestCanonicalIdempotent(t *testing.T) {
	ps := []Payload{
		{URL: "HTTP://Example.COM/a/./b/../c#x", Body: "a"},
		{URL: "https://xn--bcher-kva.example/", Prefix: true},
	}
	for _, f := range []scope.Flavour{scope.Standard, scope.Brozzler} {
		t.Run(string(f), func(t *testing.T) {
			once := Canonical(ps, f, false)
			if diff := cmp.Diff(once, Canonical(once, f, false)); diff != "" {
				t.Errorf("Canonical(Canonical(ps)) differs (-once +twice):\n%s", diff)
			}
			if err := Validate(once, f); err != nil {
				t.Errorf("Validate(Canonical(ps)) = %v, want nil", err)
			}
		})
	}
}

// TestCanonicalSortQuery: with the crawl sorting queries, an exact payload whose query is not
// sorted matches both the URL as written (a seed) and the URL with its query sorted (found on
// a page); a sorted one and a prefix are there once; applying it twice changes nothing.
func TestCanonicalSortQuery(t *testing.T) {
	ps := []Payload{
		{URL: "http://example.com/search?q=a&b=1", Body: "x=1"},
		{URL: "http://example.com/s?a=1&b=2", Body: "y=2"},
		{URL: "http://example.com/p?z=1&a=2", Prefix: true, Body: "z=3"},
	}
	want := Payloads{
		{URL: "http://example.com/search?q=a&b=1", Body: "x=1"},
		{URL: "http://example.com/s?a=1&b=2", Body: "y=2"},
		{URL: "http://example.com/p?z=1&a=2", Prefix: true, Body: "z=3"},
		{URL: "http://example.com/search?b=1&q=a", Body: "x=1"},
	}
	got := Canonical(ps, scope.Standard, true)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Canonical (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(got, Canonical(got, scope.Standard, true)); diff != "" {
		t.Errorf("Canonical twice (-once +twice):\n%s", diff)
	}
	for _, u := range []string{"http://example.com/search?q=a&b=1", "http://example.com/search?b=1&q=a"} {
		if p, ok := payloadFor(got, u); !ok || p.Body != "x=1" {
			t.Errorf("payloadFor(%s) = %+v, %v; want the body x=1", u, p, ok)
		}
	}
}
