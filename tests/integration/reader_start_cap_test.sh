#!/usr/bin/env bash
# The cap on readers' starts that search the journal (docs/PROTOCOL.md 1.2,
# limits.max_reader_starts_per_address = 1 here): while one start holds the address's slot,
# the next start from that address is refused with too_many_connections naming the key and
# counted in objwire_reader_starts_refused_total; once the first peer has gone, a start
# succeeds (reader_start_cap.py does the connections). The start that holds its slot is a walk
# of the journal - a reader that may read only app-* asking for its last 5 objects - over
# 3,000,000 objects of another sender.
set -euo pipefail
objwired=$1
objwire=$2
dir=$(mktemp -d)
daemon=""
trap '[ -n "$daemon" ] && kill $daemon 2>/dev/null; rm -rf "$dir"' EXIT
source "$(dirname "$0")/daemon_helpers.sh"
command -v python3 >/dev/null || { echo "no python3"; exit 77; }

# The journal first, without users: the reader's objects, then many of another sender.
OBJWIRE_METRICS_LISTEN="" start_daemon "$dir/log0" "$dir/data"
printf '{"$type":"Event","i":%d}\n' 1 2 3 4 5 6 >"$dir/app.jsonl"
"$objwire" send "$dir/app.jsonl" --sender-id app-1 --to "127.0.0.1:$port" 2>/dev/null ||
  fail "send app-1"
"$objwire" bench --workload events -n 3000000 --to "127.0.0.1:$port" >/dev/null 2>&1 ||
  fail "bench -n 3000000"
kill -TERM "$daemon"
wait "$daemon" || fail "the first daemon did not stop cleanly"
daemon=""

printf 'the reader token, long enough\n' >"$dir/reader.token"
chmod 600 "$dir/reader.token"
cat >"$dir/objwired.toml" <<TOML
[limits]
max_reader_starts_per_address = 1

[[auth.users]]
name = "reader"
token_file = "$dir/reader.token"
read = ["app-*"]
TOML
OBJWIRE_METRICS_LISTEN=127.0.0.1:0 start_daemon "$dir/log" "$dir/data" --config "$dir/objwired.toml"
mport=$(logged_metrics_port "$dir/log")

python3 "$(dirname "$0")/reader_start_cap.py" "$objwire" "$port" "$mport" "$dir/reader.token" \
  >"$dir/out" 2>&1 || fail "$(cat "$dir/out")"
refusals=$(tail -1 "$dir/out")
get_metrics "$mport" "$dir/metrics"
grep -qxF "objwire_reader_starts_refused_total $refusals" "$dir/metrics" ||
  fail "$refusals refusals seen, the counter says: $(grep reader_starts "$dir/metrics")"
grep -qxF "objwire_reader_starts_running 0" "$dir/metrics" ||
  fail "starts still running: $(grep reader_starts "$dir/metrics")"
echo "reader start cap: $refusals refused while a walk held the slot, then admitted: ok"
