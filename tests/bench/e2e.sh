#!/usr/bin/env bash
# End-to-end benchmark: objwired with the journal (fsync interval) on 127.0.0.1,
# then `objwire bench` for person (1,500,000) and events (1,000,000), and `objwire send` of
# the events JSON-lines file. Each case runs REPEAT times (default 5) against a fresh daemon;
# the table gives medians: objects/s, bytes/object, MB/s of JSON input, and both processes'
# peak RSS and CPU seconds (from /usr/bin/time -v). With --append the table also goes to
# docs/PERFORMANCE.md under the date and the commit.
#
#   tests/bench/e2e.sh [--append]          # uses build/ (run scripts/build.sh first)
#   REPEAT=1 SCALE=0.1 tests/bench/e2e.sh   # a quick look: one run, a tenth of the objects
set -euo pipefail
cd "$(dirname "$0")/../.."
source tests/bench/bench_helpers.sh
build=${BUILD_DIR:-build}
repeat=${REPEAT:-5}
scale=${SCALE:-1}
append=${1:-}
objwired="$build/daemon/objwired"
objwire="$build/client/objwire"
for b in "$objwired" "$objwire"; do
  [ -x "$b" ] || { echo "e2e: $b missing: run scripts/build.sh" >&2; exit 1; }
done
[ -x /usr/bin/time ] || { echo "e2e: /usr/bin/time missing (Debian package 'time')" >&2; exit 1; }
work=$(mktemp -d)
daemon_pid=""
cleanup() {
  [ -n "$daemon_pid" ] && pkill -TERM -P "$daemon_pid" 2>/dev/null && wait "$daemon_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

scaled() { awk -v n="$1" -v s="$scale" 'BEGIN { printf "%d", n * s }'; }
person_n=$(scaled 1500000)
events_n=$(scaled 1000000)

# /usr/bin/time -v fields of one log: peak RSS in KB, CPU seconds (user + system)
rss_kb() { awk -F': ' '/Maximum resident set size/ {print $2}' "$1"; }
cpu_s() { awk -F': ' '/User time/ {u=$2} /System time/ {s=$2} END {printf "%.2f", u + s}' "$1"; }

start_daemon() {
  local data="$work/data.$RANDOM"
  rm -rf "$data"
  # The redirections below truncate the logs only once the background job starts: without
  # this, logged_port could read the previous daemon's port ("Connection refused").
  rm -f "$work/daemon.out" "$work/daemon.err"
  /usr/bin/time -v -o "$work/daemon.time" "$objwired" --listen 127.0.0.1:0 --data-dir "$data" \
    >"$work/daemon.out" 2>"$work/daemon.err" &
  daemon_pid=$!
  local port
  port=$(logged_port "$work/daemon.out" "$work/daemon.err") ||
    { echo "e2e: objwired did not start" >&2; cat "$work/daemon.err" >&2; exit 1; }
  addr="127.0.0.1:$port"
}

# $daemon_pid is /usr/bin/time: the signal goes to objwired, its child, and time then writes
# its report.
stop_daemon() {
  pkill -TERM -P "$daemon_pid"
  wait "$daemon_pid" || true
  daemon_pid=""
}


# One case, REPEAT times: appends "objects/s B/obj JSON-MB/s client-RSS client-CPU daemon-RSS
# daemon-CPU" per run to $work/CASE.runs.
run_bench() {
  local name=$1 workload=$2 n=$3
  for _ in $(seq "$repeat"); do
    start_daemon
    /usr/bin/time -v -o "$work/client.time" "$objwire" bench --workload "$workload" -n "$n" \
      --to "$addr" --json >"$work/bench.json"
    stop_daemon
    python3 - "$work/bench.json" <<'PY' >>"$work/$name.runs"
import json, sys
r = json.load(open(sys.argv[1]))
print(r["objects_per_second"], r["bytes_per_object"], "-", end=" ")
PY
    echo "$(rss_kb "$work/client.time") $(cpu_s "$work/client.time") $(rss_kb "$work/daemon.time") $(cpu_s "$work/daemon.time")" >>"$work/$name.runs"
  done
}

run_send() {
  local name=$1 file=$2 n=$3
  local mb
  mb=$(stat -c %s "$file")
  for _ in $(seq "$repeat"); do
    start_daemon
    local t0 t1
    t0=$(date +%s.%N)
    /usr/bin/time -v -o "$work/client.time" "$objwire" send "$file" --to "$addr" 2>"$work/send.err" ||
      { cat "$work/send.err" >&2; exit 1; }
    t1=$(date +%s.%N)
    stop_daemon
    awk -v n="$n" -v b="$mb" -v t0="$t0" -v t1="$t1" \
      'BEGIN { s = t1 - t0; printf "%.0f - %.1f ", n / s, b / s / 1e6 }' >>"$work/$name.runs"
    echo "$(rss_kb "$work/client.time") $(cpu_s "$work/client.time") $(rss_kb "$work/daemon.time") $(cpu_s "$work/daemon.time")" >>"$work/$name.runs"
  done
}

col() { awk -v c="$2" '{print $c}' "$work/$1.runs" | grep -v '^-$' | median; }

row() {
  local name=$1 label=$2
  printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$label" \
    "$(col "$name" 1 | awk '{printf "%.2f M", $1 / 1e6}')" \
    "$( [ "$(awk '{print $2}' "$work/$name.runs" | head -1)" = "-" ] && echo "-" || col "$name" 2 | awk '{printf "%.2f", $1}')" \
    "$( [ "$(awk '{print $3}' "$work/$name.runs" | head -1)" = "-" ] && echo "-" || col "$name" 3)" \
    "$(col "$name" 4 | awk '{printf "%.1f", $1 / 1024}')" "$(col "$name" 5)" \
    "$(col "$name" 6 | awk '{printf "%.1f", $1 / 1024}')" "$(col "$name" 7)"
}

echo "e2e: person $person_n, events $events_n, $repeat runs each" >&2
run_bench person person "$person_n"
run_bench events events "$events_n"
"$objwire" gen --workload events -n "$events_n" -o "$work/events.jsonl"
run_send send_events "$work/events.jsonl" "$events_n"

table=$(
  echo "| case | objects/s | bytes/object | JSON MB/s | client peak RSS MB | client CPU s | objwired peak RSS MB | objwired CPU s |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|"
  row person "bench person ($person_n)"
  row events "bench events ($events_n)"
  row send_events "send events.jsonl ($events_n, $(stat -c %s "$work/events.jsonl" | awk '{printf "%.1f MB", $1 / 1e6}'))"
)
echo "$table"
if [ "$append" = "--append" ]; then
  {
    echo
    echo "### End to end, $(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD)"
    echo "Command: \`REPEAT=$repeat SCALE=$scale tests/bench/e2e.sh --append\` (medians of $repeat runs; journal, fsync interval, 127.0.0.1)."
    echo
    echo "$table"
  } >>docs/PERFORMANCE.md
fi
