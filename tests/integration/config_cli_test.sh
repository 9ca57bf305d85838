#!/usr/bin/env bash
# The CLI's configuration and bad-input messages as a user meets them: transient fields from
# a file, the environment and a flag (checked in what the daemon stored), `config check` and
# `config show`, each bad setting's message naming the place and the fix with exit code 78 (the
# same from both programs, at start and when checking), each bad input's with exit code 4.
set -euo pipefail
objwired=$1
objwire=$2
dir=$(mktemp -d)
trap 'kill $daemon 2>/dev/null || true; rm -rf "$dir"' EXIT
source "$(dirname "$0")/daemon_helpers.sh"
cd "$dir"

# expect_error RC PATTERN COMMAND...: COMMAND exits RC and its stderr matches PATTERN (grep -E).
expect_error() {
  local want=$1 pattern=$2 rc=0
  shift 2
  "$@" >"$dir/out" 2>"$dir/err" || rc=$?
  [ "$rc" -eq "$want" ] || fail "'$*' exited $rc, want $want: $(cat "$dir/err")"
  grep -Eq -- "$pattern" "$dir/err" || fail "'$*' said: $(cat "$dir/err"), want /$pattern/"
}

start_daemon "$dir/log" "$dir/data"
to="127.0.0.1:$port"

# ---- transient fields: never sent, so the daemon stores the records without them.
echo '{"$type":"Person","firstName":"Heinz","surname":"Kabutz","age":1}' >person.jsonl
printf '[types.Person]\ntransient = ["surname"]\n' >transient.toml
"$objwire" send person.jsonl --to "$to" -c transient.toml 2>err || fail "send -c exited $?: $(cat err)"
OBJWIRE_TYPES_TRANSIENT=Person.age "$objwire" send person.jsonl --to "$to" 2>err ||
  fail "send with OBJWIRE_TYPES_TRANSIENT exited $?: $(cat err)"
# The flag overrides the file's list for Person.
"$objwire" send person.jsonl --to "$to" -c transient.toml --transient Person.firstName,Person.age \
  2>err || fail "send --transient exited $?: $(cat err)"
"$objwire" send person.jsonl --to "$to" 2>err || fail "plain send exited $?: $(cat err)"
# A transient field that matches no record is named at the end, with the closest one seen.
"$objwire" send person.jsonl --to "$to" --transient Persn.agee,Person.firstName 2>err ||
  fail "send --transient with a typo exited $?: $(cat err)"
grep -q "^objwire: warning: transient field Persn.agee matched no record read (did you mean Person.age?)" err ||
  fail "send did not name the transient field that matched nothing: $(cat err)"
grep -q "Person.firstName" err && fail "send named a transient field that matched: $(cat err)"
# Nesting deeper than the daemon accepts: the refusal names its limit and key.
printf '%s%s\n' "$(printf '[%.0s' $(seq 70))" "$(printf ']%.0s' $(seq 70))" >deep.jsonl
expect_error 4 "^objwire: deep.jsonl:1: message refused: .*\(objwired's limit: 64 levels, limits.max_depth\)" \
  "$objwire" send deep.jsonl --to "$to"
kill -TERM $daemon
wait $daemon || fail "daemon exited $? on SIGTERM"
"$objwired" --data-dir "$dir/data" --dump-journal >stored.jsonl 2>err || fail "dump: $(cat err)"
cat >want.jsonl <<'JSON'
{"$type":"Person","firstName":"Heinz","age":1}
{"$type":"Person","firstName":"Heinz","surname":"Kabutz"}
{"$type":"Person","surname":"Kabutz"}
{"$type":"Person","firstName":"Heinz","surname":"Kabutz","age":1}
{"$type":"Person","surname":"Kabutz","age":1}
JSON
diff want.jsonl stored.jsonl >diff.txt || fail "stored objects differ: $(cat diff.txt)"
# decode reads the daemon's journal segments directly and agrees with --dump-journal.
"$objwire" decode "$dir"/data/journal-*.owj -o decoded.jsonl 2>err || fail "decode of segments: $(cat err)"
diff stored.jsonl decoded.jsonl >diff.txt || fail "decoded segments differ: $(cat diff.txt)"

