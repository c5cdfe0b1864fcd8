#!/usr/bin/env bash
# Crawl benchmarks on a generated site (internal/testsite: testsite.Generated, served by
# bin/testsite -pages N on 127.0.0.1). Prints figures, asserts nothing about speed.
#
#   scripts/bench.sh [compare]   make bench: amber and wget crawl the same PAGES-page site (default
#                                10000) in one run, each under /usr/bin/time -v; prints pages/s,
#                                CPU-seconds per 1,000 pages and peak RSS for both and the ratio
#                                amber/wget. Exits 1 if they did not fetch the same URLs.
#   scripts/bench.sh scale       make bench-scale: amber on a SCALE_PAGES-page site (default
#                                1000000), printing pages/s and RSS every 10 s, bounded by
#                                SCALE_LIMIT (default 15m, amber's --time-limit).
#
# The generated site's links are root-relative (href=/p/1.html, src=/img/3.png), so it has no
# host name of its own: both crawlers start at http://127.0.0.1:PORT/ and stay on that host,
# with no --connect-to, proxy or --domains. amber needs --allow-private for a loopback seed.
# Both write a gzipped WARC; amber also writes its CDXJ index, documents, crawl.log and events.
# Work files go to a temporary directory under ${TMPDIR:-/tmp}, removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-compare}
PAGES=${PAGES:-10000}
SCALE_PAGES=${SCALE_PAGES:-1000000}
SCALE_LIMIT=${SCALE_LIMIT:-15m}
AMBER_FLAGS=(--allow-private --host-delay 0 --host-concurrency 16 --workers 16)

# need CMD PACKAGE: CMD must be on PATH; if it is not, say so and install the Debian package.
need() {
  command -v "$1" >/dev/null 2>&1 && return 0
  echo "bench: $1 not found; installing the Debian package $2 with apt-get" >&2
  local sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  if ! { "${sudo[@]}" apt-get install -y "$2" >&2 || { "${sudo[@]}" apt-get update >&2 && "${sudo[@]}" apt-get install -y "$2" >&2; }; }; then
    echo "bench: cannot install $2 (apt-get failed); install it and run again" >&2
    exit 1
  fi
  command -v "$1" >/dev/null 2>&1 || { echo "bench: $1 still not on PATH after installing $2" >&2; exit 1; }
}

go build -o bin/amber ./cmd/amber
go build -o bin/testsite ./internal/testsite/cmd/testsite

