// Copyright 2010 The Go Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Package htmltok splits an HTML document held in memory into tokens. It is a fork of the
// Tokenizer of golang.org/x/net/html at v0.62.0 (token.go, with entity.go and the
// unescaping half of escape.go), made for extract's one pass over every page, and gives the
// same tokens as x/net's for every input: the same types, raw bytes, lower-cased names,
// attributes (the first of duplicates) and unescaped text and values, with the same
// raw-text, comment, doctype, NUL and newline rules. FuzzTokenizer checks that against
// x/net. What differs:
//
//   - It reads a []byte, not an io.Reader: reading a byte is an index into the slice, with no
//     buffer to fill and grow, and a Tokenizer is Reset to read another document.
//   - It never writes to its input, where x/net's Text rewrites its buffer in place. Names,
//     values and text that need no change (no upper case, NUL, CR or character reference)
//     are sub-slices of the input; the others are written to a buffer the Tokenizer reuses,
//     so that TagName and TagAttr allocate nothing (x/net's copy every name and value).
//   - What extract does not use is gone: Token, Buffered, SetMaxBuf (so no
//     ErrBufferExceeded: the only error is io.EOF), NextIsNotRawText, NewTokenizerFragment
//     and AllowCDATA (a CDATA section is the bogus comment it is in x/net by default).
package htmltok

import (
	"bytes"
	"io"
	"strconv"
)

// A TokenType is the type of a token.
type TokenType uint32

const (
	// ErrorToken means that the input is exhausted (Err returns io.EOF).
	ErrorToken TokenType = iota
	// TextToken means a text node.
	TextToken
	// A StartTagToken looks like <a>.
	StartTagToken
	// An EndTagToken looks like </a>.
	EndTagToken
	// A SelfClosingTagToken tag looks like <br/>.
	SelfClosingTagToken
	// A CommentToken looks like <!--x-->.
	CommentToken
	// A DoctypeToken looks like <!DOCTYPE x>
	DoctypeToken
)

// String returns a string representation of the TokenType, as x/net's does.
func (t TokenType) String() string {
	switch t {
	case ErrorToken:
		return "Error"
	case TextToken:
		return "Text"
	case StartTagToken:
		return "StartTag"
	case EndTagToken:
		return "EndTag"
	case SelfClosingTagToken:
		return "SelfClosingTag"
	case CommentToken:
		return "Comment"
	case DoctypeToken:
		return "Doctype"
	}
	return "Invalid(" + strconv.Itoa(int(t)) + ")"
}

// span is a range of bytes in a Tokenizer's buffer. The start is inclusive,
// the end is exclusive.
type span struct {
	start, end int
}

// maxLinearAttrs is the number of attributes of a tag up to which a new attribute's name is
// compared with each earlier one to drop duplicates; past it, names go in a map, so that a
// hostile tag with many thousands of attributes costs no more than in x/net.
const maxLinearAttrs = 16

// maxKept is the capacity in bytes of a buffer (converted bytes, attributes, a name) above
// which Reset lets it go rather than keeping it for the next document, as a hostile page
// can make them large.
const maxKept = 64 << 10

// attrSize is the bytes of one entry of Tokenizer.attr: two spans of two ints.
const attrSize = 4 * 8

