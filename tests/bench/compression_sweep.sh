#!/usr/bin/env bash
# The compression sweep: `objwire bench` of the events and blobs workloads over links
# shaped to 10 Mbit/s, 100 Mbit/s and 1 Gbit/s (tests/bench/link.sh: a private network
# namespace whose 127.0.0.1 is token-bucket shaped) and over plain loopback, with the
# compression policies never, always (zlib-1, zlib-6, zstd-1, lz4) and auto. Each point is
# the median of REPEAT runs, each with a fresh daemon; counts are chosen so a run takes a few
# seconds. Writes OUT/compression_sweep.tsv (every run), OUT/compression_sweep.md (the table)
# and OUT/compression_sweep.png (gnuplot, if installed).
#
#   sudo tests/bench/compression_sweep.sh [BUILD_DIR [OUT_DIR]]   (default: build, docs)
#   env: REPEAT=3  RATES="10mbit 100mbit 1gbit loopback"  WORKLOADS="events blobs"
#        SCALE=100 (percent of the object counts)  LINK_SH=tests/bench/link.sh
#        POLICIES="never auto" (a subset of the policies, for a quick try)
set -euo pipefail

# ---- one run, inside the (shaped) namespace: fresh daemon, one bench, its JSON on stdout ----
if [ "${1:-}" = "--run" ]; then
    shift
    build=$1 workload=$2 count=$3 policy=$4
    dir=$(mktemp -d)
    "$build/daemon/objwired" --listen 127.0.0.1:0 --data-dir "$dir/data" --log-level info \
        2>"$dir/log" &
    daemon=$!
    trap 'kill $daemon 2>/dev/null || true; wait $daemon 2>/dev/null || true; rm -rf "$dir"' EXIT
    source "$(dirname "$0")/../support/wait_until.sh"
    port=$(logged_port "$dir/log") || { echo "daemon did not start: $(cat "$dir/log")" >&2; exit 1; }
    IFS=: read -r mode codec level <<<"$policy"
    args=(--compression "$mode")
    [ -n "${codec:-}" ] && args+=(--codec "$codec" --level "$level")
    "$build/client/objwire" bench --workload "$workload" -n "$count" \
        --to "127.0.0.1:$port" "${args[@]}" --json
    exit 0
fi

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
out=$(mkdir -p "${2:-$root/docs}" && cd "${2:-$root/docs}" && pwd)
link=${LINK_SH:-$here/link.sh}
repeat=${REPEAT:-3}
scale=${SCALE:-100}  # percent of the standard object counts, for a quick try
rates=${RATES:-"10mbit 100mbit 1gbit loopback"}
workloads=${WORKLOADS:-"events blobs"}
policies=${POLICIES:-"never always:zlib:1 always:zlib:6 always:zstd:1 always:lz4:1 auto"}

# Objects per run: a few seconds of the fastest policy, so that what every run costs once -
# the connection, TCP's slow start, the last acknowledgement waiting for the journal's fsync
# interval (100 ms) - stays small against it (at 200,000 events on 10 Mbit/s those cost auto
# 2-3% of its objects/s and never 1%).
count_for() {
    case "$1:$2" in
        events:10mbit) echo 400000 ;;    events:100mbit) echo 1000000 ;;
        events:1gbit) echo 2000000 ;;    events:loopback) echo 2000000 ;;
        blobs:10mbit) echo 250 ;;       blobs:100mbit) echo 2500 ;;
        blobs:1gbit) echo 12000 ;;      blobs:loopback) echo 12000 ;;
    esac
}

