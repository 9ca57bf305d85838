#!/usr/bin/env bash
# Followers at the live end share each durable block (docs/PROTOCOL.md 1.2, "Followers"): ten
# `objwire read --follow --from end` while a sender writes each receive every object exactly
# once and in order - their outputs equal, byte for byte, a plain `read` of the journal
# afterwards - including one stopped (SIGSTOP) while more than the shared blocks' bound is
# written, so that it falls behind the live end, reads on its own, and catches up. The
# metrics say the blocks went out from the shared bytes (objwire_readers_shared_blocks_total),
# that the stopped follower left them (objwire_readers_shared_behind_total), that what the
# followers share stays within its bound (limits.readers_shared_bytes, set to 2 MiB), and
# that nothing is held once they are gone.
#
#   followers_shared_test.sh OBJWIRED OBJWIRE
set -euo pipefail
objwired=$1
objwire=$2
dir=$(mktemp -d)
daemon=""
pids=()
cleanup() {
  [ "${#pids[@]}" = 0 ] || kill -CONT "${pids[@]}" 2>/dev/null || true
  [ "${#pids[@]}" = 0 ] || kill "${pids[@]}" 2>/dev/null || true
  [ -n "$daemon" ] && kill "$daemon" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
source "$(dirname "$0")/daemon_helpers.sh"

followers=10
first=20000  # objects sent while every follower reads
more=300000  # then, with one follower stopped: about 35 MB stored, past the shared bound
mib=$((1024 * 1024))
shared_bound=$((2 * mib)) # limits.readers_shared_bytes, below its default (8 MiB)
read_buffers=$((512 * 1024)) # the shared cursor's read-ahead: two 256 KiB chunks

stats() { "$objwire" stats --json --to "127.0.0.1:$port"; }
metric() { echo "$m" | grep -o "\"$1\":[0-9.e+]*" | cut -d: -f2; }
metric_is() {
  m=$(stats) || return 1
  [ "$(metric "$1")" = "$2" ]
}
metric_at_least() {
  m=$(stats) || return 1
  [ "$(metric "$1")" -ge "$2" ]
}
# objects FROM COUNT: JSON lines with a 96-character string of random hex digits each (no
# compression or table shares them: about 115 bytes stored each).
objects() {
  awk -v f="$1" -v n="$2" 'BEGIN {
    srand(f)
    for (i = f; i < f + n; i++) {
      pad = ""
      for (k = 0; k < 12; k++) pad = pad sprintf("%08x", int(rand() * 4294967296))
      printf "{\"i\":%d,\"pad\":\"%s\"}\n", i, pad
    }
  }'
}

cat >"$dir/objwired.toml" <<TOML
[limits]
max_connections_per_address = 100
readers_shared_bytes = "2MiB"
[metrics]
listen = ""
TOML
start_daemon "$dir/log" "$dir/data" --config "$dir/objwired.toml"
to="127.0.0.1:$port"

for i in $(seq 0 $((followers - 1))); do
  "$objwire" read --to "$to" --follow --from end -o "$dir/f$i.jsonl" 2>"$dir/f$i.err" &
  pids+=($!)
done
wait_until 30 metric_is objwire_readers_open "$followers" ||
  fail "$followers followers did not connect: $m"

objects 0 "$first" >"$dir/first.jsonl"
"$objwire" send --to "$to" "$dir/first.jsonl" >"$dir/send1.out" 2>&1 || fail "send: $(cat "$dir/send1.out")"
for i in $(seq 0 $((followers - 1))); do
  wait_for_lines "$dir/f$i.jsonl" "$first" 60 ||
    fail "follower $i printed $(wc -l <"$dir/f$i.jsonl") of $first objects: $(cat "$dir/f$i.err")"
done
metric_at_least objwire_readers_shared_blocks_total 1 ||
  fail "no block went out from the shared blocks: $m"

# One follower stops reading while more than the shared bound is written.
kill -STOP "${pids[0]}"
objects "$first" "$more" >"$dir/more.jsonl"
"$objwire" send --to "$to" "$dir/more.jsonl" >"$dir/send2.out" 2>&1 || fail "send: $(cat "$dir/send2.out")"
m=$(stats)
held=$(metric objwire_readers_shared_bytes)
# What followers share: the bound, the read-ahead, and the batch each follower writes.
[ "$held" -le $((shared_bound + read_buffers + followers * 300 * 1024)) ] ||
  fail "followers share $held bytes, over the bound $shared_bound and their batches"
kill -CONT "${pids[0]}"
total=$((first + more))
for i in $(seq 0 $((followers - 1))); do
  wait_for_lines "$dir/f$i.jsonl" "$total" 120 ||
    fail "follower $i printed $(wc -l <"$dir/f$i.jsonl") of $total objects: $(cat "$dir/f$i.err")"
done
m=$(stats)
[ "$(metric objwire_readers_shared_behind_total)" -ge 1 ] ||
  fail "the stopped follower never fell behind the shared blocks: $m"
blocks=$(metric objwire_readers_shared_blocks_total)

"$objwire" read --to "$to" -o "$dir/all.jsonl" 2>"$dir/read.err" || fail "read: $(cat "$dir/read.err")"
[ "$(wc -l <"$dir/all.jsonl")" = "$total" ] || fail "the journal holds $(wc -l <"$dir/all.jsonl") objects, want $total"
for i in $(seq 0 $((followers - 1))); do
  cmp -s "$dir/all.jsonl" "$dir/f$i.jsonl" ||
    fail "follower $i did not receive every object exactly once and in order: $(cmp "$dir/all.jsonl" "$dir/f$i.jsonl")"
done

kill "${pids[@]}"
wait "${pids[@]}" 2>/dev/null || true
pids=()
wait_until 30 metric_is objwire_readers_open 0 || fail "followers still open: $m"
wait_until 10 metric_is objwire_readers_shared_bytes 0 ||
  fail "followers gone, shared blocks still held: $(metric objwire_readers_shared_bytes) bytes"
echo "$followers followers: $total objects each, exactly once and in order; $blocks block frames" \
  "from shared bytes; the stopped one fell behind and caught up; shared bytes held at most" \
  "$held when sampled"
