#!/usr/bin/env bash
# Guessing tokens (docs/SECURITY.md): 1,000 wrong tokens from 127.0.0.2 are checked at the
# documented rate and the rest refused unchecked, while a right token from 127.0.0.1 is served
# at once; the daemon's counter agrees (credential_throttle_test.py does the connections).
set -euo pipefail
objwired=$1
objwire=$2
dir=$(mktemp -d)
daemon=""
trap '[ -n "$daemon" ] && kill $daemon 2>/dev/null; rm -rf "$dir"' EXIT
source "$(dirname "$0")/daemon_helpers.sh"
command -v python3 >/dev/null || { echo "no python3"; exit 77; }

printf 'the writer token, long enough\n' >"$dir/right.token"
printf 'a guess at the token, as long\n' >"$dir/wrong.token"
chmod 600 "$dir/right.token" "$dir/wrong.token"
printf '[[auth.users]]\nname = "writer"\ntoken_file = "%s"\nsend = ["app-*"]\n' \
  "$dir/right.token" >"$dir/objwired.toml"
OBJWIRE_METRICS_LISTEN=127.0.0.1:0 start_daemon "$dir/log" "$dir/data" --config "$dir/objwired.toml"
python3 "$(dirname "$0")/credential_throttle_test.py" "$objwire" "$port" "$dir/wrong.token" \
  "$dir/right.token" >"$dir/out" 2>&1 || fail "$(cat "$dir/out")"
cat "$dir/out"
# The daemon counted each: the checked ones as wrong credentials, the rest as throttled.
mport=$(logged_metrics_port "$dir/log")
get_metrics "$mport" "$dir/metrics"
for reason in throttled checked; do
  n=$(grep -o "$reason=[0-9]*" "$dir/out" | cut -d= -f2)
  [ "$reason" = checked ] && reason=credential
  grep -qxF "objwire_auth_refusals_total{user=\"\",reason=\"$reason\"} $n" "$dir/metrics" ||
    fail "the counter of $reason is not $n: $(grep auth_refusals "$dir/metrics")"
done
echo "credential throttle: ok"