# ---- config check: exit 0 for good files, 78 with FILE:LINE:COLUMN and the fix.
"$objwire" config check transient.toml >out || fail "config check of a good file exited $?"
grep -q "transient.toml: ok (objwire settings)" out || fail "config check said: $(cat out)"
printf '[batch]\nlinger_ms = 5\n' >typo.toml
expect_error 78 "^typo.toml:2:1: unknown key 'batch.linger_ms' \(did you mean 'batch.linger'\?\)" \
  "$objwire" config check typo.toml
# A misspelt OBJWIRE_* variable is an error in config check, a warning when objwired starts.
OBJWIRE_SERVER_LISEN=0.0.0.0:1 expect_error 78 \
  "^objwire: OBJWIRE_SERVER_LISEN names no setting \(did you mean OBJWIRE_SERVER_LISTEN\?\)" \
  "$objwire" config check --daemon
main_daemon=$daemon main_port=$port
OBJWIRE_SERVER_LISEN=0.0.0.0:1 start_daemon "$dir/log-env" "$dir/data-env"
kill "$daemon"; wait "$daemon" || true
grep -q "warning: OBJWIRE_SERVER_LISEN names no setting (did you mean OBJWIRE_SERVER_LISTEN?)" \
  "$dir/log-env" || fail "objwired did not warn of the misspelt variable: $(cat "$dir/log-env")"
daemon=$main_daemon port=$main_port
printf '[types.Person]\ntransient = "surname"\n' >scalar.toml
expect_error 78 "^scalar.toml:2:13: 'types.Person.transient' must be an array of strings" \
  "$objwire" config check scalar.toml
printf '[batch]\nmax_bytes = true\n' >type.toml
expect_error 78 "^type.toml:2:13: 'batch.max_bytes' must be a size \(an integer number of bytes or a string like \"64KiB\"\), got boolean" \
  "$objwire" config check type.toml
printf '[batch]\nmax_bytes = "1GiB"\n' >range.toml
expect_error 78 "^range.toml:2:13: 'batch.max_bytes' = \"1GiB\" is out of range \(allowed 1KiB..16MiB\)" \
  "$objwire" config check range.toml
# A daemon file is recognised by its name, or by --daemon; the wrong program is pointed out.
printf '[server]\nlisten = "127.0.0.1:9"\n' >objwired-test.toml
"$objwire" config check objwired-test.toml >out || fail "daemon file check exited $?"
grep -q "ok (objwired settings)" out || fail "daemon file check said: $(cat out)"
cp objwired-test.toml other.toml
expect_error 78 "other.toml is a valid objwired config: check it with --daemon" \
  "$objwire" config check other.toml
"$objwire" config check --daemon other.toml >out || fail "config check --daemon exited $?"
expect_error 78 "^OBJWIRE_BATCH_LINGER: 'batch.linger': " \
  env OBJWIRE_BATCH_LINGER=5parsecs "$objwire" config check
expect_error 78 "^OBJWIRE_TYPES_TRANSIENT: .*must be TYPE.FIELD, e.g. \"Person.surname\"" \
  env OBJWIRE_TYPES_TRANSIENT=surname "$objwire" config check
# The same messages stop send before it connects, with the same exit code.
expect_error 78 "typo.toml:2:1: unknown key 'batch.linger_ms' \(did you mean 'batch.linger'\?\)" \
  "$objwire" send person.jsonl --to "$to" -c typo.toml
expect_error 78 "^objwire: --to: " "$objwire" send person.jsonl --to nowhere
# objwired exits 78 for a bad config too: when checking it and when starting with it.
printf '[server]\nlisen = "127.0.0.1:0"\n' >objwired-typo.toml
expect_error 78 "^objwired-typo.toml:2:1: unknown key 'server.lisen' \(did you mean 'server.listen'\?\)" \
  "$objwired" --check-config objwired-typo.toml
