#!/usr/bin/env bash
# objwire's command-line errors in its own style - "objwire read: ...", the nearest flag or
# command suggested, readable ranges, the conflicting pair named, sane help types - then -q,
# singular counts, the compression ratio as `stats` prints it, and what a rerun from a pipe
# that starts past the stored lines (`tail -F`) says while it waits.
#
#   tests/integration/usage_cli_test.sh OBJWIRED OBJWIRE
set -euo pipefail
objwired=$1
objwire=$2
dir=$(mktemp -d)
trap 'exec 3>&- 2>/dev/null; kill ${daemon:-} ${sender:-} 2>/dev/null || true; rm -rf "$dir"' EXIT
source "$(dirname "$0")/daemon_helpers.sh"

# usage_error EXPECTED ARGS...: objwire ARGS exits 1 (usage) with exactly EXPECTED on stderr.
usage_error() {
  local expected=$1 rc=0
  shift
  "$objwire" "$@" >"$dir/out" 2>"$dir/err" || rc=$?
  [ "$rc" -eq 1 ] || fail "objwire $* exited $rc, not 1: $(cat "$dir/err")"
  [ "$(cat "$dir/err")" = "$expected" ] ||
    fail "objwire $*: said '$(cat "$dir/err")', not '$expected'"
  [ ! -s "$dir/out" ] || fail "objwire $*: printed on stdout: $(cat "$dir/out")"
}

# 1. Parse errors.
usage_error "objwire read: unknown flag --fllow; did you mean --follow? (objwire read --help lists the flags)" \
  read --fllow
usage_error "objwire read: unknown flag --fllow; did you mean --follow? (objwire read --help lists the flags)" \
  read --fllow=1
usage_error "objwire: unknown command 'raed'; did you mean read? (objwire --help lists the commands)" raed
usage_error "objwire cursor: unknown command 'sett'; did you mean set? (objwire cursor --help lists the commands)" \
  cursor sett x 1
usage_error "objwire read: --count: must be 1 or more, not 0" read --count 0
usage_error "objwire read: --from and --since cannot be used together" read --from 3 --since 1m
usage_error "objwire read: --raw-type needs --raw" read --raw-type x
usage_error "objwire read: --count needs a value" read --count
"$objwire" >/dev/null 2>"$dir/err" && fail "objwire without a command exited 0"
grep -q "^objwire: a command is required: send, .*read" "$dir/err" ||
  fail "objwire without a command: $(cat "$dir/err")"
"$objwire" read --help >"$dir/help"
grep -q -- "--since TEXT " "$dir/help" || fail "read --help: $(grep -- --since "$dir/help")"
if grep -q "TEXT:TEXT\|POSITIVE\|1797" "$dir/help"; then fail "read --help shows a validator's name"; fi
"$objwire" send --help >"$dir/help"
grep -q -- "-q,--quiet" "$dir/help" || fail "send --help has no -q,--quiet"

# 2. -q, counts, the compression ratio.
start_daemon "$dir/log" "$dir/data"
to="127.0.0.1:$port"
"$objwire" gen --workload events -n 20 -o "$dir/in.jsonl"
head -1 "$dir/in.jsonl" >"$dir/one.jsonl"
"$objwire" send "$dir/one.jsonl" --to "$to" --sender-id one 2>"$dir/err" || fail "send one: $?"
grep -q "^objwire: sent 1 object (1 acknowledged) in 1 frame" "$dir/err" ||
  fail "send of one line: $(cat "$dir/err")"
"$objwire" send -q "$dir/in.jsonl" --to "$to" --sender-id app 2>"$dir/err" || fail "send -q: $?"
[ ! -s "$dir/err" ] || fail "send -q said: $(cat "$dir/err")"
"$objwire" read -q --to "$to" --sender app -o "$dir/back.jsonl" 2>"$dir/err" || fail "read -q: $?"
[ ! -s "$dir/err" ] || fail "read -q said: $(cat "$dir/err")"
[ "$(wc -l <"$dir/back.jsonl")" -eq 20 ] || fail "read -q wrote $(wc -l <"$dir/back.jsonl") lines"
"$objwire" read -q --to "$to" --sender nobody 2>"$dir/err" && fail "read -q of an unknown sender exited 0"
[ -s "$dir/err" ] || fail "read -q of an unknown sender said nothing"
"$objwire" bench --to "$to" --workload events -n 2000 --compression always >"$dir/bench" 2>&1 ||
  fail "bench: $(cat "$dir/bench")"
grep -Eq "ratio [0-9]+\.[0-9]{2}x," "$dir/bench" || fail "bench ratio: $(grep ratio "$dir/bench")"
"$objwire" stats --to "$to" >"$dir/stats" 2>&1 || fail "stats: $(cat "$dir/stats")"
grep -Eq "ratio +[0-9]+\.[0-9]{2}x" "$dir/stats" || fail "stats ratio: $(grep ratio "$dir/stats")"

# 3. A rerun from a pipe that starts past the stored lines, as `tail -F` does: it says once
# what it waits for, then, when the pipe ends short, refuses the input.
mkfifo "$dir/pipe"
"$objwire" send - --to "$to" --sender-id app <"$dir/pipe" 2>"$dir/rerun.err" &
sender=$!
exec 3>"$dir/pipe"
tail -n 10 "$dir/in.jsonl" >&3
# The input is read as it comes: the pause that makes it speak may fall before the tenth line
# on a busy machine, so the count it gives is any of them.
wait_until 20 grep -qE "has 20 objects stored and the input gave ([0-9]|10) of them so far" \
  "$dir/rerun.err" || fail "the waiting rerun said: $(cat "$dir/rerun.err")"
grep -qF "tail -n +1 -F FILE" "$dir/rerun.err" || fail "no hint of tail -n +1: $(cat "$dir/rerun.err")"
exec 3>&-
rc=0
wait $sender || rc=$?
sender=
[ "$rc" -eq 4 ] || fail "the short rerun exited $rc, not 4: $(cat "$dir/rerun.err")"
[ "$(grep -c "waiting for input" "$dir/rerun.err")" -eq 1 ] || fail "said more than once"
# `tail -n +1` gives the whole file: the same rerun stores nothing twice and exits 0.
"$objwire" send - --to "$to" --sender-id app <"$dir/in.jsonl" 2>"$dir/err" || fail "rerun: $(cat "$dir/err")"
if grep -q "waiting for input" "$dir/err"; then fail "a whole input said it waits"; fi
[ "$("$objwire" read --to "$to" --sender app 2>/dev/null | wc -l)" -eq 20 ] || fail "app changed"
echo "usage_cli: ok"
