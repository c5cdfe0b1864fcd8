package htmltok

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/net/html"

	"github.com/amber-crawler/amber/internal/testsite"
)

// token is what a caller can read of one token: its type and raw bytes, and its name and
// attributes (tags) or text (text, comments, doctypes).
type token struct {
	Type  string
	Raw   string
	Name  string
	Attrs []string // key=value pairs, %q-quoted
	Text  string
}

// tokens is the stream of a document, and whether it ended at io.EOF.
type tokens struct {
	Tokens []token
	EOF    bool
}

// xnetTokens reads b with x/net/html's Tokenizer, as extract read pages before htmltok.
func xnetTokens(b []byte) tokens { return xnetTokensFrom(bytes.NewReader(b)) }

// xnetTokensFrom reads r with x/net/html's Tokenizer.
func xnetTokensFrom(r io.Reader) tokens {
	z := html.NewTokenizer(r)
	var ts tokens
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			ts.EOF = z.Err() == io.EOF
			return ts
		}
		// Raw first: x/net's Text rewrites the bytes Raw returns.
		t := token{Type: tt.String(), Raw: string(z.Raw())}
		switch tt {
		case html.StartTagToken, html.SelfClosingTagToken, html.EndTagToken:
			name, more := z.TagName()
			t.Name = string(name)
			for more {
				var k, v []byte
				k, v, more = z.TagAttr()
				t.Attrs = append(t.Attrs, fmt.Sprintf("%+q=%+q", k, v))
			}
		default:
			t.Text = string(z.Text())
		}
		ts.Tokens = append(ts.Tokens, t)
	}
}

// ourTokens reads b with z, reset to b.
func ourTokens(z *Tokenizer, b []byte) tokens {
	z.Reset(b)
	var ts tokens
	for {
		tt := z.Next()
		if tt == ErrorToken {
			ts.EOF = z.Err() == io.EOF
			return ts
		}
		t := token{Type: tt.String(), Raw: string(z.Raw())}
		switch tt {
		case StartTagToken, SelfClosingTagToken, EndTagToken:
			name, more := z.TagName()
			t.Name = string(name)
			for more {
				var k, v []byte
				k, v, more = z.TagAttr()
				t.Attrs = append(t.Attrs, fmt.Sprintf("%+q=%+q", k, v))
			}
			if again, _ := z.TagName(); again != nil {
				t.Name += " (TagName again: " + string(again) + ")"
			}
		default:
			t.Text = string(z.Text())
			if again := z.Text(); len(again) > 0 {
				t.Text += " (Text again: " + string(again) + ")"
			}
		}
		ts.Tokens = append(ts.Tokens, t)
	}
}

// short describes a token stream for the table of TestTokenizer: tokens separated by " | ",
// each as its type and its name and attributes or %q-quoted text; then "| EOF" if the stream
// ended at io.EOF.
func (ts tokens) short() string {
	var parts []string
	for _, t := range ts.Tokens {
		s := t.Type
		switch t.Type {
		case "StartTag", "SelfClosingTag", "EndTag":
			s += " " + fmt.Sprintf("%+q", t.Name)
			for _, a := range t.Attrs {
				s += " " + a
			}
		default:
			s += " " + fmt.Sprintf("%+q", t.Text)
		}
		parts = append(parts, s)
	}
	if ts.EOF {
		parts = append(parts, "EOF")
	}
	return strings.Join(parts, " | ")
}

// checkSame fails t unless htmltok, fresh and reused, reads b as x/net does (whether x/net
// reads b at once or byte by byte), leaves b as it was, and gives raw bytes that partition
// b up to the end of its last token.
func checkSame(t *testing.T, used *Tokenizer, b []byte) {
	t.Helper()
	orig := bytes.Clone(b)
	want := xnetTokens(bytes.Clone(b))
	// x/net moves and refills its buffer as it reads; read one byte at a time, b has it
	// refilled at every byte, so that short inputs check what a page longer than its
	// buffer could show: that its tokens do not depend on where reads end.
	if one := xnetTokensFrom(iotest.OneByteReader(bytes.NewReader(bytes.Clone(b)))); !cmp.Equal(want, one) {
		t.Fatalf("input %q: x/net's tokens differ when read one byte at a time (-whole +by byte):\n%s", b, cmp.Diff(want, one))
	}
	got := ourTokens(New(nil), b)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("input %q: tokens differ from x/net's (-x/net +htmltok):\n%s", b, diff)
	}
	if got := ourTokens(used, b); !cmp.Equal(want, got) {
		t.Fatalf("input %q: a reused Tokenizer's tokens differ from x/net's (-x/net +htmltok):\n%s", b, cmp.Diff(want, got))
	}
	if !bytes.Equal(b, orig) {
		t.Fatalf("input %q changed to %q", orig, b)
	}
	var raw []byte
	for _, tok := range got.Tokens {
		raw = append(raw, tok.Raw...)
	}
	if !bytes.HasPrefix(b, raw) {
		t.Fatalf("input %q: raw bytes %q are not a prefix of it", b, raw)
	}
}

