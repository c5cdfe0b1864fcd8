package warc_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/internal/warctest"
	"github.com/amber-crawler/amber/warc"
)

// warcioJS returns node and the warcio.js package directory installed at the module root,
// skipping the test when either is missing (failing instead when CI=true).
func warcioJS(t *testing.T) (node, pkg string) {
	t.Helper()
	pkg, err := filepath.Abs(filepath.Join("..", "node_modules", "warcio"))
	if err != nil {
		t.Fatal(err)
	}
	node, nodeErr := exec.LookPath("node")
	_, pkgErr := os.Stat(filepath.Join(pkg, "dist", "cli.js"))
	if nodeErr != nil || pkgErr != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("warcio.js check needs node and node_modules/warcio (npm ci): node: %v, warcio: %v", nodeErr, pkgErr)
		}
		t.Skipf("node or node_modules/warcio missing (node: %v, warcio: %v)", nodeErr, pkgErr)
	}
	return node, pkg
}

// TestCDXJMatchesWarcio writes captures of every kind and compares our CDXJ lines with what
// warcio.js's `cdx-index` prints for the same files: they must be identical, byte for byte
// (same keys, timestamps, url, mime, status, digest, length, offset, filename, field order).
func TestCDXJMatchesWarcio(t *testing.T) {
	node, pkg := warcioJS(t)
	dir := t.TempDir()
	cdxj := filepath.Join(dir, "index.cdxj")
	w := newWriter(t, warc.Config{Dir: dir, CDXJPath: cdxj, Dedup: &warctest.MemDedup{}, MaxSize: 3000})
	for _, f := range fixtures(t) {
		if _, err := w.WriteCapture(f.capture); err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
	}
	if _, err := w.WriteResource("urn:screenshot:http://example.com/", "image/png", t0, []byte("png"), ""); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	ours, err := os.ReadFile(cdxj)
	if err != nil {
		t.Fatal(err)
	}
	files := warcFiles(t, dir)
	if len(files) < 2 {
		t.Fatalf("want several files (rotation), got %d", len(files))
	}
	var theirs bytes.Buffer
	for _, f := range files {
		cmd := exec.Command(node, filepath.Join(pkg, "dist", "cli.js"), "cdx-index", filepath.Base(f))
		cmd.Dir = dir
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &theirs, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("warcio cdx-index %s: %v\n%s", f, err, stderr.String())
		}
		if stderr.Len() > 0 {
			t.Errorf("warcio cdx-index %s warned:\n%s", f, stderr.String())
		}
	}
	if d := cmp.Diff(strings.Split(theirs.String(), "\n"), strings.Split(string(ours), "\n")); d != "" {
		t.Errorf("CDXJ lines differ (-warcio.js +ours):\n%s", d)
	}
}

// TestCDXKeyMatchesWarcio compares CDXKey with warcio.js's getSurt on awkward URLs.
func TestCDXKeyMatchesWarcio(t *testing.T) {
	node, pkg := warcioJS(t)
	urls := []string{
		"http://www.example.com/path?b=2&a=1",
		"https://WWW3.Example.COM:443/A/B/../c/./d.html?Z=1&a=%41&a=1#frag",
		"http://example.com:8080",
		"http://127.0.0.1:8000/x?",
		"http://[::1]:8080/x",
		"http://bücher.ch/ä?q=ü",
		"http://example.com/a b/\"q\"?x=<y>&x=a b",
		"http://example.com/%7Euser/%2F?%3D=1",
		"http://example.com//double//slash",
		"http://user:pass@example.com/x",
		"http://www.example.com.",
		"urn:screenshot:http://example.com/",
		"https://example.com/p?utm=1&a&&b=",
		"http://sub.www.example.com/index.html",
		"http://example.com/\\back\\slash",
		"http://www/",
	}
	script := `import {getSurt} from ` + jsString(filepath.Join(pkg, "dist", "index.js")) + `;
let s = ""; process.stdin.on("data", d => s += d).on("end", () => {
  console.log(JSON.stringify(JSON.parse(s).map(getSurt)));
});`
	cmd := exec.Command(node, "--input-type=module", "-e", script)
	in, _ := json.Marshal(urls)
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var want []string
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatalf("node output %q: %v", out, err)
	}
	for i, u := range urls {
		t.Run(u, func(t *testing.T) {
			if got := warc.CDXKey(u); got != want[i] {
				t.Errorf("CDXKey(%q) = %q, warcio.js getSurt = %q", u, got, want[i])
			}
		})
	}
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
