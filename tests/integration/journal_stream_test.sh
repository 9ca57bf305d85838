#!/usr/bin/env bash
# Under systemd (JOURNAL_STREAM set) every line objwired writes starts with its syslog
# priority and carries no timestamp or name of its own, so journald files a warning as a
# warning - each line of a multi-line error too, at start and at a reload; without it, lines
# keep their timestamp (with its UTC offset) and name and, written to a file, no colour.
set -euo pipefail
objwired=$1
dir=$(mktemp -d)
daemon=""
trap '[ -n "$daemon" ] && kill "$daemon" 2>/dev/null; rm -rf "$dir"' EXIT
source "$(dirname "$0")/daemon_helpers.sh"

# wait_log LOG PATTERN: the daemon logs PATTERN within 10 s.
wait_log() {
  wait_until 10 grep -q -- "$2" "$1" && return 0
  fail "the daemon did not log '$2'"
}

printf '[metrics]\nlisten = ""\n' >"$dir/objwired.toml"
JOURNAL_STREAM=8:12345 OBJWIRE_SERVER_LISEN=x NO_COLOR=1 \
  start_daemon "$dir/log" "$dir/data" -c "$dir/objwired.toml"
# A warning from the settings (before the logger) and one from the logger (a reload).
printf '[metrics]\nlisten = ""\n[journal]\nsegment_bytes = "1MiB"\n' >"$dir/objwired.toml"
kill -HUP "$daemon"
wait_log "$dir/log" "reload: journal.segment_bytes changed"
# A reload of a file with two mistakes: an error of two lines, each filed as an error.
printf '[server]\nlistne = "x"\n[journal]\nsegmnt_bytes = 1\n' >"$dir/objwired.toml"
kill -HUP "$daemon"
wait_log "$dir/log" "reload: settings not reloaded"
[ "$(grep -c "^<3>$dir/objwired.toml:[0-9]*:" "$dir/log")" = 2 ] ||
  fail "the reload's two errors are not two <3> lines: $(grep -A3 SIGHUP "$dir/log")"
kill "$daemon"
wait "$daemon" || fail "objwired exited $? on SIGTERM"
daemon=""
grep -qx '<4>OBJWIRE_SERVER_LISEN names no setting (did you mean OBJWIRE_SERVER_LISTEN?)' \
  "$dir/log" || fail "the settings warning has no priority"
grep -q '^<4>reload: journal.segment_bytes changed' "$dir/log" || fail "a logged warning has no priority"
grep -q '^<6>listening on 127.0.0.1:' "$dir/log" || fail "an info line has no priority"
bad=$(grep -v '^<[0-7]>' "$dir/log" || true)
[ -z "$bad" ] || fail "lines without a priority: $bad"
grep -Eq '[0-9]{4}-[0-9]{2}-[0-9]{2}T|objwired:' "$dir/log" && fail "a line carries its own timestamp or name"

# The same file at start: exit 78, and no line of the error without its priority.
rc=0
JOURNAL_STREAM=8:12345 "$objwired" -c "$dir/objwired.toml" --data-dir "$dir/data" \
  2>"$dir/log-start" || rc=$?
[ "$rc" = 78 ] || fail "a bad file at start exited $rc"
[ "$(grep -c '^<3>' "$dir/log-start")" = 2 ] || fail "start: $(cat "$dir/log-start")"
bad=$(grep -v '^<[0-7]>' "$dir/log-start" || true)
[ -z "$bad" ] || fail "start: lines without a priority: $bad"

# Without JOURNAL_STREAM: timestamp with its UTC offset, level and name, and no escape codes in
# a file.
printf '[metrics]\nlisten = ""\n' >"$dir/objwired.toml"
start_daemon "$dir/log-plain" "$dir/data-plain" -c "$dir/objwired.toml"
kill "$daemon"
wait "$daemon" || fail "objwired exited $? on SIGTERM"
daemon=""
grep -Eq '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+[+-][0-9]{2}:[0-9]{2} info objwired: listening on' "$dir/log-plain" ||
  fail "plain line: $(head -3 "$dir/log-plain")"
grep -q $'\x1b' "$dir/log-plain" && fail "escape codes in a file"
echo "journal_stream: ok"
