package boundedread_test

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/amber-crawler/amber/internal/boundedread"
)

// format is a document format of the test's own; errSource is the error of a broken stream.
var (
	format    = boundedread.Format{Name: "test", Not: errors.New("test: not a document"), Malformed: errors.New("test: malformed document")}
	errSource = errors.New("source broke")
)

func gz(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	if _, err := io.WriteString(w, s); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// kind names which of the errors an error is: "not", "malformed", "source" or "" for nil.
func kind(err error) string {
	errNot, errMalformed := format.Not, format.Malformed
	switch {
	case err == nil:
		return ""
	case errors.Is(err, errNot) && !errors.Is(err, errMalformed) && !errors.Is(err, errSource):
		return "not"
	case errors.Is(err, errMalformed) && !errors.Is(err, errNot) && !errors.Is(err, errSource):
		return "malformed"
	case errors.Is(err, errSource) && !errors.Is(err, errNot) && !errors.Is(err, errMalformed):
		return "source"
	}
	return "other: " + err.Error()
}

// TestOpenRead: a document, gzip-compressed or not, is read up to the bound, uncompressed; a
// corrupt gzip stream is the document's fault, an error of the stream under it is not.
func TestOpenRead(t *testing.T) {
	doc := strings.Repeat("<urlset>0123456789</urlset>\n", 1000) // 28,000 bytes
	long := gz(t, doc)
	cut := long[:len(long)/2]
	corrupt := append([]byte(nil), long...)
	for i := 20; i < 60; i++ {
		corrupt[i] ^= 0xff // in the deflate data, after the header
	}
	tests := []struct {
		name    string
		src     func() io.Reader
		max     int64
		openErr string // kind of Open's error
		want    string // what Read returns to its end, when Open succeeds
		over    bool
		readErr string // kind of Fault(false, ...) after reading to the end; "" when Read ended cleanly
		faultOK string // kind of Fault(true, ...) after reading to the end
	}{
		{name: "plain under the bound", src: func() io.Reader { return strings.NewReader("abc") }, max: 10, want: "abc", faultOK: "malformed"},
		{name: "plain at the bound", src: func() io.Reader { return strings.NewReader("abcdefghij") }, max: 10, want: "abcdefghij", faultOK: "malformed"},
		{name: "plain one byte over", src: func() io.Reader { return strings.NewReader("abcdefghijk") }, max: 10, want: "abcdefghij", over: true, faultOK: "malformed"},
		{name: "plain read byte by byte over", src: func() io.Reader { return iotest.OneByteReader(strings.NewReader(doc)) }, max: 100, want: doc[:100], over: true, faultOK: "malformed"},
		{name: "empty", src: func() io.Reader { return strings.NewReader("") }, max: 10, want: "", faultOK: "malformed"},
		{name: "one gzip magic byte is plain", src: func() io.Reader { return bytes.NewReader([]byte{0x1f}) }, max: 10, want: "\x1f", faultOK: "malformed"},
		{name: "gzip", src: func() io.Reader { return bytes.NewReader(long) }, max: 1 << 20, want: doc, faultOK: "malformed"},
		{name: "gzip bounded uncompressed", src: func() io.Reader { return bytes.NewReader(long) }, max: 5000, want: doc[:5000], over: true, faultOK: "malformed"},
		{name: "gzip exactly the bound", src: func() io.Reader { return bytes.NewReader(long) }, max: int64(len(doc)), want: doc, faultOK: "malformed"},
		{name: "gzip magic only", src: func() io.Reader { return bytes.NewReader([]byte{0x1f, 0x8b}) }, max: 10, openErr: "not"},
		{name: "gzip header corrupt", src: func() io.Reader {
			return bytes.NewReader([]byte{0x1f, 0x8b, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00})
		}, max: 10, openErr: "not"},
		{name: "source fails in the gzip header", src: func() io.Reader {
			return io.MultiReader(bytes.NewReader(long[:5]), iotest.ErrReader(errSource))
		}, max: 10, openErr: "source"},
		{name: "gzip cut short", src: func() io.Reader { return bytes.NewReader(cut) }, max: 1 << 20, want: doc, readErr: "not", faultOK: "malformed"},
		{name: "gzip data corrupt", src: func() io.Reader { return bytes.NewReader(corrupt) }, max: 1 << 20, readErr: "not", faultOK: "malformed"},
		{name: "plain source fails", src: func() io.Reader {
			return io.MultiReader(strings.NewReader("abc"), iotest.ErrReader(errSource))
		}, max: 10, want: "abc", readErr: "source", faultOK: "source"},
		{name: "gzip source fails", src: func() io.Reader {
			return io.MultiReader(bytes.NewReader(cut), iotest.ErrReader(errSource))
		}, max: 1 << 20, want: doc, readErr: "source", faultOK: "source"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := boundedread.Open(tt.src(), tt.max, format)
			if got := kind(err); got != tt.openErr {
				t.Fatalf("Open error: got %q, want %q", got, tt.openErr)
			}
			if err != nil {
				if r != nil {
					t.Errorf("Open returned a Reader with its error")
				}
				return
			}
			defer r.Close()
			got, err := io.ReadAll(r)
			if tt.readErr == "" {
				if err != nil {
					t.Fatalf("ReadAll: %v", err)
				}
				if string(got) != tt.want {
					t.Errorf("read %d bytes, want %d", len(got), len(tt.want))
				}
			} else {
				if err == nil {
					t.Fatalf("ReadAll: no error, want one")
				}
				if got := kind(r.Fault(false, err)); got != tt.readErr {
					t.Errorf("Fault(false): got %q, want %q", got, tt.readErr)
				}
				if tt.want != "" && !strings.HasPrefix(tt.want, string(got)) {
					t.Errorf("read %q, not a prefix of the document", got)
				}
			}
			if r.Over() != tt.over {
				t.Errorf("Over: got %v, want %v", r.Over(), tt.over)
			}
			if r.Max() != tt.max {
				t.Errorf("Max: got %d, want %d", r.Max(), tt.max)
			}
			if got := kind(r.Fault(true, io.ErrUnexpectedEOF)); got != tt.faultOK {
				t.Errorf("Fault(true): got %q, want %q", got, tt.faultOK)
			}
			if n, err := r.Read(make([]byte, 8)); tt.readErr == "" && (n != 0 || err != io.EOF) {
				t.Errorf("Read after the end: %d, %v; want 0, io.EOF", n, err)
			}
		})
	}
}

