package report

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/internal/varrec"
)

// itemFields is what a varrec.Decoder reads back from an item or a left record, field by field.
type itemFields struct {
	Key, Key2 string
	Src       byte
	Strs      []string
	Ints      []int64
}

// TestItemsGolden pins the encoding of the items and left records the reports sort, and reads
// them back as the reports read them.
func TestItemsGolden(t *testing.T) {
	tests := []struct {
		name string
		enc  []byte
		want string
		read func(d *varrec.Decoder, in interner) itemFields
		got  itemFields
	}{
		{
			name: "url item",
			enc: encodeURLItem(nil, 258, &URLState{URL: "http://a.test/\x00x", Host: "a.test", State: "failed", Status: -6,
				Reason: "max-hops", Hops: "LL", Via: "http://a.test/", Seed: "http://a.test/"}),
			want: "http://a.test/\x00\xffx\x00\x01\x00\x00\x00\x00\x00\x00\x00\x01\x02\x06a.test\x06failed\x0b\x08max-hops\x02LL" +
				"\x0ehttp://a.test/\x0ehttp://a.test/",
			read: func(d *varrec.Decoder, in interner) itemFields {
				f := itemFields{Key: readKey(d), Src: d.Byte()}
				for range 8 {
					f.Ints = append(f.Ints, int64(d.Byte()))
				}
				f.Strs = append(f.Strs, in.str(d), in.str(d))
				f.Ints = append(f.Ints, d.Varint())
				f.Strs = append(f.Strs, in.str(d), in.str(d), d.Str(), in.str(d))
				return f
			},
			got: itemFields{Key: "http://a.test/\x00x", Src: srcURL, Ints: []int64{0, 0, 0, 0, 0, 0, 1, 2, -6},
				Strs: []string{"a.test", "failed", "max-hops", "LL", "http://a.test/", "http://a.test/"}},
		},
		{
			name: "line item",
			enc: encodeLineItem(nil, 3, &Line{URL: "http://a.test/p", Status: 200, Size: 10, MIME: "text/html", Hops: "L",
				Via: "http://a.test/", Seed: "http://a.test/", Annotations: []string{"duplicate:digest"},
				Extra: map[string]any{ExtraTextShingles: 40.0, ExtraTextNew: 3.0}}),
			want: "http://a.test/p\x00\x01\x01\x00\x00\x00\x00\x00\x00\x00\x03\x90\x03\x14\x09text/html\x01\x01L" +
				"\x0ehttp://a.test/\x0ehttp://a.test/\x00P\x06",
			read: func(d *varrec.Decoder, in interner) itemFields {
				f := itemFields{Key: readKey(d), Src: d.Byte()}
				for range 8 {
					f.Ints = append(f.Ints, int64(d.Byte()))
				}
				f.Ints = append(f.Ints, d.Varint(), d.Varint())
				f.Strs = append(f.Strs, in.str(d))
				f.Ints = append(f.Ints, int64(d.Byte()))
				f.Strs = append(f.Strs, in.str(d), d.Str(), in.str(d), in.str(d))
				f.Ints = append(f.Ints, d.Varint(), d.Varint())
				return f
			},
			got: itemFields{Key: "http://a.test/p", Src: srcLine, Ints: []int64{0, 0, 0, 0, 0, 0, 0, 3, 200, 10, 1, 40, 3},
				Strs: []string{"text/html", "L", "http://a.test/", "http://a.test/", ""}},
		},
		{
			name: "line item without text",
			enc:  encodeLineItem(nil, 0, &Line{URL: "u", Status: 404, Size: 1}),
			want: "u\x00\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\xa8\x06\x02\x00\x00\x00\x00\x00\x00\x01\x01",
			read: func(d *varrec.Decoder, in interner) itemFields {
				f := itemFields{Key: readKey(d), Src: d.Byte()}
				d.Next(8)
				f.Ints = append(f.Ints, d.Varint(), d.Varint())
				f.Strs = append(f.Strs, in.str(d))
				f.Ints = append(f.Ints, int64(d.Byte()))
				f.Strs = append(f.Strs, in.str(d), d.Str(), in.str(d), in.str(d))
				f.Ints = append(f.Ints, d.Varint(), d.Varint())
				return f
			},
			got: itemFields{Key: "u", Src: srcLine, Ints: []int64{404, 1, 0, -1, -1}, Strs: []string{"", "", "", "", ""}},
		},
		{
			name: "waste item",
			enc:  encodeWasteItem(nil, &record{host: "a.test", url: "http://a.test/x", status: 200, size: 300, dup: true}),
			want: "a.test\x00\x01http://a.test/x\x00\x01\x01\xd8\x04",
			read: func(d *varrec.Decoder, _ interner) itemFields {
				return itemFields{Key: readKey(d), Key2: readKey(d), Src: d.Byte(), Ints: []int64{d.Varint()}}
			},
			got: itemFields{Key: "a.test", Key2: "http://a.test/x", Src: gaveDuplicate, Ints: []int64{300}},
		},
		{
			name: "left record",
			enc:  encodeLeft(nil, &record{host: "a.test", url: "http://a.test/x", reason: "block:x", hops: "L", via: "v", seed: "s"}),
			want: "a.test\x00\x01http://a.test/x\x00\x01\x07block:x\x01L\x01v\x01s",
			read: func(d *varrec.Decoder, _ interner) itemFields {
				return itemFields{Key: readKey(d), Key2: readKey(d), Strs: []string{d.Str(), d.Str(), d.Str(), d.Str()}}
			},
			got: itemFields{Key: "a.test", Key2: "http://a.test/x", Strs: []string{"block:x", "L", "v", "s"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if string(tt.enc) != tt.want {
				t.Errorf("encoding = %q, want %q", tt.enc, tt.want)
			}
			d := varrec.NewDecoder(tt.enc, errCorruptRun)
			got := tt.read(&d, interner{})
			if err := d.Err(); err != nil {
				t.Fatal(err)
			}
			if len(d.Rest()) != 0 {
				t.Errorf("%q left unread", d.Rest())
			}
			if diff := cmp.Diff(tt.got, got); diff != "" {
				t.Errorf("decoded (-want +got):\n%s", diff)
			}
			// Every cut short of the end fails, and the failure sticks.
			for n := range len(tt.enc) {
				d := varrec.NewDecoder(tt.enc[:n], errCorruptRun)
				tt.read(&d, interner{})
				if !errors.Is(d.Err(), errCorruptRun) {
					t.Errorf("read of %d/%d bytes: err = %v, want errCorruptRun", n, len(tt.enc), d.Err())
				}
			}
		})
	}
}
