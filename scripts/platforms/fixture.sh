#!/usr/bin/env bash
# fixture.sh: save pages of a running platform install as a test fixture: each URL's status,
# Content-Type, Location and body, in the form crawl/testdata/platforms/ holds them (a site.txt
# index, one body file a URL).
#
#   scripts/platforms/fixture.sh ADDR:PORT OUTDIR URL...
#
# The URLs are absolute (http://wiki.amber.test/index.php?title=Main_Page); each is asked of
# ADDR:PORT with its own Host. A URL given as "embeds:URL" is saved with everything the page
# embeds that the crawl in $CRAWL_DIR fetched from it (hop E in its crawl.log).
set -euo pipefail
addr=$1 out=$2
shift 2
mkdir -p "$out"
: >"$out/site.txt"
save() {
	local u=$1 host path hdr
	host=${u#http://}
	host=${host%%/*}
	path=/${u#http://$host/}
	grep -qF " $path " "$out/site.txt" 2>/dev/null && return 0
	local file
	file=$(printf '%03d' $(($(wc -l <"$out/site.txt") + 1)))
	hdr=$(curl -s -o "$out/$file" -D - -H "Host: $host" "http://$addr$path" | tr -d '\r')
	local status ctype loc
	status=$(awk 'NR==1{print $2}' <<<"$hdr")
	ctype=$(awk -F': ' 'tolower($1)=="content-type"{print $2}' <<<"$hdr" | tr -d ' ')
	loc=$(awk -F': ' 'tolower($1)=="location"{print $2}' <<<"$hdr")
	echo "$status ${ctype:--} $file $path ${loc:--}" >>"$out/site.txt"
}
for u in "$@"; do
	if [[ $u == embeds:* ]]; then
		u=${u#embeds:}
		save "$u"
		while read -r e; do
			save "$e"
		done < <(awk -v via="$u" '$6 == via && $5 ~ /E$/ && $2 > 0 {print $4}' "$CRAWL_DIR/logs/crawl.log" | sort -u)
	else
		save "$u"
	fi
done