// A Tokenizer returns a stream of HTML tokens from a []byte. The zero Tokenizer has no
// input: its first token is an ErrorToken. A Tokenizer is not safe for concurrent use.
type Tokenizer struct {
	// buf is the input. buf[raw.start:raw.end] holds the raw bytes of the current token;
	// buf[raw.end:] will yield future tokens.
	buf []byte
	raw span
	// tt is the TokenType of the current token.
	tt TokenType
	// err is io.EOF once the input is exhausted. It is possible for tt != Error &&
	// err != nil to hold: this means that Next returned a valid token but the subsequent
	// Next call will return an error token. For example, if the HTML text input was just
	// "plain", then the first Next call would set z.err to io.EOF but return a TextToken,
	// and all subsequent Next calls would return an ErrorToken. readDoctype resets it to
	// read a fragment again; otherwise once it becomes non-nil, it stays non-nil.
	err error
	// buf[data.start:data.end] holds the raw bytes of the current token's data:
	// a text token's text, a tag token's tag name, etc.
	data span
	// pendingAttr is the attribute key and value currently being tokenized.
	// When complete, pendingAttr is pushed onto attr. nAttrReturned is
	// incremented on each call to TagAttr.
	pendingAttr   [2]span
	attr          [][2]span
	nAttrReturned int
	// attrNames holds the lower-cased names of the current tag's attributes once it has
	// more than maxLinearAttrs of them (attrMapped); keyBuf is where a name is lower-cased
	// to look it up.
	attrNames  map[string]bool
	attrMapped bool
	keyBuf     []byte
	// rawTag is the "script" in "</script>" that closes the next token. If
	// non-empty, the subsequent call to Next will return a raw or RCDATA text
	// token: one that treats "<p>" as text instead of an element.
	// rawTag's contents are lower-cased.
	rawTag string
	// textIsRaw is whether the current text token's data is not escaped.
	textIsRaw bool
	// convertNUL is whether NUL bytes in the current token's data should
	// be converted into \ufffd replacement characters.
	convertNUL bool
	// scratch holds the converted names, values and text of the current token (see cook);
	// Next empties it.
	scratch []byte
}

// New returns a Tokenizer of the HTML document b. The input is assumed to be UTF-8
// encoded. The Tokenizer does not modify b, and its results point into b: b must not be
// changed while they are in use.
func New(b []byte) *Tokenizer {
	z := &Tokenizer{}
	z.Reset(b)
	return z
}

// Reset makes z a Tokenizer of b, as New(b) would return, keeping the memory z had
// allocated. The results of z's earlier calls become invalid.
func (z *Tokenizer) Reset(b []byte) {
	// The map of attribute names is for tags with many attributes, which few pages have,
	// and it would not shrink: it is not kept.
	*z = Tokenizer{
		buf:     b,
		attr:    kept(z.attr, maxKept/attrSize),
		keyBuf:  kept(z.keyBuf, maxKept),
		scratch: kept(z.scratch, maxKept),
	}
}

// kept returns s emptied, or nil if it can hold more than max elements.
func kept[S ~[]E, E any](s S, max int) S {
	if cap(s) > max {
		return nil
	}
	return s[:0]
}

// Err returns the error associated with the most recent ErrorToken token: io.EOF, the end of
// the input, or nil if the current token is not an ErrorToken.
func (z *Tokenizer) Err() error {
	if z.tt != ErrorToken {
		return nil
	}
	return z.err
}

// readByte returns the next byte of the input, or sets z.err to io.EOF at its end.
// z.buf[z.raw.start:z.raw.end] holds all the bytes read so far for the current token.
// Pre-condition: z.err == nil.
func (z *Tokenizer) readByte() byte {
	if z.raw.end >= len(z.buf) {
		z.err = io.EOF
		return 0
	}
	x := z.buf[z.raw.end]
	z.raw.end++
	return x
}

// readPast reads up to and including the next byte c, as calls of readByte until one returns
// c would, and reports whether there was one. The loops of readByte that look for one byte
// (the '<' that ends text, the quote that ends a value) are calls of readPast, which finds it
// with bytes.IndexByte.
func (z *Tokenizer) readPast(c byte) bool {
	i := bytes.IndexByte(z.buf[z.raw.end:], c)
	if i < 0 {
		z.raw.end = len(z.buf)
		z.err = io.EOF
		return false
	}
	z.raw.end += i + 1
	return true
}

// isSpace reports whether c is one of the white space bytes of HTML's tokenizer.
func isSpace(c byte) bool {
	switch c {
	case ' ', '\n', '\r', '\t', '\f':
		return true
	}
	return false
}

// skipWhiteSpace skips past any white space.
func (z *Tokenizer) skipWhiteSpace() {
	if z.err != nil {
		return
	}
	for i := z.raw.end; i < len(z.buf); i++ {
		if !isSpace(z.buf[i]) {
			z.raw.end = i
			return
		}
	}
	z.raw.end = len(z.buf)
	z.err = io.EOF
}

