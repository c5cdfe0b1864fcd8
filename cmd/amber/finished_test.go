package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestResumeFinishedWithSecrets: `amber crawl --dir D` on a crawl whose crawl.yaml holds a
// password as *** says the crawl finished (exit 0) when it has, and names the missing secret
// (exit 2) when there is still something to do.
func TestResumeFinishedWithSecrets(t *testing.T) {
	site := startBasic(t)
	for _, tc := range []struct {
		name  string
		limit []string
		code  int
		want  string
	}{
		{"finished", nil, exitOK, "already finished; nothing to do"},
		{"stopped at a limit", []string{"--limit", "1"}, exitUsage, "password: ***: the value was not recorded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "crawl")
			args := append([]string{"crawl", "--dir", dir, "--connect-to", site.ConnectTo(), "--allow-private",
				"--host-delay", "0", "--retry-delay", "10ms", "--quiet", "--http-auth-allowed",
				"--auth", "http://museum.example.com=jane:hunter2"}, tc.limit...)
			args = append(args, "http://museum.example.com/")
			var stdout, stderr bytes.Buffer
			if code := exitCode(run(t.Context(), args, nil, &stdout, &stderr)); code != exitOK && code != exitLimit {
				t.Fatalf("crawl: exit %d\n%s", code, stderr.String())
			}
			stdout.Reset()
			err := run(t.Context(), []string{"crawl", "--dir", dir, "--quiet"}, nil, &stdout, &stderr)
			if code := exitCode(err); code != tc.code {
				t.Fatalf("resume: exit %d (%v), want %d", code, err, tc.code)
			}
			text := stdout.String()
			if err != nil {
				text = err.Error()
			}
			if !strings.Contains(text, tc.want) || strings.Contains(text, "hunter2") {
				t.Errorf("resume said %q, want %q", text, tc.want)
			}
		})
	}
}
