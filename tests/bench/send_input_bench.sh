#!/usr/bin/env bash
# `objwire send` of a JSON-lines file, from the file and from a pipe (`cat FILE | objwire send -`):
# MB/s of JSON input and the client's peak RSS (from /usr/bin/time -v), median of REPEAT runs
# (default 5), each against a fresh objwired (journal in a scratch directory). With a second
# objwire binary (BASELINE) both run in alternation on the same daemon binary and file, so the
# two columns are comparable within one run.
#
#   tests/bench/send_input_bench.sh [FILE] [BASELINE_OBJWIRE]
#   # FILE default: the events workload, 1,000,000 objects (generated into a scratch directory)
set -euo pipefail
cd "$(dirname "$0")/../.."
source tests/bench/bench_helpers.sh
build=${BUILD_DIR:-build}
repeat=${REPEAT:-5}
objwired="$build/daemon/objwired"
objwire="$build/client/objwire"
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time missing (Debian package 'time')" >&2; exit 1; }
work=$(mktemp -d)
daemon_pid=""
cleanup() {
  [ -n "$daemon_pid" ] && kill -TERM "$daemon_pid" 2>/dev/null && wait "$daemon_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
input=${1:-}
if [ -z "$input" ]; then
  input="$work/events.jsonl"
  "$objwire" gen --workload events -n 1000000 -o "$input"
fi
baseline=${2:-}
bytes=$(stat -c %s "$input")

# one_run BINARY MODE: prints "MB/s peak_rss_MB" for one send (MODE file or pipe).
one_run() {
  local bin=$1 mode=$2
  rm -rf "$work/data" "$work/log"
  "$objwired" --listen 127.0.0.1:0 --data-dir "$work/data" 2>"$work/log" &
  daemon_pid=$!
  local port
  port=$(logged_port "$work/log")
  local start end
  start=$(date +%s.%N)
  timed_send "$bin" "$mode" "$input" "127.0.0.1:$port" "$work/time"
  end=$(date +%s.%N)
  kill -TERM "$daemon_pid"
  wait "$daemon_pid" || true
  daemon_pid=""
  local rss_kb
  rss_kb=$(awk '/Maximum resident set size/ {print $NF}' "$work/time")
  awk -v b="$bytes" -v s="$start" -v e="$end" -v r="$rss_kb" \
    'BEGIN { printf "%.0f %.1f\n", b / 1e6 / (e - s), r / 1024 }'
}

printf "send of %s (%.1f MB), median of %d runs\n" "$input" "$(awk -v b="$bytes" 'BEGIN {print b / 1e6}')" "$repeat"
printf "%-10s %-6s %8s %14s\n" binary input "MB/s" "peak RSS MB"
for mode in file pipe; do
  rows="" base_rows=""
  for _ in $(seq "$repeat"); do
    rows+="$(one_run "$objwire" "$mode")"$'\n'
    [ -n "$baseline" ] && base_rows+="$(one_run "$baseline" "$mode")"$'\n'
  done
  rows=${rows%$'\n'}
  printf "%-10s %-6s %8s %14s\n" this "$mode" "$(column_median 1 "$rows")" "$(column_median 2 "$rows")"
  if [ -n "$baseline" ]; then
    base_rows=${base_rows%$'\n'}
    printf "%-10s %-6s %8s %14s\n" baseline "$mode" "$(column_median 1 "$base_rows")" \
      "$(column_median 2 "$base_rows")"
  fi
done
