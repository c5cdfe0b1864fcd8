package chain_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/amber-crawler/amber/chain"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/status"
	"github.com/amber-crawler/amber/warc"
)

// TestCaptureAnnotateCopies: the captures of one fetch may share their annotations' array
// (and its spare capacity); each capture's notes stay its own, and the shared array is left
// as it was.
func TestCaptureAnnotateCopies(t *testing.T) {
	shared := make([]string, 1, 8) // room to grow: an append in place would write into it
	shared[0] = "shared"
	a := chain.Capture{Annotations: shared}
	b := chain.Capture{Annotations: shared}
	a.Annotate("a1", "a2")
	b.Annotate("b1")
	a.Annotate("a3")

	tests := []struct {
		name string
		got  []string
		want []string
	}{
		{"first capture", a.Annotations, []string{"shared", "a1", "a2", "a3"}},
		{"second capture", b.Annotations, []string{"shared", "b1"}},
		{"shared array", shared[:4], []string{"shared", "", "", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.got); diff != "" {
				t.Errorf("annotations (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCaptureAddFieldCopies: AddField copies the fields first, as Annotate does.
func TestCaptureAddFieldCopies(t *testing.T) {
	shared := make([]warc.Field, 1, 8)
	shared[0] = warc.Field{Name: "shared", Value: "0"}
	a := chain.Capture{Fields: shared}
	b := chain.Capture{Fields: shared}
	a.AddField("a", "1")
	b.AddField("b", "2")

	tests := []struct {
		name string
		got  []warc.Field
		want []warc.Field
	}{
		{"first capture", a.Fields, []warc.Field{{Name: "shared", Value: "0"}, {Name: "a", Value: "1"}}},
		{"second capture", b.Fields, []warc.Field{{Name: "shared", Value: "0"}, {Name: "b", Value: "2"}}},
		{"shared array", shared[:2], []warc.Field{{Name: "shared", Value: "0"}, {}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.got); diff != "" {
				t.Errorf("fields (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCaptureAnnotateEmpty: a capture without annotations gets the notes given.
func TestCaptureAnnotateEmpty(t *testing.T) {
	var k chain.Capture
	k.Annotate()
	if len(k.Annotations) != 0 {
		t.Errorf("Annotate() = %q, want none", k.Annotations)
	}
	k.Annotate("x")
	k.AddField("via", "y")
	if diff := cmp.Diff(chain.Capture{Annotations: []string{"x"}, Fields: []warc.Field{{Name: "via", Value: "y"}}}, k); diff != "" {
		t.Errorf("capture (-want +got):\n%s", diff)
	}
}

// testRecord returns a record of the claimed URL u with the exchanges of urls (none: before
// the fetch) and Doc doc.
func testRecord(doc int, urls ...string) *chain.Record {
	u := frontier.URL{URL: "http://a.example/start", Host: "a.example", Hops: "LR", Via: "http://a.example/", Seed: "http://a.example/"}
	r := &chain.Record{Claim: frontier.NewClaim(u, nil), Doc: doc}
	if len(urls) > 0 {
		r.Result = &fetch.Result{}
		for _, x := range urls {
			r.Result.Exchanges = append(r.Result.Exchanges, &fetch.Exchange{URL: x})
		}
	}
	return r
}

// TestRecordDoc: the document of a record is the claimed URL's, or, with Doc, that of the end
// of the redirect chain a browser followed; Exchange is nil before the fetch.
func TestRecordDoc(t *testing.T) {
	tests := []struct {
		name     string
		r        *chain.Record
		wantURL  string
		wantExch string // the URL of Exchange(); "" for nil
	}{
		{"before the fetch", testRecord(0), "http://a.example/start", ""},
		{"plain fetch", testRecord(0, "http://a.example/start"), "http://a.example/start", "http://a.example/start"},
		{"redirect followed", testRecord(2, "http://a.example/start", "http://a.example/next", "http://b.example/end", "http://b.example/style.css"),
			"http://b.example/end", "http://b.example/end"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.r.DocURL(); got != tt.wantURL {
				t.Errorf("DocURL() = %q, want %q", got, tt.wantURL)
			}
			got := ""
			if ex := tt.r.Exchange(); ex != nil {
				got = ex.URL
			}
			if got != tt.wantExch {
				t.Errorf("Exchange().URL = %q, want %q", got, tt.wantExch)
			}
		})
	}
}

// TestRecordInfo: the record's URL as events name it, and as the frontier gave it.
func TestRecordInfo(t *testing.T) {
	r := testRecord(0)
	want := report.URLInfo{URL: "http://a.example/start", Hops: "LR", Via: "http://a.example/", Seed: "http://a.example/"}
	if diff := cmp.Diff(want, r.Info()); diff != "" {
		t.Errorf("Info() (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(r.Claim.URL, r.URL()); diff != "" {
		t.Errorf("URL() (-want +got):\n%s", diff)
	}
}

// TestAttemptsNote: Heritrix's annotation of the n-th attempt.
func TestAttemptsNote(t *testing.T) {
	for _, tt := range []struct {
		n    int
		want string
	}{{1, "1t"}, {3, "3t"}, {12, "12t"}} {
		t.Run(tt.want, func(t *testing.T) {
			if got := chain.AttemptsNote(tt.n); got != tt.want {
				t.Errorf("AttemptsNote(%d) = %q, want %q", tt.n, got, tt.want)
			}
		})
	}
}

// TestErrorWord: a fetch error in one token: a *fetch.Error's inner error (not its own text,
// which names the URL), its words joined by "_".
func TestErrorWord(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"fetch error", &fetch.Error{Kind: fetch.Timeout, URL: "http://a.example/", Err: errors.New("i/o timeout")}, "i/o_timeout"},
		{"wrapped fetch error", fmt.Errorf("robots: %w", &fetch.Error{Kind: fetch.Connect, URL: "http://a.example/", Err: errors.New("connection  refused")}),
			"connection_refused"},
		{"fetch error without a cause", &fetch.Error{Kind: fetch.DNS, URL: "http://a.example/"}, "fetch_dns_http://a.example/"},
		{"other error", errors.New("page crashed:\tout of\nmemory "), "page_crashed:_out_of_memory"},
		{"one word", errors.New("EOF"), "EOF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := chain.ErrorWord(tt.err); got != tt.want {
				t.Errorf("ErrorWord(%v) = %q, want %q", tt.err, got, tt.want)
			}
		})
	}
}

// TestRefusalFound: a refusal returned through the fetch (fetch.Config.CheckAddr's error,
// wrapped in a *fetch.Error of kind Blocked) is found with its outcome.
func TestRefusalFound(t *testing.T) {
	ref := &chain.Refusal{Reason: "block:ip:192.0.2.0/24", Outcome: chain.Outcome{Status: status.OutOfScope, Annotations: []string{"addr:192.0.2.1"}}}
	err := fmt.Errorf("fetch page: %w", &fetch.Error{Kind: fetch.Blocked, URL: "http://a.example/", Err: ref})
	var got *chain.Refusal
	if !errors.As(err, &got) {
		t.Fatalf("errors.As(%v, *Refusal) = false, want the refusal", err)
	}
	if got != ref {
		t.Errorf("refusal found = %+v, want %+v", got, ref)
	}
	if got.Error() == "" {
		t.Error("Refusal.Error() is empty")
	}
}

// TestFatalErrorUnwraps: a fatal error keeps its cause for errors.Is and errors.As, and reads
// as it.
func TestFatalErrorUnwraps(t *testing.T) {
	cause := &fetch.Error{Kind: fetch.Broken, URL: "http://a.example/login", Err: errors.New("reset")}
	err := fmt.Errorf("login: %w", &chain.FatalError{Err: cause})
	var fe *chain.FatalError
	if !errors.As(err, &fe) {
		t.Fatalf("errors.As(%v, *FatalError) = false", err)
	}
	if !errors.Is(err, cause) {
		t.Errorf("errors.Is(fatal, cause) = false, want true")
	}
	var inner *fetch.Error
	if !errors.As(err, &inner) || inner != cause {
		t.Errorf("errors.As(fatal, *fetch.Error) = %v, want the cause", inner)
	}
	if got, want := fe.Error(), cause.Error(); got != want {
		t.Errorf("FatalError.Error() = %q, want the cause's %q", got, want)
	}
}

// TestFieldErrorUnwraps: a configuration's field error names the field and keeps its cause.
func TestFieldErrorUnwraps(t *testing.T) {
	cause := errors.New("must be positive")
	err := fmt.Errorf("config: %w", &chain.FieldError{Field: "TTL", Err: cause})
	var fe *chain.FieldError
	if !errors.As(err, &fe) || fe.Field != "TTL" {
		t.Fatalf("errors.As(%v, *FieldError) = %+v, want field TTL", err, fe)
	}
	if !errors.Is(err, cause) {
		t.Errorf("errors.Is(field error, cause) = false, want true")
	}
}

// TestVerdicts: what each verdict constructor says.
func TestVerdicts(t *testing.T) {
	boom := errors.New("boom")
	out := chain.Outcome{Status: status.Robots, Annotations: []string{"robots"}, Denied: report.DenyRobots}
	tests := []struct {
		name string
		got  chain.Verdict
		want chain.Verdict
	}{
		{"Proceed", chain.Proceed, chain.Verdict{}},
		{"Finish", chain.Finish(out), chain.Verdict{Done: true, Outcome: out}},
		{"Finish with a zero outcome", chain.Finish(chain.Outcome{}), chain.Verdict{Done: true}},
		{"Fail", chain.Fail(boom), chain.Verdict{Done: true, Failure: boom}},
		{"Abandon", chain.Abandon, chain.Verdict{Done: true, Outcome: chain.Outcome{Abandon: true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.got, cmpopts.EquateErrors()); diff != "" {
				t.Errorf("verdict (-want +got):\n%s", diff)
			}
		})
	}
	if chain.Proceed.Done {
		t.Error("Proceed.Done = true, want false")
	}
}
