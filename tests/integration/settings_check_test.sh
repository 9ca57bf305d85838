#!/usr/bin/env bash
# One truth for settings: every mistake the start refuses, `objwired --check-config` and
# `objwire config check --daemon` refuse too (the environment included), and the start exits
# 78 for it (never 2, which systemd would restart in a loop). The unit's ExecReload lines, run
# as systemd runs them, fail on a bad file without signalling the daemon; a SIGHUP with a bad
# file keeps the settings in force, logs why and counts it in objwire_reload_failures_total.
set -euo pipefail
objwired=$1
objwire=$2
unit=$3
dir=$(mktemp -d)
daemon=""
trap '[ -n "$daemon" ] && kill "$daemon" 2>/dev/null; rm -rf "$dir"' EXIT
source "$(dirname "$0")/daemon_helpers.sh"
cd "$dir"

# expect_exit RC PATTERN COMMAND...: COMMAND exits RC and its stderr matches PATTERN (grep -E).
expect_exit() {
  local want=$1 pattern=$2 rc=0
  shift 2
  "$@" >"$dir/out" 2>"$dir/err" || rc=$?
  [ "$rc" -eq "$want" ] || fail "'$*' exited $rc, want $want: $(cat "$dir/err")"
  grep -Eq -- "$pattern" "$dir/err" || fail "'$*' said: $(cat "$dir/err"), want /$pattern/"
}

# refused FILE PATTERN [VAR=VALUE...]: the two checks and the start all exit 78 naming it.
refused() {
  local file=$1 pattern=$2
  shift 2
  expect_exit 78 "$pattern" env "$@" "$objwired" --check-config "$file"
  expect_exit 78 "$pattern" env "$@" "$objwire" config check --daemon "$file"
  expect_exit 78 "$pattern" env "$@" "$objwired" -c "$file" --listen 127.0.0.1:0 \
    --data-dir "$dir/data-refused"
}

printf '[metrics]\nlisten = ""\n' >objwired-good.toml
"$objwired" --check-config objwired-good.toml >out || fail "a good file: exit $?"

printf '[sink]\nkind = "forward"\n[metrics]\nlisten = ""\n' >forward.toml
refused forward.toml 'forward.to: must be set when sink.kind = "forward"'
# The place to fix it: the line of sink.kind, the key that asks for forward.to.
expect_exit 78 '^forward.toml:2: forward.to: must be set' "$objwired" --check-config forward.toml
expect_exit 78 '^forward.toml:2: forward.to: must be set' "$objwire" config check --daemon forward.toml
# --check-config alone checks the --config file, as the start would read it.
"$objwired" --config objwired-good.toml --check-config >out 2>err ||
  fail "--config FILE --check-config exited $?: $(cat err)"
grep -qx 'objwired-good.toml: ok' out || fail "--config FILE --check-config said: $(cat out)"
expect_exit 78 '^forward.toml:2: forward.to: must be set' "$objwired" -c forward.toml --check-config
expect_exit 78 'objwired: forward.toml:2: forward.to: must be set' "$objwired" -c forward.toml \
  --listen 127.0.0.1:0 --data-dir "$dir/data-refused"
refused objwired-good.toml 'forward.to: must be set when sink.kind = "forward"' OBJWIRE_SINK_KIND=forward

printf '[tls]\ncert_file = "%s/cert.pem"\n' "$dir" >tls.toml
echo "not read" >cert.pem
refused tls.toml 'tls.key_file: must be set when tls.cert_file is set'
refused objwired-good.toml 'tls.cert_file: must be set when tls.key_file is set' \
  OBJWIRE_TLS_KEY_FILE="$dir/cert.pem"

printf '[auth]\ntoken_file = "%s/no-such-token"\n' "$dir" >token.toml
refused token.toml "auth.token_file: '$dir/no-such-token' does not exist"
# What is in the files only objwired judges (objwire config check may run as another user).
printf 'short' >short-token
chmod 600 short-token
expect_exit 78 "auth.token_file: .*short" env OBJWIRE_AUTH_TOKEN_FILE="$dir/short-token" \
  "$objwired" --check-config objwired-good.toml
expect_exit 78 "auth.token_file: .*short" env OBJWIRE_AUTH_TOKEN_FILE="$dir/short-token" \
  "$objwired" -c objwired-good.toml --listen 127.0.0.1:0 --data-dir "$dir/data-refused"
printf '[tls]\ncert_file = "%s/cert.pem"\nkey_file = "%s/cert.pem"\n' "$dir" "$dir" >tls-pair.toml
expect_exit 78 "tls: cannot set up TLS" "$objwired" --check-config tls-pair.toml
expect_exit 78 "tls: cannot set up TLS" "$objwired" -c tls-pair.toml --listen 127.0.0.1:0 \
  --data-dir "$dir/data-refused"

