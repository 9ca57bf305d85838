#!/usr/bin/env bash
# What a reader costs objwired, with objwired as its own process and raw readers
# (stalled_readers.cpp) that say hello and never read (docs/PROTOCOL.md 1.2, "Memory" and
# "Slow readers"; docs/SECURITY.md):
# - memory: a journal of blocks up to 1 MiB, 200 readers from offset 0 that never read; once
#   all 200 are stalled (objwire_readers_stalled) and no object goes out, objwired's RSS growth
#   per reader is within the documented bound: 256 KiB + the largest block (the batch) +
#   128 KiB for the connection (its session, coroutines, what malloc keeps between trims),
#   and exceeds what readers hold (objwire_readers_held_bytes) by at most that 128 KiB: the
#   gauge accounts for everything that grows with the data. The gauge is at least a batch per
#   reader, and 0 once they are gone. Checked twice on fresh daemons: quiet with a 4 KiB
#   receive buffer, and with the kernel's own buffer and busy loops on every core and one more
#   (the scheduling that once let readers hold more; each loop ends by itself within 150 s
#   and is killed on exit);
# - slow consumer: with limits.idle_timeout = 1s, a reader that takes no bytes while a batch
#   waits is closed with a log line naming the key and counted in
#   objwire_readers_slow_closed_total, while a follower waiting at the live end (nothing to
#   send) that connected earlier stays;
# - the per-address cap: a refusal says which roles hold the address's slots.
# Under sanitizers (ASan inflates memory) the RSS bound is not checked; the rest still runs.
# With READER_COST_ROUNDS=N it checks only the memory bound, on N fresh daemons under busy
# loops (READER_COST_BUSY, default one per core and one more), half of them with readers'
# 4 KiB receive buffers and half with the kernel's, and prints each figure and the largest
# (scripts/reader-memory-rounds.sh).
#
#   reader_cost_test.sh OBJWIRED OBJWIRE STALLED_READERS [SANITIZED(0|1)]
set -euo pipefail
objwired=$1
objwire=$2
stalled=$3
sanitized=${4:-0}
dir=$(mktemp -d)
daemon=""
holder=""
busy=()
stop_busy() {
  [ "${#busy[@]}" = 0 ] && return 0
  kill "${busy[@]}" 2>/dev/null || true
  wait "${busy[@]}" 2>/dev/null || true
  busy=()
}
cleanup() {
  exec 3>&- 4>&- 2>/dev/null || true
  stop_busy
  [ -n "$holder" ] && kill "$holder" 2>/dev/null
  [ -n "$daemon" ] && kill "$daemon" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
source "$(dirname "$0")/daemon_helpers.sh"

kib=1024
readers=200
block_bytes=$((1024 * kib))
connection_bytes=$((128 * kib))

kib_of() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }
stats() { "$objwire" stats --json --to "127.0.0.1:$port"; }
# metric NAME: its value in one stats answer ($m).
metric() { echo "$m" | grep -o "\"$1\":[0-9.e+]*" | cut -d: -f2; }

stop_daemon() {
  kill "$daemon"
  wait "$daemon" || true
  daemon=""
}

# --- Memory: 200 stalled readers of a journal of 1 MiB blocks, quiet and with busy loops ---
cat >"$dir/objwired.toml" <<TOML
[limits]
max_connections_per_address = 300
[journal]
fsync = "never"
[metrics]
listen = ""
TOML
start_daemon "$dir/log" "$dir/data" --config "$dir/objwired.toml"
# A linger of 1 s: each batch closes at 1 MiB, not when a slow (sanitized) encoder took 5 ms.
OBJWIRE_BATCH_MAX_BYTES=1MiB OBJWIRE_BATCH_LINGER=1s "$objwire" bench --workload blobs -n 2000 --compression never \
  --to "127.0.0.1:$port" >"$dir/bench.out" 2>&1 || fail "bench: $(cat "$dir/bench.out")"
