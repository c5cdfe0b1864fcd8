#!/usr/bin/env bash
# Crawl benchmarks on a generated site (internal/testsite: testsite.Generated, served by
# bin/testsite -pages N on 127.0.0.1). Prints figures, asserts nothing about speed.
#
#   scripts/bench.sh [compare]   make bench: for each page size of PAGE_SIZES (default "5000 30000
#                                0"), amber and wget crawl the same PAGES-page site (default
#                                10000), one after the other, each under /usr/bin/time -v; prints
#                                pages/s, CPU-seconds per 1,000 pages and peak RSS for both and
#                                the ratio amber/wget, and a table of every size at the end. Exits
#                                1 if they did not fetch the same URLs. RUNS=N (default 1) runs
#                                each N times, alternating, and reports each run and the medians
#                                (a shared machine's speed drifts by a fifth within an hour: the
#                                ratio of alternated runs is the figure to compare).
#   scripts/bench.sh scale       make bench-scale: amber on a SCALE_PAGES-page site (default
#                                1000000) of PAGE_SIZE pages (default 5000; 0 for the small
#                                pages), printing pages/s and RSS (anonymous and file-backed)
#                                every 10 s, bounded by SCALE_LIMIT (default 15m, amber's
#                                --time-limit); at the end the whole run's peak RSS and the peak
#                                of each phase: crawl, closing and index sort, reports.
#                                PROFILE=DIR keeps, in DIR, what amber's memory was made of
#                                when its RSS was highest: /proc/PID/smaps_rollup and the
#                                resident kB of each mapping (smaps_rollup.peak) and its Go
#                                heap profile (heap.peak, from /debug/pprof/heap on
#                                --status-addr, while the crawl runs), and prints both at the
#                                end.
#   scripts/bench.sh index       make bench-index: amber on a PAGES-page site of PAGE_SIZE pages
#                                with the search-index sink off and on (ZincSearch, bin/zincsearch
#                                from make tools, on 127.0.0.1 with its data in memory), RUNS
#                                (default 3) runs of each, alternating. With two or more cores the
#                                server gets the last core to itself and amber and the site the
#                                others, in both runs (as an index server is a machine of its own
#                                in a real deployment). Prints for each run the crawling pages/s
#                                (the first to the last crawl.log line), the whole run's pages/s
#                                (which with the sink on ends once the index has every document)
#                                and amber's CPU-s per 1,000 pages; then the medians and on/off.
#
# Page sizes (testsite -page-size): 5000 and 30000 are pages of about that many bytes of varied
# text compressing about as written English does (2.3 and 2.9 to 1), ten links each, a 3 KB
# stylesheet and 50 images of 2 to 10 KB (internal/testsite: Generated); 0 is the small pages of
# the earlier figures (about 250 bytes, two links, tiny stylesheet and images).
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
PAGE_SIZES=${PAGE_SIZES:-5000 30000 0}
PAGE_SIZE=${PAGE_SIZE:-5000}
SCALE_PAGES=${SCALE_PAGES:-1000000}
SCALE_LIMIT=${SCALE_LIMIT:-15m}
PROFILE=${PROFILE:-}
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

