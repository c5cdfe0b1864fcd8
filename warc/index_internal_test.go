package warc

import (
	"encoding/json"
	"testing"
)

// FuzzParseFlatJSON holds the fast reader of CDXJ objects to encoding/json: whatever it reads,
// encoding/json reads the same.
func FuzzParseFlatJSON(f *testing.F) {
	for _, s := range []string{
		`{"url":"http://example.com/","mime":"text/html","status":"200","digest":"ABC","length":"12","offset":"0","filename":"a.warc.gz"}`,
		`{"url": "http://example.com/", "status": 200, "length": 5, "offset": 7, "extra": null, "n": -1}`,
		`{}`, `{"url":"a",}`, `{,"url":"a"}`, `{"url":"a\"b"}`, `{"x":{"a":1},"url":"b"}`, `{"status":"2e2"}`, `{"url":"ü"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fast, ok := parseFlatJSON(b)
		if !ok {
			return
		}
		var slow indexJSON
		if err := json.Unmarshal(b, &slow); err != nil {
			t.Fatalf("parseFlatJSON read %q, encoding/json: %v", b, err)
		}
		if fast != slow {
			t.Fatalf("%q: parseFlatJSON %+v, encoding/json %+v", b, fast, slow)
		}
	})
}
