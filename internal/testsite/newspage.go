package testsite

import (
	"fmt"
	"strings"
)

// NewsPage builds a deterministic HTML page of about size bytes shaped like a news or blog
// home page: a head with stylesheets and scripts, then repeated article teasers with links,
// responsive images, inline styles and plenty of text. The HTML benchmarks of extract and
// internal/htmltok read it.
func NewsPage(size int) []byte {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Bench &amp; Co</title>
<link rel="stylesheet" href="/static/css/main.3f2a.css"><link rel="icon" href="/favicon.png">
<link rel="canonical" href="https://news.example.com/"><script src="/static/js/vendor.9c1e.js" defer></script>
<script>window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments)}gtag("js",new Date());
var cfg={"api":"https://api.example.com/v2/","items":[1,2,3,4,5,6,7,8,9,10]};</script>
<style>.card{background:url(/static/img/card-bg.png) no-repeat;border:1px solid #ddd}.hero{background-image:url("/static/img/hero.jpg")}</style>
</head><body class="home"><header><nav>`)
	for i := 0; i < 30; i++ {
		fmt.Fprintf(&b, `<a href="/section/%d/" class="nav-link">Section %d</a>`, i, i)
	}
	b.WriteString("</nav></header><main>")
	for i := 0; b.Len() < size-400; i++ {
		fmt.Fprintf(&b, `<article class="card" data-id="%d" style="border-color:#%03x">
<h2><a href="/2024/05/%02d/story-%d.html?utm_source=home&amp;utm_medium=web">Story number %d: something happened today</a></h2>
<picture><source srcset="/img/%d-400.webp 400w, /img/%d-800.webp 800w" type="image/webp">
<img src="/img/%d-400.jpg" srcset="/img/%d-400.jpg 400w, /img/%d-800.jpg 800w" sizes="(max-width: 600px) 100vw, 50vw" alt="Photo %d" loading="lazy"></picture>
<p class="teaser">Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore
magna aliqua. Ut enim ad minim veniam, quis nostrud exercitation ullamco laboris nisi ut aliquip ex ea commodo consequat &mdash;
<em>duis aute irure</em> dolor in <strong>reprehenderit</strong> in voluptate velit esse cillum dolore eu fugiat nulla pariatur.</p>
<p class="meta"><span>By <a href="/authors/author-%d/">Author %d</a></span> <time datetime="2024-05-%02dT10:00:00Z">May %d</time>
<a href="/2024/05/%02d/story-%d.html#comments">Comments</a> <a href="https://twitter.com/intent/tweet?url=https%%3A%%2F%%2Fnews.example.com%%2Fstory-%d">Share</a></p>
</article>
`, i, i%4096, i%28+1, i, i, i, i, i, i, i, i, i%50, i%50, i%28+1, i%28+1, i%28+1, i, i)
	}
	b.WriteString(`</main><footer><a href="/about">About</a> <a href="/privacy">Privacy</a></footer></body></html>`)
	return []byte(b.String())
}
