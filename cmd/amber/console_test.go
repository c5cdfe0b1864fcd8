package main

import (
	"bytes"
	"io"
	"testing"
)

func TestConsole(t *testing.T) {
	tests := []struct {
		name   string
		writes []struct {
			status bool
			text   string
		}
		want string
	}{
		{
			name: "log line before any status",
			writes: []struct {
				status bool
				text   string
			}{{false, "log 1\n"}, {true, clearLine + "status 1"}},
			want: "log 1\n" + clearLine + "status 1",
		},
		{
			name: "log line while a status line is shown goes above it",
			writes: []struct {
				status bool
				text   string
			}{{true, clearLine + "status 1"}, {false, "log 1\n"}, {true, clearLine + "status 2"}},
			want: clearLine + "status 1" + clearLine + "log 1\n" + clearLine + "status 1" + clearLine + "status 2",
		},
		{
			name: "after the final status line, log lines go below it",
			writes: []struct {
				status bool
				text   string
			}{{true, clearLine + "status 1"}, {true, clearLine + "final\n"}, {false, "log 1\n"}},
			want: clearLine + "status 1" + clearLine + "final\n" + "log 1\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			c := newConsole(&buf)
			for _, w := range tt.writes {
				var dst io.Writer = c
				if w.status {
					dst = c.status
				}
				if _, err := io.WriteString(dst, w.text); err != nil {
					t.Fatal(err)
				}
			}
			if got := buf.String(); got != tt.want {
				t.Errorf("got %q\nwant %q", got, tt.want)
			}
		})
	}
}
