package replay_test

import (
	"errors"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/amber-crawler/amber/internal/warctest"
	"github.com/amber-crawler/amber/replay"
)

// TestArchiveOriginal: Original opens the response that holds a capture's payload, by URL,
// digest and time, from a crawl directory and from its packages; a revisit is not one, and
// the digest is not looked for under other URLs.
func TestArchiveOriginal(t *testing.T) {
	for name, src := range sources(t) {
		t.Run(name, func(t *testing.T) {
			a, err := replay.OpenArchive(t.Context(), []string{src})
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			for _, tc := range []struct {
				name   string
				uri    string
				date   time.Time
				digest string
				want   []byte // the payload; nil: an error
				when   time.Time
			}{
				{"response", "http://example.com/", t0, warctest.Digest(homeBody), homeBody, t0},
				{"the digest picks the capture", "http://example.com/news", t0, warctest.Digest(newsV2), newsV2, t0.Add(48 * time.Hour)},
				{"no digest: the closest in time", "http://example.com/news", t0.Add(47 * time.Hour), "", newsV2, t0.Add(48 * time.Hour)},
				{"no digest: the closest in time, earlier", "http://example.com/news", t0.Add(time.Hour), "", newsV1, t0},
				{"a 304's revisit is passed over", "http://example.com/img.png", t0.Add(time.Hour), warctest.Digest(pngBody), pngBody, t0},
				{"a revisit, not under its own URL", "http://example.com/copy.html", t0.Add(time.Second), warctest.Digest(homeBody), nil, time.Time{}},
				{"a revisit whose original is in no source", "http://example.com/needs-gone", t0, warctest.Digest(goneBody), nil, time.Time{}},
				{"another payload", "http://example.com/", t0, warctest.Digest(newsV1), nil, time.Time{}},
				{"not captured", "http://example.com/never", t0, "", nil, time.Time{}},
			} {
				t.Run(tc.name, func(t *testing.T) {
					r, err := a.Original(tc.uri, tc.date, tc.digest)
					if tc.want == nil {
						if err == nil {
							t.Fatalf("Original = %s %s, want an error", r.TargetURI, r.Date)
						}
						return
					}
					if err != nil {
						t.Fatal(err)
					}
					if r.Type != "response" || r.TargetURI != tc.uri || !r.Date.Equal(tc.when) || r.HTTP == nil || r.HTTP.Status != 200 {
						t.Errorf("Original = %s %s %s (HTTP %+v), want the response of %s", r.Type, r.TargetURI, r.Date, r.HTTP, tc.when)
					}
					if b, err := io.ReadAll(r.Payload()); err != nil || string(b) != string(tc.want) {
						t.Errorf("payload %q, %v; want %q", b, err, tc.want)
					}
				})
			}
		})
	}
}

func TestOpenArchiveErrors(t *testing.T) {
	if _, err := replay.OpenArchive(t.Context(), nil); !errors.Is(err, replay.ErrConfig) {
		t.Errorf("OpenArchive without paths: %v, want ErrConfig", err)
	}
	if _, err := replay.OpenArchive(t.Context(), []string{filepath.Join(t.TempDir(), "none")}); !errors.Is(err, replay.ErrNotArchive) {
		t.Errorf("OpenArchive of nothing: %v, want ErrNotArchive", err)
	}
}
