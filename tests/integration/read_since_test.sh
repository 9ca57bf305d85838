#!/usr/bin/env bash
# Starting a read by time: `read --from @TIME` (milliseconds since 1970, or ISO 8601 with Z or
# an offset) and `read --since DURATION` start at the first object stored at or after that
# time (the stored time `--format %T` prints), against two batches stored at known times;
# a time past everything stored reads nothing; malformed times are usage errors.
#
#   tests/integration/read_since_test.sh OBJWIRED OBJWIRE
set -euo pipefail
objwired=$1
objwire=$2
dir=$(mktemp -d)
trap 'kill ${daemon:-} 2>/dev/null || true; rm -rf "$dir"' EXIT
source "$(dirname "$0")/daemon_helpers.sh"

start_daemon "$dir/log" "$dir/data"
to="127.0.0.1:$port"
now_ms() { date +%s%3N; }

# Batch A, then - once the clock has moved past A's stored time - batch B.
printf '{"batch":"a","n":%d}\n' 1 2 3 | "$objwire" send - --to "$to" 2>/dev/null || fail "send a"
"$objwire" read --to "$to" --format '%T' >"$dir/ta" 2>/dev/null || fail "read a's times"
ta=$(sort -n "$dir/ta" | tail -n 1)
deadline=$(($(now_ms) + 5000))
until [ "$(now_ms)" -gt "$ta" ]; do [ "$(now_ms)" -lt "$deadline" ] || fail "the clock stands still"; done
printf '{"batch":"b","n":%d}\n' 4 5 | "$objwire" send - --to "$to" 2>/dev/null || fail "send b"
"$objwire" read --to "$to" --from 3 --format '%T' >"$dir/tb" 2>/dev/null || fail "read b's times"
tb=$(sort -n "$dir/tb" | head -n 1)
[ "$tb" -gt "$ta" ] || fail "b stored at $tb, not after a at $ta"

# expect_read WHAT WANT ARGS...: the read prints exactly the offsets WANT (space-separated).
expect_read() {
  local what=$1 want=$2
  shift 2
  "$objwire" read --to "$to" --format '%o' "$@" >"$dir/out" 2>"$dir/err" ||
    fail "$what: exit $?: $(cat "$dir/err")"
  local got
  got=$(tr '\n' ' ' <"$dir/out" | sed 's/ $//')
  [ "$got" = "$want" ] || fail "$what: offsets '$got', want '$want'"
}
expect_read "--from @ms of b" "3 4" --from "@$tb"
expect_read "--from @ms of a" "0 1 2 3 4" --from "@$ta"
expect_read "--from @ms past b" "" --from "@$((tb + 3600000))"
# ISO 8601, in UTC and at an offset: the same instant.
iso_utc=$(date -u -d "@$((tb / 1000))" +%Y-%m-%dT%H:%M:%S).$(printf '%03d' $((tb % 1000)))Z
iso_east=$(date -u -d "@$((tb / 1000 + 5400))" +%Y-%m-%dT%H:%M:%S).$(printf '%03d' $((tb % 1000)))+01:30
expect_read "--from @$iso_utc" "3 4" --from "@$iso_utc"
expect_read "--from @$iso_east" "3 4" --from "@$iso_east"
expect_read "--since 1h" "0 1 2 3 4" --since 1h
rc=0
"$objwire" read --to "$to" --from @yesterday >/dev/null 2>"$dir/err" || rc=$?
[ "$rc" -eq 1 ] || fail "--from @yesterday exited $rc, not 1"
grep -q "@TIME" "$dir/err" || fail "--from @yesterday: $(cat "$dir/err")"
for bad in "--since 0s" "--since soon"; do
  rc=0
  # shellcheck disable=SC2086
  "$objwire" read --to "$to" $bad >/dev/null 2>"$dir/err" || rc=$?
  [ "$rc" -eq 1 ] || fail "read $bad exited $rc, not 1"
  grep -q -- "--since takes a duration" "$dir/err" || fail "read $bad: $(cat "$dir/err")"
done
# Both starts: the pair is named, not the valid duration.
rc=0
"$objwire" read --to "$to" --since 10m --from 3 >/dev/null 2>"$dir/err" || rc=$?
[ "$rc" -eq 1 ] || fail "read --since 10m --from 3 exited $rc, not 1"
grep -q -- "--from and --since cannot be used together" "$dir/err" ||
  fail "read --since 10m --from 3: $(cat "$dir/err")"
echo "read --from @TIME and --since: ok (a stored at $ta, b at $tb)"