// usedTokenizer returns a Tokenizer that has read a page with upper-case names, character
// references and a tag with many attributes, for checkSame to reuse.
func usedTokenizer() *Tokenizer {
	z := New(nil)
	var b strings.Builder
	b.WriteString(`<DIV CLASS="A&amp;B">x&lt;y<script>1</script><p `)
	for i := range 40 {
		fmt.Fprintf(&b, "a%d=%d ", i%30, i)
	}
	b.WriteString("><textarea>")
	ourTokens(z, []byte(b.String()))
	return z
}

// manyAttrs is a tag with more attributes than maxLinearAttrs, and duplicates (in another
// case) on both sides of that number.
var manyAttrs = func() string {
	var b strings.Builder
	b.WriteString("<p ")
	for i := range 2 * maxLinearAttrs {
		fmt.Fprintf(&b, "a%d=%d ", i, i)
	}
	fmt.Fprintf(&b, "A1=dup A%d=dup A%d=dup a%d=new>", maxLinearAttrs-1, maxLinearAttrs+1, 3*maxLinearAttrs)
	return b.String()
}()

// tokenizerTests are the edge cases of HTML tokenizing that a port can get wrong, with what
// x/net's Tokenizer gives (TestTokenizer checks both).
var tokenizerTests = []struct {
	name, in, want string
}{
	{"empty", ``, `EOF`},
	{"text", `a b`, `Text "a b" | EOF`},
	{"not a tag", `a < b <3 <`, `Text "a < b <3 <" | EOF`},
	{"text then tag", `a<b>c`, `Text "a" | StartTag "b" | Text "c" | EOF`},
	{"upper-case tag", `<DIV CLASS=X>`, `StartTag "div" "class"="X" | EOF`},
	{"end tag", `</DIV a=b>`, `EndTag "div" | EOF`},
	{"self-closing", `<br/><br />`, `SelfClosingTag "br" | SelfClosingTag "br" | EOF`},
	{"unquoted value ending in slash", `<p a=/>`, `StartTag "p" "a"="/" | EOF`},
	{"quoted value then slash", `<a b="/"/>`, `SelfClosingTag "a" "b"="/" | EOF`},
	{"slash after a name", `<a b/>`, `SelfClosingTag "a" "b"="" | EOF`},

	{"comment", `<!--x-->`, `Comment "x" | EOF`},
	{"empty comment <!-->", `<!-->a`, `Comment "" | Text "a" | EOF`},
	{"empty comment <!--->", `<!--->a`, `Comment "" | Text "a" | EOF`},
	{"empty comment <!---->", `<!---->a`, `Comment "" | Text "a" | EOF`},
	{"comment ending --!>", `<!--x--!>a`, `Comment "x" | Text "a" | EOF`},
	{"comment with --!-", `<!--x--!-->`, `Comment "x--!" | EOF`},
	{"comment with dashes", `<!-- a -- b --->`, `Comment " a -- b -" | EOF`},
	{"unterminated comment", `<!--x`, `Comment "x" | EOF`},
	{"unterminated comment --", `<!--x--`, `Comment "x" | EOF`},
	{"unterminated comment --!", `<!--x--!`, `Comment "x" | EOF`},
	{"comment with references", `<!--&amp;&lt-->`, `Comment "&<" | EOF`},
	{"bogus comment </ x>", `</ x>a`, `Comment " x" | Text "a" | EOF`},
	{"bogus comment <?x>", `<?xml version="1.0"?>`, `Comment "?xml version=\"1.0\"?" | EOF`},
	{"bogus comment </>", `a</>b`, `Text "a" | Comment "" | Text "b" | EOF`},
	{"bogus comment <!x>", `<!x>`, `Comment "x" | EOF`},
	{"bogus comment <!>", `<!>`, `Comment "" | EOF`},
	{"bogus comment <!", `<!`, `Comment "" | EOF`},
	{"cdata is a bogus comment", `<![CDATA[a<b]]>`, `Comment "[CDATA[a<b]]" | EOF`},

	{"doctype", `<!DOCTYPE html>`, `Doctype "html" | EOF`},
	{"doctype lower case", `<!doctype  html >`, `Doctype "html " | EOF`},
	{"doctype without name", `<!DOCTYPE>`, `Doctype "" | EOF`},
	{"doctype at EOF", `<!DOCTYPE`, `Doctype "" | EOF`},
	{"doctype cut short", `<!DOCTY`, `Comment "DOCTY" | EOF`},
	{"doctype misspelt", `<!DOCTYPO x>`, `Comment "DOCTYPO x" | EOF`},

	{"tag at EOF", `a<b c="d`, `Text "a" | EOF`},
	{"tag name at EOF", `a<b`, `Text "a" | EOF`},
	{"end tag at EOF", `a</b`, `Text "a" | EOF`},
	{"end tag open at EOF", `a</`, `Text "a" | Text "</" | EOF`},
	{"lt at EOF", `a<`, `Text "a<" | EOF`},
	{"attribute name at EOF", `<a b`, `EOF`},

	{"attributes without values", `<input disabled checked= x>`, `StartTag "input" "disabled"="" "checked"="x" | EOF`},
	{"empty value before >", `<a b=>`, `StartTag "a" "b"="" | EOF`},
	{"spaces around =", `<a b = "c" d= 'e'>`, `StartTag "a" "b"="c" "d"="e" | EOF`},
	{"equals before a name and a value after a space", `<a =b =c=d>`, `StartTag "a" "=b"="c=d" | EOF`},
	{"duplicate attributes", `<a HREF=1 href=2 Href=3 b>`, `StartTag "a" "href"="1" "b"="" | EOF`},
	{"many attributes", manyAttrs, ""},
	{"quotes inside unquoted values", `<a b=c"d'e f='g"h'>`, `StartTag "a" "b"="c\"d'e" "f"="g\"h" | EOF`},
	{"unquoted value with references", `<a href=?a=1&amp;b=2&copy=3&copy;4&lt>`, `StartTag "a" "href"="?a=1&b=2&copy=3\u00a94<" | EOF`},
	{"&amp= and &copy= in an attribute", `<a b="&amp=&copy=&copy;=&ampx&copyx">`, `StartTag "a" "b"="&amp=&copy=\u00a9=&ampx&copyx" | EOF`},
	{"&amp= and &copy= in text", `&amp=&copy=&copy;=&ampx&copyx&notin&notit;`, `Text "&=\u00a9=\u00a9=&x\u00a9x\u00acin\u00acit;" | EOF`},
	{"references of two runes", `&NotEqualTilde;<a b="&fjlig;">`, `Text "\u2242\u0338" | StartTag "a" "b"="fj" | EOF`},
	{"numeric references", `&#x80;&#128;&#x9f;&#0;&#xD800;&#x110000;&#1114112;&#65&#x41;&#X41`, `Text "\u20ac\u20ac\u0178\ufffd\ufffd\ufffd\ufffdAAA" | EOF`},
	{"numeric references in an attribute", `<a b="&#x80;&#0;&#xD800;&#x41">`, `StartTag "a" "b"="\u20ac\ufffd\ufffdA" | EOF`},
	{"not numeric references", `&#;&#x;&#xg;&#`, `Text "&#;&#x;&#xg;&#" | EOF`},
	{"ampersand at end", `a&`, `Text "a&" | EOF`},
	{"long reference name", `&CounterClockwiseContourIntegral;&CounterClockwiseContourIntegralx;`, `Text "\u2233&CounterClockwiseContourIntegralx;" | EOF`},

	{"NUL in text", "a\x00b", `Text "a\x00b" | EOF`},
	{"NUL in a tag name", "<a\x00B>", `StartTag "a\ufffdb" | EOF`},
	{"NUL in an attribute", "<a b\x00C=d\x00e>", `StartTag "a" "b\ufffdc"="d\ufffde" | EOF`},
	{"NUL in raw text", "<script>\x00</script><textarea>\x00&amp;</textarea>", `StartTag "script" | Text "\ufffd" | EndTag "script" | StartTag "textarea" | Text "\ufffd&" | EndTag "textarea" | EOF`},
	{"NUL in a comment", "<!--\x00-->", `Comment "\ufffd" | EOF`},
	{"NUL in a doctype", "<!DOCTYPE \x00>", `Doctype "\x00" | EOF`},
	{"NUL then reference", "&amp\x00;", `Text "&\x00;" | EOF`},

	{"CR and CRLF in text", "a\r\nb\rc\r\r\nd\r", `Text "a\nb\nc\n\nd\n" | EOF`},
	{"CR in an attribute", "<a b='x\r\ny\rz'>", `StartTag "a" "b"="x\ny\nz" | EOF`},
	{"CR from a reference", "a&#13;\r\n<a b='&#13;\r'>", `Text "a\r\n" | StartTag "a" "b"="\r\n" | EOF`},
	{"CR in a comment", "<!--a\r\nb-->", `Comment "a\nb" | EOF`},
	{"CR between attributes", "<a\rb=c\r\nd=e>", `StartTag "a" "b"="c" "d"="e" | EOF`},
	{"CR then reference", "a\r&amp;", `Text "a\n&" | EOF`},

	{"script end tag with space and case", `<script>a</SCRIPT >b`, `StartTag "script" | Text "a" | EndTag "script" | Text "b" | EOF`},
	{"script end tag with slash", `<script>a</script/>`, `StartTag "script" | Text "a" | EndTag "script" | EOF`},
	{"script with a false end tag", `<script>a</scripty></script>`, `StartTag "script" | Text "a</scripty>" | EndTag "script" | EOF`},
	{"script not unescaped", `<script>&amp;<b></script>`, `StartTag "script" | Text "&amp;<b>" | EndTag "script" | EOF`},
	{"script escaped", `<script><!--<script></script>--></script>x`, `StartTag "script" | Text "<!--<script></script>-->" | EndTag "script" | Text "x" | EOF`},
	{"script escaped end", `<script><!--</script>x`, `StartTag "script" | Text "<!--" | EndTag "script" | Text "x" | EOF`},
	{"script at EOF", `<script>a<`, `StartTag "script" | Text "a<" | EOF`},
	{"empty script", `<script></script>`, `StartTag "script" | EndTag "script" | EOF`},
	{"upper-case raw tag", `<STYLE>a<b></Style>`, `StartTag "style" | Text "a<b>" | EndTag "style" | EOF`},
	{"style", `<style>a&amp;</style>`, `StartTag "style" | Text "a&amp;" | EndTag "style" | EOF`},
	{"title is RCDATA", `<title>a&amp;<b></title>`, `StartTag "title" | Text "a&<b>" | EndTag "title" | EOF`},
	{"textarea is RCDATA", `<textarea>&lt;/textarea></textarea>`, `StartTag "textarea" | Text "</textarea>" | EndTag "textarea" | EOF`},
	{"xmp", `<xmp>&lt;<p></xmp>`, `StartTag "xmp" | Text "&lt;<p>" | EndTag "xmp" | EOF`},
	{"iframe", `<iframe><b></iframe>`, `StartTag "iframe" | Text "<b>" | EndTag "iframe" | EOF`},
	{"noembed", `<noembed><b></noembed>`, `StartTag "noembed" | Text "<b>" | EndTag "noembed" | EOF`},
	{"noframes", `<noframes><a href=x></noframes>`, `StartTag "noframes" | Text "<a href=x>" | EndTag "noframes" | EOF`},
	{"noscript", `<noscript><img src=x></noscript>`, `StartTag "noscript" | Text "<img src=x>" | EndTag "noscript" | EOF`},
	{"plaintext", `<plaintext><a></plaintext>&amp;`, `StartTag "plaintext" | Text "<a></plaintext>&amp;" | EOF`},
	{"self-closing raw tag", `<title/>a</title>`, `SelfClosingTag "title" | Text "a" | EndTag "title" | EOF`},
	{"raw tag at EOF", `<style>`, `StartTag "style" | EOF`},
	{"raw text end tag cut short", `<title>a</titl`, `StartTag "title" | Text "a</titl" | EOF`},
	{"not a raw tag", `<scripts>a<b>`, `StartTag "scripts" | Text "a" | StartTag "b" | EOF`},
}