expect_error 78 "objwired-typo.toml:2:1: unknown key 'server.lisen'" \
  "$objwired" -c objwired-typo.toml --data-dir "$dir/data-typo"
expect_error 78 "OBJWIRE_SERVER_LOG_LEVEL" \
  env OBJWIRE_SERVER_LOG_LEVEL=loud "$objwired" --data-dir "$dir/data-typo"
expect_error 78 "^objwired-typo.toml:2:1: unknown key 'server.lisen'" "$objwire" config check objwired-typo.toml
"$objwired" --check-config objwired-test.toml >out || fail "objwired --check-config of a good file exited $?"
# A bad flag is a usage error (1) in both programs.
expect_error 1 "--no-such-flag" "$objwired" --no-such-flag
expect_error 1 "--no-such-flag" "$objwire" send --no-such-flag

# ---- config show: every value with its origin.
printf '# mine\n[batch]\nlinger = "1ms"\n\n[types.Person]\ntransient = ["age"]\n' >mine.toml
OBJWIRE_BATCH_MAX_BYTES=128KiB "$objwire" config show -c mine.toml --to 10.0.0.1:99 \
  --set compression.policy=never >out || fail "config show exited $?"
for want in 'linger = "1ms" *# mine.toml:3$' 'max_bytes = "128KiB" *# OBJWIRE_BATCH_MAX_BYTES$' \
  'to = "10.0.0.1:99" *# --to$' 'policy = "never" *# --set compression.policy$' \
  'transient = \["age"\] *# mine.toml:6$' 'connect_timeout = "5s" *# default$' '^\[types.Person\]$'; do
  grep -Eq -- "$want" out || fail "config show lacks /$want/: $(cat out)"
done
# ---- the default file: $OBJWIRE_CONFIG, then $XDG_CONFIG_HOME or ~/.config, (then /etc); -c wins.
home="$dir/home"
mkdir -p "$home/.config/objwire" "$dir/xdg/objwire"
# HOME is this test's, XDG_CONFIG_HOME and OBJWIRE_CONFIG empty (as if unset): no file of the
# machine's own user is read.
mine() { HOME="$home" XDG_CONFIG_HOME= OBJWIRE_CONFIG= "$@"; }
printf '[batch]\nlinger = "2ms"\n' >"$home/.config/objwire/objwire.toml"
mine "$objwire" config show >out || fail "config show with a user file exited $?"
grep -Eq "^linger = \"2ms\" *# $home/.config/objwire/objwire.toml:2$" out ||
  fail "config show did not read ~/.config/objwire/objwire.toml: $(cat out)"
grep -q "^# file: $home/.config/objwire/objwire.toml (the first found of $home/.config/objwire/objwire.toml, /etc/objwire/objwire.toml)$" out ||
  fail "config show does not say which file: $(cat out)"
mine "$objwire" config check >out || fail "config check of the user file exited $?"
grep -q "^$home/.config/objwire/objwire.toml: ok (objwire settings)" out || fail "config check said: $(cat out)"
# XDG_CONFIG_HOME replaces ~/.config.
printf '[batch]\nlinger = "3ms"\n' >"$dir/xdg/objwire/objwire.toml"
mine env XDG_CONFIG_HOME="$dir/xdg" "$objwire" config show >out || fail "config show with XDG exited $?"
grep -Eq "^linger = \"3ms\" *# $dir/xdg/objwire/objwire.toml:2$" out || fail "XDG_CONFIG_HOME not read: $(cat out)"
# OBJWIRE_CONFIG comes first; -c wins over it.
printf '[batch]\nlinger = "4ms"\n' >named.toml
mine env OBJWIRE_CONFIG="$dir/named.toml" "$objwire" config show >out || fail "config show with OBJWIRE_CONFIG exited $?"
grep -Eq "^linger = \"4ms\" *# $dir/named.toml:2$" out || fail "OBJWIRE_CONFIG not read: $(cat out)"
grep -q "^# file: $dir/named.toml (named by \$OBJWIRE_CONFIG)$" out || fail "config show: $(cat out)"
mine env OBJWIRE_CONFIG="$dir/named.toml" "$objwire" config show -c mine.toml >out || fail "config show -c exited $?"
grep -Eq '^linger = "1ms" *# mine.toml:3$' out || fail "-c did not win over OBJWIRE_CONFIG: $(cat out)"
# A file OBJWIRE_CONFIG names must exist; a subcommand stops before it connects.
mine expect_error 78 "^objwire: OBJWIRE_CONFIG=$dir/gone.toml: no such file" \
  env OBJWIRE_CONFIG="$dir/gone.toml" "$objwire" config show
