#!/usr/bin/env bash
# objwire at its edges, through the binary: bench's link said as measured (never "~0 Mbit/s"),
# a misspelt OBJWIRE_* variable warned of by every command, send of several files as one
# stream, stats --watch (bounded by --count, ended by a signal).
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

# 3. send FILE...: the files in order as one stream; a place in it named by file and line; a
# rerun with one more file sends only that file, another order is refused.
printf '{"f":"a1"}\n{"f":"a2"}\n' >"$dir/a.jsonl"
printf '{"f":"b1"}' >"$dir/b.jsonl" # its last line ends with the file, without a newline
printf '{"f":"c1"}\n{"f":\n{"f":"c3"}\n' >"$dir/c.jsonl"
"$objwire" send "$dir/a.jsonl" "$dir/b.jsonl" --to "$to" --sender-id files 2>"$dir/err" ||
  fail "send a b: $(cat "$dir/err")"
grep -q "^objwire: sent 3 objects (3 acknowledged)" "$dir/err" || fail "send a b said: $(cat "$dir/err")"
[ "$("$objwire" read -q --to "$to" --sender files | tr -d '\n')" = '{"f":"a1"}{"f":"a2"}{"f":"b1"}' ] ||
  fail "a b read back: $("$objwire" read -q --to "$to" --sender files)"
rc=0
"$objwire" send "$dir/a.jsonl" "$dir/b.jsonl" "$dir/c.jsonl" --to "$to" --sender-id files \
  --on-error skip 2>"$dir/err" || rc=$?
[ "$rc" -eq 4 ] || fail "send a b c with a bad line exited $rc: $(cat "$dir/err")"
grep -q "^objwire: $dir/c.jsonl:2:6: " "$dir/err" || fail "the bad line's place: $(cat "$dir/err")"
grep -q "^objwire: sent 2 objects" "$dir/err" || fail "the rerun sent other than c's 2: $(cat "$dir/err")"
grep -q "up to line 3 of $dir/c.jsonl, were stored" "$dir/err" || fail "skip summary: $(cat "$dir/err")"
[ "$("$objwire" read -q --to "$to" --sender files | wc -l)" -eq 5 ] || fail "files does not hold 5 objects"
rc=0
"$objwire" send "$dir/b.jsonl" "$dir/a.jsonl" --to "$to" --sender-id files 2>"$dir/err" || rc=$?
[ "$rc" -eq 4 ] || fail "another order exited $rc: $(cat "$dir/err")"
rc=0
"$objwire" send "$dir/a.jsonl" "$dir/nosuch.jsonl" --to "$to" 2>"$dir/err" || rc=$?
[ "$rc" -eq 66 ] || fail "a missing second file exited $rc"
grep -q "^objwire: cannot open '$dir/nosuch.jsonl'" "$dir/err" || fail "missing file: $(cat "$dir/err")"
if grep -q "sent" "$dir/err"; then fail "a missing second file sent the first: $(cat "$dir/err")"; fi

# 4. stats --watch: a block per interval; --count bounds it; in a pipe the blocks follow one
# another (a JSON object a line with --json).
"$objwire" stats --to "$to" --watch 50ms --count 3 --json >"$dir/watch.json" 2>"$dir/err" ||
  fail "stats --watch --count 3 --json: $? $(cat "$dir/err")"
[ "$(wc -l <"$dir/watch.json")" -eq 3 ] || fail "--count 3 --json printed $(wc -l <"$dir/watch.json") lines"
[ "$(grep -c '^{"server":.*}$' "$dir/watch.json")" -eq 3 ] || fail "not a JSON object a line: $(cat "$dir/watch.json")"
"$objwire" stats --to "$to" --watch 50ms --count 2 >"$dir/watch.txt" 2>"$dir/err" ||
  fail "stats --watch --count 2: $? $(cat "$dir/err")"
[ "$(grep -c "^objwired at 127.0.0.1:$port" "$dir/watch.txt")" -eq 2 ] ||
  fail "--count 2 printed: $(cat "$dir/watch.txt")"
# SIGTERM and SIGINT end a 60 s wait at once, exit 0, after the block printed.
for sig in TERM INT; do
  "$objwire" stats --to "$to" --watch 60s --json >"$dir/watch.$sig" 2>"$dir/err.$sig" &
  watcher=$!
  wait_for_lines "$dir/watch.$sig" 1 || fail "stats --watch printed no block: $(cat "$dir/err.$sig")"
  kill -"$sig" "$watcher"
  wait_for_exit "$watcher" 10 || fail "stats --watch 60s did not end at SIG$sig"
  rc=0
  wait "$watcher" || rc=$?
  watcher=
  [ "$rc" -eq 0 ] || fail "stats --watch ended by SIG$sig exited $rc: $(cat "$dir/err.$sig")"
  [ "$(wc -l <"$dir/watch.$sig")" -eq 1 ] || fail "SIG$sig: $(cat "$dir/watch.$sig")"
done
rc=0
"$objwire" stats --to "$to" --watch 5 >/dev/null 2>"$dir/err" || rc=$?
[ "$rc" -eq 1 ] || fail "--watch 5 exited $rc"
grep -q "^objwire stats: --watch: '5' is not an interval" "$dir/err" || fail "--watch 5 said: $(cat "$dir/err")"

echo "cli_edges: ok"
