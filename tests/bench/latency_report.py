#!/usr/bin/env python3
"""The latency section's table and plot from tests/bench/latency_sweep.sh's JSON lines.

    tests/bench/latency_report.py LATENCY_JSONL OUT_DIR

Writes OUT_DIR/latency.md (medians of each case's runs) and OUT_DIR/latency.png (ack latency
percentiles against the offered rate, one panel per journal.fsync policy; gnuplot).
"""
import json
import shutil
import statistics
import subprocess
import sys
from collections import defaultdict
from pathlib import Path


def med(runs, key):
    values = [r[key] for r in runs if key in r]
    return statistics.median(values) if values else float("nan")


def groups(rows, *keys):
    out = defaultdict(list)
    for r in rows:
        out[tuple(r.get(k) for k in keys)].append(r)
    return out


def rate_table(rows):
    lines = [
        "| journal.fsync | batch.linger | % of max | offered/s | acked/s | p50 ms | p90 ms | p99 ms | p99.9 ms | max ms | runs |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for (fsync, linger, pct), runs in groups(rows, "fsync", "linger", "percent").items():
        lines.append(
            f"| {fsync} | {linger} | {pct} | {med(runs, 'rate_target'):,.0f} | "
            f"{med(runs, 'objects_per_second'):,.0f} | {med(runs, 'ack_latency_p50_ms'):.2f} | "
            f"{med(runs, 'ack_latency_p90_ms'):.2f} | {med(runs, 'ack_latency_p99_ms'):.2f} | "
            f"{med(runs, 'ack_latency_p999_ms'):.2f} | {med(runs, 'ack_latency_max_ms'):.2f} | {len(runs)} |"
        )
    return lines


def max_table(rows):
    lines = ["| journal.fsync | batch.linger | max objects/s (closed loop) | runs |", "|---|---|---:|---:|"]
    for (fsync, linger), runs in groups(rows, "fsync", "linger").items():
        lines.append(f"| {fsync} | {linger} | {med(runs, 'objects_per_second'):,.0f} | {len(runs)} |")
    return lines


def connection_table(closed, paced):
    lines = [
        "| journal.fsync | connections | objects/s (closed loop) | slowest / mean connection | "
        "paced at 50%: p50 ms | p99 ms | p99.9 ms | runs |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in closed + paced:
        r.setdefault("connections", 1)
    by_n = groups(paced, "fsync", "connections")
    for (fsync, n), runs in groups(closed, "fsync", "connections").items():
        # One connection (the plain bench report) is fair by definition.
        fair = statistics.median(
            min(r.get("connection_objects_per_second", [1])) / statistics.mean(r.get("connection_objects_per_second", [1]))
            for r in runs
        )
        p = by_n.get((fsync, n), [])
        lat = (
            f"{med(p, 'ack_latency_p50_ms'):.2f} | {med(p, 'ack_latency_p99_ms'):.2f} | "
            f"{med(p, 'ack_latency_p999_ms'):.2f}"
            if p
            else "- | - | -"
        )
        lines.append(f"| {fsync} | {n:,} | {med(runs, 'objects_per_second'):,.0f} | {fair:.2f} | {lat} | {len(runs)} |")
    return lines


def reader_table(closed, paced):
    lines = ["| followers | sender objects/s (closed loop) | runs |", "|---:|---:|---:|"]
    for (n,), runs in groups(closed, "readers").items():
        lines.append(f"| {n or 0} | {med(runs, 'objects_per_second'):,.0f} | {len(runs)} |")
    if paced:
        lines += [
            "",
            "| paced at 50%, 10 followers | p50 ms | p90 ms | p99 ms | p99.9 ms | max ms |",
            "|---|---:|---:|---:|---:|---:|",
        ]
        for what in ("ack_latency", "delivery_latency"):
            cells = " | ".join(f"{med(paced, f'{what}_{p}_ms'):.2f}" for p in ("p50", "p90", "p99", "p999", "max"))
            lines.append(f"| {what.replace('_', ' ')} | {cells} |")
    return lines


def plot(rows, out):
    if not shutil.which("gnuplot"):
        print("gnuplot not installed: no plot", file=sys.stderr)
        return
    panels = []
    for fsync in ("never", "interval", "always"):
        series = []
        for linger in ("0", "default"):
            runs = groups([r for r in rows if r["fsync"] == fsync and r["linger"] == linger], "percent")
            data = out / f"latency_{fsync}_{linger}.dat"
            with data.open("w") as f:
                for (pct,), rs in sorted(runs.items()):
                    f.write(
                        f"{med(rs, 'rate_target')} {med(rs, 'ack_latency_p50_ms')} "
                        f"{med(rs, 'ack_latency_p99_ms')} {med(rs, 'ack_latency_p999_ms')}\n"
                    )
            if not runs:
                continue
            for col, name in ((2, "p50"), (3, "p99"), (4, "p99.9")):
                series.append(f"'{data}' using 1:{col} with linespoints title 'linger {linger} {name}'")
        if series:
            panels.append(f"set title 'journal.fsync = {fsync}'; plot " + ", ".join(series))
    script = "\n".join(
        [
            "set terminal pngcairo size 1500,480 noenhanced font ',10'",
            f"set output '{out / 'latency.png'}'",
            f"set multiplot layout 1,{max(1, len(panels))} title 'objwire bench --rate, events: ack latency (due time to acknowledgement) "
            "against the offered rate, medians of the runs'",
            "set logscale xy",
            "set xlabel 'offered objects/s'",
            "set ylabel 'ms'",
            "set key bottom right",
            "set grid",
            *panels,
            "unset multiplot",
        ]
    )
    subprocess.run(["gnuplot"], input=script, text=True, check=True)
    for d in out.glob("latency_*.dat"):
        d.unlink()


def main():
    rows = [json.loads(line) for line in Path(sys.argv[1]).read_text().splitlines() if line.strip()]
    out = Path(sys.argv[2])
    case = groups(rows, "case")
    pick = lambda name: case.get((name,), [])  # noqa: E731
    md = ["### Maximum rate", *max_table(pick("max")), "", "### Open loop at 10, 50 and 90% of it"]
    md += rate_table(pick("rate"))
    md += ["", "### Connections", *connection_table(pick("connections"), pick("connections_rate"))]
    md += ["", "### Followers", *reader_table(pick("readers"), pick("readers_rate"))]
    (out / "latency.md").write_text("\n".join(md) + "\n")
    plot(pick("rate"), out)
    print(f"wrote {out / 'latency.md'}, {out / 'latency.png'}", file=sys.stderr)


if __name__ == "__main__":
    main()