// TestEndXML: the end of an XML token stream: truncated, not a document, malformed or a read
// error.
func TestEndXML(t *testing.T) {
	tests := []struct {
		name       string
		src        io.Reader
		max        int64
		recognised bool
		err        error // the error that ended the token stream
		want       string
	}{
		{name: "cut before the root", src: strings.NewReader("<!-- a long comment -->"), max: 5, err: io.EOF, want: "not"},
		{name: "cut after the root", src: strings.NewReader("<urlset><url>"), max: 5, recognised: true, err: io.EOF, want: ""},
		{name: "cut after the root, decoder error", src: strings.NewReader("<urlset><url>"), max: 5, recognised: true, err: io.ErrUnexpectedEOF, want: ""},
		{name: "end without a root", src: strings.NewReader(" "), max: 5, err: io.EOF, want: "not"},
		{name: "end without closing the root", src: strings.NewReader("<a>"), max: 5, recognised: true, err: io.EOF, want: "malformed"},
		{name: "syntax error before the root", src: strings.NewReader("<<"), max: 5, err: errors.New("syntax"), want: "not"},
		{name: "syntax error after the root", src: strings.NewReader("<a><<"), max: 50, recognised: true, err: errors.New("syntax"), want: "malformed"},
		{name: "source error after the root", src: io.MultiReader(strings.NewReader("<a>"), iotest.ErrReader(errSource)), max: 50, recognised: true, err: errSource, want: "source"},
		{name: "source error before the root", src: io.MultiReader(strings.NewReader(" "), iotest.ErrReader(errSource)), max: 50, err: errSource, want: "source"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := boundedread.Open(tt.src, tt.max, format)
			if err != nil {
				t.Fatal(err)
			}
			io.ReadAll(r)
			if got := kind(r.EndXML(tt.recognised, tt.err)); got != tt.want {
				t.Errorf("EndXML: got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestNewXMLDecoder: the decoder reads XML as browsers do.
func TestNewXMLDecoder(t *testing.T) {
	// Not strict, HTML entities, a declared encoding: as browsers read sitemaps and feeds.
	doc := "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><a>x&y &eacute; \xe9</a>"
	d := boundedread.NewXMLDecoder(strings.NewReader(doc))
	var text []byte
	for {
		tok, err := d.RawToken()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("RawToken: %v", err)
		}
		if cd, ok := tok.(xml.CharData); ok {
			text = append(text, cd...)
		}
	}
	if got, want := string(text), "x&y é é"; got != want {
		t.Errorf("text: got %q, want %q", got, want)
	}
}

// TestIsCorrupt: the faults of gzip data are told from the errors of the stream under it.
func TestIsCorrupt(t *testing.T) {
	tests := map[string]struct {
		err  error
		want bool
	}{
		"bad header":           {gzip.ErrHeader, true},
		"bad checksum":         {gzip.ErrChecksum, true},
		"cut short":            {io.ErrUnexpectedEOF, true},
		"corrupt deflate data": {flate.CorruptInputError(12), true},
		"wrapped checksum":     {fmt.Errorf("read: %w", gzip.ErrChecksum), true},
		"stream error":         {errSource, false},
		"end of stream":        {io.EOF, false},
		"no error":             {nil, false},
	}
	for name, tt := range tests {
		if got := boundedread.IsCorrupt(tt.err); got != tt.want {
			t.Errorf("%s: IsCorrupt(%v) = %v, want %v", name, tt.err, got, tt.want)
		}
	}
}