// readRawOrRCDATA reads until the next "</foo>", where "foo" is z.rawTag and
// is typically something like "script" or "textarea".
func (z *Tokenizer) readRawOrRCDATA() {
	if z.rawTag == "script" {
		z.readScript()
		z.textIsRaw = true
		z.rawTag = ""
		return
	}
loop:
	for {
		if !z.readPast('<') {
			break loop
		}
		c := z.readByte()
		if z.err != nil {
			break loop
		}
		if c != '/' {
			z.raw.end--
			continue loop
		}
		if z.readRawEndTag() || z.err != nil {
			break loop
		}
	}
	z.data.end = z.raw.end
	// A textarea's or title's RCDATA can contain escaped entities.
	z.textIsRaw = z.rawTag != "textarea" && z.rawTag != "title"
	z.rawTag = ""
}

// readRawEndTag attempts to read a tag like "</foo>", where "foo" is z.rawTag.
// If it succeeds, it backs up the input position to reconsume the tag and
// returns true. Otherwise it returns false. The opening "</" has already been
// consumed.
func (z *Tokenizer) readRawEndTag() bool {
	for i := 0; i < len(z.rawTag); i++ {
		c := z.readByte()
		if z.err != nil {
			return false
		}
		if c != z.rawTag[i] && c != z.rawTag[i]-('a'-'A') {
			z.raw.end--
			return false
		}
	}
	c := z.readByte()
	if z.err != nil {
		return false
	}
	switch c {
	case ' ', '\n', '\r', '\t', '\f', '/', '>':
		// The 3 is 2 for the leading "</" plus 1 for the trailing character c.
		z.raw.end -= 3 + len(z.rawTag)
		return true
	}
	z.raw.end--
	return false
}

// readScript reads until the next </script> tag, following the byzantine
// rules for escaping/hiding the closing tag.
func (z *Tokenizer) readScript() {
	defer func() {
		z.data.end = z.raw.end
	}()
	var c byte

scriptData:
	if !z.readPast('<') {
		return
	}
	goto scriptDataLessThanSign

scriptDataLessThanSign:
	c = z.readByte()
	if z.err != nil {
		return
	}
	switch c {
	case '/':
		goto scriptDataEndTagOpen
	case '!':
		goto scriptDataEscapeStart
	}
	z.raw.end--
	goto scriptData

scriptDataEndTagOpen:
	if z.readRawEndTag() || z.err != nil {
		return
	}
	goto scriptData

scriptDataEscapeStart:
	c = z.readByte()
	if z.err != nil {
		return
	}
	if c == '-' {
		goto scriptDataEscapeStartDash
	}
	z.raw.end--
	goto scriptData

scriptDataEscapeStartDash:
	c = z.readByte()
	if z.err != nil {
		return
	}
	if c == '-' {
		goto scriptDataEscapedDashDash
	}
	z.raw.end--
	goto scriptData

scriptDataEscaped:
	c = z.readByte()
	if z.err != nil {
		return
	}
	switch c {
	case '-':
		goto scriptDataEscapedDash
	case '<':
		goto scriptDataEscapedLessThanSign
	}
	goto scriptDataEscaped

scriptDataEscapedDash:
	c = z.readByte()
	if z.err != nil {
		return
	}
	switch c {
	case '-':
		goto scriptDataEscapedDashDash
	case '<':
		goto scriptDataEscapedLessThanSign
	}
	goto scriptDataEscaped

scriptDataEscapedDashDash:
	c = z.readByte()
	if z.err != nil {
		return
	}
	switch c {
	case '-':
		goto scriptDataEscapedDashDash
	case '<':
		goto scriptDataEscapedLessThanSign
	case '>':
		goto scriptData
	}
	goto scriptDataEscaped

scriptDataEscapedLessThanSign:
	c = z.readByte()
	if z.err != nil {
		return
	}
	if c == '/' {
		goto scriptDataEscapedEndTagOpen
	}
	if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' {
		goto scriptDataDoubleEscapeStart
	}
	z.raw.end--
	goto scriptData

scriptDataEscapedEndTagOpen:
	if z.readRawEndTag() || z.err != nil {
		return
	}
	goto scriptDataEscaped

scriptDataDoubleEscapeStart:
	z.raw.end--
	for i := 0; i < len("script"); i++ {
		c = z.readByte()
		if z.err != nil {
			return
		}
		if c != "script"[i] && c != "SCRIPT"[i] {
			z.raw.end--
			goto scriptDataEscaped
		}
	}
	c = z.readByte()
	if z.err != nil {
		return
	}
	switch c {
	case ' ', '\n', '\r', '\t', '\f', '/', '>':
		goto scriptDataDoubleEscaped
	}
	z.raw.end--
	goto scriptDataEscaped

