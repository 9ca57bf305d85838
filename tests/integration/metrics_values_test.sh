#!/usr/bin/env bash
# The operator's metrics hold what this test did, over GET /metrics of a running objwired:
# the journal's bytes on disk are the segment files' sizes (du -b), before and after a restart
# and after retention; objects per sender id stay capped at 32 ids plus sender=""; a cursor
# that read part of the journal lags by the rest; connections are counted by role; `objwire
# stats` shows the journal. Then `promtool check metrics` on the live text, and every metric
# the Grafana dashboard and the alert rules name is one the endpoint exposes.
#   metrics_values_test.sh OBJWIRED OBJWIRE DASHBOARD_JSON ALERTS_YML
set -euo pipefail
objwired=$1
objwire=$2
dashboard=$3
alerts=$4
if ! command -v promtool >/dev/null; then
  echo "SKIP: promtool is not installed (Debian package prometheus; scripts/install-deps.sh installs it)"
  exit 77
fi
dir=$(mktemp -d)
daemon="" follower=""
trap '[ -n "$follower" ] && kill "$follower" 2>/dev/null; [ -n "$daemon" ] && kill "$daemon" 2>/dev/null; rm -rf "$dir"' EXIT
source "$(dirname "$0")/daemon_helpers.sh"
data=$dir/data

# start LOG [VAR=VALUE...]: objwired with 64 KiB segments and metrics on a free port; sets
# $daemon, $port and $metrics.
start() {
  local log=$1
  shift
  : >"$log"
  env OBJWIRE_METRICS_LISTEN=127.0.0.1:0 OBJWIRE_JOURNAL_SEGMENT_BYTES=64KiB "$@" \
    "$objwired" --listen 127.0.0.1:0 --data-dir "$data" 2>>"$log" &
  daemon=$!
  port=$(logged_port "$log") || fail "daemon did not log its port"
  metrics=$(logged_metrics_port "$log")
}
stop() { kill -TERM "$daemon"; wait "$daemon" || fail "daemon exited $? on SIGTERM"; daemon=""; }

# scrape: the body of GET /metrics into $dir/body.txt.
scrape() {
  get_metrics "$metrics" "$dir/http.txt"
  sed '1,/^\r\{0,1\}$/d' "$dir/http.txt" >"$dir/body.txt"
}
# value 'NAME' or 'NAME{LABELS}': the sample's value, as an integer when it is one.
value() {
  awk -v want="$1" '$1 == want { v = $2 } END { if (v == "") exit 1; printf "%.0f\n", v }' \
    "$dir/body.txt" || fail "no sample $1 in: $(grep -v '^#' "$dir/body.txt" | head -80)"
}
scraped_value_is() { scrape; [ "$(value "$1")" = "$2" ]; }
du_segments() { du -cb "$data"/journal-*.owj | tail -1 | cut -f1; }
segment_files() { ls "$data"/journal-*.owj | wc -l; }

start "$dir/log1"
t0=$(date +%s)
# One sender id with 20,000 objects, then 40 ids with 2 each: the cap keeps the 32 latest.
awk 'BEGIN { for (i = 0; i < 20000; i++) printf "{\"$type\":\"Line\",\"n\":%d,\"text\":\"line %08d of the metrics test, unique\"}\n", i, i }' \
  >"$dir/big.jsonl"
"$objwire" send "$dir/big.jsonl" --to "127.0.0.1:$port" --sender-id big >/dev/null 2>&1 ||
  fail "send big exited $?"
for i in $(seq 1 40); do
  printf '{"n":1}\n{"n":2}\n' | "$objwire" send - --to "127.0.0.1:$port" --sender-id "s-$i" \
    >/dev/null 2>&1 || fail "send s-$i exited $?"
done
total=20080
wait_until 10 scraped_value_is objwire_objects_in_total "$total" || fail "objects in: $(value objwire_objects_in_total)"

# 1. The journal on disk.
[ "$(value objwire_journal_next_offset)" = "$total" ] || fail "next offset $(value objwire_journal_next_offset)"
[ "$(value objwire_journal_first_offset)" = 0 ] || fail "first offset $(value objwire_journal_first_offset)"
on_disk=$(value objwire_journal_bytes)
[ "$on_disk" = "$(du_segments)" ] || fail "journal bytes $on_disk, du -b says $(du_segments)"
segments=$(value objwire_journal_segments)
[ "$segments" = "$(segment_files)" ] && [ "$segments" -gt 1 ] ||
  fail "segments $segments, files $(segment_files)"
