#!/usr/bin/env bash
# tests/bench/targets.sh at a tiny SCALE, one run per case: the table comes out whole - every
# target a row, each with a measured figure, a bound and yes, no or "-". The figures themselves
# are not checked: at this size they measure start-up, not objwire.
#   targets_test.sh BUILD_DIR
set -euo pipefail
here=$(dirname "$0")
# The 1,000-connection rows need about 5,000 descriptors (targets.sh raises the limit): a
# machine whose hard limit is lower cannot run them, which is the machine's, not objwire's.
hard=$(ulimit -Hn)
if [ "$hard" != unlimited ] && [ "$hard" -lt 8192 ]; then
    echo "targets_test: skipped: the descriptor limit is $hard, 1,000 connections need 8,192"
    exit 77
fi
out=$(BUILD_DIR=$1 SCALE=${SCALE:-0.002} REPEAT=1 bash "$here/targets.sh")
echo "$out"
rows=$(grep -c '^|' <<<"$out")
expected=17  # the header, its rule and one row per target
[ "$rows" = "$expected" ] || { echo "targets_test: $rows table lines, expected $expected" >&2; exit 1; }
bad=$(tail -n +3 <<<"$out" | awk -F' \\| ' '{
    held = $4; sub(/ \|$/, "", held)
    if ($2 !~ /[0-9]/ || $2 ~ /\?/ || $3 == "" || held !~ /^(yes|no|-)$/) print }')
[ -z "$bad" ] || { echo "targets_test: rows without a figure or a verdict:" >&2; echo "$bad" >&2; exit 1; }
echo "targets_test: all $((expected - 2)) targets measured"
