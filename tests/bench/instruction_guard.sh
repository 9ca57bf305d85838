#!/usr/bin/env bash
# CI guard on the codec's cost that does not drift with machine load: callgrind counts the
# instructions per object of encode and decode for `person` and `events`, and each must stay
# within its budget in tests/bench/instruction_budget.txt (the measured count plus a margin).
# A regression fails CI; an improvement is locked in by lowering the budget.
#
#   tests/bench/instruction_guard.sh BUILD_DIR            # check
#   tests/bench/instruction_guard.sh BUILD_DIR --print    # measure and print, check nothing
set -euo pipefail
build=${1:?usage: instruction_guard.sh BUILD_DIR [--print]}
mode=${2:-check}
here=$(cd "$(dirname "$0")" && pwd)
bin="$build/tests/bench/codec_instructions"
budget_file="$here/instruction_budget.txt"
command -v valgrind >/dev/null || { echo "instruction_guard: valgrind is missing (scripts/install-deps.sh installs it)" >&2; exit 1; }
[ -x "$bin" ] || { echo "instruction_guard: $bin not built" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# instructions/object of one phase, as an integer
count() {
  local workload=$1 n=$2 phase=$3 out="$work/$1.$3.out"
  valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$out" \
    "$bin" "$workload" "$n" "$phase" >/dev/null 2>"$work/log" ||
    { cat "$work/log" >&2; return 1; }
  local total
  total=$(awk '/^totals:/ {print $2; exit}' "$out")
  echo $(( (total + n / 2) / n ))
}

status=0
while read -r workload n phase budget; do
  case "$workload" in ''|'#'*) continue ;; esac
  got=$(count "$workload" "$n" "$phase")
  if [ "$mode" = "--print" ]; then
    printf '%-8s %-7s %6s instructions/object (budget %s)\n' "$workload" "$phase" "$got" "$budget"
  elif [ "$got" -gt "$budget" ]; then
    printf 'instruction_guard: %s %s costs %s instructions/object, over its budget of %s\n' \
      "$workload" "$phase" "$got" "$budget" >&2
    status=1
  else
    printf 'instruction_guard: %s %s %s instructions/object (budget %s)\n' \
      "$workload" "$phase" "$got" "$budget"
  fi
done <"$budget_file"
exit $status
