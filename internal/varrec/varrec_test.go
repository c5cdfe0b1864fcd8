package varrec

import (
	"encoding/binary"
	"errors"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var errTest = errors.New("test: corrupt")

// fields is what one test record holds, read back field by field.
type fields struct {
	Byte    byte
	Uvarint uint64
	Varint  int64
	Int     int
	Str     string
	Bytes   string
	Next    string
	Rest    string
}

func encode(f fields) []byte {
	b := append([]byte(nil), f.Byte)
	b = binary.AppendUvarint(b, f.Uvarint)
	b = binary.AppendVarint(b, f.Varint)
	b = binary.AppendVarint(b, int64(f.Int))
	b = AppendString(b, f.Str)
	b = AppendString(b, f.Bytes)
	b = append(b, f.Next...)
	return append(b, f.Rest...)
}

func decode(d *Decoder, next int) fields {
	var f fields
	f.Byte = d.Byte()
	f.Uvarint = d.Uvarint()
	f.Varint = d.Varint()
	f.Int = d.Int()
	f.Str = d.Str()
	f.Bytes = string(d.Bytes())
	f.Next = string(d.Next(next))
	f.Rest = string(d.Rest())
	return f
}

func TestRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		f    fields
	}{
		{"zero", fields{}},
		{"small", fields{Byte: 1, Uvarint: 2, Varint: -3, Int: 4, Str: "a", Bytes: "b", Next: "c", Rest: "d"}},
		{"extremes", fields{Byte: 0xFF, Uvarint: math.MaxUint64, Varint: math.MinInt64, Int: math.MaxInt,
			Str: "ü\x00\xff", Bytes: string(make([]byte, 300)), Next: "\x80\x80", Rest: "\x80"}},
	}
	for _, tt := range tests {
		for _, shared := range []bool{false, true} {
			name := tt.name
			if shared {
				name += "/shared"
			}
			t.Run(name, func(t *testing.T) {
				b := encode(tt.f)
				d := NewDecoder(b, errTest)
				if shared {
					d = NewSharedDecoder(b, errTest)
				}
				got := decode(&d, len(tt.f.Next))
				if err := d.Err(); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.f, got); diff != "" {
					t.Errorf("round trip (-want +got):\n%s", diff)
				}
				// Every cut short of the end of Next fails, and the failure sticks.
				for n := range len(b) - len(tt.f.Rest) {
					d := NewDecoder(b[:n], errTest)
					if shared {
						d = NewSharedDecoder(b[:n], errTest)
					}
					got := decode(&d, len(tt.f.Next))
					if !errors.Is(d.Err(), errTest) {
						t.Errorf("decode of %d/%d bytes: err = %v, want errTest", n, len(b), d.Err())
					}
					if got.Rest != "" || d.Byte() != 0 || d.Str() != "" || d.Err() != errTest {
						t.Errorf("decode of %d/%d bytes: reads after the error return %+v", n, len(b), got)
					}
				}
			})
		}
	}
}

// TestGolden pins the encoding: it is that of encoding/binary's varints, which the frontier's
// stores and the reports' sort runs hold.
func TestGolden(t *testing.T) {
	tests := []struct {
		name string
		s    string
		want string
	}{
		{"empty", "", "\x00"},
		{"one byte", "a", "\x01a"},
		{"127", string(make([]byte, 127)), "\x7f" + string(make([]byte, 127))},
		{"128", string(make([]byte, 128)), "\x80\x01" + string(make([]byte, 128))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(AppendString([]byte("x"), tt.s)); got != "x"+tt.want {
				t.Errorf("AppendString = %q, want %q", got, "x"+tt.want)
			}
		})
	}
}

func TestDecoderErrors(t *testing.T) {
	tests := []struct {
		name string
		b    string
		read func(d *Decoder)
	}{
		{"byte of nothing", "", func(d *Decoder) { d.Byte() }},
		{"uvarint past the end", "\x80", func(d *Decoder) { d.Uvarint() }},
		{"uvarint overflows", "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x02", func(d *Decoder) { d.Uvarint() }},
		{"varint overflows", "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", func(d *Decoder) { d.Varint() }},
		{"string past the end", "\x03ab", func(d *Decoder) { d.Str() }},
		{"string length over 2^63", "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", func(d *Decoder) { d.Str() }},
		{"bytes past the end", "\x03ab", func(d *Decoder) { d.Bytes() }},
		{"next past the end", "ab", func(d *Decoder) { d.Next(3) }},
		{"next negative", "ab", func(d *Decoder) { d.Next(-1) }},
		{"fail", "ab", func(d *Decoder) { d.Fail() }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := NewDecoder([]byte(tt.b), errTest)
			tt.read(&d)
			if d.Err() != errTest {
				t.Errorf("err = %v, want errTest", d.Err())
			}
			if d.Rest() != nil {
				t.Errorf("Rest = %q after an error, want nil", d.Rest())
			}
		})
	}
	var d Decoder
	if d.Byte(); !errors.Is(d.Err(), ErrCorrupt) {
		t.Errorf("zero Decoder: err = %v, want ErrCorrupt", d.Err())
	}
}

// TestShared checks that the strings of a shared Decoder do not change with its input (they
// share a copy of it), and those of a plain one neither (each is a copy).
func TestShared(t *testing.T) {
	for _, shared := range []bool{false, true} {
		b := AppendString(AppendString(nil, "abc"), "de")
		d := NewDecoder(b, errTest)
		if shared {
			d = NewSharedDecoder(b, errTest)
		}
		s1, s2 := d.Str(), d.Str()
		clear(b)
		if s1 != "abc" || s2 != "de" || d.Err() != nil {
			t.Errorf("shared=%v: Str = %q, %q, %v; want abc, de, nil", shared, s1, s2, d.Err())
		}
	}
}

func BenchmarkDecoder(b *testing.B) {
	rec := encode(fields{Byte: 1, Uvarint: 1 << 40, Varint: -5, Int: 200,
		Str: "https://www.host12.example/section/3/page-12345.html", Bytes: "LL", Next: "", Rest: ""})
	for _, shared := range []bool{false, true} {
		b.Run(map[bool]string{false: "copy", true: "shared"}[shared], func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				d := NewDecoder(rec, errTest)
				if shared {
					d = NewSharedDecoder(rec, errTest)
				}
				decode(&d, 0)
				if d.Err() != nil {
					b.Fatal(d.Err())
				}
			}
		})
	}
}
