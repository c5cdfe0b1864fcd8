package fetch

import (
	"bytes"
	"io"
)

// ReadBody returns the first max bytes of the decoded body (Body). Decoding stops there, so a
// decompression bomb inflates no further; a body cut short by its own fault is returned as far
// as it could be read, with the error.
func (e *Exchange) ReadBody(max int64) ([]byte, error) {
	var buf bytes.Buffer
	err := e.ReadBodyTo(&buf, max)
	return buf.Bytes(), err
}

// ReadBodyTo is ReadBody into buf (appended to it): a caller that reads many bodies gives the
// same buffer again once it is done with a body, instead of a new one for each.
func (e *Exchange) ReadBodyTo(buf *bytes.Buffer, max int64) error {
	r, err := e.Body()
	if err != nil {
		return err
	}
	defer r.Close()
	// The raw body size is the decoded size of an uncoded body: read it with one allocation.
	buf.Grow(int(min(e.BodySize(), max)) + bytes.MinRead)
	_, err = buf.ReadFrom(io.LimitReader(r, max))
	return err
}
