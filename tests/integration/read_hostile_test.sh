#!/usr/bin/env bash
# `objwire read` cannot be blown up by the daemon it reads (docs/PROTOCOL.md 1.2, "Memory"): a
# hostile daemon serves one 15 MiB block of 15,728,640 null messages under a 4,096-byte sender
# id. The reader holds the block and one decoded object at a time, and the id once: every
# object is read with the client's peak RSS within BOUND_MB (the block twice - frame buffer
# growth - plus the client's own ~10 MB, with room). With read.max_block_objects below the
# block's count the read is refused, naming the key; offsets that go backwards (a block served
# twice) end the read with an error after the first. SANITIZED=1 (ASan inflates memory): the
# bound is not checked.
#
#   tests/integration/read_hostile_test.sh HOSTILE_READER_DAEMON OBJWIRE [SANITIZED [BOUND_MB]]
set -euo pipefail
source "$(dirname "$0")/../support/wait_until.sh"
hostile=$1
objwire=$2
sanitized=${3:-0}
bound_mb=${4:-64}
objects=15728640
dir=$(mktemp -d)
server=""
trap '[ -n "$server" ] && kill $server 2>/dev/null; rm -rf "$dir"' EXIT
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
[ -x /usr/bin/time ] || fail "/usr/bin/time missing (Debian package 'time', scripts/install-deps.sh)"

# serve OBJECTS ID_BYTES [backwards]: starts the hostile daemon and sets $port once it listens
# (at most 60 s: it encodes the block first).
# The port file is emptied here, not by the background job's redirection, which may happen
# after the first look and leave the previous daemon's port there to be found.
serve() {
  : >"$dir/port"
  "$hostile" "$@" >>"$dir/port" 2>"$dir/server.err" &
  server=$!
  port=""
  wait_until 60 port_in_log "$dir/port" >/dev/null && port=$(port_in_log "$dir/port") && return 0
  fail "the hostile daemon did not listen: $(cat "$dir/server.err")"
}

serve "$objects" 4096
/usr/bin/time -v -o "$dir/time" "$objwire" read --to "127.0.0.1:$port" 2>"$dir/read.err" |
  wc -l >"$dir/count" || true
wait $server || true
server=""
grep -q "Exit status: 0" "$dir/time" || fail "read exited non-zero: $(cat "$dir/read.err")"
[ "$(cat "$dir/count")" -eq "$objects" ] || fail "read printed $(cat "$dir/count") of $objects objects"
kib=$(awk '/Maximum resident set size/ {print $NF}' "$dir/time")
echo "read $objects null objects under a 4096-byte id: peak RSS $((kib / 1024)) MiB (bound $bound_mb MB)"
if [ "$sanitized" != 1 ]; then
  [ "$kib" -le $((bound_mb * 1000)) ] || fail "peak RSS $kib KiB over $bound_mb MB"
fi

# Fewer objects allowed per block than it announces: refused, naming the limit and its key.
serve "$objects" 4096
set +e
OBJWIRE_READ_MAX_BLOCK_OBJECTS=1000000 "$objwire" read --to "127.0.0.1:$port" >/dev/null \
  2>"$dir/refused.err"
rc=$?
set -e
wait $server || true
server=""
[ "$rc" -ne 0 ] || fail "a block over read.max_block_objects was read (exit 0)"
grep -q "read.max_block_objects" "$dir/refused.err" || fail "refusal: $(cat "$dir/refused.err")"
echo "over read.max_block_objects: exit $rc, $(head -c 200 "$dir/refused.err")"

# Offsets that go backwards (the same block served twice): an error, not exit 0.
serve 10 8 backwards
set +e
"$objwire" read --to "127.0.0.1:$port" >"$dir/backwards.out" 2>"$dir/backwards.err"
rc=$?
set -e
wait $server || true
server=""
[ "$rc" -ne 0 ] || fail "offsets going backwards were read with exit 0"
grep -q "offsets going backwards" "$dir/backwards.err" || fail "backwards: $(cat "$dir/backwards.err")"
[ "$(wc -l <"$dir/backwards.out")" -eq 10 ] || fail "printed $(wc -l <"$dir/backwards.out") objects, want the first block's 10"
echo "offsets going backwards: exit $rc, $(head -c 200 "$dir/backwards.err")"
