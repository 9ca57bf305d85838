#!/usr/bin/env bash
# Output formats and raw text in shell pipelines: `read --format` (each field, the escapes,
# bad format strings), `read --envelope`, and `send --raw` read back byte for byte with
# `read --raw` (tabs, quotes, backslashes, unicode, empty lines, a '\r', a 1 MiB line), its
# invalid UTF-8 lines refused with their line and column, --raw-type and --raw-field.
#
#   tests/integration/read_format_test.sh OBJWIRED OBJWIRE
set -euo pipefail
objwired=$1
objwire=$2
dir=$(mktemp -d)
trap 'kill ${daemon:-} 2>/dev/null || true; rm -rf "$dir"' EXIT
source "$(dirname "$0")/daemon_helpers.sh"

start_daemon "$dir/log" "$dir/data"
to="127.0.0.1:$port"

# expect_usage WHAT TEXT CMD...: CMD exits 1 and says TEXT on stderr.
expect_usage() {
  local what=$1 text=$2 rc=0
  shift 2
  "$@" >"$dir/out" 2>"$dir/err" || rc=$?
  [ "$rc" -eq 1 ] || fail "$what: exit $rc, not 1: $(cat "$dir/err")"
  grep -qF -- "$text" "$dir/err" || fail "$what: stderr does not say '$text': $(cat "$dir/err")"
}
now_ms() { date +%s%3N; }

# --- read --format: every field, on a record and on a map.
before=$(now_ms)
printf '%s\n' '{"$type":"Point","x":1,"y":2}' '{"a":"b\tc"}' |
  "$objwire" send - --to "$to" --sender-id fmt-1 2>/dev/null || fail "send exited $?"
after=$(now_ms)
"$objwire" read --to "$to" --sender fmt-1 -o "$dir/plain.jsonl" 2>/dev/null
"$objwire" read --to "$to" --sender fmt-1 --format '%o|%s|%T|%t|%j' >"$dir/fmt" 2>/dev/null ||
  fail "read --format exited $?"
[ "$(wc -l <"$dir/fmt")" -eq 2 ] || fail "--format wrote $(wc -l <"$dir/fmt") lines, not 2"
IFS='|' read -r o1 s1 t1 type1 j1 < <(sed -n 1p "$dir/fmt")
IFS='|' read -r o2 s2 t2 type2 j2 < <(sed -n 2p "$dir/fmt")
[ "$o1" = 0 ] && [ "$o2" = 1 ] || fail "%o: $o1 $o2, not 0 1"
[ "$s1" = fmt-1 ] && [ "$s2" = fmt-1 ] || fail "%s: $s1 $s2"
[ "$t1" -ge "$before" ] && [ "$t1" -le "$after" ] || fail "%T $t1 is not within $before..$after"
[ "$t2" -ge "$t1" ] && [ "$t2" -le "$after" ] || fail "%T $t2 is not within $t1..$after"
[ "$type1" = Point ] && [ "$type2" = "" ] || fail "%t: '$type1' '$type2', not 'Point' ''"
printf '%s\n' "$j1" "$j2" | cmp -s - "$dir/plain.jsonl" ||
  fail "%j is not what read prints: $(cat "$dir/fmt")"

# The escapes and %%: a newline ends each object's line.
"$objwire" read --to "$to" --sender fmt-1 --count 1 --format 'a%%b\tc\\d\ne%o' >"$dir/esc" 2>/dev/null
printf 'a%%b\tc\\d\ne0\n' | cmp -s - "$dir/esc" || fail "escapes: $(cat -A "$dir/esc")"

# Bad format strings: usage errors naming what is wrong; nothing read.
expect_usage "%x" "unknown field %x" "$objwire" read --to "$to" --format 'x=%x'
expect_usage "\\q" 'unknown escape \q' "$objwire" read --to "$to" --format '%o\q'
expect_usage "lone %" "lone '%'" "$objwire" read --to "$to" --format '%o%'
expect_usage "empty --format" "must not be empty" "$objwire" read --to "$to" --format ''
expect_usage "--format with --envelope" "cannot be used together" "$objwire" read --to "$to" --format %o --envelope
[ ! -s "$dir/out" ] || fail "a bad --format printed objects"

# --- read --envelope: one JSON object per line, fields exactly as --format gives them.
"$objwire" read --to "$to" --sender fmt-1 --envelope >"$dir/env" 2>/dev/null || fail "envelope exited $?"
printf '{"offset":0,"sender":"fmt-1","time":%s,"object":%s}\n{"offset":1,"sender":"fmt-1","time":%s,"object":%s}\n' \
  "$t1" "$j1" "$t2" "$j2" | cmp -s - "$dir/env" || fail "envelope: $(cat "$dir/env")"
# Each envelope is a JSON line `send` accepts, and reads back as it was.
"$objwire" send "$dir/env" --to "$to" --sender-id env-1 2>/dev/null || fail "send of envelopes exited $?"
"$objwire" read --to "$to" --sender env-1 2>/dev/null | cmp -s - "$dir/env" || fail "envelopes do not read back"

