#!/usr/bin/env bash
# Followers over TLS share each block's read and check too (docs/PROTOCOL.md 1.2, "Followers
# share each block"): their frames are copied into each one's batch, since TLS records are
# sealed from one buffer. Three `objwire read --tls --follow --from end` receive every object
# sent meanwhile exactly once and in order (their outputs equal a plain read afterwards), and
# the blocks went out from the shared run (objwire_readers_shared_blocks_total).
#
#   followers_tls_test.sh OBJWIRED OBJWIRE
set -euo pipefail
objwired=$1
objwire=$2
dir=$(mktemp -d)
daemon=""
pids=()
cleanup() {
  [ "${#pids[@]}" = 0 ] || kill "${pids[@]}" 2>/dev/null || true
  [ -n "$daemon" ] && kill "$daemon" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
source "$(dirname "$0")/daemon_helpers.sh"
command -v openssl >/dev/null || { echo "no openssl CLI"; exit 77; }

ossl() { openssl "$@" >/dev/null 2>&1 || fail "openssl $*"; }
ec=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
ossl req -x509 "${ec[@]}" -keyout "$dir/ca.key" -out "$dir/ca.pem" -days 2 -subj /CN=test-ca
ossl req "${ec[@]}" -keyout "$dir/server.key" -out "$dir/server.csr" -subj /CN=localhost
printf '%s\n' "subjectAltName=IP:127.0.0.1,DNS:localhost" >"$dir/server.ext"
ossl x509 -req -in "$dir/server.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" -CAcreateserial \
  -days 2 -extfile "$dir/server.ext" -out "$dir/server.pem"
printf '[metrics]\nlisten = ""\n' >"$dir/objwired.toml"
OBJWIRE_TLS_CERT_FILE="$dir/server.pem" OBJWIRE_TLS_KEY_FILE="$dir/server.key" \
  start_daemon "$dir/log" "$dir/data" --config "$dir/objwired.toml"
tls=(--to "127.0.0.1:$port" --tls --tls-ca "$dir/ca.pem")

stats() { "$objwire" stats --json "${tls[@]}"; }
metric() { echo "$m" | grep -o "\"$1\":[0-9.e+]*" | cut -d: -f2; }
metric_is() {
  m=$(stats) || return 1
  [ "$(metric "$1")" = "$2" ]
}

followers=3
total=20000
for i in $(seq 0 $((followers - 1))); do
  "$objwire" read "${tls[@]}" --follow --from end -o "$dir/f$i.jsonl" 2>"$dir/f$i.err" &
  pids+=($!)
done
wait_until 30 metric_is objwire_readers_open "$followers" || fail "followers did not connect: $m"
awk -v n="$total" 'BEGIN { for (i = 0; i < n; i++) printf "{\"i\":%d,\"s\":\"object %d\"}\n", i, i }' \
  >"$dir/in.jsonl"
"$objwire" send "${tls[@]}" "$dir/in.jsonl" >"$dir/send.out" 2>&1 || fail "send: $(cat "$dir/send.out")"
for i in $(seq 0 $((followers - 1))); do
  wait_for_lines "$dir/f$i.jsonl" "$total" 60 ||
    fail "follower $i printed $(wc -l <"$dir/f$i.jsonl") of $total objects: $(cat "$dir/f$i.err")"
done
"$objwire" read "${tls[@]}" -o "$dir/all.jsonl" 2>"$dir/read.err" || fail "read: $(cat "$dir/read.err")"
for i in $(seq 0 $((followers - 1))); do
  cmp -s "$dir/all.jsonl" "$dir/f$i.jsonl" || fail "follower $i: $(cmp "$dir/all.jsonl" "$dir/f$i.jsonl")"
done
m=$(stats)
[ "$(metric objwire_readers_shared_blocks_total)" -ge 1 ] || fail "no block from the shared run: $m"
echo "$followers TLS followers: $total objects each, exactly once and in order;" \
  "$(metric objwire_readers_shared_blocks_total) block frames from the shared run"
