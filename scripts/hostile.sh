#!/usr/bin/env bash
# make hostile: crawl every case of the hostile-server suite (internal/hostile) with amber, one
# crawl per case, under /usr/bin/time -v, and print a table: exit status, wall time, peak RSS,
# and what crawl.log says about the case's URL. The gzip bomb inflates to 10 GiB (about 10 MB
# on the wire). Asserts nothing: the tests do (crawl/hostile_test.go).
set -euo pipefail
cd "$(dirname "$0")/.."

[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (apt-get install -y time)" >&2; exit 1; }
go build -o bin/amber ./cmd/amber
go build -o bin/hostile ./internal/hostile/cmd/hostile

work=$(mktemp -d)
out="$work/server.txt"
./bin/hostile -bomb-size $((10 << 30)) >"$out" &
server=$!
trap 'kill $server 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 600); do grep -q '^seed' "$out" 2>/dev/null && break; sleep 0.1; done
read -r -a connect <<<"$(sed -n 's/^flags *//p' "$out")"

cat >"$work/crawl.yaml" <<YAML
politeness: {host_delay: 0s, max_attempts: 1}
network: {connect_timeout: 2s, first_byte_timeout: 3s, response_timeout: 20s}
scope: {max_hops: 20}
YAML

printf '%-20s %5s %8s %9s  %s\n' case exit wall "peak RSS" "crawl.log of /case"
while read -r _ host seed; do
  [ "$host" = normal ] || [ "$host" = o ] && continue
  dir="$work/$host"
  case_url="${seed%/}/case"
  args=(--allow-private "${connect[@]}" "$seed")
  if [ "$host" = loopback ]; then
    # The loopback spellings as seeds, without --allow-private: refused, no connection.
    port=$(sed -n 's|^base *http://127.0.0.1:\([0-9]*\)/|\1|p' "$out")
    case_url="http://127.0.0.1:$port/"
    args=("http://2130706433:$port/" "http://0x7f.1:$port/" "http://127.1:$port/" "http://0177.0.0.1:$port/")
  fi
  set +e
  /usr/bin/time -v -o "$work/time.txt" ./bin/amber crawl --config "$work/crawl.yaml" --dir "$dir" \
    --quiet "${args[@]}" >/dev/null 2>"$work/err.txt"
  code=$?
  set -e
  rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f MB", $2/1024}' "$work/time.txt")
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$work/time.txt")
  # The case's own URL; where robots.txt or TLS keeps the host out, the seed's line.
  line=$(awk -v u="$case_url" '$4 == u {print $2, $3, $12; exit}' "$dir/logs/crawl.log" 2>/dev/null || true)
  [ -n "$line" ] || line=$(awk -v u="$seed" '$4 == u {print "(seed)", $2, $3, $12; exit}' "$dir/logs/crawl.log" 2>/dev/null || true)
  printf '%-20s %5s %8s %9s  %s\n' "$host" "$code" "$wall" "$rss" "${line:-(no line)}"
done < <(grep '^seed' "$out")
