#!/usr/bin/env bash
# share.sh: how a crawl of a platform install spent its fetches (issue 26's measure).
#
#   scripts/platforms/share.sh mediawiki|wordpress CRAWL_DIR
#
# Reads CRAWL_DIR/logs/crawl.log. A fetch is a line with a response or a failed fetch (not a
# URL left out). It is content when it is a page an archivist wants or what such a page
# embeds; the rest are fetches outside the content. Content, by platform:
#   every platform: an embed (hop path ending in E) and a redirect's target chain from a seed;
#   mediawiki: index.php?title=T alone (an article, Category: or File: page, the Main Page),
#     the uploads (/images/) and ResourceLoader (load.php);
#   wordpress: the home page, posts (/YYYY/MM/DD/NAME/), pages (/NAME/, /PARENT/NAME/), tag,
#     category, author and date archives and their pages (/page/N/), the site's main feed,
#     and wp-content/, wp-includes/.
# robots.txt counts outside. Prints the fetches, the content, the fetches outside and their
# share, then the outside URLs' most common families (path and parameter names).
set -euo pipefail
platform=$1
log=$2/logs/crawl.log
awk -v platform="$platform" '
function content(u, hops) {
	if (hops ~ /E$/) return 1
	sub(/^https?:\/\/[^\/]+/, "", u)
	if (u == "/" || u == "") return 1
	if (platform == "mediawiki") {
		if (u ~ /^\/index\.php\?title=[^&]*$/ && u !~ /title=(Special|Talk|User|User_talk|MediaWiki|Help|Template)(%3A|:)/) return 1
		if (u ~ /^\/images\// || u ~ /^\/load\.php/) return 1
		return 0
	}
	if (platform == "wordpress") {
		if (u ~ /^\/wp-(content|includes)\//) return 1
		if (u == "/feed/") return 1
		if (u ~ /\?/) return 0
		if (u ~ /^\/(wp-|xmlrpc|feed\/|comments\/)/ || u ~ /\/(feed|embed|trackback)\/$/) return 0
		if (u ~ /^\/(tag|category|author)\/[^\/]+\/(page\/[0-9]+\/)?$/) return 1
		if (u ~ /^\/[0-9]{4}\/([0-9]{2}\/){0,2}(page\/[0-9]+\/)?$/) return 1
		if (u ~ /^\/[0-9]{4}\/[0-9]{2}\/[0-9]{2}\/[^\/]+\/$/) return 1
		if (u ~ /^\/page\/[0-9]+\/$/) return 1
		if (u ~ /^\/[^\/?]+\/([^\/?]+\/)?$/) return 1
		return 0
	}
	return 0
}
function family(u,   p, q, n, i, kv, names) {
	sub(/^https?:\/\/[^\/]+/, "", u)
	p = u; q = ""
	if (index(u, "?")) { p = substr(u, 1, index(u, "?") - 1); q = substr(u, index(u, "?") + 1) }
	gsub(/[0-9]+/, "#", p)
	names = ""
	n = split(q, kv, "&")
	for (i = 1; i <= n; i++) { sub(/=.*/, "", kv[i]); names = names (names == "" ? "" : "&") kv[i] }
	if (platform == "mediawiki" && match(q, /title=[A-Za-z_]+(:|%3A)/)) names = names " " substr(q, RSTART + 6, RLENGTH - 6)
	if (platform == "mediawiki" && match(q, /action=[a-z]+/)) names = names " " substr(q, RSTART, RLENGTH)
	return p (names == "" ? "" : "?" names)
}
$2 > 0 || ($2 < 0 && $2 >= -100) {
	fetches++
	if (content($4, $5)) ok++
	else { out++; fam[family($4)]++ }
}
END {
	printf "fetches %d, content %d, outside %d (%.1f%%)\n", fetches, ok, out, fetches ? 100 * out / fetches : 0
	for (f in fam) printf "%6d %s\n", fam[f], f | "sort -rn | head -12"
}' "$log"
