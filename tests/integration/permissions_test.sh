#!/usr/bin/env bash
# Users and permissions through the programs (docs/SECURITY.md, "Users and permissions"): an
# objwired with three users - a writer that may send as app-*, a reader that may read app-*, an
# admin - checks every refusal (exit 2, the permission and the user named, a log line, the
# counter), that the reader sees nothing of db-* however it reads, and that a reload removes
# and adds users while the daemon runs.
set -euo pipefail
objwired=$1
objwire=$2
dir=$(mktemp -d)
daemon=""
follower=""
trap '[ -n "$follower" ] && kill $follower 2>/dev/null; [ -n "$daemon" ] && kill $daemon 2>/dev/null; rm -rf "$dir"' EXIT
source "$(dirname "$0")/daemon_helpers.sh"

token() { printf '%s token of at least sixteen bytes\n' "$1" >"$dir/$1.token"; chmod 600 "$dir/$1.token"; }
for u in writer reader admin late scraper; do token $u; done
writer_sha=$(printf 'writer token of at least sixteen bytes' | sha256sum | cut -d' ' -f1)

users() {  # the config: the writer, the admin, and the users named as arguments
  {
    printf '[metrics]\nbearer_token_file = "%s"\n\n' "$dir/scraper.token"
    printf '[[auth.users]]\nname = "writer"\ntoken_sha256 = "%s"\nsend = ["app-*"]\n\n' "$writer_sha"
    printf '[[auth.users]]\nname = "admin"\ntoken_file = "%s"\nsend = ["*"]\nadmin = true\n\n' "$dir/admin.token"
    for extra in "$@"; do
      case $extra in
        reader) printf '[[auth.users]]\nname = "reader"\ntoken_file = "%s"\nread = ["app-*"]\n\n' "$dir/reader.token" ;;
        late) printf '[[auth.users]]\nname = "late"\ntoken_file = "%s"\nsend = ["late-*"]\n\n' "$dir/late.token" ;;
      esac
    done
  } >"$dir/objwired.toml.new"
  mv "$dir/objwired.toml.new" "$dir/objwired.toml"
}
users reader
OBJWIRE_METRICS_LISTEN=127.0.0.1:0 start_daemon "$dir/log" "$dir/data" --config "$dir/objwired.toml"
to=(--to "127.0.0.1:$port")
as() { local who=$1; shift; "$objwire" "$@" "${to[@]}" --token-file "$dir/$who.token"; }

lines() {  # N PREFIX: N JSON lines of objects named PREFIX-i
  for i in $(seq 1 "$1"); do printf '{"$type":"Event","from":"%s","i":%d}\n' "$2" "$i"; done
}
lines 3 app-1 >"$dir/app1.jsonl"
lines 4 db-1 >"$dir/db1.jsonl"
lines 5 app-2 >"$dir/app2.jsonl"
lines 6 db-2 >"$dir/db2.jsonl"

# expect_refused WHAT PERMISSION USER CMD...: exit 2, the error names the permission and the
# user and no credential. (The log holds the first 5 refusals in 10 s in full, the rest as a
# count: each is counted by the metric checked at the end.)
expect_refused() {
  local what=$1 perm=$2 user=$3 rc=0
  shift 3
  "$@" >"$dir/out" 2>"$dir/err" || rc=$?
  [ "$rc" -eq 2 ] || fail "$what: exited $rc, want 2: $(cat "$dir/err")"
  grep -q "user '$user' lacks permission $perm" "$dir/err" || fail "$what: message: $(cat "$dir/err")"
  [ ! -s "$dir/out" ] || fail "$what: printed $(cat "$dir/out")"
  grep -qF "$dir" "$dir/err" && fail "$what: the error names a credential file"
  return 0
}

# The writer: sends as app-1, nothing else.
as writer send "$dir/app1.jsonl" --sender-id app-1 --retry-for 0 2>"$dir/err" ||
  fail "writer as app-1 exited $?: $(cat "$dir/err")"
expect_refused "writer as db-1" send writer as writer send "$dir/db1.jsonl" --sender-id db-1 --retry-for 0
expect_refused "writer reads" read writer as writer read
expect_refused "writer sets a cursor" admin writer as writer cursor set etl 0
expect_refused "writer lists senders" read writer as writer senders
expect_refused "writer's stats" admin writer as writer stats
wait_for_log "$dir/log" "refused: user 'writer' lacks permission send as sender id 'db-1'" ||
  fail "the refused send is not logged naming the user, the permission and the sender id"

# The admin stores db-1's objects; the reader may not send.
as admin send "$dir/db1.jsonl" --sender-id db-1 --retry-for 0 2>"$dir/err" ||
  fail "admin as db-1 exited $?: $(cat "$dir/err")"
expect_refused "reader sends" send reader as reader send "$dir/app1.jsonl" --sender-id app-9 --retry-for 0
expect_refused "reader reads db-1" read reader as reader read --sender db-1
expect_refused "reader's cursor list" admin reader as reader cursor list

# The reader sees app-* only: read, --since, --last, senders.
only_app() {  # WHAT FILE WANT_LINES
  [ "$(wc -l <"$2")" -eq "$3" ] || fail "$1: $(wc -l <"$2") lines, want $3: $(cat "$2")"
  grep -q '"db-' "$2" && fail "$1 shows db-*: $(cat "$2")"
  return 0
}
as reader read >"$dir/read.out" 2>"$dir/err" || fail "reader read exited $?: $(cat "$dir/err")"
only_app "read" "$dir/read.out" 3
as reader read --since 1h >"$dir/since.out" 2>"$dir/err" ||
  fail "reader read --since exited $?: $(cat "$dir/err")"
