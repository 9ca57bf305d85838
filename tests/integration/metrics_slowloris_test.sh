#!/usr/bin/env bash
# The metrics endpoint serves scrapes while slow or idle connections hold every slot
# (docs/SECURITY.md, "Metrics endpoint"): 16 attackers (metrics_http::max_clients) each open a
# connection, send part of a request line and nothing more, and open another as soon as theirs
# is closed; meanwhile at least 45 of 48 scrapes are answered 200 with the Prometheus text.
# /healthz answers 200 and /readyz 200 on a daemon that listens with its journal open.
# Usage: metrics_slowloris_test.sh OBJWIRED
set -euo pipefail
objwired=$1
dir=$(mktemp -d)
daemon=""
attackers=()
cleanup() {
  touch "$dir/stop"
  for a in "${attackers[@]}"; do kill "$a" 2>/dev/null || true; done
  [ -n "$daemon" ] && kill "$daemon" 2>/dev/null
  wait 2>/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT
source "$(dirname "$0")/daemon_helpers.sh"

printf '[metrics]\nlisten = "127.0.0.1:0"\n' >"$dir/objwired.toml"
start_daemon "$dir/log" "$dir/data" -c "$dir/objwired.toml"
metrics=$(logged_metrics_port "$dir/log")

# attack SLOT: holds a connection that never finishes its request line and reconnects as soon
# as the daemon closes it, until $dir/stop or 120 s have passed.
attack() {
  local slot=$1 end=$((SECONDS + 120))
  while [ ! -e "$dir/stop" ] && [ "$SECONDS" -lt "$end" ]; do
    if exec 3<>"/dev/tcp/127.0.0.1/$metrics"; then
      printf 'GET /met' >&3 || true
      touch "$dir/attacker.$slot"
      timeout 30 cat <&3 >/dev/null || true
      exec 3<&-
    fi
  done
}
for slot in $(seq 1 16); do
  attack "$slot" 2>/dev/null &
  attackers+=($!)
done
all_attacking() { [ "$(ls "$dir" | grep -c '^attacker\.')" -eq 16 ]; }
wait_until 10 all_attacking || fail "the 16 attackers did not connect"

answered=0
for i in $(seq 1 48); do
  code=$(curl -s -m 3 -o "$dir/scrape" -w '%{http_code}' "http://127.0.0.1:$metrics/metrics" || true)
  if [ "$code" = 200 ] && grep -q '^# TYPE objwire_objects_in_total counter' "$dir/scrape"; then
    answered=$((answered + 1))
  fi
done
echo "$answered of 48 scrapes answered under 16 slow connections"
[ "$answered" -ge 45 ] || fail "only $answered of 48 scrapes answered"

health=$(curl -s -m 3 -o "$dir/health" -w '%{http_code}' "http://127.0.0.1:$metrics/healthz" || true)
[ "$health" = 200 ] || fail "/healthz answered '$health'"
ready=$(curl -s -m 3 -o "$dir/ready" -w '%{http_code}' "http://127.0.0.1:$metrics/readyz" || true)
[ "$ready" = 200 ] || fail "/readyz answered '$ready': $(cat "$dir/ready")"
echo PASS
