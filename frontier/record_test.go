package frontier

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestRecordGolden pins the record encoding: stores written by earlier versions must still
// read, and records written now must read in them.
func TestRecordGolden(t *testing.T) {
	tests := []struct {
		name string
		rec  record
		enc  string
	}{
		{"zero", record{}, "\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"},
		{
			"all fields",
			record{URL: URL{URL: "http://a.test/ü?x=1", Host: "a.test:8080", Hops: "LLRE", Via: "http://a.test/", Seed: "http://a.test/",
				HopsOff: 2, Attempts: 1, Priority: -5}, Status: -6, Reason: "max-hops", NotBefore: 1 << 60, Seq: 1 << 40},
			"\x01\x14http://a.test/\xc3\xbc?x=1\x0ba.test:8080\x04LLRE\x0ehttp://a.test/\x0ehttp://a.test/" +
				"\x04\x02\x09\x0b\x08max-hops\x80\x80\x80\x80\x80\x80\x80\x80\x20\x80\x80\x80\x80\x80\x20",
		},
		{
			"flags",
			record{URL: URL{URL: "http://a.test/sitemap.xml", Host: "a.test", Hops: "PM", Via: "http://a.test/robots.txt",
				Seed: "http://a.test/", Priority: -1, Sitemap: true}, Seq: 7},
			"\x02\x19http://a.test/sitemap.xml\x06a.test\x02PM\x18http://a.test/robots.txt\x0ehttp://a.test/" +
				"\x00\x00\x01\x00\x00\x00\x07\x01",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(tt.rec.encode()); got != tt.enc {
				t.Errorf("encode = %q, want %q", got, tt.enc)
			}
			got, err := decodeRecord([]byte(tt.enc))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.rec, got); diff != "" {
				t.Errorf("decodeRecord (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecodeRecordCorrupt(t *testing.T) {
	tests := []struct {
		name string
		enc  string
	}{
		{"empty", ""},
		{"version 0", "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"},
		{"version 3", "\x03\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"},
		{"string past the end", "\x01\x05abcd"},
		{"length overflows", "\x01\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"},
		{"varint overflows", "\x01\x00\x00\x00\x00\x00\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\x00\x00\x00\x00\x00\x00"},
		{"flags missing", "\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := decodeRecord([]byte(tt.enc))
			if !errors.Is(err, errCorrupt) {
				t.Errorf("decodeRecord = %+v, %v; want errCorrupt", r, err)
			}
		})
	}
}

func TestLongGolden(t *testing.T) {
	tests := []struct {
		name, full, val, enc string
	}{
		{"empty", "", "", "\x00"},
		{"short", "k", "v", "\x01kv"},
		{"no value", "key", "", "\x03key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(encodeLong(tt.full, []byte(tt.val))); got != tt.enc {
				t.Errorf("encodeLong = %q, want %q", got, tt.enc)
			}
			full, val, err := decodeLong([]byte(tt.enc))
			if err != nil || full != tt.full || string(val) != tt.val {
				t.Errorf("decodeLong = %q, %q, %v; want %q, %q", full, val, err, tt.full, tt.val)
			}
		})
	}
	for _, enc := range []string{"", "\x02k", "\x80"} {
		if _, _, err := decodeLong([]byte(enc)); !errors.Is(err, errCorrupt) {
			t.Errorf("decodeLong(%q) = %v, want errCorrupt", enc, err)
		}
	}
}

// TestPriorGolden pins the encoding of a p/ entry (encodePrior).
func TestPriorGolden(t *testing.T) {
	tests := []struct {
		name string
		p    Prior
		enc  string
	}{
		{
			"all fields",
			Prior{URI: "http://a.test/", Date: time.Unix(1700000000, 5).UTC(), Captured: time.Unix(1800000000, 7).UTC(),
				Digest: "sha1:ABC", ETag: `"e"`, LastModified: "Tue, 14 Nov 2023 22:13:20 GMT", Mime: "text/html"},
			"\x8e\x80\xa0\xbb\xd2\x9d\xf1\xfa1\x8a\x80\xd0\xe2\xc6\xbf\xce\x97/\x0ehttp://a.test/\x08sha1:ABC\x03\"e\"" +
				"\x1dTue, 14 Nov 2023 22:13:20 GMT\x09text/html",
		},
		{"zero times", Prior{URI: "u", Date: time.Unix(0, 0).UTC(), Captured: time.Unix(0, 0).UTC()}, "\x00\x00\x01u\x00\x00\x00\x00"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(encodePrior(&tt.p)); got != tt.enc {
				t.Errorf("encodePrior = %q, want %q", got, tt.enc)
			}
			got, err := decodePrior([]byte(tt.enc))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.p, got); diff != "" {
				t.Errorf("decodePrior (-want +got):\n%s", diff)
			}
			// Cut before the media type, the value is one written before it was stored.
			old := len(tt.enc) - 1 - len(tt.p.Mime)
			want := tt.p
			want.Mime = ""
			got, err = decodePrior([]byte(tt.enc[:old]))
			if diff := cmp.Diff(want, got); err != nil || diff != "" {
				t.Errorf("decodePrior of a value without a media type: %v (-want +got):\n%s", err, diff)
			}
			for n := range len(tt.enc) {
				if _, err := decodePrior([]byte(tt.enc[:n])); n != old && !errors.Is(err, errCorrupt) {
					t.Errorf("decodePrior of %d/%d bytes: %v, want errCorrupt", n, len(tt.enc), err)
				}
			}
		})
	}
}

// BenchmarkRecord encodes and decodes a crawl-shaped record (see benchURL): decoding is on
// the path of every claim.
func BenchmarkRecord(b *testing.B) {
	r := record{URL: benchURL(12345, 1000), Status: 200, NotBefore: 1 << 60, Seq: 1 << 30}
	enc := r.encode()
	b.Run("encode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			enc = r.encode()
		}
	})
	b.Run("decode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := decodeRecord(enc); err != nil {
				b.Fatal(err)
			}
		}
	})
}