# serve N SIZE: starts bin/testsite -pages N -page-size SIZE; sets addr to its 127.0.0.1:PORT.
serve() {
  [ -z "$server" ] || { kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; }
  : >"$work/server.txt"
  ./bin/testsite -pages "$1" -page-size "$2" >"$work/server.txt" &
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

# compare_size SIZE: amber and wget on a PAGES-page site of SIZE pages; appends a row for each
# to $work/summary.
compare_size() {
  local size=$1
  serve "$PAGES" "$size"
  local seed="http://$addr/"
  rm -rf "$work/amber" "$work/wget"
  echo
  echo "generated site: $PAGES pages of $(size_name "$size") at $seed ($(nproc) cores)"

  local runs=${RUNS:-1} r n
  : >"$work/compare.rows"
  for r in $(seq "$runs"); do
    rm -rf "$work/amber" "$work/wget"
    timed amber ./bin/amber crawl --dir "$work/amber" "${AMBER_FLAGS[@]}" --quiet "$seed" >/dev/null
    # wget, one connection: --level=inf to follow the whole link tree, --page-requisites for
    # the stylesheet and images (it reads url() in CSS too), robots.txt obeyed as amber does.
    mkdir -p "$work/wget"
    timed wget wget --recursive --level=inf --page-requisites --no-verbose --no-parent -e robots=on \
      --warc-file="$work/wget/crawl" --directory-prefix="$work/wget/files" -o "$work/wget/log" "$seed"

    [ "$(cat "$work/amber.exit")" = 0 ] || { echo "bench: amber exited $(cat "$work/amber.exit")" >&2; exit 1; }
    # wget exits 8 when a URL answered an error; the generated site has none (amber's
    # favicon.ico probe is amber's own).
    [ "$(cat "$work/wget.exit")" = 0 ] || { echo "bench: wget exited $(cat "$work/wget.exit")" >&2; tail -n 5 "$work/wget/log" >&2; exit 1; }

    # The URLs each fetched with a 200: crawl.log's fourth field; wget's "URL:... [n/n] ->"
    # lines.
    awk '$2 == 200 {print $4}' "$work/amber/logs/crawl.log" | sort >"$work/amber.urls"
    sed -n 's/^.* URL:\([^ ]*\) \[.*$/\1/p' "$work/wget/log" | sort >"$work/wget.urls"
    if [ "$r" = 1 ]; then
      echo "URLs fetched (200): amber $(wc -l <"$work/amber.urls"), wget $(wc -l <"$work/wget.urls") (pages, robots.txt, style.css, 50 images)"
      printf '\n%-10s %8s %9s %15s %9s\n' crawler wall-s pages/s "CPU-s/1k pages" "peak RSS"
    fi
    if ! cmp -s "$work/amber.urls" "$work/wget.urls"; then
      echo "bench: amber and wget did not fetch the same URLs (< amber only, > wget only):" >&2
      diff "$work/amber.urls" "$work/wget.urls" | grep '^[<>]' | head -n 20 >&2
      exit 1
    fi
    for n in amber wget; do
      echo "$n $(figure "$n" wall) $(figure "$n" cpu) $(figure "$n" rss)" >>"$work/compare.rows"
      awk -v n="$n" -v p="$PAGES" -v r="$r" -v runs="$runs" '$1 == n { w = $2; c = $3; m = $4 } END {
        printf "%-10s %8.2f %9.0f %15.3f %6.0f MB%s\n", n, w, p / w, c / p * 1000, m, (runs > 1 ? "   run " r : "") }' "$work/compare.rows"
    done
  done

  # The medians of the runs (the one run's figures when RUNS is 1).
  local wall cpu rss
  declare -A pps cpk mb
  [ "$runs" = 1 ] || { echo; echo "medians of $runs runs:"; }
  for n in amber wget; do
    wall=$(awk -v n="$n" '$1 == n {print $2}' "$work/compare.rows" | median)
    cpu=$(awk -v n="$n" '$1 == n {print $3}' "$work/compare.rows" | median)
    rss=$(awk -v n="$n" '$1 == n {print $4}' "$work/compare.rows" | median)
    pps[$n]=$(awk -v p="$PAGES" -v w="$wall" 'BEGIN { printf "%.0f", p / w }')
    cpk[$n]=$(awk -v p="$PAGES" -v c="$cpu" 'BEGIN { printf "%.3f", c / p * 1000 }')
    mb[$n]=$(awk -v r="$rss" 'BEGIN { printf "%.0f", r }')
    [ "$runs" = 1 ] || printf '%-10s %8.2f %9s %15s %6s MB\n' "$n" "$wall" "${pps[$n]}" "${cpk[$n]}" "${mb[$n]}"
    printf '%-12s %-10s %9s %15s %6s MB\n' "$(size_name "$size")" "$n" "${pps[$n]}" "${cpk[$n]}" "${mb[$n]}" >>"$work/summary"
  done
  awk -v a="${pps[amber]}" -v w="${pps[wget]}" -v ac="${cpk[amber]}" -v wc="${cpk[wget]}" \
    -v ar="${mb[amber]}" -v wr="${mb[wget]}" \
    'BEGIN { printf "%-10s %8s %8.2fx %14.2fx %8.2fx\n", "amber/wget", "", a / w, ac / wc, ar / wr }'
  awk -v s="$(size_name "$size")" -v a="${pps[amber]}" -v w="${pps[wget]}" -v ac="${cpk[amber]}" -v wc="${cpk[wget]}" \
    -v ar="${mb[amber]}" -v wr="${mb[wget]}" \
    'BEGIN { printf "%-12s %-10s %8.2fx %14.2fx %8.2fx\n", s, "amber/wget", a / w, ac / wc, ar / wr }' >>"$work/summary"
}

