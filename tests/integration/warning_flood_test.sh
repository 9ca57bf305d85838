#!/usr/bin/env bash
# 300 connections that send garbage instead of a hello give a few warning lines and one
# summary with the count, not 300 lines (daemon/telemetry/warning_log.hpp): the first 5 of a kind
# per 10 s in full, then "... and N more 'bad hello' warnings in the last 10 s" when the
# interval ends. Every garbage connection is accounted for: lines in full plus the counts
# of the summaries make 300. A SIGTERM during an interval logs its summary before the exit.
set -euo pipefail
# objwired may close a garbage connection before all of it is written: no SIGPIPE.
trap '' PIPE
objwired=$1
dir=$(mktemp -d)
daemon=""
trap '[ -n "$daemon" ] && kill "$daemon" 2>/dev/null; rm -rf "$dir"' EXIT
source "$(dirname "$0")/daemon_helpers.sh"

garbage() {  # N: N connections, each sending bytes that are no objwire hello, then closing
  local i
  for ((i = 0; i < $1; i++)); do
    exec 3<>"/dev/tcp/127.0.0.1/$port"
    printf 'GET / HTTP/1.1\r\nHost: objwire\r\nUser-Agent: not-objwire/1.0\r\n\r\n' >&3 2>/dev/null ||
      true
    exec 3>&-
  done
}
# accounted LOG: lines logged in full (every connection here is garbage: its frame header is
# refused, "unknown frame kind") plus the summaries' counts.
accounted() {
  local full summed
  full=$(grep -c 'closing connection: ' "$1" || true)
  summed=$(grep -o "and [0-9]* more 'bad hello' warning" "$1" | awk '{s += $2} END {print s + 0}')
  echo $((full + summed))
}

# The per-address cap would refuse some of 300 quick connections: this test is about one kind.
OBJWIRE_LIMITS_MAX_CONNECTIONS_PER_ADDRESS=1000 OBJWIRE_METRICS_LISTEN= \
  start_daemon "$dir/log" "$dir/data"
garbage 300
all_seen() { [ "$(accounted "$dir/log")" -ge 300 ]; }
# The summary comes when the interval of the first warning ends: 10 s after it, plus the time
# the 300 connections took.
wait_until 60 all_seen || fail "300 bad hellos not accounted for: $(accounted "$dir/log")"
full=$(grep -c 'closing connection: ' "$dir/log")
summaries=$(grep -c "more 'bad hello' warning" "$dir/log")
[ "$(accounted "$dir/log")" -eq 300 ] || fail "$(accounted "$dir/log") bad hellos accounted, want 300"
[ "$summaries" -ge 1 ] || fail "no summary"
# 5 in full per interval of 10 s: the 300 connections take a few intervals at most.
[ "$full" -ge 5 ] && [ "$full" -le $((5 * (summaries + 1))) ] ||
  fail "$full lines in full for $summaries summaries"
[ "$(grep -c 'warning objwired:' "$dir/log")" -le 40 ] || fail "the flood flooded the log"
grep -Eq "warning objwired: \.\.\. and [0-9]+ more 'bad hello' warnings in the last 10 s$" "$dir/log" ||
  fail "summary line: $(grep "more 'bad hello'" "$dir/log")"

# A SIGTERM before the interval ends: its summary is logged on the way out. Every connection
# of this test sent garbage, so each one objwired took ("stopped: ... from N connections") is
# a bad hello, in full or in a summary.
garbage 20
wait_until 30 grep -q "closing connection: " <(tail -n 5 "$dir/log") || true
kill -TERM "$daemon"
wait "$daemon" || fail "objwired exited $? on SIGTERM"
daemon=""
taken=$(sed -n 's/.*stopped: [0-9]* objects stored from \([0-9]*\) connections.*/\1/p' "$dir/log")
[ -n "$taken" ] && [ "$taken" -gt 300 ] || fail "connections taken: '$taken'"
[ "$(accounted "$dir/log")" -eq "$taken" ] ||
  fail "after SIGTERM $(accounted "$dir/log") bad hellos accounted, $taken connections taken"
echo "warning_flood: 300 bad hellos gave $full lines and $summaries summaries"