[ "$(value objwire_journal_fsync_duration_seconds_count)" -ge 1 ] || fail "no fsync timed"
grep -q '^objwire_journal_fsync_duration_seconds_bucket{le="0.001"} ' "$dir/body.txt" ||
  fail "no 1 ms fsync bucket"
[ "$(value objwire_journal_filesystem_avail_bytes)" -gt 0 ] || fail "no free space figure"

# 2. Per sender: 32 ids labelled (the latest, s-9 .. s-40), the rest under sender="".
labelled=$(grep -c '^objwire_sender_objects_total{sender="[^"]' "$dir/body.txt" || true)
[ "$labelled" = 32 ] || fail "$labelled sender ids labelled, want 32"
[ "$(value 'objwire_sender_objects_total{sender="s-40"}')" = 2 ] || fail "s-40"
[ "$(value 'objwire_sender_objects_total{sender="s-9"}')" = 2 ] || fail "s-9"
grep -q 'sender="big"' "$dir/body.txt" && fail "big is still labelled past the cap"
[ "$(value 'objwire_sender_objects_total{sender=""}')" = $((20000 + 8 * 2)) ] ||
  fail "sender=\"\" holds $(value 'objwire_sender_objects_total{sender=""}')"
sum=$(awk '/^objwire_sender_objects_total\{/ { s += $2 } END { printf "%.0f", s }' "$dir/body.txt")
[ "$sum" = "$total" ] || fail "per-sender objects sum to $sum, want $total"
seen=$(value 'objwire_sender_last_seen_timestamp_seconds{sender="s-40"}')
[ "$seen" -ge "$t0" ] && [ "$seen" -le $(($(date +%s) + 1)) ] || fail "s-40 last seen $seen (started $t0)"
bytes_s40=$(value 'objwire_sender_bytes_total{sender="s-40"}')
[ "$bytes_s40" -gt 0 ] || fail "s-40 stored no bytes"

# 3. A cursor that read 1,200 objects lags by the rest; a live follower is a reader.
"$objwire" read --to "127.0.0.1:$port" --cursor etl --count 1200 -o "$dir/etl.jsonl" ||
  fail "read --cursor exited $?"
[ "$(wc -l <"$dir/etl.jsonl")" = 1200 ] || fail "read $(wc -l <"$dir/etl.jsonl") objects"
at=$("$objwire" cursor list --to "127.0.0.1:$port" | awk -F'\t' '$1 == "etl" { print $2 }')
[ "$at" = 1200 ] || fail "cursor etl at '$at', want 1200"
scrape
[ "$(value 'objwire_cursor_lag_objects{cursor="etl"}')" = $((total - 1200)) ] ||
  fail "cursor lag $(value 'objwire_cursor_lag_objects{cursor="etl"}')"
[ "$(value objwire_cursors)" = 1 ] || fail "cursors $(value objwire_cursors)"
[ "$(value objwire_reader_lag_max_objects)" = 0 ] || fail "reader lag with no reader open"
"$objwire" read --to "127.0.0.1:$port" --from end --follow -o "$dir/follow.jsonl" 2>"$dir/follow.err" &
follower=$!
wait_until 10 scraped_value_is 'objwire_connections_by_role{role="reader"}' 1 ||
  fail "readers by role: $(grep by_role "$dir/body.txt")"
[ "$(value 'objwire_connections_by_role{role="sender"}')" = 0 ] || fail "a sender still open"
[ "$(value objwire_reader_lag_max_objects)" = 0 ] || fail "a follower at the end lags"
# Each reader has its own series, named by its peer address: the follower alone, at 0.
readers=$(grep -Ec '^objwire_reader_lag_objects\{reader="127\.0\.0\.1:[0-9]+"\} 0$' "$dir/body.txt" || true)
[ "$readers" = 1 ] || fail "per-reader lag: $(grep reader_lag "$dir/body.txt")"
[ "$(value objwire_connections_open)" = 1 ] || fail "connections open $(value objwire_connections_open)"