work=$(mktemp -d)
server=
cleanup() {
  [ -z "$server" ] || kill "$server" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# serve N: starts bin/testsite -pages N; sets addr to its 127.0.0.1:PORT.
serve() {
  ./bin/testsite -pages "$1" >"$work/server.txt" &
  server=$!
  for _ in $(seq 100); do [ -s "$work/server.txt" ] && break; sleep 0.1; done
  addr=$(head -n 1 "$work/server.txt")
  [ -n "$addr" ] || { echo "bench: testsite did not start" >&2; exit 1; }
}

# timed NAME CMD...: runs CMD under /usr/bin/time -v into $work/NAME.time; its exit status is
# left in $work/NAME.exit.
timed() {
  local name=$1
  shift
  set +e
  /usr/bin/time -v -o "$work/$name.time" "$@"
  echo $? >"$work/$name.exit"
  set -e
}

# figure NAME FIELD: a figure of /usr/bin/time -v's report: wall (seconds), cpu (user+sys
# seconds) or rss (peak, MB).
figure() {
  awk -F': ' -v f="$2" '
    /User time \(seconds\)/ { cpu += $2 }
    /System time \(seconds\)/ { cpu += $2 }
    /Maximum resident set size/ { rss = $2 / 1024 }
    /Elapsed \(wall clock\)/ { n = split($2, p, ":"); wall = 0; for (i = 1; i <= n; i++) wall = wall * 60 + p[i] }
    END { if (f == "wall") print wall; else if (f == "cpu") print cpu; else print rss }' "$work/$1.time"
}

compare() {
  [ -x /usr/bin/time ] || need /usr/bin/time time
  need wget wget
  serve "$PAGES"
  local seed="http://$addr/"
  echo "generated site: $PAGES pages at $seed ($(nproc) cores)"

  timed amber ./bin/amber crawl --dir "$work/amber" "${AMBER_FLAGS[@]}" --quiet "$seed" >/dev/null
  # wget, one connection: --level=inf to follow the whole link tree, --page-requisites for the
  # stylesheet and images (it reads url() in CSS too), robots.txt obeyed as amber does.
  mkdir -p "$work/wget"
  timed wget wget --recursive --level=inf --page-requisites --no-verbose --no-parent -e robots=on \
    --warc-file="$work/wget/crawl" --directory-prefix="$work/wget/files" -o "$work/wget/log" "$seed"

  [ "$(cat "$work/amber.exit")" = 0 ] || { echo "bench: amber exited $(cat "$work/amber.exit")" >&2; exit 1; }
  # wget exits 8 when a URL answered an error; the generated site has none (amber's favicon.ico
  # probe is amber's own).
  [ "$(cat "$work/wget.exit")" = 0 ] || { echo "bench: wget exited $(cat "$work/wget.exit")" >&2; tail -n 5 "$work/wget/log" >&2; exit 1; }

  # The URLs each fetched with a 200: crawl.log's fourth field; wget's "URL:... [n/n] ->" lines.
  awk '$2 == 200 {print $4}' "$work/amber/logs/crawl.log" | sort >"$work/amber.urls"
  sed -n 's/^.* URL:\([^ ]*\) \[.*$/\1/p' "$work/wget/log" | sort >"$work/wget.urls"
  local na nw
  na=$(wc -l <"$work/amber.urls")
  nw=$(wc -l <"$work/wget.urls")
  echo "URLs fetched (200): amber $na, wget $nw (pages, robots.txt, style.css, 50 images)"
  if ! cmp -s "$work/amber.urls" "$work/wget.urls"; then
    echo "bench: amber and wget did not fetch the same URLs (< amber only, > wget only):" >&2
    diff "$work/amber.urls" "$work/wget.urls" | grep '^[<>]' | head -n 20 >&2
    exit 1
  fi

  printf '\n%-10s %8s %9s %15s %9s\n' crawler wall-s pages/s "CPU-s/1k pages" "peak RSS"
  local n wall cpu rss
  declare -A pps cpk mb
  for n in amber wget; do
    wall=$(figure "$n" wall)
    cpu=$(figure "$n" cpu)
    rss=$(figure "$n" rss)
    pps[$n]=$(awk -v p="$PAGES" -v w="$wall" 'BEGIN { printf "%.0f", p / w }')
    cpk[$n]=$(awk -v p="$PAGES" -v c="$cpu" 'BEGIN { printf "%.3f", c / p * 1000 }')
    mb[$n]=$(awk -v r="$rss" 'BEGIN { printf "%.0f", r }')
    printf '%-10s %8.2f %9s %15s %6s MB\n' "$n" "$wall" "${pps[$n]}" "${cpk[$n]}" "${mb[$n]}"
  done
  awk -v a="${pps[amber]}" -v w="${pps[wget]}" -v ac="${cpk[amber]}" -v wc="${cpk[wget]}" \
    -v ar="${mb[amber]}" -v wr="${mb[wget]}" \
    'BEGIN { printf "%-10s %8s %8.2fx %14.2fx %8.2fx\n", "amber/wget", "", a / w, ac / wc, ar / wr }'
}

scale() {
  need curl curl
  serve "$SCALE_PAGES"
  local seed="http://$addr/"
  # A free port for --status-addr: amber prints the address it listens on at info level.
  echo "generated site: $SCALE_PAGES pages at $seed; amber --time-limit $SCALE_LIMIT"
  [ -x /usr/bin/time ] || need /usr/bin/time time
  /usr/bin/time -v -o "$work/amber.time" ./bin/amber crawl --dir "$work/amber" "${AMBER_FLAGS[@]}" \
    --log-level info --status-addr 127.0.0.1:0 --time-limit "$SCALE_LIMIT" "$seed" \
    >"$work/amber.out" 2>"$work/amber.err" &
  local tpid=$! pid= status=
  for _ in $(seq 100); do
    [ -n "$pid" ] || pid=$(cat "/proc/$tpid/task/$tpid/children" 2>/dev/null | awk '{print $1}')
    status=$(sed -n 's/.*status server listening.*addr=\([0-9.:]*\).*/\1/p' "$work/amber.err" | head -n 1)
    [ -n "$status" ] && break
    sleep 0.1
  done
  [ -n "$pid" ] && [ -n "$status" ] || { echo "bench: amber's status server did not start:" >&2; cat "$work/amber.err" >&2; exit 1; }
  printf '%8s %10s %10s %10s %10s %10s\n' elapsed fetched pages/s "avg/s" RSS "peak RSS"
  local last=0 t0 now fetched rss hwm prev_t
  t0=$(date +%s.%N)
  prev_t=$t0
  # Each line: fetched so far (/status), pages/s over the last interval and since the start,
  # RSS now and its peak (VmRSS, VmHWM of /proc/PID/status).
  while kill -0 "$pid" 2>/dev/null; do
    sleep 10
    now=$(date +%s.%N)
    # Nothing once the crawl has stopped serving (it is writing its reports): the loop ends.
    fetched=$(curl -fsS "http://$status/status" 2>/dev/null | sed -n 's/^ *"urls_fetched": *\([0-9]*\).*/\1/p' || true)
    rss=$(awk '/^VmRSS/ {printf "%.0f MB", $2 / 1024}' "/proc/$pid/status" 2>/dev/null || true)
    hwm=$(awk '/^VmHWM/ {printf "%.0f MB", $2 / 1024}' "/proc/$pid/status" 2>/dev/null || true)
    [ -n "$fetched" ] || break
    awk -v now="$now" -v t0="$t0" -v p="$prev_t" -v f="$fetched" -v l="$last" -v r="$rss" -v h="$hwm" \
      'BEGIN { printf "%7.0fs %10d %10.0f %10.0f %10s %10s\n", now - t0, f, (f - l) / (now - p), f / (now - t0), r, h }'
    last=$fetched
    prev_t=$now
  done
  set +e
  wait "$tpid"
  local code=$?
  set -e
  cat "$work/amber.out"
  echo "amber exited $code (14: stopped at --time-limit $SCALE_LIMIT); whole run, reports included:"
  awk -v w="$(figure amber wall)" -v c="$(figure amber cpu)" -v r="$(figure amber rss)" \
    'BEGIN { printf "  %.0f s, %.0f CPU-s, peak RSS %.0f MB\n", w, c, r }'
  [ "$code" = 0 ] || [ "$code" = 14 ]
}

case $mode in
compare) compare ;;
scale) scale ;;
*)
  echo "usage: scripts/bench.sh [compare|scale]" >&2
  exit 2
  ;;
esac