scriptDataDoubleEscaped:
	c = z.readByte()
	if z.err != nil {
		return
	}
	switch c {
	case '-':
		goto scriptDataDoubleEscapedDash
	case '<':
		goto scriptDataDoubleEscapedLessThanSign
	}
	goto scriptDataDoubleEscaped

scriptDataDoubleEscapedDash:
	c = z.readByte()
	if z.err != nil {
		return
	}
	switch c {
	case '-':
		goto scriptDataDoubleEscapedDashDash
	case '<':
		goto scriptDataDoubleEscapedLessThanSign
	}
	goto scriptDataDoubleEscaped

scriptDataDoubleEscapedDashDash:
	c = z.readByte()
	if z.err != nil {
		return
	}
	switch c {
	case '-':
		goto scriptDataDoubleEscapedDashDash
	case '<':
		goto scriptDataDoubleEscapedLessThanSign
	case '>':
		goto scriptData
	}
	goto scriptDataDoubleEscaped

scriptDataDoubleEscapedLessThanSign:
	c = z.readByte()
	if z.err != nil {
		return
	}
	if c == '/' {
		goto scriptDataDoubleEscapeEnd
	}
	z.raw.end--
	goto scriptDataDoubleEscaped

scriptDataDoubleEscapeEnd:
	if z.readRawEndTag() {
		z.raw.end += len("</script>")
		goto scriptDataEscaped
	}
	if z.err != nil {
		return
	}
	goto scriptDataDoubleEscaped
}

// readComment reads the next comment token starting with "<!--". The opening
// "<!--" has already been consumed.
func (z *Tokenizer) readComment() {
	z.data.start = z.raw.end
	defer func() {
		if z.data.end < z.data.start {
			// It's a comment with no data, like <!-->.
			z.data.end = z.data.start
		}
	}()

	var dashCount int
	beginning := true
	for {
		c := z.readByte()
		if z.err != nil {
			z.data.end = z.calculateAbruptCommentDataEnd()
			return
		}
		switch c {
		case '-':
			dashCount++
			continue
		case '>':
			if dashCount >= 2 || beginning {
				z.data.end = z.raw.end - len("-->")
				return
			}
		case '!':
			if dashCount >= 2 {
				c = z.readByte()
				if z.err != nil {
					z.data.end = z.calculateAbruptCommentDataEnd()
					return
				} else if c == '>' {
					z.data.end = z.raw.end - len("--!>")
					return
				} else if c == '-' {
					dashCount = 1
					beginning = false
					continue
				}
			}
		}
		dashCount = 0
		beginning = false
	}
}

func (z *Tokenizer) calculateAbruptCommentDataEnd() int {
	raw := z.Raw()
	const prefixLen = len("<!--")
	if len(raw) >= prefixLen {
		raw = raw[prefixLen:]
		if hasSuffix(raw, "--!") {
			return z.raw.end - 3
		} else if hasSuffix(raw, "--") {
			return z.raw.end - 2
		} else if hasSuffix(raw, "-") {
			return z.raw.end - 1
		}
	}
	return z.raw.end
}

func hasSuffix(b []byte, suffix string) bool {
	if len(b) < len(suffix) {
		return false
	}
	b = b[len(b)-len(suffix):]
	for i := range b {
		if b[i] != suffix[i] {
			return false
		}
	}
	return true
}

// readUntilCloseAngle reads until the next ">".
func (z *Tokenizer) readUntilCloseAngle() {
	z.data.start = z.raw.end
	if !z.readPast('>') {
		z.data.end = z.raw.end
		return
	}
	z.data.end = z.raw.end - len(">")
}

// readMarkupDeclaration reads the next token starting with "<!". It might be
// a "<!--comment-->", a "<!DOCTYPE foo>", or "<!a bogus comment" (a CDATA
// section is one too). The opening "<!" has already been consumed.
func (z *Tokenizer) readMarkupDeclaration() TokenType {
	z.data.start = z.raw.end
	var c [2]byte
	for i := 0; i < 2; i++ {
		c[i] = z.readByte()
		if z.err != nil {
			// bogus comment
			z.data.end = z.raw.end
			if i == 1 && c[0] == '>' {
				z.data.end--
			}
			return CommentToken
		}
	}
	if c[0] == '-' && c[1] == '-' {
		z.readComment()
		return CommentToken
	}
	z.raw.end -= 2
	if z.readDoctype() {
		return DoctypeToken
	}
	// It's a bogus comment.
	z.readUntilCloseAngle()
	return CommentToken
}