func TestTokenizer(t *testing.T) {
	used := usedTokenizer()
	for _, tt := range tokenizerTests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.want != "" {
				if got := xnetTokens([]byte(tt.in)).short(); got != tt.want {
					t.Errorf("x/net:\n got %s\nwant %s", got, tt.want)
				}
				if got := ourTokens(New(nil), []byte(tt.in)).short(); got != tt.want {
					t.Errorf("htmltok:\n got %s\nwant %s", got, tt.want)
				}
			}
			checkSame(t, used, []byte(tt.in))
		})
	}
}

// TestNoAllocs: names and values that need converting are built in a buffer kept from one
// document to the next, so that reading a page a second time allocates nothing. (A tag with
// more than maxLinearAttrs attributes allocates their names, as x/net does for every tag.)
func TestNoAllocs(t *testing.T) {
	page := []byte(`<!DOCTYPE html><HTML><Title>a &amp; b</Title><A HREF="/x?a=1&amp;b=2" Class=c>` +
		"x\r\n&copy;</a><img src=\"a\x00b\" alt=\x00 SRC=dup><script>1<2</script>")
	z := New(nil)
	read := func() {
		z.Reset(page)
		for {
			tt := z.Next()
			if tt == ErrorToken {
				return
			}
			_, more := z.TagName()
			for more {
				_, _, more = z.TagAttr()
			}
			z.Text()
		}
	}
	read()
	if n := testing.AllocsPerRun(100, read); n != 0 {
		t.Errorf("%v allocations per page read again, want 0", n)
	}
}