# size_name SIZE: "5000 B pages", or "small pages" for 0.
size_name() { [ "$1" = 0 ] && echo "small pages" || echo "$1 B pages"; }

compare() {
  [ -x /usr/bin/time ] || need /usr/bin/time time
  need wget wget
  local size
  for size in $PAGE_SIZES; do
    compare_size "$size"
  done
  echo
  echo "all sizes ($PAGES pages each$([ "${RUNS:-1}" = 1 ] || echo ", medians of $RUNS runs")):"
  printf '%-12s %-10s %9s %15s %9s\n' "page size" crawler pages/s "CPU-s/1k pages" "peak RSS"
  cat "$work/summary"
}

# seconds DURATION: a --time-limit value (90s, 15m, 1h, 1h30m) in seconds.
seconds() {
  awk -v d="$1" 'BEGIN {
    t = 0
    while (match(d, /^[0-9.]+[hms]/)) {
      n = substr(d, 1, RLENGTH - 1); u = substr(d, RLENGTH, 1)
      t += n * (u == "h" ? 3600 : u == "m" ? 60 : 1)
      d = substr(d, RLENGTH + 1)
    }
    print int(t)
  }'
}

# kb FIELD PID: a field of /proc/PID/status in kB (VmRSS, VmHWM, RssAnon, RssFile), empty once
# the process is gone.
kb() { awk -v f="$1:" '$1 == f {print $2}' "/proc/$2/status" 2>/dev/null || true; }

# mb KB: kilobytes as whole megabytes.
mb() { awk -v k="$1" 'BEGIN { printf "%.0f", k / 1024 }'; }

