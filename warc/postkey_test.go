package warc_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/internal/warctest"
	"github.com/amber-crawler/amber/warc"
)

// postRequest is a raw HTTP request with a body.
func postRequest(method, url, contentType string, body []byte) []byte {
	path := url[strings.Index(url[8:], "/")+8:]
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: example.com\r\nUser-Agent: amber-test\r\n", method, path)
	if contentType != "" {
		fmt.Fprintf(&b, "Content-Type: %s\r\n", contentType)
	}
	fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n", len(body))
	b.Write(body)
	return b.Bytes()
}

// TestPOSTKeyMatchesWarcio: a capture whose request is a POST (a login form, post_payloads)
// is keyed in CDXJ as pywb and warcio.js key it, __wb_method=post and the body's parameters
// appended to the URL, with method and requestBody fields; the lines are compared with what
// warcio.js's cdx-index prints for the same WARC file, byte for byte. A GET keeps its plain
// key. LookupKey gives each line's key from the request.
func TestPOSTKeyMatchesWarcio(t *testing.T) {
	node, pkg := warcioJS(t)
	mp := "--b0undary\r\nContent-Disposition: form-data; name=\"user\"\r\n\r\nann smith\r\n" +
		"--b0undary\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\nt/k=1\r\n" +
		"--b0undary\r\nContent-Disposition: form-data; name=\"user\"\r\n\r\nbob\r\n" +
		"--b0undary\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.txt\"\r\nContent-Type: text/plain\r\n\r\nfile body\r\n" +
		"--b0undary--\r\n"
	tests := []struct {
		name, method, url, ct string
		body                  []byte
		wantKey               string // "": only compared with warcio.js
	}{
		{"get", "GET", "http://example.com/plain?b=1&a=2", "", nil, "com,example)/plain?a=2&b=1"},
		{"form", "POST", "http://example.com/login", "application/x-www-form-urlencoded", []byte("user=ann&pass=s3cret"),
			"com,example)/login?__wb_method=post&pass=s3cret&user=ann"},
		{"form after a query", "POST", "http://example.com/search?z=1", "application/x-www-form-urlencoded", []byte("q=a+b"),
			"com,example)/search?__wb_method=post&q=a+b&z=1"},
		{"escapes", "POST", "http://example.com/e", "application/x-www-form-urlencoded; charset=UTF-8", []byte("q=caf%C3%A9&x=%2F&y=%41"), ""},
		{"bad escape", "POST", "http://example.com/bad", "application/x-www-form-urlencoded", []byte("a=%zz"), ""},
		{"raw utf-8", "POST", "http://example.com/u", "application/x-www-form-urlencoded", []byte("name=Zoë"), ""},
		{"multipart", "POST", "http://example.com/mp", "multipart/form-data; boundary=b0undary", []byte(mp), ""},
		{"binary", "POST", "http://example.com/bin", "application/octet-stream", []byte{0, 1, 2, 250, 255}, ""},
		{"no content type", "POST", "http://example.com/none", "", []byte("x=1"), ""},
		{"empty body", "POST", "http://example.com/empty", "application/x-www-form-urlencoded", nil, ""},
		{"long", "POST", "http://example.com/long", "application/x-www-form-urlencoded", []byte("a=" + strings.Repeat("x", 5000)), ""},
		{"put", "PUT", "http://example.com/put", "application/x-www-form-urlencoded", []byte("k=v"), ""},
	}
	dir := t.TempDir()
	cdxj := filepath.Join(dir, "index.cdxj")
	w := newWriter(t, warc.Config{Dir: dir, CDXJPath: cdxj})
	for i, tt := range tests {
		body := []byte(fmt.Sprintf("<html>%d</html>", i))
		c := capture(tt.url, t0.Add(time.Duration(i)*time.Second), warctest.RawResponse(200, "OK", [][2]string{{"Content-Type", "text/html"}, {"Content-Length", fmt.Sprint(len(body))}}, body))
		c.Request = postRequest(tt.method, tt.url, tt.ct, tt.body)
		if _, err := w.WriteCapture(c); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	ours, err := os.ReadFile(cdxj)
	if err != nil {
		t.Fatal(err)
	}
	var theirs bytes.Buffer
	for _, f := range warcFiles(t, dir) {
		cmd := exec.Command(node, filepath.Join(pkg, "dist", "cli.js"), "cdx-index", filepath.Base(f))
		cmd.Dir = dir
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &theirs, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("warcio cdx-index %s: %v\n%s", f, err, stderr.String())
		}
	}
	if d := cmp.Diff(strings.Split(theirs.String(), "\n"), strings.Split(string(ours), "\n")); d != "" {
		t.Errorf("CDXJ lines differ (-warcio.js +ours):\n%s", d)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(ours)), "\n") {
		e, err := warc.ParseIndexLine([]byte(line))
		if err != nil {
			t.Fatal(err)
		}
		for _, tt := range tests {
			if tt.url == e.URL && tt.wantKey != "" && e.Key != tt.wantKey {
				t.Errorf("%s: key %q, want %q", tt.name, e.Key, tt.wantKey)
			}
			// A replay tool finds the capture by the request a page sends.
			if tt.url == e.URL {
				if got := warc.LookupKey(tt.url, postRequest(tt.method, tt.url, tt.ct, tt.body)); got != e.Key {
					t.Errorf("%s: LookupKey %q, indexed as %q", tt.name, got, e.Key)
				}
			}
		}
		if strings.Contains(e.URL, "/login") && !strings.Contains(line, `"method":"POST","requestBody":"user=ann&pass=s3cret"`) {
			t.Errorf("login line %s: want method and requestBody", line)
		}
	}
}