# 4. promtool on the live text, and the names the dashboard and the rules use.
promtool check metrics <"$dir/body.txt" || fail "promtool check metrics"
python3 - "$dashboard" "$alerts" "$dir/body.txt" <<'EOF' || fail "dashboard or alerts name metrics the endpoint lacks"
import json, re, sys
dashboard, alerts, body = sys.argv[1:4]
families = {line.split()[2] for line in open(body) if line.startswith("# TYPE ")}
exprs = []
def walk(node):
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "expr" and isinstance(v, str): exprs.append(v)
            else: walk(v)
    elif isinstance(node, list):
        for v in node: walk(v)
walk(json.load(open(dashboard)))
n_dashboard = len(exprs)
# The rules file whole: its expressions, and the metrics its descriptions point to.
exprs.append(open(alerts).read())
missing = set()
for e in exprs:
    for name in re.findall(r"\b((?:objwire|process)_[a-z0-9_]+)", e):
        base = re.sub(r"_(bucket|sum|count)$", "", name) if name not in families else name
        if base not in families: missing.add(name)
print(f"{n_dashboard} dashboard expressions and the alert rules checked")
if missing: sys.exit("not exposed: " + " ".join(sorted(missing)))
EOF
kill "$follower"; wait "$follower" || true; follower=""

# 5. After a restart the journal is still on disk, and `objwire stats` says so.
stop
start "$dir/log2"
scrape
[ "$(value objwire_journal_bytes)" = "$on_disk" ] || fail "after restart: journal bytes $(value objwire_journal_bytes), want $on_disk"
[ "$(value objwire_journal_segments)" = "$segments" ] || fail "after restart: segments"
[ "$(value objwire_journal_next_offset)" = "$total" ] || fail "after restart: next offset"
[ "$(value 'objwire_cursor_lag_objects{cursor="etl"}')" = $((total - 1200)) ] || fail "after restart: cursor lag"
"$objwire" stats --to "127.0.0.1:$port" >"$dir/stats.txt" || fail "stats exited $?"
grep -Eq "^  on disk +[0-9.]+ (KiB|MiB) in $segments segments$" "$dir/stats.txt" ||
  fail "stats on disk: $(cat "$dir/stats.txt")"
grep -Eq "^  offsets +0 \.\. 20,080 \(20,080 objects\)$" "$dir/stats.txt" || fail "stats offsets: $(cat "$dir/stats.txt")"
"$objwire" stats --to "127.0.0.1:$port" --json >"$dir/stats.json" || fail "stats --json exited $?"
grep -q "\"objwire_journal_bytes\":$on_disk[,}]" "$dir/stats.json" || fail "json: $(cat "$dir/stats.json")"
stop

# 6. Retention: what it deletes is counted, and the bytes on disk are still the files'.
start "$dir/log3" OBJWIRE_JOURNAL_RETENTION_BYTES=192KiB
# A new sender id: under the old one the same input is a rerun, and nothing new is stored.
"$objwire" send "$dir/big.jsonl" --to "127.0.0.1:$port" --sender-id big-2 >/dev/null 2>&1 ||
  fail "send big-2 exited $?"
# Retention runs on the journal's thread after each new segment: wait until it has deleted
# some and the files are what the metrics say (a file goes just before its count does).
retention_done() {
  scrape
  [ "$(value objwire_journal_retention_deleted_segments_total)" -gt 0 ] &&
    [ "$(value objwire_journal_bytes)" = "$(du_segments)" ]
}
wait_until 10 retention_done ||
  fail "retention: $(value objwire_journal_bytes) bytes, du $(du_segments): $(grep retention "$dir/log3")"
written=$(value 'objwire_sink_bytes_total{sink="journal"}')
deleted=$(value objwire_journal_retention_deleted_bytes_total)
[ $((on_disk + written - deleted)) = "$(value objwire_journal_bytes)" ] ||
  fail "before $on_disk + written $written - deleted $deleted != $(value objwire_journal_bytes)"
[ "$(value objwire_journal_first_offset)" -gt 0 ] || fail "first offset did not move"
stop
echo "metrics_values: ok"
