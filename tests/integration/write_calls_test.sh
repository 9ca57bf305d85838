#!/usr/bin/env bash
# Counts the write system calls `objwire bench` really makes, with strace: sending 100,000
# `person` objects must take no more than (wire bytes / 16 KiB) + 50 of them, and the
# client's own write_calls counter must agree with the kernel's count. Skipped (77) without strace.
set -euo pipefail
objwired=$1
objwire=$2
command -v strace >/dev/null || { echo "SKIP: strace is not installed"; exit 77; }
dir=$(mktemp -d)
trap 'kill $daemon 2>/dev/null || true; rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$(dirname "$0")/../support/wait_until.sh"

"$objwired" --listen 127.0.0.1:0 --data-dir "$dir/data" 2>"$dir/log" &
daemon=$!
port=$(logged_port "$dir/log") || fail "daemon did not log its port"

strace -f -qq -e trace=write,writev,sendmsg,sendto,pwrite64 -o "$dir/trace" \
  "$objwire" bench --workload person -n 100000 --to "127.0.0.1:$port" --json >"$dir/bench.json" \
  || fail "bench exited $?"
# Every write-family call on the connection's socket (the fd of its first sendto/sendmsg); not
# stdout, and not asio's internal eventfd wake-ups.
fd=$(grep -oE '(sendto|sendmsg)\([0-9]+' "$dir/trace" | head -1 | grep -oE '[0-9]+$' || true)
[ -n "$fd" ] || fail "no socket writes traced: $(head -5 "$dir/trace")"
calls=$(grep -cE "^[0-9]+ +(write|writev|sendto|sendmsg|pwrite64)\($fd," "$dir/trace" || true)
field() { grep -o "\"$1\":[0-9]*" "$dir/bench.json" | cut -d: -f2; }
wire=$(field wire_bytes)
counted=$(field write_calls)
bound=$(( wire / 16384 + 50 ))
echo "write system calls: $calls (client counted $counted) for $wire wire bytes; bound $bound"
[ "$(field acked_objects)" -eq 100000 ] || fail "not every object acknowledged: $(cat "$dir/bench.json")"
[ "$calls" -le "$bound" ] || fail "$calls write calls, more than $bound"
[ "$calls" -eq "$counted" ] || fail "strace saw $calls write calls, the client counted $counted"