// readDoctype attempts to read a doctype declaration and returns true if
// successful. The opening "<!" has already been consumed.
func (z *Tokenizer) readDoctype() bool {
	const s = "DOCTYPE"
	for i := 0; i < len(s); i++ {
		c := z.readByte()
		if z.err != nil {
			// Back up to read the fragment of "DOCTYPE" again, reset
			// z.err to signal EOF on the next call
			z.raw.end = z.data.start
			z.err = nil
			return false
		}
		if c != s[i] && c != s[i]+('a'-'A') {
			// Back up to read the fragment of "DOCTYPE" again.
			z.raw.end = z.data.start
			return false
		}
	}
	if z.skipWhiteSpace(); z.err != nil {
		z.data.start = z.raw.end
		z.data.end = z.raw.end
		return true
	}
	z.readUntilCloseAngle()
	return true
}

// rawTags lists the elements whose start tag makes the next token raw text, lower case.
var rawTags = [...]string{"iframe", "noembed", "noframes", "noscript", "plaintext", "script", "style", "textarea", "title", "xmp"}

// rawTagOf returns the element of rawTags that the start tag in
// z.buf[z.data.start:z.data.end] case-insensitively matches, or "". (x/net lower-cases a
// copy of the tag's name for z.rawTag; the constant is the same string.)
func (z *Tokenizer) rawTagOf() string {
	for _, s := range rawTags {
		if z.startTagIs(s) {
			return s
		}
	}
	return ""
}

