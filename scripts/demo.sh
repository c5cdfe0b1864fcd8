#!/usr/bin/env bash
# make demo: serve the bundled example site on 127.0.0.1 under several host names, crawl it
# with amber, and show where the outputs are.
set -euo pipefail
cd "$(dirname "$0")/.."

dir=crawls/demo
rm -rf "$dir"
mkdir -p crawls
out=$(mktemp)
./bin/testsite testdata/sites/basic >"$out" &
site=$!
trap 'kill $site 2>/dev/null || true; rm -f "$out"' EXIT
for _ in $(seq 50); do [ -s "$out" ] && [ "$(wc -l <"$out")" -ge 2 ] && break; sleep 0.1; done
addr=$(sed -n 1p "$out")
connect=$(sed -n 2p "$out")
echo "Example site (www.example.com, cdn.example.net, other.example.org) served on $addr"
echo

./bin/amber crawl --dir "$dir" --collection demo \
  --connect-to "$connect" --allow-private --host-delay 50ms --retry-delay 500ms \
  http://www.example.com/

echo
echo "What was captured (crawl.log status and URL):"
awk '{printf "  %6s  %s\n", $2, $4}' "$dir/logs/crawl.log"
echo
echo "Look inside:"
echo "  ls $dir/warcs                      # the WARC files"
echo "  head $dir/indexes/index.cdxj       # the CDXJ index"
echo "  less $dir/logs/crawl.log           # one line per URL, Heritrix format"
echo "  head -1 $dir/documents.jsonl       # search documents (Elastic web-crawler schema)"
echo "  cat $dir/reports/scope-report.txt  # what was left out, and why"
echo "  open $dir/reports/report.html      # the whole crawl on one page"