// TestZero: the zero Tokenizer has no input.
func TestZero(t *testing.T) {
	var z Tokenizer
	if tt := z.Next(); tt != ErrorToken || z.Err() != io.EOF {
		t.Errorf("Next = %v, Err = %v; want ErrorToken, io.EOF", tt, z.Err())
	}
}

// pageSeeds returns the HTML pages of extract's test data.
func pageSeeds(t testing.TB) [][]byte {
	var pages [][]byte
	for _, pattern := range []string{"*.html", "docs/*.html"} {
		files, err := filepath.Glob(filepath.Join("..", "..", "extract", "testdata", pattern))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			pages = append(pages, b)
		}
	}
	if len(pages) == 0 {
		t.Fatal("no pages in extract/testdata")
	}
	return pages
}

func TestPages(t *testing.T) {
	used := usedTokenizer()
	for _, page := range append(pageSeeds(t), testsite.NewsPage(5<<10), testsite.NewsPage(100<<10)) {
		checkSame(t, used, page)
	}
}

func FuzzTokenizer(f *testing.F) {
	for _, tt := range tokenizerTests {
		f.Add([]byte(tt.in))
	}
	for _, page := range pageSeeds(f) {
		f.Add(page)
	}
	used := usedTokenizer()
	f.Fuzz(func(t *testing.T, b []byte) {
		checkSame(t, used, b)
	})
}

// TestResetDropsLarge: Reset keeps the buffers of an ordinary page for the next and lets go
// of those a hostile page made large.
func TestResetDropsLarge(t *testing.T) {
	read := func(z *Tokenizer, page string) {
		z.Reset([]byte(page))
		for z.Next() != ErrorToken {
			_, more := z.TagName()
			for more {
				_, _, more = z.TagAttr()
			}
		}
	}
	z := New(nil)
	read(z, `<A HREF="&amp;">`)
	read(z, `<p>`) // and so Reset with the buffers of the first page
	if cap(z.scratch) == 0 || cap(z.attr) == 0 {
		t.Errorf("an ordinary page's buffers not kept: scratch %d, attr %d", cap(z.scratch), cap(z.attr))
	}
	read(z, `<a href="`+strings.Repeat("&amp;", 2*maxKept)+`">`+manyAttrs)
	z.Reset(nil)
	if z.scratch != nil || z.attrNames != nil {
		t.Errorf("a hostile page's buffers kept: scratch %d, attribute map %v", cap(z.scratch), z.attrNames != nil)
	}
}