// startTagIs returns whether the start tag in z.buf[z.data.start:z.data.end]
// case-insensitively matches s.
func (z *Tokenizer) startTagIs(s string) bool {
	if z.data.end-z.data.start != len(s) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := z.buf[z.data.start+i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}

// readStartTag reads the next start tag token. The opening "<a" has already
// been consumed, where 'a' means anything in [A-Za-z].
func (z *Tokenizer) readStartTag() TokenType {
	z.readTag(true)
	if z.err != nil {
		return ErrorToken
	}
	// Several tags flag the tokenizer's next token as raw.
	if raw := z.rawTagOf(); raw != "" {
		z.rawTag = raw
	}
	// Look for a self-closing token (e.g. <br/>).
	//
	// Originally, we did this by just checking that the last character of the
	// tag (ignoring the closing bracket) was a solidus (/) character, but this
	// is not always accurate.
	//
	// We need to be careful that we don't misinterpret a non-self-closing tag
	// as self-closing, as can happen if the tag contains unquoted attribute
	// values (i.e. <p a=/>).
	//
	// To avoid this, we check that the last non-bracket character of the tag
	// (z.raw.end-2) isn't the same character as the last non-quote character of
	// the last attribute of the tag (z.pendingAttr[1].end-1), if the tag has
	// attributes.
	nAttrs := len(z.attr)
	if z.err == nil && z.buf[z.raw.end-2] == '/' && (nAttrs == 0 || z.raw.end-2 != z.attr[nAttrs-1][1].end-1) {
		return SelfClosingTagToken
	}
	return StartTagToken
}

// readTag reads the next tag token and its attributes. If saveAttr, those
// attributes are saved in z.attr, otherwise z.attr is set to an empty slice.
// The opening "<a" or "</a" has already been consumed, where 'a' means anything
// in [A-Za-z].
func (z *Tokenizer) readTag(saveAttr bool) {
	z.attr = z.attr[:0]
	z.nAttrReturned = 0
	if z.attrMapped {
		clear(z.attrNames)
		z.attrMapped = false
	}
	// Read the tag name and attribute key/value pairs.
	z.readTagName()
	if z.skipWhiteSpace(); z.err != nil {
		return
	}
	for {
		c := z.readByte()
		if z.err != nil || c == '>' {
			break
		}
		z.raw.end--
		z.readTagAttrKey()
		z.readTagAttrVal()
		// Save pendingAttr if saveAttr and that attribute has a non-empty key, and the key
		// hasn't been seen before. (x/net computes the lower-cased key of every attribute,
		// saved or not, as a new string.)
		if saveAttr && z.pendingAttr[0].start != z.pendingAttr[0].end && !z.seenAttr(z.pendingAttr[0]) {
			z.attr = append(z.attr, z.pendingAttr)
			if z.attrMapped {
				z.attrNames[string(z.lowerKey(z.pendingAttr[0]))] = true
			}
		}
		if z.skipWhiteSpace(); z.err != nil {
			break
		}
	}
}

// seenAttr reports whether the current tag has a saved attribute named as the bytes of k,
// compared as x/net compares them (ASCII letters case-insensitively).
func (z *Tokenizer) seenAttr(k span) bool {
	key := z.buf[k.start:k.end]
	if len(z.attr) < maxLinearAttrs {
		for _, a := range z.attr {
			if equalLower(z.buf[a[0].start:a[0].end], key) {
				return true
			}
		}
		return false
	}
	if !z.attrMapped {
		if z.attrNames == nil {
			z.attrNames = make(map[string]bool)
		}
		for _, a := range z.attr {
			z.attrNames[string(z.lowerKey(a[0]))] = true
		}
		z.attrMapped = true
	}
	return z.attrNames[string(z.lowerKey(k))]
}

// lowerKey returns the bytes of k lower-cased, in z.keyBuf.
func (z *Tokenizer) lowerKey(k span) []byte {
	z.keyBuf = append(z.keyBuf[:0], z.buf[k.start:k.end]...)
	return lower(z.keyBuf)
}

// equalLower reports whether a and b are equal once lower-cased.
func equalLower(a, b []byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i, c := range a {
		d := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if 'A' <= d && d <= 'Z' {
			d += 'a' - 'A'
		}
		if c != d {
			return false
		}
	}
	return true
}

// readTagName sets z.data to the "div" in "<div k=v>". The reader (z.raw.end)
// is positioned such that the first byte of the tag name (the "d" in "<div")
// has already been consumed.
func (z *Tokenizer) readTagName() {
	z.data.start = z.raw.end - 1
	for i := z.raw.end; i < len(z.buf); i++ {
		switch z.buf[i] {
		case ' ', '\n', '\r', '\t', '\f':
			z.raw.end = i + 1
			z.data.end = i
			return
		case '/', '>':
			z.raw.end = i
			z.data.end = i
			return
		}
	}
	z.raw.end = len(z.buf)
	z.err = io.EOF
	z.data.end = z.raw.end
}

// readTagAttrKey sets z.pendingAttr[0] to the "k" in "<div k=v>".
// Precondition: z.err == nil.
func (z *Tokenizer) readTagAttrKey() {
	start := z.raw.end
	z.pendingAttr[0].start = start
	for i := start; i < len(z.buf); i++ {
		switch z.buf[i] {
		case '=':
			if i == start {
				// WHATWG 13.2.5.32, if we see an equals sign before the attribute name
				// begins, we treat it as a character in the attribute name and continue.
				continue
			}
			fallthrough
		case ' ', '\n', '\r', '\t', '\f', '/', '>':
			// WHATWG 13.2.5.33 Attribute name state
			// We need to reconsume the char in the after attribute name state to support the / character
			z.raw.end = i
			z.pendingAttr[0].end = i
			return
		}
	}
	z.raw.end = len(z.buf)
	z.err = io.EOF
	z.pendingAttr[0].end = z.raw.end
}

// readTagAttrVal sets z.pendingAttr[1] to the "v" in "<div k=v>".
func (z *Tokenizer) readTagAttrVal() {
	z.pendingAttr[1].start = z.raw.end
	z.pendingAttr[1].end = z.raw.end
	if z.skipWhiteSpace(); z.err != nil {
		return
	}
	c := z.readByte()
	if z.err != nil {
		return
	}
	if c == '/' {
		// WHATWG 13.2.5.34 After attribute name state
		// U+002F SOLIDUS (/) - Switch to the self-closing start tag state.
		return
	}
	if c != '=' {
		z.raw.end--
		return
	}
	if z.skipWhiteSpace(); z.err != nil {
		return
	}
	quote := z.readByte()
	if z.err != nil {
		return
	}
	switch quote {
	case '>':
		z.raw.end--
		return

	case '\'', '"':
		z.pendingAttr[1].start = z.raw.end
		if !z.readPast(quote) {
			z.pendingAttr[1].end = z.raw.end
			return
		}
		z.pendingAttr[1].end = z.raw.end - 1

	default:
		z.pendingAttr[1].start = z.raw.end - 1
		for i := z.raw.end; i < len(z.buf); i++ {
			switch z.buf[i] {
			case ' ', '\n', '\r', '\t', '\f':
				z.raw.end = i + 1
				z.pendingAttr[1].end = i
				return
			case '>':
				z.raw.end = i
				z.pendingAttr[1].end = i
				return
			}
		}
		z.raw.end = len(z.buf)
		z.err = io.EOF
		z.pendingAttr[1].end = z.raw.end
	}
}

// Next scans the next token and returns its type.
func (z *Tokenizer) Next() TokenType {
	z.raw.start = z.raw.end
	z.data.start = z.raw.end
	z.data.end = z.raw.end
	z.scratch = z.scratch[:0]
	if z.err != nil {
		z.tt = ErrorToken
		return z.tt
	}
	if z.rawTag != "" {
		if z.rawTag == "plaintext" {
			// Read everything up to EOF.
			z.raw.end = len(z.buf)
			z.err = io.EOF
			z.data.end = z.raw.end
			z.textIsRaw = true
		} else {
			z.readRawOrRCDATA()
		}
		if z.data.end > z.data.start {
			z.tt = TextToken
			z.convertNUL = true
			return z.tt
		}
	}
	z.textIsRaw = false
	z.convertNUL = false

loop:
	for {
		if !z.readPast('<') {
			break loop
		}

		// Check if the '<' we have just read is part of a tag, comment
		// or doctype. If not, it's part of the accumulated text token.
		c := z.readByte()
		if z.err != nil {
			break loop
		}
		var tokenType TokenType
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
			tokenType = StartTagToken
		case c == '/':
			tokenType = EndTagToken
		case c == '!' || c == '?':
			// We use CommentToken to mean any of "<!--actual comments-->",
			// "<!DOCTYPE declarations>" and "<?xml processing instructions?>".
			tokenType = CommentToken
		default:
			// Reconsume the current character.
			z.raw.end--
			continue
		}

		// We have a non-text token, but we might have accumulated some text
		// before that. If so, we return the text first, and return the non-
		// text token on the subsequent call to Next.
		if x := z.raw.end - len("<a"); z.raw.start < x {
			z.raw.end = x
			z.data.end = x
			z.tt = TextToken
			return z.tt
		}
		switch tokenType {
		case StartTagToken:
			z.tt = z.readStartTag()
			return z.tt
		case EndTagToken:
			c = z.readByte()
			if z.err != nil {
				break loop
			}
			if c == '>' {
				// "</>" does not generate a token at all. Generate an empty comment
				// to allow passthrough clients to pick up the data using Raw.
				// Reset the tokenizer state and start again.
				z.tt = CommentToken
				return z.tt
			}
			if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' {
				z.readTag(false)
				if z.err != nil {
					z.tt = ErrorToken
				} else {
					z.tt = EndTagToken
				}
				return z.tt
			}
			z.raw.end--
			z.readUntilCloseAngle()
			z.tt = CommentToken
			return z.tt
		case CommentToken:
			if c == '!' {
				z.tt = z.readMarkupDeclaration()
				return z.tt
			}
			z.raw.end--
			z.readUntilCloseAngle()
			z.tt = CommentToken
			return z.tt
		}
	}
	if z.raw.start < z.raw.end {
		z.data.end = z.raw.end
		z.tt = TextToken
		return z.tt
	}
	z.tt = ErrorToken
	return z.tt
}

