#!/usr/bin/env bash
# make fuzz: every fuzz target of the module, each for FUZZTIME (default 10s).
#
#   scripts/fuzz.sh [PACKAGE_PATTERN]   e.g. scripts/fuzz.sh ./warc (default: every package)
#
# The targets are found, not listed: each package with a func Fuzz... in a _test.go file, and
# in it what `go test -list '^Fuzz'` names. Each target runs on its own for FUZZTIME; a failure
# does not stop the others. At the end a table gives each target's executions and executions
# per second, and the script fails if any target failed. A failing input is written by go test
# to the package's testdata/fuzz/TARGET/, where plain `go test` (and so make test and CI) runs
# it as a regression case from then on: keep it in the commit that fixes the finding.
#
# FUZZTIME_<Target> (e.g. FUZZTIME_FuzzHTML=30s) gives one target another time; a target is
# expected to run thousands of inputs a second, and a slower one says why in its comment.
# FUZZPARALLEL=N runs N fuzzing workers (go test -parallel; default GOMAXPROCS).
# FUZZMINTIME (default 5s) bounds the minimizing of each new interesting input: go test's
# default, 60s, spent whole runs of 10 or 20 s minimizing the first input that widened the
# coverage of a target with large seeds, fuzzing nothing (FuzzDocument: 20 executions).
set -euo pipefail
cd "$(dirname "$0")/.."

GO=${GO:-go}
FUZZTIME=${FUZZTIME:-10s}
FUZZMINTIME=${FUZZMINTIME:-5s}
parallel=()
[ -z "${FUZZPARALLEL:-}" ] || parallel=(-parallel "$FUZZPARALLEL")
pattern=${1:-.}

mapfile -t pkgs < <(grep -rl --include='*_test.go' -E '^func Fuzz[A-Z0-9_]' "$pattern" \
  | grep -v -e '/node_modules/' -e '/testdata/' | xargs -n1 dirname | sort -u | sed 's|^\([^./]\)|./\1|')
[ ${#pkgs[@]} -gt 0 ] || { echo "fuzz: no fuzz targets under $pattern" >&2; exit 1; }

log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT
results=()
failed=0
for pkg in "${pkgs[@]}"; do
  for target in $($GO test -list '^Fuzz' "$pkg" | grep '^Fuzz'); do
    var="FUZZTIME_$target"
    t=${!var:-$FUZZTIME}
    echo "== $pkg $target ($t)"
    out="$log/$(echo "$pkg" | tr '/.' '__')_$target"
    if $GO test -run '^$' -fuzz "^$target\$" -fuzztime "$t" -fuzzminimizetime "$FUZZMINTIME" "${parallel[@]}" "$pkg" >"$out" 2>&1; then
      status=ok
    else
      status=FAIL
      failed=$((failed + 1))
      cat "$out"
    fi
    # The last progress line: "fuzz: elapsed: 10s, execs: 12345 (1234/sec), ...", or
    # "elapsed: 10m0s" past a minute.
    line=$(grep -E '^fuzz: elapsed: [0-9hms]+, execs: [0-9]+' "$out" | tail -n 1 || true)
    secs=$(echo "$line" | sed -n 's/^fuzz: elapsed: \([0-9hms]*\),.*/\1/p' | awk '{
      t = 0; d = $0
      while (match(d, /^[0-9]+[hms]/)) {
        n = substr(d, 1, RLENGTH - 1); u = substr(d, RLENGTH, 1)
        t += n * (u == "h" ? 3600 : u == "m" ? 60 : 1); d = substr(d, RLENGTH + 1)
      }
      print t }')
    execs=$(echo "$line" | sed -n 's/.*execs: \([0-9]*\).*/\1/p')
    rate=$(awk -v e="${execs:-0}" -v s="${secs:-0}" 'BEGIN { if (s > 0) printf "%.0f", e / s; else print "-" }')
    results+=("$(printf '%-4s %-28s %-26s %12s %10s' "$status" "$pkg" "$target" "${execs:--}" "$rate")")
    tail -n 2 "$out" | sed 's/^/   /'
  done
done

echo
printf '%-4s %-28s %-26s %12s %10s\n' "" package target execs "execs/s"
printf '%s\n' "${results[@]}"
echo "${#results[@]} targets in ${#pkgs[@]} packages, FUZZTIME $FUZZTIME; $failed failed"
[ "$failed" = 0 ]
