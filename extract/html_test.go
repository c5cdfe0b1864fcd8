package extract

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/hop"
)

const page = "http://example.com/dir/page.html"

func l(url, context string) Outlink { return Outlink{URL: url, Hop: hop.Link, Context: context} }
func e(url, context string) Outlink { return Outlink{URL: url, Hop: hop.Embed, Context: context} }
func r(url, context string) Outlink { return Outlink{URL: url, Hop: hop.Redirect, Context: context} }
func feed(url string) Outlink {
	return Outlink{URL: url, Hop: hop.Link, Context: "link/@href", Feed: true}
}

func TestHTMLOutlinks(t *testing.T) {
	tests := []struct {
		name string
		page string // default: page
		html string
		want []Outlink
	}{
		// Links.
		{name: "a href", html: `<a href="a.html">x</a>`, want: []Outlink{l("http://example.com/dir/a.html", "a/@href")}},
		{name: "area href", html: `<map><area href="/m.html"></map>`, want: []Outlink{l("http://example.com/m.html", "area/@href")}},
		{name: "a without href", html: `<a name="top">x</a>`},
		{name: "form default GET", html: `<form action="/search?x=1"><input name=q></form>`, want: []Outlink{l("http://example.com/search?x=1", "form/@action")}},
		{name: "form method get", html: `<form method="GET" action="s">`, want: []Outlink{l("http://example.com/dir/s", "form/@action")}},
		{name: "form method post skipped", html: `<form method="POST" action="/login">`},
		{name: "form method post spaces", html: `<form method=" post " action="/login">`},
		{name: "form method dialog skipped", html: `<form method="dialog" action="/x">`},
		{name: "form invalid method is GET", html: `<form method="put" action="/x">`, want: []Outlink{l("http://example.com/x", "form/@action")}},
		{name: "form without action is the page", html: `<base href="http://other.com/"><form><input name=q></form>`, want: []Outlink{l(page, "form/@action")}},
		{name: "form empty action is the page", html: `<form action=" ">`, want: []Outlink{l(page, "form/@action")}},

		// link rel.
		{name: "link stylesheet", html: `<link rel="stylesheet" href="s.css">`, want: []Outlink{e("http://example.com/dir/s.css", "link/@href")}},
		{name: "link alternate stylesheet", html: `<link rel="Alternate StyleSheet" href="s.css">`, want: []Outlink{e("http://example.com/dir/s.css", "link/@href")}},
		{name: "link icon", html: `<link rel=icon href=/i.png>`, want: []Outlink{e("http://example.com/i.png", "link/@href")}},
		{name: "link shortcut icon", html: `<link rel="shortcut icon" href=/f.ico>`, want: []Outlink{e("http://example.com/f.ico", "link/@href")}},
		{name: "link apple-touch-icon", html: `<link rel=apple-touch-icon href=/t.png>`, want: []Outlink{e("http://example.com/t.png", "link/@href")}},
		{name: "link preload", html: `<link rel=preload as=font href=/f.woff2>`, want: []Outlink{e("http://example.com/f.woff2", "link/@href")}},
		{name: "link modulepreload", html: `<link rel=modulepreload href=/m.js>`, want: []Outlink{e("http://example.com/m.js", "link/@href")}},
		{name: "link manifest", html: `<link rel=manifest href=/site.webmanifest>`, want: []Outlink{e("http://example.com/site.webmanifest", "link/@href")}},
		{name: "link imagesrcset", html: `<link rel=preload as=image imagesrcset="p1.jpg 1x, p2.jpg 2x">`, want: []Outlink{e("http://example.com/dir/p1.jpg", "link/@imagesrcset"), e("http://example.com/dir/p2.jpg", "link/@imagesrcset")}},
		{name: "link alternate", html: `<link rel=alternate type=application/rss+xml href=/feed>`, want: []Outlink{feed("http://example.com/feed")}},
		{name: "link alternate atom", html: `<link rel="Alternate" type=" Application/Atom+XML " href=/atom>`, want: []Outlink{feed("http://example.com/atom")}},
		{name: "link alternate html is no feed", html: `<link rel=alternate type=text/html hreflang=fr href=/fr>`, want: []Outlink{l("http://example.com/fr", "link/@href")}},
		{name: "link feed type without alternate is no feed", html: `<link rel=help type=application/rss+xml href=/h>`, want: []Outlink{l("http://example.com/h", "link/@href")}},
		{name: "feed also linked keeps the mark", html: `<a href=/feed>f</a><link rel=alternate type=application/rss+xml href=/feed>`, want: []Outlink{{URL: "http://example.com/feed", Hop: hop.Link, Context: "a/@href", Feed: true}}},
		{name: "link canonical next prev", html: `<link rel=canonical href=/c><link rel=next href=/n><link rel=prev href=/p>`, want: []Outlink{l("http://example.com/c", "link/@href"), l("http://example.com/n", "link/@href"), l("http://example.com/p", "link/@href")}},
		{name: "link without rel", html: `<link href=/x>`, want: []Outlink{l("http://example.com/x", "link/@href")}},

		// Embeds.
		{name: "img src", html: `<img src="i.png">`, want: []Outlink{e("http://example.com/dir/i.png", "img/@src")}},
		{name: "img srcset descriptors", html: `<img src=a.jpg srcset="a.jpg 1x, b.jpg 2x,c.jpg 300w">`, want: []Outlink{e("http://example.com/dir/a.jpg", "img/@src"), e("http://example.com/dir/b.jpg", "img/@srcset"), e("http://example.com/dir/c.jpg", "img/@srcset")}},
		{name: "img srcset commas in URL", html: `<img srcset="/img/w_100,h_50/a.jpg 100w, /img/w_200,h_100/a.jpg 200w">`, want: []Outlink{e("http://example.com/img/w_100,h_50/a.jpg", "img/@srcset"), e("http://example.com/img/w_200,h_100/a.jpg", "img/@srcset")}},
		{name: "img srcset trailing commas and spaces", html: "<img srcset=\"\n  a.jpg,, \n b.jpg\t2x ,\">", want: []Outlink{e("http://example.com/dir/a.jpg", "img/@srcset"), e("http://example.com/dir/b.jpg", "img/@srcset")}},
		{name: "img srcset descriptor with parens", html: `<img srcset="a.jpg (x, y) 1x, b.jpg">`, want: []Outlink{e("http://example.com/dir/a.jpg", "img/@srcset"), e("http://example.com/dir/b.jpg", "img/@srcset")}},
		{name: "img data-src ignored", html: `<img data-src="lazy.jpg">`},
		{name: "picture source srcset", html: `<picture><source srcset="p.webp" type="image/webp"><img src="p.jpg"></picture>`, want: []Outlink{e("http://example.com/dir/p.webp", "source/@srcset"), e("http://example.com/dir/p.jpg", "img/@src")}},
		{name: "script src", html: `<script src="/app.js"></script>`, want: []Outlink{e("http://example.com/app.js", "script/@src")}},
		{name: "script body ignored", html: `<script>var a = "<a href='/x'>";</script><a href=/y>`, want: []Outlink{l("http://example.com/y", "a/@href")}},
		{name: "iframe src", html: `<iframe src="/f.html"></iframe>`, want: []Outlink{e("http://example.com/f.html", "iframe/@src")}},
		{name: "iframe srcdoc", html: `<iframe srcdoc="<img src=&quot;/in.png&quot;>"></iframe>`, want: []Outlink{e("http://example.com/in.png", "img/@src")}},
		{name: "frame src", html: `<frameset><frame src="left.html"></frameset>`, want: []Outlink{e("http://example.com/dir/left.html", "frame/@src")}},
		{name: "noframes content", html: `<frameset></frameset><noframes><a href="nf.html">x</a></noframes>`, want: []Outlink{l("http://example.com/dir/nf.html", "a/@href")}},
		{name: "noscript content", html: `<noscript><img src="/pixel.gif"></noscript>`, want: []Outlink{e("http://example.com/pixel.gif", "img/@src")}},
		{name: "video src and poster", html: `<video src="v.mp4" poster="v.jpg"></video>`, want: []Outlink{e("http://example.com/dir/v.mp4", "video/@src"), e("http://example.com/dir/v.jpg", "video/@poster")}},
		{name: "video source and track", html: `<video><source src="v.webm"><track src="v.vtt"></video>`, want: []Outlink{e("http://example.com/dir/v.webm", "source/@src"), e("http://example.com/dir/v.vtt", "track/@src")}},
		{name: "audio src", html: `<audio src="a.mp3"></audio>`, want: []Outlink{e("http://example.com/dir/a.mp3", "audio/@src")}},
		{name: "object data", html: `<object data="m.swf"></object>`, want: []Outlink{e("http://example.com/dir/m.swf", "object/@data")}},
		{name: "embed src", html: `<embed src="m.swf">`, want: []Outlink{e("http://example.com/dir/m.swf", "embed/@src")}},
		{name: "input type image", html: `<input type="IMAGE" src="go.png"><input type=text src="no.png">`, want: []Outlink{e("http://example.com/dir/go.png", "input/@src")}},
		{name: "body background", html: `<body background="bg.gif">`, want: []Outlink{e("http://example.com/dir/bg.gif", "body/@background")}},
		{name: "table td th background", html: `<table background=t.gif><tr><th background=h.gif><td background=d.gif>`, want: []Outlink{e("http://example.com/dir/t.gif", "table/@background"), e("http://example.com/dir/h.gif", "th/@background"), e("http://example.com/dir/d.gif", "td/@background")}},

		{name: "svg image href", html: `<svg><image href="s.png"/><image xlink:href="x.png"></image></svg>`, want: []Outlink{e("http://example.com/dir/s.png", "image/@href"), e("http://example.com/dir/x.png", "image/@xlink:href")}},
		{name: "image outside svg is img", html: `<image src="i.png">`, want: []Outlink{e("http://example.com/dir/i.png", "img/@src")}},

		// CSS in HTML.
		{name: "style attribute", html: `<div style="background: url('d.png') no-repeat">`, want: []Outlink{e("http://example.com/dir/d.png", "@style/url()")}},
		{name: "style attribute entities", html: `<div style="background:url(&quot;q.png&quot;)">`, want: []Outlink{e("http://example.com/dir/q.png", "@style/url()")}},
		{name: "style block", html: `<style>@import url(base.css); @import "print.css" print; .x { background: url(x.png) }</style>`, want: []Outlink{e("http://example.com/dir/base.css", "style/@import"), e("http://example.com/dir/print.css", "style/@import"), e("http://example.com/dir/x.png", "style/url()")}},
		{name: "style block no entity decoding", html: `<style>.x{background:url(a&amp;b.png)}</style>`, want: []Outlink{e("http://example.com/dir/a&amp;b.png", "style/url()")}},
		{name: "empty style block", html: `<style></style><a href=a>`, want: []Outlink{l("http://example.com/dir/a", "a/@href")}},

		// Meta refresh.
		{name: "meta refresh", html: `<meta http-equiv="refresh" content="5; url=/next">`, want: []Outlink{r("http://example.com/next", "meta/@content")}},
		{name: "meta refresh quoted uppercase", html: `<META HTTP-EQUIV="Refresh" CONTENT="0;URL='/q?a=1'">`, want: []Outlink{r("http://example.com/q?a=1", "meta/@content")}},
		{name: "meta refresh without url", html: `<meta http-equiv="refresh" content="30">`},
		{name: "meta refresh bare url", html: `<meta http-equiv="refresh" content="0, other.html">`, want: []Outlink{r("http://example.com/dir/other.html", "meta/@content")}},
		{name: "meta refresh javascript", html: `<meta http-equiv="refresh" content="0; url=javascript:go()">`},

		// Base.
		{name: "base href", html: `<base href="http://cdn.example.net/assets/"><img src="i.png"><a href="/x">`, want: []Outlink{e("http://cdn.example.net/assets/i.png", "img/@src"), l("http://cdn.example.net/x", "a/@href")}},
		{name: "relative base href", html: `<base href="../other/"><a href="x">`, want: []Outlink{l("http://example.com/other/x", "a/@href")}},
		{name: "only first base counts", html: `<base href="/one/"><base href="/two/"><a href="x">`, want: []Outlink{l("http://example.com/one/x", "a/@href")}},
		{name: "base without href is ignored", html: `<base target=_top><base href="/b/"><a href="x">`, want: []Outlink{l("http://example.com/b/x", "a/@href")}},
		{name: "base applies to earlier links", html: `<a href="x"><base href="/b/">`, want: []Outlink{l("http://example.com/b/x", "a/@href")}},
		{name: "javascript base ignored", html: `<base href="javascript:void(0)"><a href="x">`, want: []Outlink{l("http://example.com/dir/x", "a/@href")}},
		{name: "first base unusable falls back to page", html: `<base href="data:,x"><base href="/b/"><a href="x">`, want: []Outlink{l("http://example.com/dir/x", "a/@href")}},

		// URL forms.
		{name: "absolute", html: `<a href="https://other.org/p?q=1">`, want: []Outlink{l("https://other.org/p?q=1", "a/@href")}},
		{name: "protocol relative", html: `<a href="//cdn.org/x.js">`, want: []Outlink{l("http://cdn.org/x.js", "a/@href")}},
		{name: "protocol relative on https page", page: "https://example.com/", html: `<a href="//cdn.org/x.js">`, want: []Outlink{l("https://cdn.org/x.js", "a/@href")}},
		{name: "root relative", html: `<a href="/root">`, want: []Outlink{l("http://example.com/root", "a/@href")}},
		{name: "dot segments", html: `<a href="../up/./x/../y">`, want: []Outlink{l("http://example.com/up/y", "a/@href")}},
		{name: "query only", html: `<a href="?page=2">`, want: []Outlink{l("http://example.com/dir/page.html?page=2", "a/@href")}},
		{name: "fragment dropped", html: `<a href="x.html#sec">`, want: []Outlink{l("http://example.com/dir/x.html", "a/@href")}},
		{name: "backslashes", html: `<a href="\up\x?a\b">`, want: []Outlink{l(`http://example.com/up/x?a\b`, "a/@href")}},
		{name: "same scheme without slashes is relative", html: `<a href="http:x.html"><a href="http:/abs">`, want: []Outlink{l("http://example.com/dir/x.html", "a/@href"), l("http://example.com/abs", "a/@href")}},
		{name: "other scheme without slashes", html: `<a href="https:other.org/x">`, want: []Outlink{l("https://other.org/x", "a/@href")}},
		{name: "extra slashes", html: `<a href="http:///h.org/x"><a href="////g.org/y">`, want: []Outlink{l("http://h.org/x", "a/@href"), l("http://g.org/y", "a/@href")}},
		{name: "uppercase scheme", html: `<a href="HTTPS://Other.org/X">`, want: []Outlink{l("https://Other.org/X", "a/@href")}},
		{name: "port kept", html: `<a href="http://example.com:8080/x">`, want: []Outlink{l("http://example.com:8080/x", "a/@href")}},
		{name: "stray percent", html: `<a href="/100%/x?p=50%">`, want: []Outlink{l("http://example.com/100%25/x?p=50%25", "a/@href")}},
		{name: "valid escapes kept", html: `<a href="/a%2Fb?q=%41">`, want: []Outlink{l("http://example.com/a%2Fb?q=%41", "a/@href")}},
		{name: "spaces and non-ASCII encoded", html: `<a href="/a b/é?q=a b&r=é&s=&quot;">`, want: []Outlink{l("http://example.com/a%20b/%C3%A9?q=a%20b&r=%C3%A9&s=%22", "a/@href")}},
		{name: "IDN host mapped as browsers do", html: `<a href="http://ｅ_x.example/"><a href="http://a` + "\u200c" + `bé.example/"><a href="http://ok.example/">`, want: []Outlink{l("http://e_x.example/", "a/@href"), l("http://ok.example/", "a/@href")}},
		{name: "IDN host to punycode", html: `<a href="http://Bücher.ch:8080/ü"><a href="//b%C3%BCcher.de/">`, want: []Outlink{l("http://xn--bcher-kva.ch:8080/%C3%BC", "a/@href"), l("http://xn--bcher-kva.de/", "a/@href")}},
		{name: "IDN host that maps to no host name", html: "<a href=\"//\xff::\"><a href=\"http://ok.example/\">", want: []Outlink{l("http://ok.example/", "a/@href")}},
		{name: "bad host characters", html: `<a href='//"'><a href="http://a<b/"><a href="http://a%20b/"><a href="http://a!b/"><a href="http://:80/"><a href="http://a_b.example.com/">`, want: []Outlink{l("http://a_b.example.com/", "a/@href")}},
		{name: "whitespace trimmed", html: "<a href=\" \n\t/x \f\r\n\">", want: []Outlink{l("http://example.com/x", "a/@href")}},
		{name: "newlines and tabs inside removed", html: "<a href=\"/lo\nng/pa\tth\">", want: []Outlink{l("http://example.com/long/path", "a/@href")}},
		{name: "entities decoded", html: `<a href="/s?a=1&amp;b=2&#38;c=3&lt;">`, want: []Outlink{l("http://example.com/s?a=1&b=2&c=3%3C", "a/@href")}},
		{name: "unparsable skipped", html: `<a href="http://[::1/x"><a href="http://exa mple.com/"><a href="ok">`, want: []Outlink{l("http://example.com/dir/ok", "a/@href")}},

		// Skipped references.
		{name: "skipped schemes", html: `<a href="javascript:void(0)"><a href="JavaScript:x()"><img src="data:image/png;base64,AAAA"><a href="mailto:a@b.c"><a href="tel:+123"><iframe src="about:blank"></iframe><img src="blob:http://example.com/uuid"><a href="ftp://ftp.example.com/f"><a href=" javascript:x">`},
		{name: "empty and fragment only", html: `<a href=""><a href="  "><a href="#"><a href="#top"><img src>`},

		// De-duplication.
		{name: "duplicate keeps first context", html: `<a href="/x"><a href="/x#frag"><area href="/x">`, want: []Outlink{l("http://example.com/x", "a/@href")}},
		{name: "same URL different hop kept", html: `<a href="/i.png"><img src="/i.png">`, want: []Outlink{l("http://example.com/i.png", "a/@href"), e("http://example.com/i.png", "img/@src")}},
		{name: "duplicate attribute first wins", html: `<a href="/first" href="/second">`, want: []Outlink{l("http://example.com/first", "a/@href")}},

		// Broken and odd markup.
		{name: "uppercase tags and attributes", html: `<A HREF="/up"><IMG SRC="/i.png"><LINK REL=STYLESHEET HREF=/s.css>`, want: []Outlink{l("http://example.com/up", "a/@href"), e("http://example.com/i.png", "img/@src"), e("http://example.com/s.css", "link/@href")}},
		{name: "unquoted attributes", html: `<a href=/u?a=1&b=2>x</a>`, want: []Outlink{l("http://example.com/u?a=1&b=2", "a/@href")}},
		{name: "unclosed tags", html: `<div><p><a href="/a">one<a href='/b'>two<img src=/c.png`, want: []Outlink{l("http://example.com/a", "a/@href"), l("http://example.com/b", "a/@href")}},
		{name: "unterminated attribute value", html: `<a href="/x>text</a><a href="/y">`, want: []Outlink{l("http://example.com/x%3Etext%3C/a%3E%3Ca%20href=", "a/@href")}},
		{name: "comments ignored", html: `<!-- <a href="/hidden"> --><a href="/shown">`, want: []Outlink{l("http://example.com/shown", "a/@href")}},
		{name: "self closing", html: `<img src="/i.png"/><link rel=stylesheet href=/s.css />`, want: []Outlink{e("http://example.com/i.png", "img/@src"), e("http://example.com/s.css", "link/@href")}},
		{name: "textarea content ignored", html: `<textarea><a href="/no"></textarea>`},
		{name: "NUL bytes", html: "<a href=\"/a\x00b\">", want: []Outlink{l("http://example.com/a%EF%BF%BDb", "a/@href")}},
		{name: "binary garbage", html: "\xff\xfe<\x00a\x01 href=/x>", want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.page
			if p == "" {
				p = page
			}
			res, err := HTML(p, []byte(tt.html))
			if err != nil {
				t.Fatalf("HTML: %v", err)
			}
			if diff := cmp.Diff(tt.want, res.Outlinks); diff != "" {
				t.Errorf("outlinks (-want +got):\n%s", diff)
			}
		})
	}
}

