#!/usr/bin/env bash
# Installs the Debian 12 packages objwire builds and tests with - only those missing, so a
# second run changes nothing and says so. Needs root (or sudo) only when something is missing.
set -euo pipefail

packages=(
  cmake g++ ninja-build pkg-config
  libasio-dev libspdlog-dev libfmt-dev zlib1g-dev libtomlplusplus-dev libcli11-dev
  libsimdjson-dev libzstd-dev liblz4-dev libssl-dev openssl
  libgtest-dev libgmock-dev libbenchmark-dev
  clang-14 libclang-rt-14-dev  # libFuzzer and the sanitizer runtimes for scripts/fuzz.sh
  strace  # tests/integration/write_calls_test.sh counts the client's write system calls
  libsystemd-dev  # sd_notify: READY/RELOADING/STOPPING/WATCHDOG under systemd (daemon/ops/service_notify.cpp)
  nats-server libnats-dev  # the nats sink (daemon/sinks/nats_sink.*) and its integration tests
  iproute2  # tests/bench/link.sh (ip, tc) and its test tests/bench/link_test.sh
  valgrind  # tests/bench/instruction_guard.sh: callgrind instruction counts, a CI guard
  libboost1.81-dev  # Boost.Describe: field names of the structs include/objwire/typed.hpp sends
  time  # /usr/bin/time -v: the client's peak RSS in tests/integration/send_rss_test.sh
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo=sudo
fi
export DEBIAN_FRONTEND=noninteractive
if ! $sudo apt-get update -q >/tmp/objwire-apt-update.log 2>&1; then
  echo "install-deps: 'apt-get update' failed; its output:" >&2
  tail -20 /tmp/objwire-apt-update.log >&2
  exit 1
fi
if ! $sudo apt-get install -y -q --no-install-recommends "${missing[@]}" >/tmp/objwire-apt-install.log 2>&1; then
  echo "install-deps: 'apt-get install ${missing[*]}' failed; its output:" >&2
  tail -20 /tmp/objwire-apt-install.log >&2
  exit 1
fi
echo "install-deps: installed ${#missing[@]} packages"
