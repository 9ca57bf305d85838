#!/usr/bin/env bash
# `objwire senders`: the streams a daemon holds - per sender id its objects, first and last
# offset and last stored time - as a table and as JSON lines, against streams sent
# interleaved (two ids and one `send` made up itself); the times agree with what `read
# --format %T` prints; a daemon that cannot read back (a jsonl sink) and no daemon at all are
# exit 2.
#
#   tests/integration/senders_test.sh OBJWIRED OBJWIRE
set -euo pipefail
objwired=$1
objwire=$2
dir=$(mktemp -d)
trap 'kill ${journal_daemon:-} ${jsonl_daemon:-} 2>/dev/null || true; rm -rf "$dir"' EXIT
source "$(dirname "$0")/daemon_helpers.sh"

start_daemon "$dir/log" "$dir/data"
journal_daemon=$daemon
to="127.0.0.1:$port"

# Offsets: app-a 0..4, app-b 5..7, an id `send` makes up (objwire-<hex>) 8..9, app-a again
# 10..11 (a rerun of its stream, now 7 lines long, sends the 2 not stored yet).
send() {
  local id=$1 n=$2
  shift 2
  seq "$n" | sed 's/.*/{"n":&}/' | "$objwire" send - --to "$to" "$@" 2>"$dir/err" ||
    fail "send $id: $(cat "$dir/err")"
}
send app-a 5 --sender-id app-a
send app-b 3 --sender-id app-b
send made-up 2
send app-a 7 --sender-id app-a

"$objwire" senders --to "$to" >"$dir/table" 2>"$dir/err" || fail "senders: exit $?: $(cat "$dir/err")"
grep -qx "objwire: 3 senders, 12 objects held" "$dir/err" || fail "summary: $(cat "$dir/err")"
head -n 1 "$dir/table" | grep -Eq '^SENDER +OBJECTS +FIRST +LAST +LAST STORED$' ||
  fail "header: $(head -n 1 "$dir/table")"
# row PATTERN WANT: the first four columns (ID OBJECTS FIRST LAST) of the row whose id matches
# the awk PATTERN, a made-up id shown as objwire-X.
row() {
  local pattern=$1 got
  shift
  got=$(awk -v id="^$pattern\$" '$1 ~ id { print $1, $2, $3, $4 }' "$dir/table" |
    sed 's/^objwire-[0-9a-f]*/objwire-X/')
  [ "$got" = "$*" ] || fail "row for $pattern: '$got', want '$*'; the table:
$(cat "$dir/table")"
}
row "objwire-[0-9a-f]+" objwire-X 2 8 9
row app-a app-a 7 0 11
row app-b app-b 3 5 7
[ "$(wc -l <"$dir/table")" -eq 4 ] || fail "table: $(cat "$dir/table")"

# JSON lines: the same, and the last stored time is the newest %T of the id's objects.
"$objwire" senders --to "$to" --json >"$dir/json" 2>/dev/null || fail "senders --json: exit $?"
for id in app-a app-b; do
  "$objwire" read --to "$to" --sender "$id" --format '%T' >"$dir/times" 2>/dev/null ||
    fail "read --sender $id"
  want=$(sort -n "$dir/times" | tail -n 1)
  python3 - "$dir/json" "$id" "$want" <<'PY' || fail "--json for $id: $(cat "$dir/json")"
import json, sys, datetime
rows = [json.loads(line) for line in open(sys.argv[1])]
assert [r["sender"][:8] for r in rows] == ["app-a", "app-b", "objwire-"], rows
r = next(r for r in rows if r["sender"] == sys.argv[2])
assert r["last_time_ms"] == int(sys.argv[3]), (r, sys.argv[3])
iso = datetime.datetime.fromtimestamp(r["last_time_ms"] / 1000, datetime.timezone.utc)
assert r["last_time"] == iso.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (r["last_time_ms"] % 1000), r
PY
done
python3 - "$dir/json" <<'PY' || fail "--json: $(cat "$dir/json")"
import json, sys
rows = {r["sender"][:8]: r for r in map(json.loads, open(sys.argv[1]))}
want = {"objwire-": (2, 8, 9), "app-a": (7, 0, 11), "app-b": (3, 5, 7)}
got = {k: (r["objects"], r["first_offset"], r["last_offset"]) for k, r in rows.items()}
assert got == want, got
PY

# A daemon that stores JSON lines cannot list what it holds: refused, exit 2, saying why.
OBJWIRE_SINK_KIND=jsonl start_daemon "$dir/log-jsonl" "$dir/data-jsonl"
jsonl_daemon=$daemon
rc=0
"$objwire" senders --to "127.0.0.1:$port" >/dev/null 2>"$dir/err" || rc=$?
[ "$rc" -eq 2 ] || fail "senders of a jsonl sink exited $rc, not 2"
grep -q 'sink.kind = "journal"' "$dir/err" || fail "jsonl sink: $(cat "$dir/err")"
kill "$jsonl_daemon"
wait "$jsonl_daemon" 2>/dev/null || true
rc=0
"$objwire" senders --to "127.0.0.1:$port" >/dev/null 2>"$dir/err" || rc=$?
[ "$rc" -eq 2 ] || fail "senders with no daemon exited $rc, not 2"
echo "objwire senders: ok ($(tail -n +2 "$dir/table" | tr -s ' ' | tr '\n' ';'))"
