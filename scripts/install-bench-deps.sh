#!/usr/bin/env bash
# Optional: what the benchmarks need beyond scripts/install-deps.sh - gnuplot for the plots in
# docs/PERFORMANCE.md, python3 for tests/bench/latency_report.py, iproute2 (ip, tc) for
# tests/bench/link.sh's shaped links. Not part of the build or test path. Installs only what
# is missing; needs root (or sudo) then.
set -euo pipefail

packages=(gnuplot-nox python3 iproute2 util-linux time)  # time: /usr/bin/time -v in tests/bench/e2e.sh
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-bench-deps: all ${#packages[@]} packages present"
  exit 0
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-bench-deps: need root or sudo for: ${missing[*]}" >&2; exit 1; }
  sudo=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q >/dev/null
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
echo "install-bench-deps: installed ${missing[*]}"
