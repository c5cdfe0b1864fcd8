package report

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/amber-crawler/amber/hop"
)

// formatWithFmt is Format as it was written with fmt and encoding/json: the reference.
func formatWithFmt(l Line) string {
	var b strings.Builder
	b.WriteString(l.Time.UTC().Format("2006-01-02T15:04:05.000Z"))
	fmt.Fprintf(&b, " %5d ", l.Status)
	if l.Size < 0 {
		fmt.Fprintf(&b, "%10s ", "-")
	} else {
		fmt.Fprintf(&b, "%10d ", l.Size)
	}
	for _, col := range []string{field(l.URL), field(hop.Logged(l.Hops)), field(l.Via), l.mimeColumn()} {
		b.WriteString(col)
		b.WriteByte(' ')
	}
	fmt.Fprintf(&b, "#%03d ", l.Thread)
	if l.FetchStart.IsZero() {
		b.WriteString("-")
	} else {
		t := l.FetchStart.UTC()
		fmt.Fprintf(&b, "%s%03d+%d", t.Format("20060102150405"), t.Nanosecond()/1e6, l.FetchDur.Milliseconds())
	}
	fmt.Fprintf(&b, " %s %s ", field(l.Digest), field(l.Seed))
	var ann []string
	for _, a := range l.Annotations {
		if a != "" {
			ann = append(ann, strings.ReplaceAll(a, ",", "%2C"))
		}
	}
	b.WriteString(field(strings.Join(ann, ",")))
	b.WriteByte(' ')
	js, err := json.Marshal(l.Extra)
	if len(l.Extra) == 0 || err != nil {
		js = []byte("{}")
	}
	b.Write(js)
	return b.String()
}

func TestFormatMatchesFmt(t *testing.T) {
	at := time.Date(2026, 3, 1, 10, 0, 0, 987654321, time.UTC)
	base := Line{Time: at, Status: 200, Size: 1234, URL: "http://example.com/a b", Hops: "LLE", Via: "http://example.com/",
		MIME: "text/html; charset=utf-8", Thread: 7, FetchStart: at.Add(-time.Second), FetchDur: 1500 * time.Millisecond,
		Digest: "sha1:ABC", Seed: "http://example.com/", Annotations: []string{"a,b", "", "duplicate:digest"},
		Extra: map[string]any{"warcFilename": "x<&>.warc.gz", "warcFileOffset": int64(99), "contentSize": 1234}}
	tests := map[string]func(l *Line){
		"full":              func(*Line) {},
		"no size":           func(l *Line) { l.Size = -1 },
		"negative status":   func(l *Line) { l.Status = -5000 },
		"thread 42":         func(l *Line) { l.Thread = 42 },
		"thread 1234":       func(l *Line) { l.Thread = 1234 },
		"thread -1":         func(l *Line) { l.Thread = -1 },
		"no fetch start":    func(l *Line) { l.FetchStart = time.Time{} },
		"no extra":          func(l *Line) { l.Extra = nil },
		"float extra":       func(l *Line) { l.Extra = map[string]any{"contentSize": 12.0, "b": true} },
		"empty everything":  func(l *Line) { *l = Line{Time: at} },
		"long hop path":     func(l *Line) { l.Hops = strings.Repeat("L", 80) },
		"big size, no mime": func(l *Line) { l.Size, l.MIME = 12345678901, "" },
	}
	for name, mod := range tests {
		l := base
		mod(&l)
		if got, want := l.Format(), formatWithFmt(l); got != want {
			t.Errorf("%s:\n got %s\nwant %s", name, got, want)
		}
	}
}
