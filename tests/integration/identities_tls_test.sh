#!/usr/bin/env bash
# TLS client certificates as identities (docs/SECURITY.md, "Users and permissions"): a
# certificate whose subject is a user's cert_subject sends without a token, within that user's
# permissions; one of another CA is refused in the handshake; a certificate of the right CA that
# no user names is refused naming its subject.
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
ossl req -x509 "${ec[@]}" -keyout "$dir/other-ca.key" -out "$dir/other-ca.pem" -days 2 -subj /CN=other-ca
# signed NAME CA SUBJECT [EXT]: NAME.pem and NAME.key, signed by CA
signed() {
  ossl req "${ec[@]}" -keyout "$dir/$1.key" -out "$dir/$1.csr" -subj "$3"
  printf '%s\n' "${4:-basicConstraints=CA:FALSE}" >"$dir/$1.ext"
  ossl x509 -req -in "$dir/$1.csr" -CA "$dir/$2.pem" -CAkey "$dir/$2.key" -CAcreateserial \
    -days 2 -extfile "$dir/$1.ext" -out "$dir/$1.pem"
}
signed server ca /CN=localhost "subjectAltName=IP:127.0.0.1,DNS:localhost"
signed writer ca "/O=example/CN=writer-svc"
signed robot ca /CN=robot "subjectAltName=URI:spiffe://example/robot"
signed stranger ca /CN=stranger
signed impostor other-ca "/O=example/CN=writer-svc"
printf '[[auth.users]]\nname = "writer"\ncert_subject = "CN=writer-svc,O=example"\nsend = ["app-*"]\n\n' >"$dir/objwired.toml"
printf '[[auth.users]]\nname = "robot"\ncert_subject = "spiffe://example/robot"\nsend = ["robot-*"]\n' >>"$dir/objwired.toml"
printf '%s\n' '{"$type":"Point","x":1,"y":2}' >"$dir/in.jsonl"

OBJWIRE_TLS_CERT_FILE="$dir/server.pem" OBJWIRE_TLS_KEY_FILE="$dir/server.key" \
  OBJWIRE_TLS_CLIENT_CA_FILE="$dir/ca.pem" start_daemon "$dir/log" "$dir/data" --config "$dir/objwired.toml"

# send_as CERT SENDER_ID: objwire send over TLS with that client certificate and no token.
send_as() {
  OBJWIRE_TLS_CERT_FILE="$dir/$1.pem" OBJWIRE_TLS_KEY_FILE="$dir/$1.key" \
    "$objwire" send "$dir/in.jsonl" --to "127.0.0.1:$port" --tls --tls-ca "$dir/ca.pem" \
    --sender-id "$2" --retry-for 0
}
send_as writer app-1 2>"$dir/err" || fail "the writer's certificate: exit $?: $(cat "$dir/err")"
grep -q "1 acknowledged" "$dir/err" || fail "writer: $(cat "$dir/err")"
send_as robot robot-1 2>"$dir/err" || fail "a certificate known by its SAN URI: exit $?: $(cat "$dir/err")"

expect_refused() {  # WHAT TEXT CERT SENDER_ID
  local rc=0
  send_as "$3" "$4" 2>"$dir/err" || rc=$?
  [ "$rc" -eq 2 ] || fail "$1: exited $rc, want 2: $(cat "$dir/err")"
  grep -q "$2" "$dir/err" || fail "$1: message: $(cat "$dir/err")"
}
expect_refused "the writer's certificate as db-1" "user 'writer' lacks permission send as sender id 'db-1'" writer db-1
expect_refused "the same subject from another CA" "unknown ca" impostor app-1
expect_refused "a certificate no user names" "no user has cert_subject 'CN=stranger'" stranger app-1
"$objwire" read --to "127.0.0.1:$port" --tls --tls-ca "$dir/ca.pem" >/dev/null 2>&1 &&
  fail "a read without a certificate was served"
echo "TLS identities: ok"
