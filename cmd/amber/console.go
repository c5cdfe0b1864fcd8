package main

import (
	"bytes"
	"io"
	"sync"
)

// console shares a terminal between log lines and the crawl's live status line. The status
// line is written without a newline and rewritten in place; a log line written while it is
// shown would start on the status line. console clears the status line first, writes the log
// line, and draws the status line again below it, so the status line is always the last line
// and never has a log line in it.
type console struct {
	mu     sync.Mutex // guards w and shown
	w      io.Writer
	shown  []byte // the status line on screen (as written, with its \r\033[K), nil when none
	status statusWriter
}

func newConsole(w io.Writer) *console {
	c := &console{w: w}
	c.status = statusWriter{c}
	return c
}

// clearLine moves to the start of the line and erases it.
const clearLine = "\r\033[K"

// Write writes log lines.
func (c *console) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.shown != nil {
		if _, err := io.WriteString(c.w, clearLine); err != nil {
			return 0, err
		}
	}
	n, err := c.w.Write(p)
	if err != nil {
		return n, err
	}
	if c.shown != nil {
		if _, err := c.w.Write(c.shown); err != nil {
			return n, err
		}
	}
	return n, nil
}

// statusWriter is the console's writer for the status line (crawl.Config.LiveStatus).
type statusWriter struct{ c *console }

// Write writes a status line; one ending in a newline is final and stays above later output.
func (s statusWriter) Write(p []byte) (int, error) {
	s.c.mu.Lock()
	defer s.c.mu.Unlock()
	n, err := s.c.w.Write(p)
	if bytes.HasSuffix(p, []byte("\n")) {
		s.c.shown = nil
	} else {
		s.c.shown = append(s.c.shown[:0], p...)
	}
	return n, err
}