stop_daemon
# A block holds what one read of the session brought: a 1 MiB frame, or on a busy machine
# several, so the bound is taken from the journal as written.
"$objwired" --data-dir "$dir/data" --verify-journal >"$dir/verify.out" 2>&1 ||
  fail "verify-journal: $(cat "$dir/verify.out")"
largest_block=$(grep -o 'the largest [0-9]* bytes' "$dir/verify.out" | cut -d' ' -f3)
[ -n "$largest_block" ] || fail "verify-journal names no largest block: $(cat "$dir/verify.out")"
# A batch closes at 1 MiB of frames: its block is about that, a little less or more.
[ "$largest_block" -ge $((block_bytes * 3 / 4)) ] ||
  fail "blocks up to $largest_block bytes: the journal should hold blocks of about 1 MiB"
bound_bytes=$((256 * kib + largest_block + connection_bytes))

# Served and stalled: every reader has a batch waiting for its peer, and no object goes out
# between two answers.
last_out=-1
all_stalled() {
  m=$(stats) || return 1
  local writing out
  writing=$(metric objwire_readers_stalled)
  out=$(metric objwire_objects_out_total)
  [ "$writing" = "$readers" ] && [ "$out" = "$last_out" ] && return 0
  last_out=$out
  return 1
}
# start_busy N [SECONDS]: N busy loops, each ending by itself after SECONDS (150) should the
# trap not run.
start_busy() {
  local i
  for ((i = 0; i < $1; i++)); do
    timeout "${2:-150}" sh -c 'while :; do :; done' &
    busy+=($!)
  done
}
# stalled_memory LABEL RCVBUF: a fresh daemon on the journal, 200 readers stalled with that
# receive buffer (0: the kernel's), its RSS growth and what the readers hold checked against
# the bound.
stalled_memory() {
  start_daemon "$dir/log" "$dir/data" --config "$dir/objwired.toml"
  local before_kb after_kb per_reader held per_held rcvbuf_text="$2 bytes"
  [ "$2" != 0 ] || rcvbuf_text="the kernel's"
  before_kb=$(kib_of "$daemon" VmRSS)
  hold_stalled "$readers" from-start "$2"
  last_out=-1
  wait_until 60 all_stalled || fail "$1: not all $readers readers stalled: $m"
  after_kb=$(kib_of "$daemon" VmRSS)
  held=$(metric objwire_readers_held_bytes)
  per_reader=$(((after_kb - before_kb) * kib / readers))
  per_held=$((held / readers))
  echo "stalled readers ($1): RSS ${before_kb} KiB before, ${after_kb} KiB with $readers" \
    "readers: $((per_reader / kib)) KiB per reader, of it held by batches and read-aheads" \
    "$((per_held / kib)) KiB (bound $((bound_bytes / kib)) KiB, blocks up to" \
    "$((largest_block / kib)) KiB, receive buffer $rcvbuf_text)"
  # Every stalled reader holds a full batch.
  [ "$per_held" -ge $((256 * kib)) ] || fail "$1: readers hold $per_held bytes each, under a batch"
  if [ "$sanitized" != 1 ]; then
    [ "$per_reader" -le "$bound_bytes" ] ||
      fail "$1: a stalled reader holds $((per_reader / kib)) KiB, over the bound $((bound_bytes / kib)) KiB"
    [ $((per_reader - per_held)) -le "$connection_bytes" ] ||
      fail "$1: a stalled reader costs $(((per_reader - per_held) / kib)) KiB more than" \
        "objwire_readers_held_bytes counts, over the connection's $((connection_bytes / kib)) KiB"
  fi
  largest_per_reader=$((per_reader > largest_per_reader ? per_reader : largest_per_reader))
  release_stalled
  wait_until 30 sh -c "\"$objwire\" stats --json --to 127.0.0.1:$port | grep -q '\"objwire_readers_open\":0[,}]'" ||
    fail "$1: the readers did not end after their peers closed"
  m=$(stats)
  [ "$(metric objwire_readers_held_bytes)" = 0 ] || fail "$1: gone readers still held: $m"
  stop_daemon
}
largest_per_reader=0
if [ -n "${READER_COST_ROUNDS:-}" ]; then
  start_busy "${READER_COST_BUSY:-$(($(nproc) + 1))}" $((60 * READER_COST_ROUNDS + 150))
  for ((round = 1; round <= READER_COST_ROUNDS; round++)); do
    stalled_memory "round $round" $((round % 2 ? 4096 : 0))
  done
  stop_busy
  echo "largest: $((largest_per_reader / kib)) KiB per reader in $READER_COST_ROUNDS daemons" \
    "(bound $((bound_bytes / kib)) KiB)"
  exit 0
