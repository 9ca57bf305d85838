#!/usr/bin/env bash
# Access through the programs as a user runs them (docs/SECURITY.md "Access"): TLS and the
# token from the environment and flags, exit codes of refused clients, a daemon that will not
# start with an unsafe token file. Certificates are made here with the openssl CLI.
set -euo pipefail
objwired=$1
objwire=$2
dir=$(mktemp -d)
daemon=""
trap '[ -n "$daemon" ] && kill $daemon 2>/dev/null; rm -rf "$dir"' EXIT
source "$(dirname "$0")/daemon_helpers.sh"
command -v openssl >/dev/null || { echo "no openssl CLI"; exit 77; }

ossl() { openssl "$@" >/dev/null 2>&1 || fail "openssl $*"; }
ec=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
ossl req -x509 "${ec[@]}" -keyout "$dir/ca.key" -out "$dir/ca.pem" -days 2 -subj /CN=test-ca
ossl req "${ec[@]}" -keyout "$dir/server.key" -out "$dir/server.csr" -subj /CN=localhost
printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' >"$dir/server.ext"
ossl x509 -req -in "$dir/server.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" -CAcreateserial \
  -days 2 -extfile "$dir/server.ext" -out "$dir/server.pem"
printf 'a token of more than sixteen bytes\n' >"$dir/token"
chmod 600 "$dir/token"
printf 'another token, not the right one\n' >"$dir/wrong.token"
printf '%s\n' '{"$type":"Point","x":1,"y":2}' '{"$type":"Point","x":3,"y":4}' >"$dir/in.jsonl"

# A world-readable token file: the daemon does not start.
cp "$dir/token" "$dir/open.token"
chmod 644 "$dir/open.token"
rc=0
OBJWIRE_AUTH_TOKEN_FILE="$dir/open.token" timeout 10 "$objwired" --listen 127.0.0.1:0 \
  --data-dir "$dir/data0" 2>"$dir/log0" || rc=$?
[ "$rc" -ne 0 ] || fail "daemon started with a world-readable token file"
grep -q "readable or writable by other users" "$dir/log0" || fail "no reason logged for the token file"

# TLS and the token, from the environment.
OBJWIRE_TLS_CERT_FILE="$dir/server.pem" OBJWIRE_TLS_KEY_FILE="$dir/server.key" \
  OBJWIRE_AUTH_TOKEN_FILE="$dir/token" start_daemon "$dir/log" "$dir/data"
to=(--to "127.0.0.1:$port")

"$objwire" send "$dir/in.jsonl" "${to[@]}" --tls --tls-ca "$dir/ca.pem" --token-file "$dir/token" \
  2>"$dir/ok.err" || fail "TLS send exited $?: $(cat "$dir/ok.err")"
grep -q "sent 2 objects (2 acknowledged)" "$dir/ok.err" || fail "send report: $(cat "$dir/ok.err")"
"$objwire" bench --workload person -n 2000 "${to[@]}" --tls --tls-ca "$dir/ca.pem" \
  --token-file "$dir/token" --json >"$dir/bench.json" 2>/dev/null || fail "TLS bench exited $?"
grep -q '"acked_objects":2000' "$dir/bench.json" || fail "bench over TLS: $(cat "$dir/bench.json")"

# Refusals: exit 2 and a reason, each logged by the daemon.
expect_refused() {  # WHAT TEXT_IN_CLIENT_ERROR ARGS...
  local what=$1 text=$2 rc=0
  shift 2
  "$objwire" send "$dir/in.jsonl" "${to[@]}" --retry-for 0 "$@" 2>"$dir/refused.err" || rc=$?
  [ "$rc" -eq 2 ] || fail "$what: exited $rc, want 2: $(cat "$dir/refused.err")"
  grep -q "$text" "$dir/refused.err" || fail "$what: message: $(cat "$dir/refused.err")"
}
expect_refused "no token" "not authorized" --tls --tls-ca "$dir/ca.pem"
expect_refused "wrong token" "not authorized" --tls --tls-ca "$dir/ca.pem" --token-file "$dir/wrong.token"
expect_refused "plain TCP" "TLS only" --token-file "$dir/token"
expect_refused "unknown CA" "certificate verify failed" --tls --token-file "$dir/token"
grep -q "refused: no token in the hello" "$dir/log" || fail "no-token refusal not logged"
grep -q "refused: wrong token" "$dir/log" || fail "wrong-token refusal not logged"
grep -q "refused: plain TCP peer" "$dir/log" || fail "plain-TCP refusal not logged"

# read and stats take --tls and --token-file as send does.
"$objwire" read "${to[@]}" --tls --tls-ca "$dir/ca.pem" --token-file "$dir/token" \
  -o "$dir/read.jsonl" 2>"$dir/read.err" || fail "TLS read exited $?: $(cat "$dir/read.err")"
[ "$(wc -l <"$dir/read.jsonl")" -eq 2002 ] || fail "read over TLS: $(cat "$dir/read.err")"
"$objwire" stats "${to[@]}" --tls --tls-ca "$dir/ca.pem" --token-file "$dir/token" \
  >/dev/null 2>"$dir/stats.err" || fail "TLS stats exited $?: $(cat "$dir/stats.err")"

kill -TERM $daemon
wait $daemon || fail "daemon exited $? on SIGTERM"
daemon=""
lines=$("$objwired" --data-dir "$dir/data" --dump-journal | wc -l)
[ "$lines" -eq 2002 ] || fail "stored $lines objects, want 2002 (nothing of the refused clients)"
echo "access CLI test passed"