mine expect_error 78 "^objwire: OBJWIRE_CONFIG=$dir/gone.toml: no such file" \
  env OBJWIRE_CONFIG="$dir/gone.toml" "$objwire" send person.jsonl --to "$to"
# send reads the user file: a bad one stops it with the file's place.
printf '[batch]\nlinger = 5ms\n' >"$home/.config/objwire/objwire.toml"
mine expect_error 78 "^objwire: $home/.config/objwire/objwire.toml:2:10: 'batch.linger' = 5ms is not a TOML value: a value with a unit or other text is a string, quoted: linger = \"5ms\"" \
  "$objwire" send person.jsonl --to "$to"
rm -r "$home/.config/objwire"
mine "$objwire" config show >out || fail "config show without a file exited $?"
grep -q "^# file: none, the built-in defaults (none of $home/.config/objwire/objwire.toml, /etc/objwire/objwire.toml exists)$" out ||
  [ -e /etc/objwire/objwire.toml ] || fail "config show without a file: $(cat out)"

"$objwire" config show --daemon >out || fail "config show --daemon exited $?"
grep -q '^listen = "127.0.0.1:7878" *# default$' out || fail "config show --daemon: $(cat out)"

# ---- bad JSON lines: FILE:LINE:COLUMN, what is wrong and what to do; exit 4.
printf '{"a":1}\n{"a":[1,2\n' >truncated.jsonl
expect_error 4 "^objwire: truncated.jsonl:2:10: truncated JSON: the line ends before every object and array is closed" \
  "$objwire" encode truncated.jsonl -o x.owj
printf '{"a":"x\xffy"}\n' >utf8.jsonl
expect_error 4 "^objwire: utf8.jsonl:1:8: invalid UTF-8: byte 0xFF .*\(the text must be UTF-8 encoded\)" \
  "$objwire" encode utf8.jsonl -o x.owj
printf '{"a":{"$ref":7}}\n' >ref.jsonl
expect_error 4 '^objwire: ref.jsonl:1:14: unknown \$ref 7 \(no object with "\$id": 7 in this line\)' \
  "$objwire" encode ref.jsonl -o x.owj
# --on-error skip goes on and counts.
cat person.jsonl truncated.jsonl utf8.jsonl >mixed.jsonl
expect_error 4 "skipped 2 bad lines" "$objwire" encode mixed.jsonl -o mixed.owj --on-error skip
"$objwire" decode mixed.owj >out || fail "decode of the skipped file exited $?"
[ "$(wc -l <out)" -eq 2 ] || fail "decode of the skipped file: $(cat out)"
# decode names what it reads when given something else.
expect_error 4 "^objwire: person.jsonl: at byte 0: not a journal block \(bad magic\) - decode reads files written by \`objwire encode\`" \
  "$objwire" decode person.jsonl
head -c 60 mixed.owj >torn.owj
expect_error 4 "^objwire: torn.owj: at byte 0: the last 60 bytes are not a whole block" \
  "$objwire" decode torn.owj
echo "config_cli: ok"
