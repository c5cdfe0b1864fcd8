package warc

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzParseFlatJSON holds the fast reader of CDXJ objects to encoding/json, through
// decodeIndexJSON: whatever it reads, encoding/json reads the same, keys matched exactly (CDXJ
// keys are case-sensitive, where json.Unmarshal into a struct would take "uRl" for "url").
func FuzzParseFlatJSON(f *testing.F) {
	for _, s := range []string{
		`{"url":"http://example.com/","mime":"text/html","status":"200","digest":"ABC","length":"12","offset":"0","filename":"a.warc.gz"}`,
		`{"url": "http://example.com/", "status": 200, "length": 5, "offset": 7, "extra": null, "n": -1}`,
		`{}`, `{"url":"a",}`, `{,"url":"a"}`, `{"url":"a\"b"}`, `{"x":{"a":1},"url":"b"}`, `{"status":"2e2"}`, `{"url":"ü"}`, `{"uRl":"0"}`, `{"url":"a","url":null}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fast, ok := parseFlatJSON(b)
		if !ok {
			return
		}
		slow, err := decodeIndexJSON(b)
		if err != nil {
			t.Fatalf("parseFlatJSON read %q, encoding/json: %v", b, err)
		}
		if fast != slow {
			t.Fatalf("%q: parseFlatJSON %+v, encoding/json %+v", b, fast, slow)
		}
	})
}

// TestDecodeIndexJSON: the slow path of ParseIndexLine matches keys exactly and otherwise reads
// as json.Unmarshal does.
func TestDecodeIndexJSON(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want indexJSON
		err  bool
	}{
		{in: `{"url":"http://a/\u0041"}`, want: indexJSON{URL: "http://a/A"}},
		{in: `{"uRl":"0","URL":"1","url":"2"}`, want: indexJSON{URL: "2"}},
		{in: `{"uRl":"0"}`, want: indexJSON{}},
		{in: `{"url":"a","url":null}`, want: indexJSON{URL: "a"}},
		{in: `{"url":"a","url":"b"}`, want: indexJSON{URL: "b"}},
		{in: `{"status":"200","length":12,"offset":"-","x":{"y":[1]}}`, want: indexJSON{Status: 200, Length: 12}},
		{in: `{"offset":7,"offset":null}`, want: indexJSON{}},
		{in: `{"url":1}`, err: true},
		{in: `{"url":"a"} x`, err: true},
		{in: `{"url":"a"}{}`, err: true},
		{in: `[1]`, err: true},
		{in: `null`, err: true},
		{in: `{"url":"a",}`, err: true},
	} {
		got, err := decodeIndexJSON([]byte(tc.in))
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("decodeIndexJSON(%s) = %+v, %v; want %+v, error %v", tc.in, got, err, tc.want, tc.err)
		}
		if tc.err || strings.Contains(strings.ToLower(tc.in), `"url"`) && !strings.Contains(tc.in, `"url"`) {
			continue // json.Unmarshal matches keys in any case
		}
		var std indexJSON
		if err := json.Unmarshal([]byte(tc.in), &std); err != nil || std != got {
			t.Errorf("json.Unmarshal(%s) = %+v, %v; decodeIndexJSON %+v", tc.in, std, err, got)
		}
	}
}
