package login

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"strings"
)

// The form encodings of HTML (the enctype attribute of a form).
const (
	EnctypeURLEncoded = "application/x-www-form-urlencoded"
	EnctypeMultipart  = "multipart/form-data"
	EnctypeTextPlain  = "text/plain"
)

// formEnctype is the encoding of a form's enctype attribute value, as HTML reads it:
// multipart/form-data or text/plain (any case), else application/x-www-form-urlencoded.
func formEnctype(v string) string {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case EnctypeMultipart:
		return EnctypeMultipart
	case EnctypeTextPlain:
		return EnctypeTextPlain
	}
	return EnctypeURLEncoded
}

// EncodeBody writes the fields of a POST submission as enctype says, in their order, and
// returns the body and its Content-Type: multipart/form-data as a browser writes it (a
// boundary of random hex, each field a part with Content-Disposition: form-data;
// name="NAME", a quote, CR and LF in the name escaped as %22, %0D and %0A, line breaks of
// the value as CRLF), text/plain as NAME=VALUE lines ending in CRLF, anything else
// application/x-www-form-urlencoded (Encode).
func EncodeBody(fields []Field, enctype string) (body []byte, contentType string) {
	switch enctype {
	case EnctypeMultipart:
		return encodeMultipart(fields, newBoundary())
	case EnctypeTextPlain:
		var b bytes.Buffer
		for _, f := range fields {
			b.WriteString(crlf(f.Name) + "=" + crlf(f.Value) + "\r\n")
		}
		return b.Bytes(), EnctypeTextPlain + "; charset=UTF-8"
	}
	return []byte(Encode(fields)), EnctypeURLEncoded
}

// newBoundary is a multipart boundary as browsers make them: dashes and random characters.
func newBoundary() string {
	var r [16]byte
	_, _ = rand.Read(r[:]) // crypto/rand.Read does not fail
	return "----AmberFormBoundary" + hex.EncodeToString(r[:])
}

func encodeMultipart(fields []Field, boundary string) ([]byte, string) {
	var b bytes.Buffer
	for _, f := range fields {
		b.WriteString("--" + boundary + "\r\n")
		b.WriteString(`Content-Disposition: form-data; name="` + escapeName(crlf(f.Name)) + "\"\r\n\r\n")
		b.WriteString(crlf(f.Value) + "\r\n")
	}
	b.WriteString("--" + boundary + "--\r\n")
	return b.Bytes(), EnctypeMultipart + "; boundary=" + boundary
}

// escapeName escapes a multipart field name as HTML says: " as %22, CR as %0D, LF as %0A.
func escapeName(s string) string {
	return strings.NewReplacer(`"`, "%22", "\r", "%0D", "\n", "%0A").Replace(s)
}

// crlf writes every line break of s (CR, LF or CRLF) as CRLF, as a form submission does.
func crlf(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	return strings.ReplaceAll(s, "\n", "\r\n")
}
