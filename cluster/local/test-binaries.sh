#!/usr/bin/env bash
# Runs the tests of some packages as `go test -count=1 -p JOBS` does, from test binaries kept in
# OUT_DIR between runs. go test links every test binary again on every run (3 to 4 CPU-s each),
# while `go test -c -o` leaves a binary that is already current untouched, as go build does. The
# longest package of the previous run starts first, so no long one is left to run alone at the end.
# usage: test-binaries.sh OUT_DIR JOBS TIMEOUT [GO_TEST_BUILD_FLAG...] -- PACKAGE...
# Prints go test's lines: "ok <package> <time>", or a failed package's output and "FAIL ...".
set -euo pipefail
OUT=$(mkdir -p "$1" && cd "$1" && pwd); JOBS=$2; TIMEOUT=$3; shift 3
BUILD=(); while [ $# -gt 0 ] && [ "$1" != -- ]; do BUILD+=("$1"); shift; done; shift
export OUT TIMEOUT

# -o DIR/ names each binary after the last element of its package's path, so packages that share
# one build in groups of their own: OUT/0/mirror.test, OUT/1/mirror.test, ...
go list -f '{{.ImportPath}} {{.Dir}}' "$@" |
  awk '{ n = split($1, e, "/"); g = seen[e[n]]++; print g, e[n], $1, $2 }' > "$OUT/packages"
for g in $(cut -d' ' -f1 "$OUT/packages" | sort -un); do
  mkdir -p "$OUT/$g"
  # shellcheck disable=SC2046
  go test -c "${BUILD[@]}" -o "$OUT/$g/" $(awk -v g="$g" '$1 == g { print $3 }' "$OUT/packages")
done

run() { # BINARY DIR PACKAGE
  [ -x "$1" ] || { printf '?   \t%s\t[no test files]\n' "$3"; return 0; }
  local log rc=0 start=$EPOCHREALTIME
  log=$(mktemp "$OUT/log.XXXXXX")
  (cd "$2" && exec "$1" -test.count=1 -test.paniconexit0 -test.timeout="$TIMEOUT") > "$log" 2>&1 || rc=$?
  local took; took=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }')
  # The CPU of the test binary and every process it waited for (API server, etcd, Gitea, git): the
  # second line of `times`, this shell's children, is only that test and mktemp.
  # (times in a pipe or $(...) would be a subshell's, which has no children.)
  times > "$log.times"
  awk -v p="$3" 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); s += t[1] * 60 + t[2] } printf "%.1f %s\n", s, p }' "$log.times" >> "$OUT/cpu"
  rm -f "$log.times"
  if [ "$rc" -eq 0 ]; then printf 'ok  \t%s\t%ss\n' "$3" "$took" > "$log"; else printf 'FAIL\t%s\t%ss\n' "$3" "$took" >> "$log"; fi
  printf '%s %s\n' "$took" "$3" >> "$OUT/took.new"
  flock "$OUT/.lock" cat "$log"; rm -f "$log"
  return "$rc"
}
export -f run

# The previous run's times order this one, or on a fresh clone test-times beside this script; a
# package not timed yet goes first.
: > "$OUT/took.new"; : > "$OUT/cpu"; [ -s "$OUT/took" ] || grep -v '^#' "$(dirname "$0")/test-times" > "$OUT/took"
rc=0
awk -v out="$OUT" 'FILENAME == ARGV[1] { took[$2] = $1; next }
  { print (($3 in took) ? took[$3] : 999999), out "/" $1 "/" $2 ".test", $4, $3 }' "$OUT/took" "$OUT/packages" |
  sort -rn | cut -d' ' -f2- |
  xargs -P "$JOBS" -n 3 bash -c 'run "$@"' _ || rc=$?
# This run's times replace those of the packages it ran; the others keep theirs.
awk '{ t[$2] = $1 } END { for (p in t) print t[p], p }' "$OUT/took" "$OUT/took.new" | sort -rn > "$OUT/took.tmp"
mv "$OUT/took.tmp" "$OUT/took"; rm -f "$OUT/took.new"
exit $((rc ? 1 : 0))
