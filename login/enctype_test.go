package login

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/fetch"
)

// TestEncodeBody: each enctype writes the fields in their order as a browser does, and a
// multipart body reads back (mime/multipart) as the fields, with HTML's escapes of names and
// CRLF line breaks.
func TestEncodeBody(t *testing.T) {
	fields := []Field{{"user", "ann smith"}, {"note", "a\nb\r\nc"}, {`q"x`, "é&="}, {"user", "bob"}}
	tests := []struct {
		enctype, wantType string
		want              []Field // read back; nil: compare wantBody
		wantBody          string
	}{
		{EnctypeURLEncoded, EnctypeURLEncoded, nil, "user=ann+smith&note=a%0Ab%0D%0Ac&q%22x=%C3%A9%26%3D&user=bob"},
		{EnctypeTextPlain, EnctypeTextPlain + "; charset=UTF-8", nil, "user=ann smith\r\nnote=a\r\nb\r\nc\r\nq\"x=é&=\r\nuser=bob\r\n"},
		{EnctypeMultipart, EnctypeMultipart, []Field{{"user", "ann smith"}, {"note", "a\r\nb\r\nc"}, {"q%22x", "é&="}, {"user", "bob"}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.enctype, func(t *testing.T) {
			body, ct := EncodeBody(fields, tt.enctype)
			mt, params, err := mime.ParseMediaType(ct)
			if err != nil {
				t.Fatal(err)
			}
			if want, _, _ := strings.Cut(tt.wantType, ";"); mt != want {
				t.Errorf("Content-Type %q, want %s", ct, tt.wantType)
			}
			if tt.want == nil {
				if string(body) != tt.wantBody || ct != tt.wantType {
					t.Errorf("body %q (%s), want %q (%s)", body, ct, tt.wantBody, tt.wantType)
				}
				return
			}
			mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
			var got []Field
			for {
				p, err := mr.NextRawPart()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("multipart body %q: %v", body, err)
				}
				v, err := io.ReadAll(p)
				if err != nil {
					t.Fatal(err)
				}
				_, dp, _ := mime.ParseMediaType(p.Header.Get("Content-Disposition"))
				got = append(got, Field{dp["name"], string(v)})
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("fields read back (-want +got):\n%s", diff)
			}
		})
	}
}

// mpSite has a login form with enctype=multipart/form-data and a hidden CSRF field; its
// handler accepts only a multipart submission of the right fields and keeps its raw body.
type mpSite struct {
	mu     sync.Mutex // guards the fields below
	bodies [][]byte
	types  []string
}

func (s *mpSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/login.html":
		fmt.Fprintf(w, `<form method=post action=/mp enctype="multipart/form-data"><input type=hidden name=csrf value="%s">
<input name=user><input type=password name=pass><input type=submit name=go value="Log in"></form>`, html.EscapeString("t/k=1"))
	case "/mp":
		raw, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.bodies, s.types = append(s.bodies, raw), append(s.types, r.Header.Get("Content-Type"))
		s.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(raw))
		if err := r.ParseMultipartForm(1 << 20); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if r.FormValue("csrf") != "t/k=1" || r.FormValue("user") != "alice" || r.FormValue("pass") != "s3cret" || r.FormValue("go") != "Log in" {
			http.Error(w, "wrong fields", http.StatusForbidden)
			return
		}
		io.WriteString(w, "<h1>Welcome</h1>")
	default:
		http.NotFound(w, r)
	}
}

// TestPerformMultipart: an autofilled form with enctype=multipart/form-data is submitted as
// multipart/form-data, and the request the client recorded (what the crawl archives) holds
// exactly the body the server received.
func TestPerformMultipart(t *testing.T) {
	s := &mpSite{}
	srv := httptest.NewServer(s)
	defer srv.Close()
	c, err := fetch.NewClient(fetch.Config{UserAgent: "amber-test", AllowPrivate: true, Jar: fetch.NewJar()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var recorded [][]byte
	do := func(ctx context.Context, step string, req fetch.Request) (*fetch.Exchange, error) {
		ex, err := c.Do(ctx, req)
		if err == nil && step == StepSubmit {
			recorded = append(recorded, ex.Request)
		}
		return ex, err
	}
	spec := Spec{Name: "mp", HTMLForm: srv.URL + "/login.html", Autofill: true, Parameters: []Field{{"user", "alice"}, {"pass", "s3cret"}}}
	got, err := Perform(t.Context(), spec, do)
	if err != nil {
		t.Fatal(err)
	}
	if !got.OK || got.Status != 200 {
		t.Fatalf("Perform = %+v, want a login", got)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.bodies) != 1 || len(recorded) != 1 {
		t.Fatalf("%d submissions received, %d recorded; want 1, 1", len(s.bodies), len(recorded))
	}
	if !strings.HasPrefix(s.types[0], EnctypeMultipart+"; boundary=") {
		t.Errorf("Content-Type %q, want multipart/form-data with a boundary", s.types[0])
	}
	_, body, _ := bytes.Cut(recorded[0], []byte("\r\n\r\n"))
	if !bytes.Equal(body, s.bodies[0]) {
		t.Errorf("recorded body\n%q\nserver received\n%q", body, s.bodies[0])
	}
	if !bytes.Contains(recorded[0], []byte("\r\nContent-Type: "+s.types[0]+"\r\n")) {
		t.Errorf("recorded request without its Content-Type %q:\n%s", s.types[0], recorded[0])
	}
}
