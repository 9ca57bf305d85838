# Shared by the benchmark scripts (source it): the port a started objwired logs
# (logged_port, with the other waits), and medians.

source "$(dirname "${BASH_SOURCE[0]}")/../support/wait_until.sh"

# median: of the numbers on standard input, one per line.
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

# repeated N CMD...: CMD's one-line output, N times (the rows column_median reads). Its local
# has an unlikely name: bash scoping is dynamic, so CMD would see a local called `n`.
repeated() { local repeated_times=$1; shift; for _ in $(seq "$repeated_times"); do "$@"; done; }

# column_median K ROWS: the median of the K-th number of each line of ROWS.
column_median() { awk -v k="$1" '{print $k}' <<<"$2" | median; }

# case_table REPEAT ROW_FN FORMAT CASE...: each CASE is "name|settings|bench arguments";
# ROW_FN "settings" "arguments" prints one run's numbers on a line and runs REPEAT times; FORMAT
# (printf) gets the name and the median of each column.
case_table() {
  local times=$1 row_fn=$2 format=$3 c name settings args rows k
  shift 3
  for c in "$@"; do
    IFS='|' read -r name settings args <<<"$c"
    rows=$(repeated "$times" "$row_fn" "$settings" "$args")
    local medians=()
    for k in $(seq "$(awk '{print NF; exit}' <<<"$rows")"); do
      medians+=("$(column_median "$k" "$rows")")
    done
    # shellcheck disable=SC2059  # the format is the caller's
    printf "$format" "$name" "${medians[@]}"
  done
}

# field NAME JSON: the value of key NAME in a one-line JSON object (the first, quotes dropped).
field() { grep -o "\"$1\":[^,}]*" <<<"$2" | head -1 | cut -d: -f2 | tr -d '"'; }

# timed_send OBJWIRE MODE FILE ADDR TIME_FILE: one `objwire send` of FILE to ADDR, reading the
# file itself (MODE file) or a pipe (MODE pipe), under /usr/bin/time -v writing TIME_FILE.
timed_send() {
  local objwire=$1 mode=$2 file=$3 addr=$4 time_file=$5
  if [ "$mode" = file ]; then
    /usr/bin/time -v -o "$time_file" "$objwire" send "$file" --to "$addr" 2>/dev/null
  else
    # shellcheck disable=SC2002  # the pipe is the case measured
    cat "$file" | /usr/bin/time -v -o "$time_file" "$objwire" send - --to "$addr" 2>/dev/null
  fi
}
