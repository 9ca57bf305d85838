#!/usr/bin/env bash
# `objwire stats` (text and --json) and GET /metrics against objwired run as a user runs it.
set -euo pipefail
objwired=$1
objwire=$2
dir=$(mktemp -d)
trap 'kill $daemon 2>/dev/null || true; rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; echo "--- daemon log:" >&2; cat "$dir/log" >&2; exit 1; }
source "$(dirname "$0")/../support/wait_until.sh"

OBJWIRE_METRICS_LISTEN=127.0.0.1:0 "$objwired" --listen 127.0.0.1:0 --data-dir "$dir/data" 2>"$dir/log" &
daemon=$!
port="" metrics=""
# ports_logged: sets $port and $metrics from the log; whether both are there.
ports_logged() {
  port=$(grep -o 'listening on 127.0.0.1:[0-9]*' "$dir/log" | cut -d: -f2 || true)
  metrics=$(grep -o 'metrics on http://127.0.0.1:[0-9]*' "$dir/log" | cut -d: -f3 || true)
  [ -n "$port" ] && [ -n "$metrics" ]
}
wait_until 10 ports_logged || fail "daemon did not log its ports"

"$objwire" bench --workload person -n 1000 --to "127.0.0.1:$port" >/dev/null 2>&1 || fail "bench exited $?"

# The --help example, with this daemon's port.
example=$("$objwire" stats --help | sed -n '/^Example:/{n;p}' | sed 's/^ *//')
[ "$example" = "objwire stats --to 127.0.0.1:7878" ] || fail "stats --help example: '$example'"
"$objwire" stats --to "127.0.0.1:$port" >"$dir/stats.txt" || fail "stats exited $?"
grep -q "^Connections" "$dir/stats.txt" || fail "no Connections group: $(cat "$dir/stats.txt")"
grep -Eq "^  objects in +1,000$" "$dir/stats.txt" || fail "objects in: $(cat "$dir/stats.txt")"
grep -Eq "^  acks sent +[1-9]" "$dir/stats.txt" || fail "acks: $(cat "$dir/stats.txt")"
grep -Eq "^  journal written +[0-9.]+ (B|KiB|MiB)$" "$dir/stats.txt" || fail "journal written: $(cat "$dir/stats.txt")"
grep -Eq "^  on disk +[0-9.]+ (B|KiB|MiB) in 1 segment$" "$dir/stats.txt" || fail "journal on disk: $(cat "$dir/stats.txt")"

"$objwire" stats --to "127.0.0.1:$port" --json >"$dir/stats.json" || fail "stats --json exited $?"
grep -q '"objwire_objects_in_total":1000[,}]' "$dir/stats.json" || fail "json: $(cat "$dir/stats.json")"
grep -q '"objwire_sink_bytes_total":\[{"labels":{"sink":"journal"},"value":[1-9]' "$dir/stats.json" ||
  fail "json sink: $(cat "$dir/stats.json")"
grep -q '"objwire_ack_latency_seconds_bucket":\[{"labels":{"le":"' "$dir/stats.json" ||
  fail "json histogram: $(cat "$dir/stats.json")"
# Labelled metrics keep their label names (docs/CLI.md, "stats"), and the whole is JSON.
python3 - "$dir/stats.json" <<'EOF' || fail "json labels: $(cat "$dir/stats.json")"
import json, sys
stats = json.load(open(sys.argv[1]))
info = stats["objwire_build_info"]
assert len(info) == 1 and info[0]["value"] == 1, info
assert set(info[0]["labels"]) == {"version", "protocol"}, info
assert info[0]["labels"]["protocol"] == "1", info
roles = {s["labels"]["role"]: s["value"] for s in stats["objwire_connections_by_role"]}
assert roles["stats"] == 1 and roles["sender"] == 0, roles
assert stats["objwire_objects_in_total"] == 1000, stats["objwire_objects_in_total"]
EOF

# Prometheus over HTTP, with bash's /dev/tcp.
exec 3<>"/dev/tcp/127.0.0.1/$metrics"
printf 'GET /metrics HTTP/1.0\r\n\r\n' >&3
timeout 10 cat <&3 >"$dir/http.txt" || true
exec 3<&-
head -1 "$dir/http.txt" | grep -q "^HTTP/1.0 200 OK" || fail "http: $(head -3 "$dir/http.txt")"
grep -q "^objwire_objects_in_total 1000" "$dir/http.txt" || fail "http body: $(cat "$dir/http.txt")"

# Nothing listening: exit 2 with the reason.
rc=0
"$objwire" stats --to 127.0.0.1:1 2>"$dir/err" || rc=$?
[ "$rc" -eq 2 ] || fail "stats to a closed port exited $rc, want 2"
grep -q "cannot connect" "$dir/err" || fail "stats error: $(cat "$dir/err")"

kill -TERM $daemon
wait $daemon || fail "daemon exited $? on SIGTERM"
echo "stats_end_to_end: ok"
