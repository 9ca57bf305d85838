#!/usr/bin/env bash
# objwire at its edges, through the binary: bench's link said as measured (never "~0 Mbit/s"),
# a misspelt OBJWIRE_* variable warned of by every command.
#
#   tests/integration/cli_edges_test.sh OBJWIRED OBJWIRE
set -euo pipefail
objwired=$1
objwire=$2
dir=$(mktemp -d)
trap 'kill ${daemon:-} ${watcher:-} 2>/dev/null || true; rm -rf "$dir"' EXIT
source "$(dirname "$0")/daemon_helpers.sh"

start_daemon "$dir/log" "$dir/data"
to="127.0.0.1:$port"

# 1. bench's link: what the policy knows, in words; a configured one as configured.
"$objwire" bench --to "$to" --workload person -n 1000 >"$dir/bench" 2>&1 || fail "bench: $(cat "$dir/bench")"
link=$(grep -o "link [^,]*" "$dir/bench") || fail "bench names no link: $(cat "$dir/bench")"
echo "$link" | grep -Eq "^link (not measured \(no sample|at least [0-9.]+ Mbit/s \(lower bound|~[0-9.]+ Mbit/s \(measured\))" ||
  fail "bench's link: '$link'"
if echo "$link" | grep -Eq "[ ~]0(\.0)? Mbit/s"; then fail "bench's link is zero: '$link'"; fi
OBJWIRE_COMPRESSION_LINK_BANDWIDTH=100Mbit "$objwire" bench --to "$to" --workload person -n 1000 \
  >"$dir/bench" 2>&1 || fail "bench with a link: $(cat "$dir/bench")"
grep -q "link 100 Mbit/s (configured)," "$dir/bench" || fail "configured link: $(cat "$dir/bench")"

# 2. A misspelt variable: every command warns and goes on; config check refuses it.
warning="objwire: warning: OBJWIRE_CLIENT_TOO names no setting (did you mean OBJWIRE_CLIENT_TO?)"
OBJWIRE_CLIENT_TOO=x "$objwire" gen --workload person -n 3 -o "$dir/in.jsonl" 2>"$dir/err" ||
  fail "gen: $(cat "$dir/err")"
[ "$(cat "$dir/err")" = "$warning" ] || fail "gen said: $(cat "$dir/err")"
OBJWIRE_CLIENT_TOO=x "$objwire" send -q "$dir/in.jsonl" --to "$to" 2>"$dir/err" || fail "send: $(cat "$dir/err")"
[ "$(cat "$dir/err")" = "$warning" ] || fail "send said: $(cat "$dir/err")"
OBJWIRE_CLIENT_TOO=x "$objwire" stats --to "$to" >/dev/null 2>"$dir/err" || fail "stats: $(cat "$dir/err")"
[ "$(cat "$dir/err")" = "$warning" ] || fail "stats said: $(cat "$dir/err")"
rc=0
OBJWIRE_CLIENT_TOO=x "$objwire" config check 2>"$dir/err" >/dev/null || rc=$?
[ "$rc" -eq 78 ] || fail "config check exited $rc"
[ "$(grep -c "OBJWIRE_CLIENT_TOO" "$dir/err")" -eq 1 ] || fail "config check said: $(cat "$dir/err")"
"$objwire" gen --workload person -n 1 -o /dev/null 2>"$dir/err" || fail "gen without: $?"
[ ! -s "$dir/err" ] || fail "gen with no misspelt variable said: $(cat "$dir/err")"

echo "cli_edges: ok"