func TestHTMLMeta(t *testing.T) {
	type meta struct {
		Base, Title       string
		NoFollow, NoIndex bool
		Generator         string
	}
	tests := []struct {
		name string
		html string
		want meta
	}{
		{name: "nothing", html: `<p>hi`, want: meta{Base: page}},
		{name: "title", html: "<title>\n  Hello &amp;\t world  </title>", want: meta{Base: page, Title: "Hello & world"}},
		{name: "title uppercase", html: `<TITLE>Up</TITLE>`, want: meta{Base: page, Title: "Up"}},
		{name: "first title wins", html: `<title>One</title><title>Two</title>`, want: meta{Base: page, Title: "One"}},
		{name: "empty first title wins", html: `<title></title><title>Two</title>`, want: meta{Base: page}},
		{name: "svg title skipped", html: `<svg><title>Icon</title></svg><title>Page</title>`, want: meta{Base: page, Title: "Page"}},
		{name: "title markup is text", html: `<title>a <b>bold</b></title>`, want: meta{Base: page, Title: "a <b>bold</b>"}},
		{name: "base", html: `<base href="/b/">`, want: meta{Base: "http://example.com/b/"}},
		{name: "robots nofollow", html: `<meta name="robots" content="index, nofollow">`, want: meta{Base: page, NoFollow: true}},
		{name: "robots noindex uppercase", html: `<META NAME="ROBOTS" CONTENT="NOINDEX">`, want: meta{Base: page, NoIndex: true}},
		{name: "robots both", html: `<meta name=robots content="noindex,nofollow">`, want: meta{Base: page, NoFollow: true, NoIndex: true}},
		{name: "robots none", html: `<meta name=robots content=none>`, want: meta{Base: page, NoFollow: true, NoIndex: true}},
		{name: "other robots name ignored", html: `<meta name=googlebot content=noindex>`, want: meta{Base: page}},
		{name: "robots in noscript ignored", html: `<noscript><meta name=robots content=noindex></noscript>`, want: meta{Base: page}},
		{name: "generator", html: `<meta name="generator" content="MediaWiki 1.39.17"/>`, want: meta{Base: page, Generator: "MediaWiki 1.39.17"}},
		{name: "generator capitalised, spaces collapsed", html: `<META NAME=Generator CONTENT=" Drupal 7  (http://drupal.org) ">`, want: meta{Base: page, Generator: "Drupal 7 (http://drupal.org)"}},
		{name: "first generator wins", html: `<meta name=generator content="WordPress 6.1.9"><meta name=generator content="WooCommerce 8.0">`, want: meta{Base: page, Generator: "WordPress 6.1.9"}},
		{name: "generator in noscript ignored", html: `<noscript><meta name=generator content=Joomla!></noscript>`, want: meta{Base: page}},
		{name: "long generator cut", html: `<meta name=generator content="` + strings.Repeat("x", 300) + `">`, want: meta{Base: page, Generator: strings.Repeat("x", 256)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := HTML(page, []byte(tt.html))
			if err != nil {
				t.Fatalf("HTML: %v", err)
			}
			got := meta{Base: res.Base, Title: res.Title, NoFollow: res.NoFollow, NoIndex: res.NoIndex, Generator: res.Generator}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseDispatch(t *testing.T) {
	body := []byte(`<a href="/a">x</a> a{background:url(/b.png)}`)
	tests := []struct {
		contentType string
		want        []Outlink
	}{
		{"text/html", []Outlink{l("http://example.com/a", "a/@href")}},
		{"text/HTML; charset=UTF-8", []Outlink{l("http://example.com/a", "a/@href")}},
		{"application/xhtml+xml", []Outlink{l("http://example.com/a", "a/@href")}},
		{"text/html; charset", []Outlink{l("http://example.com/a", "a/@href")}},
		{"text/css", []Outlink{e("http://example.com/b.png", "css/url()")}},
		{"text/css;charset=utf-8", []Outlink{e("http://example.com/b.png", "css/url()")}},
		{"image/png", nil},
		{"", nil},
	}
	for _, tt := range tests {
		t.Run(tt.contentType, func(t *testing.T) {
			res, err := Parse(page, tt.contentType, body)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if diff := cmp.Diff(tt.want, res.Outlinks); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if res.Base != page {
				t.Errorf("Base = %q, want %q", res.Base, page)
			}
		})
	}
}

func TestBadPageURL(t *testing.T) {
	for _, u := range []string{"", "/relative", "http://", "http://[::1", "not a url"} {
		t.Run(u, func(t *testing.T) {
			if _, err := Parse(u, "text/html", []byte(`<a href=x>`)); !errors.Is(err, ErrPageURL) {
				t.Errorf("Parse: err = %v, want ErrPageURL", err)
			}
			if _, err := Parse(u, "image/png", nil); !errors.Is(err, ErrPageURL) {
				t.Errorf("Parse image: err = %v, want ErrPageURL", err)
			}
			if _, err := CSS(u, []byte(`a{}`)); !errors.Is(err, ErrPageURL) {
				t.Errorf("CSS: err = %v, want ErrPageURL", err)
			}
		})
	}
}

func TestFavicon(t *testing.T) {
	tests := []struct {
		page string
		want string
	}{
		{"http://example.com/a/b?c#d", "http://example.com/favicon.ico"},
		{"https://Example.COM:8443/x", "https://example.com:8443/favicon.ico"},
		{"HTTP://user:pw@example.com/", "http://example.com/favicon.ico"},
		{"http://[::1]:8080/", "http://[::1]:8080/favicon.ico"},
		{"ftp://example.com/", ""},
		{"/relative", ""},
		{"http://[::1", ""},
	}
	for _, tt := range tests {
		t.Run(tt.page, func(t *testing.T) {
			want := Outlink{URL: tt.want, Hop: hop.Inferred, Context: "inferred"}
			if diff := cmp.Diff(want, Favicon(tt.page)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestRefreshURL(t *testing.T) {
	tests := []struct {
		value string
		want  string // "" = not ok
	}{
		{"5; url=/next", "http://example.com/next"},
		{"5;URL=next", "http://example.com/dir/next"},
		{"0; url = 'q.html' trailing", "http://example.com/dir/q.html"},
		{`0;url="d.html"`, "http://example.com/dir/d.html"},
		{"0, https://other.org/", "https://other.org/"},
		{" 3.5 ; url=/x", "http://example.com/x"},
		{".5; url=/dot", "http://example.com/dot"},
		{"1 /plain", "http://example.com/plain"},
		{"1; urlx", "http://example.com/dir/urlx"},
		{"1; u", "http://example.com/dir/u"},
		{"1; url", "http://example.com/dir/url"},
		{"0; url='unterminated", "http://example.com/dir/unterminated"},
		{"0; url=/x#frag", "http://example.com/x"},
		{"5", ""},
		{"5;", ""},
		{"5; url=", ""},
		{"", ""},
		{"soon; url=/x", ""},
		{"5x; url=/x", ""},
		{"0; url=javascript:alert(1)", ""},
		{"0; url=mailto:a@b", ""},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			got, ok := RefreshURL(page, tt.value)
			if ok != (tt.want != "") || got != tt.want {
				t.Errorf("RefreshURL(%q) = %q, %v; want %q", tt.value, got, ok, tt.want)
			}
		})
	}
	if got, ok := RefreshURL("::bad", "0; url=/x"); ok {
		t.Errorf("RefreshURL with bad page = %q, true; want false", got)
	}
}

func TestSrcsetURLs(t *testing.T) {
	tests := []struct {
		srcset string
		want   []string
	}{
		{"", nil},
		{" , ,", nil},
		{"a.jpg", []string{"a.jpg"}},
		{"a.jpg 1x,b.jpg 2x", []string{"a.jpg", "b.jpg"}},
		{"a.jpg 100w, b.jpg 200w", []string{"a.jpg", "b.jpg"}},
		{"a,b.jpg 1x, c,d.jpg 2x", []string{"a,b.jpg", "c,d.jpg"}},
		{"a.jpg,b.jpg", []string{"a.jpg,b.jpg"}},
		{"a.jpg, b.jpg", []string{"a.jpg", "b.jpg"}},
		{"a.jpg,, b.jpg", []string{"a.jpg", "b.jpg"}},
		{"a.jpg (1, 2) 1x, b.jpg", []string{"a.jpg", "b.jpg"}},
		{"data:image/png;base64,AAA= 1x, c.jpg 2x", []string{"data:image/png;base64,AAA=", "c.jpg"}},
	}
	for _, tt := range tests {
		t.Run(tt.srcset, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, srcsetURLs(tt.srcset)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
