package fetch

import (
	"bytes"
	"io"
)

// ReadBody returns the first max bytes of the decoded body (Body). Decoding stops there, so a
// decompression bomb inflates no further; a body cut short by its own fault is returned as far
// as it could be read, with the error.
func (e *Exchange) ReadBody(max int64) ([]byte, error) {
	r, err := e.Body()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var buf bytes.Buffer
	// The raw body size is the decoded size of an uncoded body: read it with one allocation.
	buf.Grow(int(min(e.BodySize(), max)) + bytes.MinRead)
	_, err = buf.ReadFrom(io.LimitReader(r, max))
	return buf.Bytes(), err
}
