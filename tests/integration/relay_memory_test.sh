#!/usr/bin/env bash
# A relay holds what its credit says, in memory (docs/SECURITY.md, "Promises held against any
# peer"):
# - a relay (sink.kind = "forward", limits.max_buffered_bytes = 16 MiB) whose next hop, a real
#   objwired, is stopped (SIGSTOP) takes frames of one-byte null messages from relay_flood (a raw
#   sender written from docs/PROTOCOL.md) until what it holds decoded reaches its cap, then stops
#   reading;
# - once the hop runs again (SIGCONT) every object is forwarded and acknowledged, and the hop
#   stores them all, each a null;
# - the relay's peak RSS over the whole run (VmHWM) stays within 32 MB + the documented
#   per-connection bound;
# - a frame whose messages alone take more memory than the cap is refused, the error naming
#   limits.max_buffered_bytes.
# Usage: relay_memory_test.sh OBJWIRED OBJWIRE RELAY_FLOOD SANITIZED(0|1)
# Under sanitizers (ASan inflates memory) the RSS bound is skipped; the rest still runs.
set -euo pipefail
objwired=$1
objwire=$2
flood=$3
sanitized=${4:-0}
dir=$(mktemp -d)
daemon=""
hop_pid=""
flood_pid=""
cleanup() {
  [ -n "$hop_pid" ] && kill -CONT "$hop_pid" 2>/dev/null
  for p in $flood_pid $daemon $hop_pid; do kill "$p" 2>/dev/null || true; done
  rm -rf "$dir"
}
trap cleanup EXIT
source "$(dirname "$0")/daemon_helpers.sh"

mib=1048576
cap=$((16 * mib))
frames=1100 # 1100 x (16,384 + 24) bytes: 17.2 MiB on the wire, past the cap however it counts
nulls=16384
cat >"$dir/hop.toml" <<TOML
[metrics]
listen = ""
TOML
cat >"$dir/relay.toml" <<TOML
[server]
log_level = "debug"
[limits]
max_buffered_bytes = "16MiB"
[metrics]
listen = ""
TOML
kib_of() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }

start_daemon "$dir/log.hop" "$dir/hop" --config "$dir/hop.toml"
hop=$port
hop_pid=$daemon
OBJWIRE_SINK_KIND=forward OBJWIRE_FORWARD_TO="127.0.0.1:$hop" \
  start_daemon "$dir/log.relay" "$dir/relay" --config "$dir/relay.toml"
relay=$daemon

"$flood" "$port" "$hop_pid" "$frames" "$nulls" >"$dir/flood.out" 2>&1 &
flood_pid=$!
wait_for_log "$dir/flood.out" "hop stopped" 30 || fail "the flood did not start: $(cat "$dir/flood.out")"
# The relay stops reading once what it holds reaches the cap; with the hop stopped nothing is
# released, so from then on it takes no more.
wait_for_log "$dir/log.relay" "reading paused" 60 || fail "the relay never paused reading"
grep -m1 "reading paused" "$dir/log.relay"
echo "relay peak RSS $(kib_of "$relay" VmHWM) KiB once it paused with the hop stopped"

kill -CONT "$hop_pid"
wait_until 120 grep -q "^ok\|^error" "$dir/flood.out" || fail "the flood never finished"
grep -q "^ok $((frames + 1))$" "$dir/flood.out" || fail "not every frame acknowledged: $(cat "$dir/flood.out")"
wait "$flood_pid" || fail "relay_flood failed: $(cat "$dir/flood.out")"
flood_pid=""

# Every object reached the hop, and each is a null.
want=$((10 + frames * nulls))
counts=$("$objwire" read --to "127.0.0.1:$hop" | awk '$0 == "null" { n++ } END { print n + 0, NR }')
echo "hop stored (null, all): $counts; sent $want"
[ "$counts" = "$want $want" ] || fail "the hop stored $counts objects (null, all), want $want"

# The peak over the whole run: the pause, then the drain once the hop runs again. The
# per-connection bound (docs/OPERATIONS.md, "Back-pressure and credit"): twice the cap (what is
# held before a read, and the frame a read completes) and 448 KiB (what one read past it
# decodes to, 4 KiB of nulls), plus the read buffer (limits.read_buffer, 256 KiB) and the connection to the hop
# (its reference table, the hop's limits.table_budget of 4 MiB, and its read buffer).
hwm_kb=$(kib_of "$relay" VmHWM)
bound_kb=$(((32000000 + 2 * cap + 448 * 1024 + 256 * 1024 + 4 * mib + 256 * 1024) / 1024))
echo "relay peak RSS ${hwm_kb} KiB over the whole run (bound ${bound_kb} KiB)"
if [ "$sanitized" != 1 ]; then
  [ "$hwm_kb" -le "$bound_kb" ] || fail "relay peak RSS $hwm_kb KiB over the bound $bound_kb KiB"
fi
kill "$relay"
wait "$relay" || true

# A relay with a 1 MiB cap: one frame of 20,000 nulls takes about 2.2 MB decoded.
sed -i 's/max_buffered_bytes = "16MiB"/max_buffered_bytes = "1MiB"/' "$dir/relay.toml"
OBJWIRE_SINK_KIND=forward OBJWIRE_FORWARD_TO="127.0.0.1:$hop" \
  start_daemon "$dir/log.relay2" "$dir/relay2" --config "$dir/relay.toml"
"$flood" "$port" 0 1 20000 >"$dir/refused.out" 2>&1 || true
echo "a frame over the cap: $(cat "$dir/refused.out")"
grep -q "^error .*over limits.max_buffered_bytes (1048576 bytes)" "$dir/refused.out" ||
  fail "the frame over the cap was not refused naming the key: $(cat "$dir/refused.out")"
echo PASS