refused objwired-good.toml "OBJWIRE_SERVER_MAX_CONNECTIONS" OBJWIRE_SERVER_MAX_CONNECTIONS=lots

# A misspelt variable: both checks refuse it; the start only warns (docs/OPERATIONS.md).
expect_exit 78 "OBJWIRE_SERVER_LISTNE names no setting \(did you mean OBJWIRE_SERVER_LISTEN\?\)" \
  env OBJWIRE_SERVER_LISTNE=0.0.0.0:1 "$objwired" --check-config objwired-good.toml
expect_exit 78 "OBJWIRE_SERVER_LISTNE names no setting" \
  env OBJWIRE_SERVER_LISTNE=0.0.0.0:1 "$objwire" config check --daemon objwired-good.toml

# Under the unit ($STATE_DIRECTORY set), a data_dir outside the state directory would be
# read-only (ProtectSystem=strict): a warning naming the drop-in line, not a refusal.
expect_exit 0 "warning: server.data_dir = \"$dir/elsewhere\" is outside the unit's state directory $dir/state: .*ReadWritePaths=$dir/elsewhere" \
  env STATE_DIRECTORY="$dir/state" OBJWIRE_SERVER_DATA_DIR="$dir/elsewhere" "$objwired" --check-config objwired-good.toml
STATE_DIRECTORY="$dir/state" OBJWIRE_SERVER_DATA_DIR="$dir/state" "$objwired" --check-config objwired-good.toml \
  >out 2>err || fail "--check-config with data_dir the state directory exited $?: $(cat err)"
[ ! -s err ] || fail "data_dir in the state directory warned: $(cat err)"

# ---- reload. The daemon runs with a good file; its ExecReload lines run as systemd runs them:
# one after another, the first that fails ends the reload with its exit code.
cp objwired-good.toml objwired.toml
printf '[limits]\nmax_depth = 32\n' >>objwired.toml
start_daemon "$dir/log" "$dir/data" -c "$dir/objwired.toml"

run_exec_reload() {
  local line rc
  while IFS= read -r line; do
    line=${line#ExecReload=}
    line=${line//\/usr\/sbin\/objwired/$objwired}
    line=${line//\/etc\/objwire\/objwired.toml/$dir\/objwired.toml}
    line=${line//\$MAINPID/$daemon}
    read -ra words <<<"$line"
    rc=0
    "${words[@]}" >>"$dir/reload.out" 2>&1 || rc=$?
    [ "$rc" -eq 0 ] || return "$rc"
  done < <(grep '^ExecReload=' "$unit")
}

# wait_log PATTERN: the daemon logs PATTERN within 10 s.
wait_log() {
  wait_until 10 grep -q -- "$1" "$dir/log" && return 0
  fail "the daemon did not log '$1'"
}

[ "$(grep -c '^ExecReload=' "$unit")" -ge 2 ] || fail "the unit does not check before signalling"
printf '[sink]\nkind = "forward"\n[limits]\nmax_depth = 16\n[metrics]\nlisten = ""\n' >objwired.toml
rc=0
run_exec_reload || rc=$?
[ "$rc" -eq 78 ] || fail "reload of a bad file exited $rc, want 78: $(cat "$dir/reload.out")"
grep -q 'forward.to: must be set' "$dir/reload.out" || fail "reload said: $(cat "$dir/reload.out")"

# The check passed nothing on: SIGHUP by hand reaches the daemon, which keeps what it runs.
kill -HUP "$daemon"
wait_log "reload: settings not reloaded, the ones in force stay"
grep -q "forward.to: must be set" "$dir/log" || fail "the daemon did not say why"
grep -q "limits.max_depth = 16" "$dir/log" && fail "a refused reload changed limits.max_depth"
"$objwire" stats --to "127.0.0.1:$port" --json >stats.json || fail "stats exited $?"
grep -q '"objwire_reload_failures_total":1[,}]' stats.json || fail "stats: $(cat stats.json)"
grep -q '"objwire_reloads_total":0[,}]' stats.json || fail "stats: $(cat stats.json)"

# A good file goes through both lines and is applied.
printf '[limits]\nmax_depth = 16\n[metrics]\nlisten = ""\n' >objwired.toml
run_exec_reload || fail "reload of a good file exited $?: $(cat "$dir/reload.out")"
wait_log "reload: limits.max_depth = 16 (was 32)"
[ "$(grep -c 'SIGHUP: reloading' "$dir/log")" -eq 2 ] || fail "the bad reload signalled the daemon"
echo "settings_check: ok"
