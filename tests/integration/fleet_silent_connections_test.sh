#!/usr/bin/env bash
# 2,000 connections that never send a byte against objwired started with `ulimit -n 512`, all
# from 127.0.0.1 (tests/integration/silent_connections.py); while they are held, a normal
# `objwire send` of 100 objects must complete within 2 s (its deadline, `timeout 2`) and the
# 100 objects read back. Before, the silent connections held every descriptor until their
# handshake timeout and a send waited 17.3 s.
set -euo pipefail
real_objwired=$1
objwire=$2
dir=$(mktemp -d)
daemon=
flood=
trap 'exec 3>&- 2>/dev/null || true; [ -n "$flood" ] && kill $flood 2>/dev/null;
      [ -n "$daemon" ] && kill $daemon 2>/dev/null; rm -rf "$dir"' EXIT
source "$(dirname "$0")/daemon_helpers.sh"

silent=2000
hard=$(ulimit -Hn)
[ "$hard" = unlimited ] || [ "$hard" -ge $((silent + 128)) ] ||
  fail "the hard descriptor limit ($hard, ulimit -Hn) is below the $((silent + 128)) this test needs"

# objwired under `ulimit -n 512` (soft and hard: it may not raise it), with a handshake timeout
# longer than the test, so that only shedding can free the silent connections' descriptors.
cat >"$dir/objwired512" <<SCRIPT
#!/usr/bin/env bash
ulimit -n 512
exec "$real_objwired" "\$@"
SCRIPT
chmod +x "$dir/objwired512"
objwired=$dir/objwired512
OBJWIRE_LIMITS_HANDSHAKE_TIMEOUT=5m OBJWIRE_METRICS_LISTEN= start_daemon "$dir/log" "$dir/data"
to="127.0.0.1:$port"
grep -q "^Max open files *512 *512" "/proc/$daemon/limits" || fail "objwired runs with $(grep 'open files' "/proc/$daemon/limits")"

"$objwire" gen --workload events -n 100 -o "$dir/events.jsonl"

mkfifo "$dir/hold"
python3 "$(dirname "$0")/silent_connections.py" "$port" $silent <"$dir/hold" >"$dir/flood.out" 2>&1 &
flood=$!
exec 3>"$dir/hold"
wait_for_log "$dir/flood.out" "open $silent" 60 || fail "the silent connections: $(cat "$dir/flood.out")"

start=$(now_ms)
timeout 2 "$objwire" send -q "$dir/events.jsonl" --to "$to" --sender-id honest 2>"$dir/send.err" ||
  fail "send under 2,000 silent connections exited $? after $(($(now_ms) - start)) ms: $(cat "$dir/send.err")"
echo "send of 100 objects under $silent silent connections, 512 descriptors: $(($(now_ms) - start)) ms"

"$objwire" read -q --to "$to" --sender honest -o "$dir/back.jsonl" 2>"$dir/read.err" ||
  fail "read exited $?: $(cat "$dir/read.err")"
[ "$(wc -l <"$dir/back.jsonl")" -eq 100 ] || fail "read back $(wc -l <"$dir/back.jsonl") objects, want 100"
grep -q "(limits.max_pending_hellos_per_address = 128)" "$dir/log" || fail "no silent connection was shed"
! grep -q "accept failed" "$dir/log" || fail "the descriptors ran out"

exec 3>&-
wait_for_log "$dir/flood.out" "closed" 30 || fail "the silent connections were not closed"
wait "$flood" || fail "silent_connections.py exited $?"
flood=