# --- send --raw: arbitrary text lines back byte for byte.
{
  printf 'plain words\n'
  printf 'tab\there\tand "quotes", back\\slashes \\n \\u0041\n'
  printf '\n'
  printf 'unicode: h\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xe4\xb8\xad\n'
  printf '{"$type":"Point","x":1} looks like JSON\n'
  printf 'carriage return kept\r\n'
  printf '   \t \n'
  printf '%%s %%d $HOME `x` \x01\x1f control\n'
  head -c 1048576 /dev/zero | tr '\0' 'x'
  printf '\n'
  printf '\n'
  printf 'last line\n'
} >"$dir/text"
"$objwire" send --raw "$dir/text" --to "$to" --sender-id raw-1 2>"$dir/err" ||
  fail "send --raw exited $?: $(cat "$dir/err")"
grep -q "sent 11 objects (11 acknowledged)" "$dir/err" || fail "send --raw: $(cat "$dir/err")"
"$objwire" read --raw --to "$to" --sender raw-1 -o "$dir/text.back" 2>"$dir/err" || fail "read --raw exited $?"
cmp "$dir/text" "$dir/text.back" || fail "read --raw is not the input byte for byte"
grep -q "left out" "$dir/err" && fail "read --raw left out text records: $(cat "$dir/err")"
# The records as JSON: {"$type":"line","text":...}.
"$objwire" read --to "$to" --sender raw-1 --count 2 --format '%t %j' >"$dir/raw.fmt" 2>/dev/null
printf '%s\n' 'line {"$type":"line","text":"plain words"}' \
  'line {"$type":"line","text":"tab\there\tand \"quotes\", back\\slashes \\n \\u0041"}' |
  cmp -s - "$dir/raw.fmt" || fail "raw records as JSON: $(cat "$dir/raw.fmt")"
# A last line without a newline is a line; read ends every line with one.
printf 'no newline' | "$objwire" send --raw --to "$to" --sender-id raw-2 2>/dev/null
[ "$("$objwire" read --raw --to "$to" --sender raw-2 2>/dev/null)" = "no newline" ] ||
  fail "a last line without a newline"

# A byte order mark at the start of the input is text too.
printf '\xef\xbb\xbfbom\n' >"$dir/bom"
"$objwire" send --raw "$dir/bom" --to "$to" --sender-id raw-bom 2>/dev/null || fail "send of a BOM exited $?"
"$objwire" read --raw --to "$to" --sender raw-bom 2>/dev/null | cmp -s - "$dir/bom" ||
  fail "the byte order mark did not come back"

# --raw leaves out other objects, and says how many.
"$objwire" read --raw --to "$to" --sender fmt-1 >"$dir/out" 2>"$dir/err"
[ ! -s "$dir/out" ] || fail "read --raw printed non-text objects: $(cat "$dir/out")"
grep -qF "left out 2 objects that are not 'line' records with a string field 'text'" "$dir/err" ||
  fail "read --raw did not count what it left out: $(cat "$dir/err")"

# --raw-type and --raw-field, on both sides.
printf 'one\ntwo\n' | "$objwire" send --raw --raw-type msg --raw-field body --to "$to" --sender-id raw-3 2>/dev/null
[ "$("$objwire" read --to "$to" --sender raw-3 --count 1 2>/dev/null)" = '{"$type":"msg","body":"one"}' ] ||
  fail "--raw-type/--raw-field: $("$objwire" read --to "$to" --sender raw-3)"
[ "$("$objwire" read --raw --raw-type msg --raw-field body --to "$to" --sender raw-3 2>/dev/null)" = $'one\ntwo' ] ||
  fail "read --raw --raw-type msg --raw-field body"
expect_usage "--raw-type without --raw" "needs --raw" "$objwire" send --raw-type x --to "$to" "$dir/text"
expect_usage "empty --raw-field" "must not be empty" "$objwire" send --raw --raw-field '' --to "$to" "$dir/text"

# --- Invalid UTF-8: the line is refused with its line and column, never replaced.
printf 'good 1\ngood 2\nbad \xff here\ngood 4\n' >"$dir/bad"
rc=0
"$objwire" send --raw "$dir/bad" --to "$to" --sender-id utf-1 2>"$dir/err" || rc=$?
[ "$rc" -eq 4 ] || fail "invalid UTF-8 (stop): exit $rc, not 4: $(cat "$dir/err")"
grep -qF "$dir/bad:3:5: invalid UTF-8: byte 0xFF" "$dir/err" || fail "invalid UTF-8: $(cat "$dir/err")"
[ "$("$objwire" read --raw --to "$to" --sender utf-1 2>/dev/null)" = $'good 1\ngood 2' ] ||
  fail "--on-error stop stored more or less than the lines before the bad one"
rc=0
"$objwire" send --raw --on-error skip "$dir/bad" --to "$to" --sender-id utf-2 2>"$dir/err" || rc=$?
[ "$rc" -eq 4 ] || fail "invalid UTF-8 (skip): exit $rc, not 4: $(cat "$dir/err")"
grep -qF "skipped 1 bad line" "$dir/err" || fail "invalid UTF-8 (skip): $(cat "$dir/err")"
[ "$("$objwire" read --raw --to "$to" --sender utf-2 2>/dev/null)" = $'good 1\ngood 2\ngood 4' ] ||
  fail "--on-error skip did not store the other lines"
# An incomplete multi-byte character (its first byte, no continuation) is reported at that first byte.
printf 'ok \xe2\x82\n' | { "$objwire" send --raw --to "$to" --sender-id utf-3 2>"$dir/err" || true; }
grep -qF "<stdin>:1:4: invalid UTF-8: byte 0xE2" "$dir/err" || fail "truncated UTF-8: $(cat "$dir/err")"

echo "read_format_cli: ok"
