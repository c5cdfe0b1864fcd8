package extract

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/hop"
)

const sheet = "http://example.com/css/site.css"

func TestCSS(t *testing.T) {
	u := func(url string) Outlink { return Outlink{URL: url, Hop: hop.Embed, Context: "css/url()"} }
	imp := func(url string) Outlink { return Outlink{URL: url, Hop: hop.Embed, Context: "css/@import"} }
	tests := []struct {
		name string
		css  string
		want []Outlink
	}{
		{name: "empty", css: ``},
		{name: "unquoted", css: `a{background:url(img/a.png)}`, want: []Outlink{u("http://example.com/css/img/a.png")}},
		{name: "double quoted", css: `a{background:url("b.png")}`, want: []Outlink{u("http://example.com/css/b.png")}},
		{name: "single quoted", css: `a{background:url('/c.png')}`, want: []Outlink{u("http://example.com/c.png")}},
		{name: "whitespace inside", css: "a{background:url(  \n d.png \t )}", want: []Outlink{u("http://example.com/css/d.png")}},
		{name: "whitespace around quoted", css: `a{background:url( "e.png" )}`, want: []Outlink{u("http://example.com/css/e.png")}},
		{name: "uppercase URL", css: `a{background:URL(f.png)}`, want: []Outlink{u("http://example.com/css/f.png")}},
		{name: "escaped paren in name", css: `a{background:url(a\)b.png)}`, want: []Outlink{u("http://example.com/css/a)b.png")}},
		{name: "escaped space unquoted", css: `a{background:url(a\ b.png)}`, want: []Outlink{u("http://example.com/css/a%20b.png")}},
		{name: "hex escape", css: `a{background:url(\2f abs.png)}`, want: []Outlink{u("http://example.com/abs.png")}},
		{name: "hex escape in string", css: `a{background:url("\000041 b.png")}`, want: []Outlink{u("http://example.com/css/Ab.png")}},
		{name: "quote escape in string", css: `a{background:url("q\"uote.png")}`, want: []Outlink{u("http://example.com/css/q%22uote.png")}},
		{name: "line continuation in string", css: "a{background:url(\"long\\\nname.png\")}", want: []Outlink{u("http://example.com/css/longname.png")}},
		{name: "bad string newline", css: "a{background:url(\"bad\nname.png\")} b{background:url(ok.png)}", want: []Outlink{u("http://example.com/css/ok.png")}},
		{name: "bad url with quote", css: `a{background:url(a"b.png)} b{background:url(ok.png)}`, want: []Outlink{u("http://example.com/css/ok.png")}},
		{name: "bad url with space inside", css: `a{background:url(a b.png)} b{background:url(ok.png)}`, want: []Outlink{u("http://example.com/css/ok.png")}},
		{name: "empty url", css: `a{background:url()} b{background:url("")}`},
		{name: "comments ignored", css: `/* url(no.png) @import "no.css"; */ a{background:url(yes.png)} /* unterminated url(no2.png)`, want: []Outlink{u("http://example.com/css/yes.png")}},
		{name: "url in string is not url", css: `a{content:"url(no.png)"} b{background:url(yes.png)}`, want: []Outlink{u("http://example.com/css/yes.png")}},
		{name: "not a url function", css: `a{background:myurl(no.png); b: -x-url(no2.png)}`},
		{name: "import string", css: `@import "base.css";`, want: []Outlink{imp("http://example.com/css/base.css")}},
		{name: "import single quoted with media", css: `@import 'print.css' print;`, want: []Outlink{imp("http://example.com/css/print.css")}},
		{name: "import url", css: `@import url(fonts.css);`, want: []Outlink{imp("http://example.com/css/fonts.css")}},
		{name: "import url quoted", css: `@IMPORT url("/x.css") screen;`, want: []Outlink{imp("http://example.com/x.css")}},
		{name: "import with comment", css: `@import /* c */ "c.css";`, want: []Outlink{imp("http://example.com/css/c.css")}},
		{name: "import no space", css: `@import"n.css";`, want: []Outlink{imp("http://example.com/css/n.css")}},
		{name: "not import", css: `@importer "no.css"; @media print { a{background:url(p.png)} }`, want: []Outlink{u("http://example.com/css/p.png")}},
		{name: "font-face src", css: `@font-face{src:url(f.woff2) format("woff2"),url('f.woff') format("woff")}`, want: []Outlink{u("http://example.com/css/f.woff2"), u("http://example.com/css/f.woff")}},
		{name: "image-set", css: `a{background-image:image-set("a.png" 1x, url(b.png) 2x, "c.avif" type("image/avif"))}`, want: []Outlink{u("http://example.com/css/a.png"), u("http://example.com/css/b.png"), u("http://example.com/css/c.avif")}},
		{name: "webkit image-set", css: `a{background-image:-webkit-image-set('w.png' 1x)}`, want: []Outlink{u("http://example.com/css/w.png")}},
		{name: "absolute and protocol relative", css: `a{background:url(https://cdn.org/a.png)} b{background:url(//cdn.org/b.png)}`, want: []Outlink{u("https://cdn.org/a.png"), u("http://cdn.org/b.png")}},
		{name: "data URI skipped", css: `a{background:url(data:image/png;base64,AAAA)} b{background:url("data:image/svg+xml;utf8,<svg></svg>")}`},
		{name: "fragment only skipped", css: `a{filter:url(#blur)} b{mask:url(m.svg#id)}`, want: []Outlink{u("http://example.com/css/m.svg")}},
		{name: "duplicates removed", css: `a{background:url(d.png)} b{background:url("d.png")}`, want: []Outlink{u("http://example.com/css/d.png")}},
		{name: "import and url same URL", css: `@import "x.css"; a{background:url(x.css)}`, want: []Outlink{imp("http://example.com/css/x.css")}},
		{name: "unterminated url at EOF", css: `a{background:url(end.png`, want: []Outlink{u("http://example.com/css/end.png")}},
		{name: "unterminated string at EOF", css: `@import "end.css`, want: []Outlink{imp("http://example.com/css/end.css")}},
		// Escapes in names (CSS Syntax 3: an identifier may hold escapes; a function name is
		// compared unescaped, ASCII case-insensitively), as Chromium reads them.
		{name: "escaped letter in url", css: `a{background:u\rl(e1.png)}`, want: []Outlink{u("http://example.com/css/e1.png")}},
		{name: "hex escape u", css: `a{background:\75 rl(e2.png)}`, want: []Outlink{u("http://example.com/css/e2.png")}},
		{name: "hex escape U uppercase RL", css: `a{background:\55 RL(e3.png)}`, want: []Outlink{u("http://example.com/css/e3.png")}},
		{name: "hex escape without space", css: `a{background:\75rl(e4.png)}`, want: []Outlink{u("http://example.com/css/e4.png")}},
		{name: "six hex digits", css: `a{background:\000075rl(e5.png)}`, want: []Outlink{u("http://example.com/css/e5.png")}},
		{name: "escaped l then space", css: `a{background:ur\6c (e6.png)}`, want: []Outlink{u("http://example.com/css/e6.png")}},
		{name: "escape CRLF after hex", css: "a{background:\\75\r\nrl(e7.png)}", want: []Outlink{u("http://example.com/css/e7.png")}},
		{name: "escaped url quoted", css: `a{background:U\52L("e8.png")}`, want: []Outlink{u("http://example.com/css/e8.png")}},
		{name: "escaped import", css: `@\69mport "e9.css"; @IMP\4fRT u\rl(e10.css);`, want: []Outlink{imp("http://example.com/css/e9.css"), imp("http://example.com/css/e10.css")}},
		{name: "escaped image-set", css: `a{background:\69mage-set("e11.png" 1x, u\72l(e12.png) 2x)}`, want: []Outlink{u("http://example.com/css/e11.png"), u("http://example.com/css/e12.png")}},
		{name: "escaped paren is part of the name", css: `a{background:url\((no.png)}`},
		{name: "escape makes another name", css: `a{background:my\75rl(no.png); b:\2d url(no2.png)}`},
		{name: "escaped newline is no escape", css: "a{background:u\\\nrl(no.png)}"},
		{name: "dimension is no function", css: `a{b:1url(no.png); c:1.5url(no2.png); d:-1url(no3.png)}`},
		{name: "hash is no function", css: `a{b:#url(no.png)}`},
		{name: "delim before url", css: `a{b:+url(p1.png); c:.url(p2.png)}`, want: []Outlink{u("http://example.com/css/p1.png"), u("http://example.com/css/p2.png")}},
		{name: "not import with escape", css: `@import\65 r "no.css";`},
		// Escapes inside URLs.
		{name: "escaped paren unquoted", css: `a{background:url(a\).png)}`, want: []Outlink{u("http://example.com/css/a).png")}},
		{name: "hex escape and space unquoted", css: `a{background:url(\61 b.png)}`, want: []Outlink{u("http://example.com/css/ab.png")}},
		{name: "escaped quote unquoted", css: `a{background:url(\"q.png)}`, want: []Outlink{u("http://example.com/css/%22q.png")}},
		{name: "escaped paren quoted", css: `a{background:url("a\).png")}`, want: []Outlink{u("http://example.com/css/a).png")}},
		{name: "escaped newline unquoted is bad", css: "a{background:url(a\\\nb.png)} b{background:url(ok.png)}", want: []Outlink{u("http://example.com/css/ok.png")}},
		{name: "backslash at EOF unquoted", css: `a{background:url(z\`, want: []Outlink{u("http://example.com/css/z%EF%BF%BD")}},
		{name: "zero escape", css: `a{background:url(\0 z.png)}`, want: []Outlink{u("http://example.com/css/%EF%BF%BDz.png")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CSS(sheet, []byte(tt.css))
			if err != nil {
				t.Fatalf("CSS: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
