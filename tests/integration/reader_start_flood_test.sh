#!/usr/bin/env bash
# A flood of reader hellos that start by time or by a sender's last N objects, each closed as
# soon as it is sent (reader_start_flood.py: 16 threads), against a journal of 1.5 M objects:
# starts are found through the start index (docs/JOURNAL.md): objwired reads at most 1/256 of
# its journal per hello (its read bytes, /proc/PID/io rchar, over the flood, less the measured
# send's own bytes - a scan per hello read the whole journal), `objwire stats` answers during
# the flood, and once the flood's last connection has closed no start is still running a second
# later (objwire_reader_starts_running back to 0). The time of a concurrent send of 100,000
# objects with and without the flood is printed, not checked: on two cores shared with the
# flooding threads it measures the machine as much as objwired (docs/PERFORMANCE.md).
set -euo pipefail
objwired=$1
objwire=$2
flood=$(dirname "$0")/reader_start_flood.py
dir=$(mktemp -d)
daemon=""
flooder=""
trap 'kill -9 $daemon $flooder 2>/dev/null || true; rm -rf "$dir"' EXIT
source "$(dirname "$0")/daemon_helpers.sh"

stats() { timeout 10 "$objwire" stats --json --to "127.0.0.1:$port"; }
metric() { echo "$m" | grep -o "\"$1\":[0-9.e+]*" | cut -d: -f2; }
starts_running() {
  m=$(stats) || return 1
  [ "$(metric objwire_reader_starts_running)" = 0 ]
}
# send_ms: sends the 100,000 objects under a new sender id; prints how long it took.
sends=0
send_ms() {
  local start
  sends=$((sends + 1))
  start=$(now_ms)
  "$objwire" send "$dir/100k" --sender-id "measured-$sends" --to "127.0.0.1:$port" \
    2>"$dir/send.err" || fail "send $sends: $(cat "$dir/send.err")"
  echo $(($(now_ms) - start))
}

OBJWIRE_METRICS_LISTEN=127.0.0.1:0 start_daemon "$dir/log" "$dir/data"
"$objwire" gen --workload events -n 100 -o "$dir/early" 2>/dev/null
"$objwire" send "$dir/early" --sender-id early --to "127.0.0.1:$port" 2>/dev/null ||
  fail "send early"
"$objwire" bench --workload events -n 1500000 --to "127.0.0.1:$port" >/dev/null 2>&1 ||
  fail "bench -n 1500000"
"$objwire" gen --workload events -n 100000 -o "$dir/100k" 2>/dev/null
m=$(stats) || fail "stats"
stored=$(metric objwire_journal_durable_offset)
[ "$stored" -ge 1500100 ] || fail "stored $stored objects, want 1,500,100"

journal_bytes=$(du -sb "$dir/data" | cut -f1)
rchar() { awk '$1 == "rchar:" { print $2 }' "/proc/$daemon/io"; }
quiet=()
flooded=()
for pair in 1 2 3; do
  quiet+=("$(send_ms)")
  rm -f "$dir/ready" "$dir/stop"
  python3 "$flood" "$objwire" "$port" early "$dir/ready" "$dir/stop" >"$dir/flood.out" &
  flooder=$!
  read_before=$(rchar)
  wait_for_log "$dir/ready" ready 30 || fail "the flood did not start"
  flooded+=("$(send_ms)")
  if [ "$pair" = 1 ]; then
    m=$(stats) || fail "objwire stats did not answer during the flood"
  fi
  touch "$dir/stop"
  wait "$flooder" || fail "the flood failed"
  flooder=""
  closed=$(now_ms)
  hellos=$(cat "$dir/flood.out")
  # What the daemon read besides the measured send's bytes from its socket (the input file's
  # size bounds them: its frames are smaller), per hello.
  read_bytes=$(($(rchar) - read_before - $(stat -c %s "$dir/100k")))
  per_hello=$((read_bytes / (hellos > 0 ? hellos : 1)))
  [ "$hellos" -ge 1000 ] || fail "the flood sent only $hellos hellos"
  [ "$per_hello" -le $((journal_bytes / 256)) ] ||
    fail "objwired read $per_hello bytes per hello, over 1/256 of its $journal_bytes-byte journal"
  wait_until 1 starts_running ||
    fail "starts still running 1 s after the flood's last connection closed: $m"
  echo "pair $pair: send ${quiet[-1]} ms, under the flood ${flooded[-1]} ms ($hellos hellos," \
    "$per_hello bytes read per hello, journal $journal_bytes bytes)," \
    "starts done $(($(now_ms) - closed)) ms after the flood"
done
fastest() { printf '%s\n' "$@" | sort -n | head -1; }
q=$(fastest "${quiet[@]}")
f=$(fastest "${flooded[@]}")
echo "fastest send of 100,000 objects: $q ms alone, $f ms under the flood"
kill -TERM "$daemon"
wait "$daemon" || true
daemon=""
echo "reader start flood: ok"