// Raw returns the unmodified text of the current token: a sub-slice of the input, valid as
// long as the input is.
//
// The token stream's raw bytes partition the byte stream (up until an
// ErrorToken). There are no overlaps or gaps between two consecutive token's
// raw bytes. One implication is that the byte offset of the current token is
// the sum of the lengths of all previous tokens' raw bytes.
func (z *Tokenizer) Raw() []byte {
	return z.buf[z.raw.start:z.raw.end:z.raw.end]
}

// Text returns the unescaped text of a text, comment or doctype token, with "\r\n" and "\r"
// as "\n" and, in a comment or the text of a raw-text element, NUL as U+FFFD; nil for other
// tokens, and for a second call on the same token. The contents of the returned slice may
// change on the next call to Next or Reset, and must not be modified.
func (z *Tokenizer) Text() []byte {
	switch z.tt {
	case TextToken, CommentToken, DoctypeToken:
		s := z.buf[z.data.start:z.data.end:z.data.end]
		z.data.start = z.raw.end
		z.data.end = z.raw.end
		how := cookNewlines
		if z.convertNUL || z.tt == CommentToken {
			how |= cookNUL
		}
		if !z.textIsRaw {
			how |= cookUnescape
		}
		return z.cook(s, how)
	}
	return nil
}

