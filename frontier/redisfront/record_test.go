package redisfront

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/status"
)

// TestRecordGolden pins the encoding of a u hash value: stores written by earlier versions
// must still read, and values written now must read in them.
func TestRecordGolden(t *testing.T) {
	tests := []struct {
		name  string
		value string // as the u hash holds it: state, score, newline, encoding
		state status.State
		rec   record
	}{
		{"zero", "q0\n\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00", status.Queued, record{}},
		{
			"all fields",
			"f-5497558138880\n\x01\x0ba.test:8080\x04LLRE\x0ehttp://a.test/\x0ehttp://a.test/\x04\x02\x09\x0b\x08max-hops\x00",
			status.Failed,
			record{URL: frontier.URL{Host: "a.test:8080", Hops: "LLRE", Via: "http://a.test/", Seed: "http://a.test/",
				HopsOff: 2, Attempts: 1, Priority: -5}, Status: -6, Reason: "max-hops"},
		},
		{
			"flags",
			"i7\n\x01\x06a.test\x02PM\x18http://a.test/robots.txt\x0ehttp://a.test/\x00\x00\x01\x00\x00\x01",
			status.Inflight,
			record{URL: frontier.URL{Host: "a.test", Hops: "PM", Via: "http://a.test/robots.txt",
				Seed: "http://a.test/", Priority: -1, Sitemap: true}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			const url = "http://a.test/x"
			_, enc, _ := strings.Cut(tt.value, "\n")
			if got := string(tt.rec.encode()); got != enc {
				t.Errorf("encode = %q, want %q", got, enc)
			}
			st, got, err := decodeValue(url, tt.value)
			if err != nil {
				t.Fatal(err)
			}
			want := tt.rec
			want.URL.URL = url
			if st != tt.state {
				t.Errorf("state = %q, want %q", st, tt.state)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("decodeValue (-want +got):\n%s", diff)
			}
			for n := len(tt.value) - len(enc); n < len(tt.value); n++ {
				if _, _, err := decodeValue(url, tt.value[:n]); !errors.Is(err, errCorrupt) {
					t.Errorf("decodeValue of %d/%d bytes: %v, want errCorrupt", n, len(tt.value), err)
				}
			}
		})
	}
}

func TestDecodeValueCorrupt(t *testing.T) {
	for _, v := range []string{
		"",
		"q0",
		"\n\x01",
		"x0\n\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00",
		"q0\n\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00",
		"q0\n\x01\x05abcd",
		"q0\n\x01\x00\x00\x00\x00\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\x00\x00\x00\x00\x00",
	} {
		if st, r, err := decodeValue("http://a.test/", v); !errors.Is(err, errCorrupt) {
			t.Errorf("decodeValue(%q) = %q, %+v, %v; want errCorrupt", v, st, r, err)
		}
	}
}

func TestPriorGolden(t *testing.T) {
	tests := []struct {
		name string
		p    frontier.Prior
		enc  string
	}{
		{
			"all fields",
			frontier.Prior{URI: "http://a.test/", Date: time.Unix(1700000000, 5).UTC(), Captured: time.Unix(1800000000, 7).UTC(),
				Digest: "sha1:ABC", ETag: `"e"`, LastModified: "Tue, 14 Nov 2023 22:13:20 GMT", Mime: "text/html"},
			"11023372036854775815\x8a\x80\xd0\xe2\xc6\xbf\xce\x97/\x0ehttp://a.test/\x08sha1:ABC\x03\"e\"\x1dTue, 14 Nov 2023 22:13:20 GMT\x09text/html",
		},
		{
			"no validators",
			frontier.Prior{URI: "u", Date: time.Unix(0, 0).UTC(), Captured: time.Unix(0, 1).UTC()},
			"09223372036854775809\x00\x01u\x00\x00\x00\x00",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := encodePrior(&tt.p); got != tt.enc {
				t.Errorf("encodePrior = %q, want %q", got, tt.enc)
			}
			got, err := decodePrior(tt.enc)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.p, got); diff != "" {
				t.Errorf("decodePrior (-want +got):\n%s", diff)
			}
			// Cut before the media type, the value is one written before it was stored.
			old := len(tt.enc) - 1 - len(tt.p.Mime)
			for n := range len(tt.enc) {
				if _, err := decodePrior(tt.enc[:n]); n != old && !errors.Is(err, errCorrupt) {
					t.Errorf("decodePrior of %d/%d bytes: %v, want errCorrupt", n, len(tt.enc), err)
				}
			}
			want := tt.p
			want.Mime = ""
			got, err = decodePrior(tt.enc[:old])
			if diff := cmp.Diff(want, got); err != nil || diff != "" {
				t.Errorf("decodePrior of a value without a media type: %v (-want +got):\n%s", err, diff)
			}
		})
	}
}
