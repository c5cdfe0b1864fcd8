package browser

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/chromedp/cdproto/runtime"
)

// Bounds of Page.Console.
const (
	// MaxConsole is the most console errors a Page keeps.
	MaxConsole = 100
	// MaxConsoleText is the most bytes of one console error's text kept.
	MaxConsoleText = 1000
)

// Kinds of ConsoleMessage.
const (
	ConsoleError     = "error"     // console.error()
	ConsoleAssert    = "assert"    // a console.assert() whose condition was false
	ConsoleException = "exception" // an exception (or promise rejection) no script caught
)

// ConsoleMessage is an error a page reported on its console (Page.Console).
type ConsoleMessage struct {
	Kind string `json:"kind"` // ConsoleError, ConsoleAssert or ConsoleException
	// Text is the message: the console call's arguments joined by spaces (strings as they
	// are, other values as the DevTools console shows them), or "Uncaught" (or "Uncaught (in
	// promise)") and the exception's first line.
	Text string `json:"text"`
	URL  string `json:"url,omitempty"`  // the script it came from, when Chromium says
	Line int    `json:"line,omitempty"` // its line in URL, from 1; 0 when unknown
}

// consoleCall returns the message of a console API call, ok false for a call that is not an
// error (log, info, warn, debug, ...).
func consoleCall(ev *runtime.EventConsoleAPICalled) (ConsoleMessage, bool) {
	var m ConsoleMessage
	switch ev.Type {
	case runtime.ConsoleAPICalledTypeError:
		m.Kind = ConsoleError
	case runtime.ConsoleAPICalledTypeAssert:
		m.Kind = ConsoleAssert
	default:
		return m, false
	}
	parts := make([]string, 0, len(ev.Args))
	for _, a := range ev.Args {
		parts = append(parts, remoteText(a))
	}
	m.Text = strings.Join(parts, " ")
	if m.Kind == ConsoleAssert && m.Text == "" {
		m.Text = "Assertion failed"
	}
	if st := ev.StackTrace; st != nil && len(st.CallFrames) > 0 {
		f := st.CallFrames[0]
		m.URL, m.Line = f.URL, int(f.LineNumber)+1
	}
	m.Text = clipText(m.Text)
	return m, true
}

// consoleException returns the message of an exception no script caught.
func consoleException(ev *runtime.EventExceptionThrown) ConsoleMessage {
	m := ConsoleMessage{Kind: ConsoleException}
	d := ev.ExceptionDetails
	if d == nil {
		return m
	}
	m.Text = d.Text
	if d.Exception != nil {
		// The description of an error is its stack: its first line says what it is.
		desc, _, _ := strings.Cut(remoteText(d.Exception), "\n")
		m.Text = strings.TrimSpace(m.Text + " " + desc)
	}
	m.URL, m.Line = d.URL, int(d.LineNumber)+1
	if m.URL == "" && d.StackTrace != nil && len(d.StackTrace.CallFrames) > 0 {
		f := d.StackTrace.CallFrames[0]
		m.URL, m.Line = f.URL, int(f.LineNumber)+1
	}
	if m.URL == "" {
		m.Line = 0
	}
	m.Text = clipText(m.Text)
	return m
}

// remoteText is a value as the DevTools console shows it, shortly: a string as it is, a
// primitive as its JSON, an object by its description.
func remoteText(o *runtime.RemoteObject) string {
	if o == nil {
		return ""
	}
	if o.Type == runtime.RemoteObjectTypeString {
		var s string
		if json.Unmarshal(o.Value, &s) == nil {
			return s
		}
	}
	if o.Description != "" {
		return o.Description
	}
	if len(o.Value) > 0 {
		return string(o.Value)
	}
	if o.UnserializableValue != "" {
		return string(o.UnserializableValue)
	}
	return string(o.Type)
}

// clipText cuts s at MaxConsoleText bytes, on a rune boundary.
func clipText(s string) string {
	if len(s) <= MaxConsoleText {
		return s
	}
	s = s[:MaxConsoleText]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

// addConsole keeps a console error of the page, up to MaxConsole.
func (r *recorder) addConsole(m ConsoleMessage) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.console) < MaxConsole {
		r.console = append(r.console, m)
	}
}