# The scale bench samples amber's memory every second and prints a line every 10 s. The end of
# the run has two phases after the workers stop (at --time-limit, or when nothing is left to
# fetch): closing the outputs and sorting the index, then, after the crawl-end event, the
# reports. At the start of each the script notes the peak RSS so far (VmHWM) and resets it
# (writing 5 to /proc/PID/clear_refs), so each phase gets its own peak; the last one is
# /usr/bin/time's maximum, which counts from the last reset. Where the reset is not allowed
# the phases are not split and only the whole run's peak is printed.
scale() {
  need curl curl
  serve "$SCALE_PAGES" "$PAGE_SIZE"
  local seed="http://$addr/"
  local limit
  limit=$(seconds "$SCALE_LIMIT")
  echo "generated site: $SCALE_PAGES pages of $(size_name "$PAGE_SIZE") at $seed; amber --time-limit $SCALE_LIMIT"
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
  printf '%8s %10s %10s %10s %10s %10s %10s %10s\n' elapsed fetched pages/s "avg/s" RSS "anon" "file" "peak RSS"
  local last=0 t0 now fetched=0 st prev_t i=0 phase=crawl split=yes
  local peak_crawl= peak_close= events="$work/amber/logs/events.jsonl" best=0 rss
  [ -z "$PROFILE" ] || mkdir -p "$PROFILE"
  t0=$(date +%s.%N)
  prev_t=$t0
  # reset PHASE: note the peak RSS so far as the peak of the phase that ends, and reset it.
  reset() {
    local hwm
    hwm=$(kb VmHWM "$pid")
    [ -n "$hwm" ] || return 0
    [ "$phase" = crawl ] && peak_crawl=$hwm || peak_close=$hwm
    phase=$1
    if [ "$split" = yes ] && ! echo 5 2>/dev/null >"/proc/$pid/clear_refs"; then
      split=no
    fi
    printf '%7.0fs %s: RSS %s MB, peak of the phase before %s MB\n' "$(awk -v n="$(date +%s.%N)" -v t="$t0" 'BEGIN { print n - t }')" \
      "$phase" "$(mb "$(kb VmRSS "$pid")")" "$(mb "$hwm")"
  }
  while kill -0 "$pid" 2>/dev/null; do
    sleep 1
    i=$((i + 1))
    now=$(date +%s.%N)
    # PROFILE: a new highest RSS: keep the process's memory map totals and, while the status
    # server answers, its heap profile.
    rss=$(kb VmRSS "$pid")
    if [ -n "$PROFILE" ] && [ -n "$rss" ] && [ "$rss" -gt "$best" ]; then
      best=$rss
      { echo "elapsed $(awk -v n="$now" -v t="$t0" 'BEGIN { printf "%.0f", n - t }') s, phase $phase, VmRSS $rss kB"
        cat "/proc/$pid/smaps_rollup"
        echo "resident kB by mapping (file, or [anon]):"
        awk '/^[0-9a-f]+-[0-9a-f]+ / { f = $6 == "" ? "[anon]" : $6 } /^Rss:/ { r[f] += $2 }
          END { for (f in r) if (r[f] >= 256) printf "%10d %s\n", r[f], f }' "/proc/$pid/smaps" | sort -rn | head -n 12
      } >"$PROFILE/smaps_rollup.peak" 2>/dev/null || true
      [ "$phase" != crawl ] || curl -fsS -o "$PROFILE/heap.peak" "http://$status/debug/pprof/heap" 2>/dev/null || true
    fi
    if [ "$phase" = crawl ]; then
      # /status until the workers stop: at the time limit, or when nothing is queued or in flight.
      st=$(curl -fsS "http://$status/status" 2>/dev/null | tr -d ' \n' || true)
      fetched=$(echo "$st" | sed -n 's/.*"urls_fetched":\([0-9]*\).*/\1/p')
      [ -n "$fetched" ] || fetched=$last
      local idle=no
      case "$st" in *'"Queued":0,"InFlight":0,'*) [ "$fetched" -gt 0 ] && idle=yes ;; esac
      if [ "$idle" = yes ] || [ "$(awk -v n="$now" -v t="$t0" -v l="$limit" 'BEGIN { print (n - t >= l) }')" = 1 ]; then
        reset "closing outputs, sorting the index"
      fi
    elif [ "$phase" != reports ]; then
      case "$(tail -c 2000 "$events" 2>/dev/null)" in *'"event.action":"crawl-end"'*) reset reports ;; esac
    fi
    [ $((i % 10)) = 0 ] || continue
    awk -v now="$now" -v t0="$t0" -v p="$prev_t" -v f="$fetched" -v l="$last" -v r="$(kb VmRSS "$pid")" \
      -v a="$(kb RssAnon "$pid")" -v fl="$(kb RssFile "$pid")" -v h="$(kb VmHWM "$pid")" \
      'BEGIN { if (r == "") exit; printf "%7.0fs %10d %10.0f %10.0f %7.0f MB %7.0f MB %7.0f MB %7.0f MB\n", now - t0, f, (f - l) / (now - p), f / (now - t0), r / 1024, a / 1024, fl / 1024, h / 1024 }'
    last=$fetched
    prev_t=$now
  done
  set +e
  wait "$tpid"
  local code=$?
  set -e
  cat "$work/amber.out"
  echo "amber exited $code (14: stopped at --time-limit $SCALE_LIMIT); frontier store $(du -sm "$work/amber/state" 2>/dev/null | cut -f1) MB, WARC files $(du -cm "$work"/amber/warcs/* 2>/dev/null | tail -n 1 | cut -f1) MB; whole run, reports included:"
  local last_peak
  last_peak=$(figure amber rss)
  local whole=$last_peak
  if [ "$split" = yes ] && [ -n "$peak_crawl" ]; then
    whole=$(awk -v a="$peak_crawl" -v b="${peak_close:-0}" -v c="$last_peak" 'BEGIN { a /= 1024; b /= 1024; m = a > b ? a : b; print (m > c ? m : c) }')
  fi
  awk -v w="$(figure amber wall)" -v c="$(figure amber cpu)" -v r="$whole" \
    'BEGIN { printf "  %.0f s, %.0f CPU-s, peak RSS %.0f MB\n", w, c, r }'
  if [ "$split" = yes ] && [ -n "$peak_crawl" ]; then
    echo "peak RSS by phase:"
    printf '  crawl                               %6s MB\n' "$(mb "$peak_crawl")"
    if [ -n "$peak_close" ]; then
      printf '  closing outputs, sorting the index  %6s MB\n' "$(mb "$peak_close")"
      printf '  reports                             %6.0f MB\n' "$last_peak"
    else
      printf '  closing outputs, index, reports     %6.0f MB\n' "$last_peak"
    fi
  fi
  if [ -n "$PROFILE" ]; then
    echo "at the highest RSS sampled ($PROFILE/smaps_rollup.peak):"
    sed 's/^/  /' "$PROFILE/smaps_rollup.peak" 2>/dev/null || true
    if [ -s "$PROFILE/heap.peak" ]; then
      echo "Go heap in use then ($PROFILE/heap.peak; go tool pprof -top bin/amber $PROFILE/heap.peak):"
      go tool pprof -top -inuse_space bin/amber "$PROFILE/heap.peak" 2>/dev/null | head -n 25 | sed 's/^/  /'
    fi
  fi
  [ "$code" = 0 ] || [ "$code" = 14 ]
}