tsv=$out/compression_sweep.tsv
printf 'workload\trate\tpolicy\trun\tobjects_per_second\tbytes_per_object\tframes\tframes_compressed\testimated_link_mbit\tcompression_ratio\n' >"$tsv"
field() { grep -o "\"$1\":[^,}]*" <<<"$2" | head -1 | cut -d: -f2 | tr -d '"'; }
for workload in $workloads; do
    for rate in $rates; do
        n=$(( $(count_for "$workload" "$rate") * scale / 100 + 1 ))
        for policy in $policies; do
            for run in $(seq "$repeat"); do
                if [ "$rate" = loopback ]; then
                    json=$(bash "$0" --run "$build" "$workload" "$n" "$policy")
                else
                    json=$("$link" "$rate" bash "$0" --run "$build" "$workload" "$n" "$policy")
                fi
                row="$workload	$rate	$policy	$run"
                for k in objects_per_second bytes_per_object frames frames_compressed \
                         estimated_link_mbit compression_ratio; do
                    row+="	$(field "$k" "$json")"
                done
                echo "$row" | tee -a "$tsv"
            done
        done
    done
done

# ---- the table: medians per point; auto against the best of the others ----------------------
awk -F'\t' -v policies="$policies" '
    NR == 1 { next }
    { key = $1 SUBSEP $2 SUBSEP $3; n[key]++; ops[key, n[key]] = $5; bpo[key, n[key]] = $6
      if (!(($1 SUBSEP $2) in seen)) { seen[$1 SUBSEP $2] = 1; order[++points] = $1 SUBSEP $2 } }
    function median(arr, key, count,   i, j, t, v) {
        for (i = 1; i <= count; i++) v[i] = arr[key, i] + 0
        for (i = 1; i <= count; i++) for (j = i + 1; j <= count; j++)
            if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
        return count % 2 ? v[(count + 1) / 2] : (v[count / 2] + v[count / 2 + 1]) / 2
    }
    END {
        np = split(policies, pol, " ")
        printf "| workload | link |"
        for (p = 1; p <= np; p++) printf " %s |", pol[p]
        printf " auto / best |\n|---|---|"
        for (p = 1; p <= np; p++) printf "---|"
        printf "---|\n"
        for (i = 1; i <= points; i++) {
            split(order[i], wr, SUBSEP)
            printf "| %s | %s |", wr[1], wr[2]
            best = 0
            for (p = 1; p <= np; p++) {
                key = order[i] SUBSEP pol[p]
                o = median(ops, key, n[key]); b = median(bpo, key, n[key])
                printf " %.0f (%.1f B) |", o, b
                if (pol[p] == "auto") a = o; else if (o > best) best = o
            }
            printf " %.2f |\n", a / best
        }
    }' "$tsv" >"$out/compression_sweep.md"
cat "$out/compression_sweep.md"

# ---- the plot ----------------------------------------------------------------------------------
command -v gnuplot >/dev/null || { echo "gnuplot not installed: no plot" >&2; exit 0; }
tmp=$(mktemp -d)
panels=""
for w in $workloads; do
    # One row per link, one column per policy: mean objects/s.
    awk -F'\t' -v w="$w" -v rates="$rates" -v policies="$policies" '
        NR > 1 && $1 == w { s[$2, $3] += $5; c[$2, $3]++ }
        END {
            nr = split(rates, r, " "); np = split(policies, p, " ")
            printf "link"; for (j = 1; j <= np; j++) printf "\t%s", p[j]; printf "\n"
            for (i = 1; i <= nr; i++) {
                printf "%s", r[i]
                for (j = 1; j <= np; j++)
                    printf "\t%s", c[r[i], p[j]] ? s[r[i], p[j]] / c[r[i], p[j]] : "NaN"
                printf "\n"
            }
        }' "$tsv" >"$tmp/$w.dat"
    panels+="set title '$w'; plot for [i=2:7] '$tmp/$w.dat' using i:xtic(1) title columnheader(i)"$'\n'
done
gnuplot <<EOF
set terminal pngcairo size 1200,500 noenhanced font ",10"
set output "$out/compression_sweep.png"
set datafile separator "\t"
set multiplot layout 1,2 title "objwire compression sweep: objects/s by link and policy (mean of $repeat runs)"
set logscale y
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set key top left
set ylabel "objects/s"
$panels
unset multiplot
EOF
rm -rf "$tmp"
echo "wrote $tsv, $out/compression_sweep.md, $out/compression_sweep.png"
