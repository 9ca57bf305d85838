#!/usr/bin/env bash
# Every subcommand's --help ends with a working "Example:": each example line is run against
# objwired on 127.0.0.1 (127.0.0.1:7878 in the text becomes the daemon's real address) in a
# scratch directory holding the shipped config/objwire.toml and objwired.toml, and its exit
# code and output are checked. The subcommands are read from `objwire --help` (nested ones from
# their parent's --help), so a new subcommand is covered as soon as it exists: one without an
# example fails. Example lines are plain words: no quotes, pipes or redirections.
set -euo pipefail
objwired=$1
objwire=$2
config_dir=$3
dir=$(mktemp -d)
trap 'kill $daemon 2>/dev/null || true; rm -rf "$dir"' EXIT
source "$(dirname "$0")/daemon_helpers.sh"

start_daemon "$dir/log" "$dir/data"
mkdir "$dir/work"
cd "$dir/work"
cp "$config_dir/objwire.toml" "$config_dir/objwired.toml" .

# The names listed under "Subcommands:" of a help text.
subcommands_of() { awk '/^Subcommands:/ {on = 1; next} on && /^  [a-z]/ {print $1} on && /^$/ {on = 0}'; }
# The command lines after "Example:", without their indent.
examples_of() { awk '/^Example:/ {on = 1; next} on && /^  / {sub(/^  +/, ""); print; next} {on = 0}'; }

# value_after FLAG WORDS...: the word after FLAG (or its long/short twin), if any.
value_after() {
  local flag=$1
  shift
  while [ $# -gt 1 ]; do
    [ "$1" = "$flag" ] && { echo "$2"; return; }
    shift
  done
}

# Checks what one example produced, by the subcommand it runs (words[1], words[2]).
check_output() {
  local what="$1" out="$dir/out" err="$dir/err"
  shift
  local output
  output=$(value_after -o "$@")
  [ -n "$output" ] || output=$(value_after --output "$@")
  if [ -n "$output" ] && [ "$output" != "-" ]; then
    [ -s "$output" ] || fail "'$what' wrote no $output"
  fi
  case "$2" in
    send)
      grep -Eq "sent ([0-9]+) objects \(\1 acknowledged\)" "$err" ||
        fail "'$what': not every object acknowledged: $(cat "$err")"
      if grep -q "sent 0 objects" "$err"; then fail "'$what' sent nothing"; fi
      ;;
    bench)
      local objects acked
      objects=$(grep -o '"objects":[0-9]*' "$out" | cut -d: -f2)
      acked=$(grep -o '"acked_objects":[0-9]*' "$out" | cut -d: -f2)
      [ -n "$objects" ] && [ "$objects" -gt 0 ] && [ "$objects" = "$acked" ] ||
        fail "'$what': bench report $(cat "$out")"
      ;;
    gen)
      local n
      n=$(value_after -n "$@")
          [ -z "$n" ] || [ "$(wc -l <"$output")" -eq "$n" ] || fail "'$what' did not write $n lines"
      ;;
    encode)
      [ "$(head -c 4 "$output")" = "OWJB" ] || fail "'$what' did not write journal blocks"
      ;;
    decode)
      [ "$(wc -l <"$output")" -gt 0 ] || fail "'$what' decoded nothing"
      head -1 "$output" | grep -q '^{' || fail "'$what' did not write JSON lines"
      ;;
    config)
      case "$3" in
        check) grep -q ": ok (" "$out" || fail "'$what': $(cat "$out" "$err")" ;;
        show) grep -q "to = \"127.0.0.1:$port\" *# --to" "$out" || fail "'$what': $(cat "$out")" ;;
        *) fail "'$what': unknown config subcommand" ;;
      esac
      ;;
    senders)
      grep -Eq "^objwire: [0-9]+ senders?, [0-9]+ objects? held$" "$err" ||
        fail "'$what': $(cat "$out" "$err")"
      if [[ " $* " != *" --json "* ]]; then
        head -n 1 "$out" | grep -q "^SENDER " || fail "'$what': no table: $(cat "$out")"
      fi
      ;;
    stats)
      grep -q "^Connections" "$out" && grep -Eq "^  objects in +[0-9]" "$out" ||
        fail "'$what': $(cat "$out" "$err")"
      ;;
    *)
      # A subcommand this test has no special check for (yet): it must say something.
      [ -s "$out" ] || [ -s "$err" ] || [ -n "$output" ] || fail "'$what' printed nothing"
      ;;
  esac
}

ran=0
# check_command WORDS...: the --help of `objwire WORDS` has examples that work; recurses.
check_command() {
  local help
  help=$("$objwire" "$@" --help) || fail "objwire $* --help exited $?"
  local examples
  examples=$(examples_of <<<"$help")
  [ -n "$examples" ] || fail "objwire $* --help has no 'Example:' lines"
  while IFS= read -r line; do
    local -a words
    read -ra words <<<"${line//127.0.0.1:7878/127.0.0.1:$port}"
    [ "${words[0]}" = objwire ] || fail "example does not start with objwire: $line"
    words[0]=$objwire
    local rc=0
    timeout 60 "${words[@]}" >"$dir/out" 2>"$dir/err" </dev/null || rc=$?
    [ "$rc" -eq 0 ] || fail "example '$line' exited $rc: $(cat "$dir/err")"
    check_output "$line" "${words[@]}"
    ran=$((ran + 1))
  done <<<"$examples"
  local sub
  for sub in $(subcommands_of <<<"$help"); do
    check_command "$@" "$sub"
  done
}

top=$(subcommands_of < <("$objwire" --help))
[ -n "$top" ] || fail "objwire --help lists no subcommands"
for command in $top; do
  check_command "$command"
done
echo "help_examples: ok ($ran example lines of: $(echo $top))"