# zinc_start: starts bin/zincsearch on a free 127.0.0.1 port with its data under /dev/shm (or
# $work), pinned to the CPUs in $zinc_cpus when set; sets zinc_url (its /es API) and zinc.
zinc_start() {
  [ -x bin/zincsearch ] || { echo "bench: bin/zincsearch not found (make tools builds it)" >&2; exit 1; }
  local data port pin=()
  data=$(mktemp -d -p "$([ -d /dev/shm ] && echo /dev/shm || echo "$work")" zinc.XXXXXX)
  # A port nothing listens on (bash's /dev/tcp connects when something does).
  while port=$((20000 + RANDOM % 20000)); (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do :; done
  [ -z "$zinc_cpus" ] || pin=(taskset -c "$zinc_cpus")
  ZINC_FIRST_ADMIN_USER=admin ZINC_FIRST_ADMIN_PASSWORD=amber-bench ZINC_DATA_PATH="$data" \
    ZINC_SERVER_ADDRESS=127.0.0.1 ZINC_SERVER_PORT="$port" ZINC_TELEMETRY=false ZINC_SENTRY=false \
    ZINC_PROFILER=false GIN_MODE=release "${pin[@]}" ./bin/zincsearch >"$work/zinc.log" 2>&1 &
  zinc=$!
  zinc_data=$data
  zinc_url="http://127.0.0.1:$port/es"
  for _ in $(seq 300); do
    curl -fsS -u admin:amber-bench "$zinc_url/" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "bench: zincsearch did not answer on $zinc_url" >&2
  tail -n 5 "$work/zinc.log" >&2
  exit 1
}

# crawl_seconds DIR: seconds from the first to the last line of DIR's crawl.log.
crawl_seconds() {
  local first last
  first=$(head -n 1 "$1/logs/crawl.log" | cut -d' ' -f1)
  last=$(tail -n 1 "$1/logs/crawl.log" | cut -d' ' -f1)
  awk -v a="$(date -d "$first" +%s.%N)" -v b="$(date -d "$last" +%s.%N)" 'BEGIN { print b - a }'
}

# median: the median of the numbers on stdin.
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

index_bench() {
  [ -x /usr/bin/time ] || need /usr/bin/time time
  need curl curl
  need taskset util-linux
  local runs=${RUNS:-3} n cores amber_cpus="" pin=() i sink
  n=$(nproc)
  zinc_cpus=""
  if [ "$n" -ge 2 ]; then
    zinc_cpus=$((n - 1))
    amber_cpus="0-$((n - 2))"
    pin=(taskset -c "$amber_cpus")
  fi
  zinc_start
  trap 'kill -9 "$zinc" 2>/dev/null; rm -rf "$zinc_data"; cleanup' EXIT
  # The site is served from amber's CPUs: the index server's core is its own.
  [ -z "$amber_cpus" ] || taskset -pc "$amber_cpus" $$ >/dev/null
  serve "$PAGES" "$PAGE_SIZE"
  local seed="http://$addr/"
  echo "generated site: $PAGES pages of $(size_name "$PAGE_SIZE") at $seed ($n cores; amber and the site on ${amber_cpus:-all}, ZincSearch on ${zinc_cpus:-all})"
  printf '\n%-6s %4s %17s %15s %15s\n' sink run crawling-pages/s run-pages/s "CPU-s/1k pages"
  : >"$work/index.rows"
  for i in $(seq "$runs"); do
    for sink in off on; do
      local dir="$work/crawl-$sink-$i" extra=()
      if [ "$sink" = on ]; then
        printf 'index: {sink: elasticsearch, url: "%s", name: bench-%s, username: admin, password: amber-bench, compression: false}\n' \
          "$zinc_url" "$i" >"$work/index.yaml"
        extra=(--config "$work/index.yaml")
      fi
      timed "index-$sink-$i" "${pin[@]}" ./bin/amber crawl --dir "$dir" "${AMBER_FLAGS[@]}" "${extra[@]}" --quiet "$seed" >/dev/null
      [ "$(cat "$work/index-$sink-$i.exit")" = 0 ] || { echo "bench: amber exited $(cat "$work/index-$sink-$i.exit")" >&2; exit 1; }
      local pages cs wall cpu
      pages=$(awk '$2 == 200' "$dir/logs/crawl.log" | wc -l)
      cs=$(crawl_seconds "$dir")
      wall=$(figure "index-$sink-$i" wall)
      cpu=$(figure "index-$sink-$i" cpu)
      awk -v s="$sink" -v i="$i" -v p="$pages" -v c="$cs" -v w="$wall" -v u="$cpu" 'BEGIN {
        printf "%-6s %4d %17.0f %15.0f %15.3f\n", s, i, p / c, p / w, u / p * 1000
        printf "%s %.1f %.1f %.4f\n", s, p / c, p / w, u / p * 1000 > "/dev/stderr" }' 2>>"$work/index.rows"
      [ "$sink" = off ] && [ "$i" = "$runs" ] || rm -rf "$dir"
    done
  done
  # The index server's own rate: the last crawl without the sink sent by amber index alone.
  local alone="$work/crawl-off-$runs" docs
  docs=$(wc -l <"$alone/documents.jsonl")
  timed index-alone "${pin[@]}" ./bin/amber index --config "$work/index.yaml" --name bench-alone "$alone" >/dev/null
  [ "$(cat "$work/index-alone.exit")" = 0 ] || { echo "bench: amber index exited $(cat "$work/index-alone.exit")" >&2; exit 1; }
  echo
  awk -v d="$docs" -v w="$(figure index-alone wall)" 'BEGIN { printf "the index server alone (amber index of %d documents): %.0f documents/s\n", d, d / w }'
  echo
  echo "medians of $runs runs:"
  local col name off on
  for col in 2 3 4; do
    name=$(echo "crawling-pages/s run-pages/s CPU-s/1k-pages" | cut -d' ' -f$((col - 1)))
    off=$(awk -v c="$col" '$1 == "off" {print $c}' "$work/index.rows" | median)
    on=$(awk -v c="$col" '$1 == "on" {print $c}' "$work/index.rows" | median)
    awk -v n="$name" -v a="$off" -v b="$on" 'BEGIN { printf "  %-18s off %9.3f  on %9.3f  on/off %6.3f\n", n, a, b, b / a }'
  done
}

case $mode in
compare) compare ;;
scale) scale ;;
index) index_bench ;;
*)
  echo "usage: scripts/bench.sh [compare|scale|index]" >&2
  exit 2
  ;;
esac
