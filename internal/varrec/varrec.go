// Package varrec encodes records as fields back to back: bytes, varints (encoding/binary's
// Uvarint and Varint) and strings with their length (a uvarint) in front. The frontier's
// records (badger and Redis) and the reports' sort runs are made of such fields; this package
// is their one reader, so that each bound check is written once.
//
// A record has no field names or types: the reader reads the fields in the order the writer
// appended them.
package varrec

import (
	"encoding/binary"
	"errors"
)

// ErrCorrupt is what a Decoder made without an error of its own reports.
var ErrCorrupt = errors.New("varrec: corrupt record")

// AppendString appends s with its length (a uvarint) in front.
func AppendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// A Decoder reads the fields of a record in the order they were appended. Its first error (a
// field that is malformed or runs past the end) sticks: every later read returns a zero value.
// The zero Decoder has nothing to read.
type Decoder struct {
	b       []byte
	s       string // if set, b is its tail: Str returns substrings of it
	corrupt error  // what Err reports once a read failed (ErrCorrupt if nil)
	failed  bool
}

// NewDecoder returns a Decoder of the fields of b. Once a read fails, Err returns corrupt (the
// caller's sentinel error; ErrCorrupt if nil). The Decoder does not copy b: Bytes, Next
// and Rest return slices of it.
func NewDecoder(b []byte, corrupt error) Decoder {
	return Decoder{b: b, corrupt: corrupt}
}

// NewSharedDecoder is NewDecoder whose strings share one copy of b, made now: one allocation
// for all the strings of a record, instead of one per string, at the price of keeping the
// whole copy alive as long as any of them.
func NewSharedDecoder(b []byte, corrupt error) Decoder {
	return Decoder{b: b, s: string(b), corrupt: corrupt}
}

// Err returns nil if every read so far succeeded, else the error given to NewDecoder.
func (d *Decoder) Err() error {
	if !d.failed {
		return nil
	}
	if d.corrupt == nil {
		return ErrCorrupt
	}
	return d.corrupt
}

// Fail makes the Decoder fail as a malformed field does: for callers that read fields of their
// own kind from Rest.
func (d *Decoder) Fail() {
	d.failed, d.b = true, nil
}

// Rest returns the bytes not read yet (nil after an error), without consuming them.
func (d *Decoder) Rest() []byte { return d.b }

// Byte reads one byte.
func (d *Decoder) Byte() byte {
	if len(d.b) == 0 {
		d.Fail()
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

// Uvarint reads an unsigned varint (binary.AppendUvarint).
func (d *Decoder) Uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.Fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

// Varint reads a signed varint (binary.AppendVarint).
func (d *Decoder) Varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.Fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

// Int reads a signed varint that must fit in an int.
func (d *Decoder) Int() int {
	v := d.Varint()
	if int64(int(v)) != v {
		d.Fail()
		return 0
	}
	return int(v)
}

// Next reads the next n bytes, returned as a slice of the record (not copied).
func (d *Decoder) Next(n int) []byte {
	if n < 0 || n > len(d.b) {
		d.Fail()
		return nil
	}
	v := d.b[:n:n]
	d.b = d.b[n:]
	return v
}

// Bytes reads a string written by AppendString, returned as a slice of the record (not
// copied).
func (d *Decoder) Bytes() []byte {
	n := d.Uvarint()
	if n > uint64(len(d.b)) {
		d.Fail()
		return nil
	}
	return d.Next(int(n))
}

// Str reads a string written by AppendString. (Not String: a Decoder is no fmt.Stringer.)
func (d *Decoder) Str() string {
	n := d.Uvarint()
	if n > uint64(len(d.b)) {
		d.Fail()
		return ""
	}
	var s string
	if d.s != "" {
		off := len(d.s) - len(d.b)
		s = d.s[off : off+int(n)]
	} else {
		s = string(d.b[:n])
	}
	d.b = d.b[n:]
	return s
}