fi
stalled_memory quiet 4096
start_busy $(($(nproc) + 1))
stalled_memory busy 0
stop_busy

# --- Slow consumer: closed after limits.idle_timeout; a follower at the live end is not ---
cat >"$dir/slow.toml" <<TOML
[limits]
idle_timeout = "1s"
[journal]
fsync = "never"
[metrics]
listen = ""
TOML
start_daemon "$dir/log.slow" "$dir/data" --config "$dir/slow.toml"
# The follower first: it has waited longer than the slow reader when that one is closed.
mkfifo "$dir/hold.follow"
"$stalled" "$port" 1 follow-end 120 <"$dir/hold.follow" >"$dir/follow.out" 2>&1 &
follower=$!
exec 4>"$dir/hold.follow"
wait_for_log "$dir/log.slow" "following" 30 || fail "the follower was not served"
hold_stalled 1 from-start
wait_for_log "$dir/log.slow" "reader closed: slow consumer: took no bytes for" 60 ||
  fail "the stalled reader was not closed"
grep "reader closed: slow consumer" "$dir/log.slow" | grep -q "limits.idle_timeout = 1 s" ||
  fail "the log line does not name limits.idle_timeout"
wait_for_log "$dir/log.slow" "(closed: a slow consumer)" 10 || fail "no end line for the slow reader"
m=$(stats)
[ "$(metric objwire_readers_slow_closed_total)" = 1 ] || fail "slow readers closed: $m"
[ "$(metric objwire_readers_open)" = 1 ] || fail "the follower at the live end was closed: $m"
[ "$(grep -c "reader closed: slow consumer" "$dir/log.slow")" = 1 ] ||
  fail "more than the stalled reader was closed as slow"
release_stalled
exec 4>&-
wait "$follower" || true
stop_daemon

# --- The per-address cap names who holds it ---
cat >"$dir/cap.toml" <<TOML
[limits]
max_connections_per_address = 4
[journal]
fsync = "never"
[metrics]
listen = ""
TOML
start_daemon "$dir/log.cap" "$dir/data" --config "$dir/cap.toml"
hold_stalled 3 follow-end
followers_served() { [ "$(grep -c ", following" "$dir/log.cap")" -ge 3 ]; }
wait_until 30 followers_served || fail "3 followers not served"
# A connection that has not said its hello yet holds the fourth slot; the accept loop takes
# connections in order, so it is counted before the stats query that follows.
exec 4<>"/dev/tcp/127.0.0.1/$port"
rc=0
"$objwire" stats --to "127.0.0.1:$port" >"$dir/refused.out" 2>&1 || rc=$?
[ "$rc" = 2 ] || fail "stats at the cap exited $rc: $(cat "$dir/refused.out")"
grep -q "4 connections open from 127.0.0.1 (3 readers, 1 sender or before its hello)" \
  "$dir/refused.out" || fail "the refusal does not say who holds the cap: $(cat "$dir/refused.out")"
grep -q "(3 readers, 1 sender or before its hello) (limits.max_connections_per_address)" \
  "$dir/log.cap" || fail "the refusal's log line does not say who holds the cap"
exec 4>&-
release_stalled
stop_daemon
echo PASS
