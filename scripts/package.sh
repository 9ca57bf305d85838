#!/usr/bin/env bash
# Builds the Debian package of objwire: OUT/objwire_VERSION_ARCH.deb (OUT defaults to
# build/package), with the two programs, the systemd unit, the example configs, the man pages
# and bash completion made from the programs' --help (cmake/objwire_deb.cmake,
# cmake/objwire_docs.cmake). `scripts/package.sh --test` then installs it in a fresh
# Debian 12 root and runs an operator's routine on it, in the root booted with systemd-nspawn
# where it boots (tests/package/deb_test.sh: root, debootstrap, Debian's mirror).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
out=${OUT:-$BUILD_DIR/package}
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DOBJWIRE_WERROR=ON >/dev/null
cmake --build "$BUILD_DIR" -j "$(nproc)" --target objwired objwire objwire_docs
mkdir -p "$out"
cpack --config "$BUILD_DIR/CPackConfig.cmake" -G DEB -B "$out" >"$out/cpack.log" 2>&1 ||
  { cat "$out/cpack.log" >&2; exit 1; }
rm -rf "$out/_CPack_Packages"
deb=$(ls "$out"/objwire_*.deb)
echo "package: $deb"
if [ "${1:-}" = --test ]; then
  tests/package/deb_test.sh "$deb"
fi