// TagName returns the lower-cased name of a tag token (the `img` out of
// `<IMG SRC="foo">`), with NUL as U+FFFD, and whether the tag has attributes.
// The contents of the returned slice may change on the next call to Next or Reset, and
// must not be modified.
func (z *Tokenizer) TagName() (name []byte, hasAttr bool) {
	if z.data.start < z.data.end {
		switch z.tt {
		case StartTagToken, EndTagToken, SelfClosingTagToken:
			s := z.lowerName(z.data)
			z.data.start = z.raw.end
			z.data.end = z.raw.end
			return s, z.nAttrReturned < len(z.attr)
		}
	}
	return nil, false
}

// TagAttr returns the lower-cased key and unescaped value of the next unparsed
// attribute for the current tag token and whether there are more attributes.
// NUL is U+FFFD in both, and "\r\n" and "\r" are "\n" in the value.
// The contents of the returned slices may change on the next call to Next or Reset, and
// must not be modified.
func (z *Tokenizer) TagAttr() (key, val []byte, moreAttr bool) {
	if z.nAttrReturned < len(z.attr) {
		switch z.tt {
		case StartTagToken, SelfClosingTagToken:
			x := z.attr[z.nAttrReturned]
			z.nAttrReturned++
			key = z.lowerName(x[0])
			val = z.cook(z.buf[x[1].start:x[1].end:x[1].end], cookNUL|cookNewlines|cookUnescape|cookAttribute)
			return key, val, z.nAttrReturned < len(z.attr)
		}
	}
	return nil, nil, false
}

// cook returns s converted as how says: s itself if that changes nothing, else the
// converted bytes, appended to z.scratch.
func (z *Tokenizer) cook(s []byte, how cooking) []byte {
	if !needsCook(s, how) {
		return s
	}
	start := len(z.scratch)
	z.scratch = cook(z.scratch, s, how)
	return z.scratch[start:len(z.scratch):len(z.scratch)]
}

// lowerName returns the bytes of sp lower-cased and with NUL as U+FFFD: a sub-slice of the
// input if that changes nothing, else bytes appended to z.scratch.
func (z *Tokenizer) lowerName(sp span) []byte {
	s := z.buf[sp.start:sp.end:sp.end]
	i := 0
	for i < len(s) && !changedInName[s[i]] {
		i++
	}
	if i == len(s) {
		return s
	}
	start := len(z.scratch)
	z.scratch = append(z.scratch, s[:i]...)
	for _, c := range s[i:] {
		switch {
		case c == 0:
			z.scratch = append(z.scratch, "\uFFFD"...)
		case 'A' <= c && c <= 'Z':
			z.scratch = append(z.scratch, c+'a'-'A')
		default:
			z.scratch = append(z.scratch, c)
		}
	}
	return z.scratch[start:len(z.scratch):len(z.scratch)]
}

// changedInName is, for each byte, whether lowerName changes it.
var changedInName = [256]bool{0: true,
	'A': true, 'B': true, 'C': true, 'D': true, 'E': true, 'F': true, 'G': true, 'H': true, 'I': true,
	'J': true, 'K': true, 'L': true, 'M': true, 'N': true, 'O': true, 'P': true, 'Q': true, 'R': true,
	'S': true, 'T': true, 'U': true, 'V': true, 'W': true, 'X': true, 'Y': true, 'Z': true}

// lower lower-cases the A-Z bytes in b in-place, so that "aBc" becomes "abc".
func lower(b []byte) []byte {
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return b
}