only_app "read --since" "$dir/since.out" 3
as reader read --from=-5 >"$dir/last.out" 2>"$dir/err" ||
  fail "reader read --from=-5 exited $?: $(cat "$dir/err")"
only_app "read --from=-5" "$dir/last.out" 3
as reader senders >"$dir/senders.out" 2>"$dir/err" || fail "reader senders exited $?: $(cat "$dir/err")"
grep -q "app-1" "$dir/senders.out" || fail "reader's senders lack app-1: $(cat "$dir/senders.out")"
grep -q "db-" "$dir/senders.out" && fail "reader's senders show db-*: $(cat "$dir/senders.out")"
as admin senders >"$dir/senders.out" 2>"$dir/err" || fail "admin senders exited $?: $(cat "$dir/err")"
grep -q "db-1" "$dir/senders.out" || fail "admin's senders lack db-1: $(cat "$dir/senders.out")"

# The reader follows: every app object once, none of db-*.
as reader read --follow >"$dir/follow.out" 2>"$dir/follow.err" &
follower=$!
wait_for_lines "$dir/follow.out" 3 || fail "the follower did not print the stored app objects"
as admin send "$dir/db2.jsonl" --sender-id db-2 --retry-for 0 2>"$dir/err" || fail "admin as db-2: $(cat "$dir/err")"
as writer send "$dir/app2.jsonl" --sender-id app-2 --retry-for 0 2>"$dir/err" || fail "writer as app-2: $(cat "$dir/err")"
wait_for_lines "$dir/follow.out" 8 || fail "the follower did not print app-2's objects: $(cat "$dir/follow.out")"
for f in app-1 app-2; do
  for i in $(seq 1 $([ $f = app-1 ] && echo 3 || echo 5)); do
    [ "$(grep -c "\"from\":\"$f\",\"i\":$i}" "$dir/follow.out")" -eq 1 ] ||
      fail "the follower printed $f #$i not once: $(cat "$dir/follow.out")"
  done
done

# The admin lists and moves cursors.
as admin cursor set etl 2 2>"$dir/err" || fail "admin cursor set exited $?: $(cat "$dir/err")"
as admin cursor list >"$dir/cursors.out" 2>"$dir/err" || fail "admin cursor list: $(cat "$dir/err")"
grep -qP '^etl\t2$' "$dir/cursors.out" || fail "cursor list: $(cat "$dir/cursors.out")"

# A reload that removes the reader closes its follower with the reason; one that adds a user
# admits it without a restart.
rc=0
as late send "$dir/app1.jsonl" --sender-id late-1 --retry-for 0 2>"$dir/err" || rc=$?
[ "$rc" -eq 2 ] && grep -q "wrong token" "$dir/err" || fail "late before the reload: exit $rc: $(cat "$dir/err")"
users late
kill -HUP "$daemon"
# Within 1 s, measured in milliseconds ($SECONDS counts whole seconds).
hup_ms=$(($(date +%s%N) / 1000000))
wait_for_exit "$follower" 5 || fail "the follower still runs 5 s after the reload"
closed_ms=$(($(date +%s%N) / 1000000 - hup_ms))
[ "$closed_ms" -le 1000 ] || fail "the follower ended $closed_ms ms after the reload, over 1 s"
rc=0
wait "$follower" || rc=$?
follower=""
[ "$rc" -eq 2 ] || fail "the closed follower exited $rc, want 2: $(cat "$dir/follow.err")"
grep -q "user 'reader' was removed" "$dir/follow.err" || fail "follower's reason: $(cat "$dir/follow.err")"
[ "$(wc -l <"$dir/follow.out")" -eq 8 ] || fail "the follower printed more: $(cat "$dir/follow.out")"
as late send "$dir/app1.jsonl" --sender-id late-1 --retry-for 0 2>"$dir/err" ||
  fail "the added user's send exited $?: $(cat "$dir/err")"
rc=0
as reader read >/dev/null 2>"$dir/err" || rc=$?
[ "$rc" -eq 2 ] && grep -q "wrong token" "$dir/err" || fail "the removed reader: exit $rc: $(cat "$dir/err")"

# The counters by user and reason.
mport=$(logged_metrics_port "$dir/log")
scrape() {  # [TOKEN]: GET /metrics, with that bearer token
  get_metrics "$mport" "$dir/metrics" "${1:+Authorization: Bearer $1}"
}
scrape
head -1 "$dir/metrics" | grep -q "^HTTP/1.0 401 " || fail "/metrics without the bearer token: $(head -1 "$dir/metrics")"
grep -q objwire_ "$dir/metrics" && fail "the 401 shows metrics"
scrape "$(tr -d '\n' <"$dir/scraper.token")"
head -1 "$dir/metrics" | grep -q "^HTTP/1.0 200 " || fail "/metrics with the bearer token: $(head -1 "$dir/metrics")"
check_metric() {
  grep -qxF "objwire_auth_refusals_total{user=\"$1\",reason=\"$2\"} $3" "$dir/metrics" ||
    fail "metric $1/$2 != $3: $(grep auth_refusals "$dir/metrics")"
}
check_metric writer send 1
check_metric writer read 2
check_metric writer admin 2
check_metric reader revoked 1
check_metric "" credential 2
# Traffic by user: the writer stored app-1 and app-2 (8 objects); the reader was served 3 by
# read, --since and --from=-5 each, and 8 by the follower.
grep -qxF 'objwire_user_objects_in_total{user="writer"} 8' "$dir/metrics" ||
  fail "writer's objects in: $(grep user_objects "$dir/metrics")"
grep -qxF 'objwire_user_objects_out_total{user="reader"} 17' "$dir/metrics" ||
  fail "reader's objects out: $(grep user_objects "$dir/metrics")"
echo "permissions: ok"
