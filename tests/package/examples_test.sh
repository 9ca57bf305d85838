#!/usr/bin/env bash
# The installed library as a user meets it: `cmake --install` into a scratch prefix, then
# examples/ built as a project of its own with find_package(objwire) and, again, with
# `pkg-config --cflags --libs objwire`; each producer sends to an objwired from that prefix on
# 127.0.0.1 and `objwire read` gives the trades back. Also every installed header compiles
# from the prefix. A header, target or dependency missing from the package fails here.
#   examples_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
dir=$(mktemp -d)
trap 'kill ${daemon:-} 2>/dev/null || true; rm -rf "$dir"' EXIT
prefix=$dir/prefix
objwired=$prefix/sbin/objwired
source "$src/tests/integration/daemon_helpers.sh"

cmake --install "$build" --prefix "$prefix" >"$dir/install.log" 2>&1 ||
  fail "cmake --install: $(tail -5 "$dir/install.log")"
for f in lib/cmake/objwire/objwireConfig.cmake lib/cmake/objwire/objwireConfigVersion.cmake \
         lib/pkgconfig/objwire.pc include/objwire/connection.hpp include/objwire/version.hpp; do
  [ -f "$prefix/$f" ] || fail "$f not installed"
done

# The package asks only for what the libraries use: spdlog and fmt are the programs' alone.
grep -qE "spdlog|fmt" "$prefix/lib/cmake/objwire/objwireConfig.cmake" "$prefix/lib/pkgconfig/objwire.pc" &&
  fail "the package requires spdlog or fmt: $(grep -hE 'spdlog|fmt' "$prefix/lib/cmake/objwire/"*.cmake "$prefix/lib/pkgconfig/objwire.pc" | head -3)"
grep -qE "spdlog|fmt::" "$prefix/lib/cmake/objwire/"objwireTargets*.cmake &&
  fail "the exported targets link spdlog or fmt"

# Compiles cached across runs: paths under $dir are hashed relative to it.
launcher=()
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR=$dir CCACHE_NOHASHDIR=1
  launcher=(ccache)
fi

# No define, include path or library reaches the user but through the package.
pc() { PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config "$@" objwire; }
cflags=$(pc --cflags) || fail "pkg-config --cflags objwire failed"
libs=$(pc --libs) || fail "pkg-config --libs objwire failed"
case " $cflags " in *" -D"*) fail "objwire.pc gives defines: $cflags" ;; esac
[ "$(pc --modversion)" = "$(sed -n 's/^#define OBJWIRE_VERSION "\(.*\)"/\1/p' "$prefix/include/objwire/version.hpp")" ] ||
  fail "objwire.pc version differs from objwire/version.hpp"

# Every installed header, from the prefix alone: one that includes a header missing from the
# package, or needs a define the package does not give, fails to compile.
(cd "$prefix/include" && find objwire -name '*.hpp' | sort) | sed 's/.*/#include <&>/' >"$dir/all_headers.cpp"
# At most 12 headers, all in objwire/: the public ones, version.hpp and the vocabulary
# (docs/LIBRARY.md, "Installing it").
headers=$(wc -l <"$dir/all_headers.cpp")
[ "$headers" -ge 10 ] || fail "too few headers installed: $headers"
[ "$headers" -le 12 ] || fail "$headers headers installed, at most 12: $(tr '\n' ' ' <"$dir/all_headers.cpp")"
"${launcher[@]}" c++ -std=c++20 $cflags -c "$dir/all_headers.cpp" -o "$dir/all_headers.o" 2>"$dir/header.err" ||
  fail "the installed headers do not compile from the prefix: $(head -5 "$dir/header.err")"

rpath=()
[ -e "$prefix/lib/libobjwire_client.so" ] && rpath=("-Wl,-rpath,$prefix/lib")

# Only the public surface is installed: include/objwire/*.hpp, version.hpp and vocabulary.hpp
# (the protocol vocabulary they are written in); no folder below objwire/, nothing of proto/,
# config/ or client/.
extra=$(cd "$prefix/include/objwire" && find . -mindepth 2 | sed 's|^\./||' || true)
[ -z "$extra" ] || fail "internal headers installed: $(echo $extra)"
# And the public headers need no more of it than that: each compiles alone from the prefix.
for h in "$prefix"/include/objwire/*.hpp; do
  echo "#include <objwire/$(basename "$h")>" >"$dir/one.cpp"
  "${launcher[@]}" c++ -std=c++20 $cflags -fsyntax-only "$dir/one.cpp" 2>"$dir/one.err" ||
    fail "<objwire/$(basename "$h")> alone does not compile: $(head -5 "$dir/one.err")"
done

# Every installed header includes only <...> headers: <objwire/...>, the standard's, asio's,
# Boost's. A quoted include is looked up on the user's include path too, where a header of
# the user's own with that name would stand in for the library's.
quoted=$(cd "$prefix/include" && grep -rn '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' objwire || true)
[ -z "$quoted" ] || fail "installed headers with quoted includes: $(echo "$quoted" | head -3)"
# And a header in a folder is the library's (<objwire/...>), asio's or Boost's: never one a
# user's proto/, config/ or client/ could answer to.
foreign=$(cd "$prefix/include" && grep -rhoE '^[[:space:]]*#[[:space:]]*include[[:space:]]*<[^>]+>' objwire |
  sed -E 's/.*<([^>]+)>/\1/' | grep / | grep -vE '^(objwire|asio|boost)/' | sort -u || true)
[ -z "$foreign" ] || fail "installed headers include: $(echo $foreign)"

# A consumer project with headers of its own named like the library's folders
# (include/proto/value.hpp, include/config/settings.hpp, include/client/connection.hpp...):
# its names win, and the library's headers still compile - with find_package and with
# pkg-config. The consumer's proto/errors.hpp and its like stop the build (#error) if a library
# header reaches them; its proto/value.hpp would leave the library's types undeclared. (Its
# ./client/... is a path of the consumer's, found on its include path, not of this repository.)
consumer=$dir/consumer
mkdir -p "$consumer/include/config" "$consumer/include/client/lib" "$consumer/include/proto"
cat >"$consumer/include/config/settings.hpp" <<'HDR'
#pragma once
namespace config { struct settings { int retries = 3; }; }
HDR
cp "$consumer/include/config/settings.hpp" "$consumer/include/client/lib/daemon_link.hpp"
cat >"$consumer/include/proto/value.hpp" <<'HDR'
#pragma once
namespace proto { struct value { int mine = 5; }; }
HDR
cat >"$consumer/include/client/connection.hpp" <<'HDR'
#pragma once
namespace client { struct connection { int mine = 7; }; }
HDR
for f in byte_buffer errors frame result control; do
  echo '#error "the consumer'"'"'s own header, reached by a library header"' >"$consumer/include/proto/$f.hpp"
done
cat >"$consumer/main.cpp" <<'SRC'
#include "config/settings.hpp"
#include "proto/value.hpp"
#include "./client/connection.hpp"
#include <objwire/connection.hpp>
#include <objwire/reader.hpp>
#include <objwire/typed_reader.hpp>
#include <objwire/typed.hpp>
int main() {
    config::settings mine;
    objwire::client::options o;
    o.port = 1;  // nothing listens there: open() fails, which is all this needs
    objwire::client::connection c(o);
    proto::value own_value;
    client::connection own_connection;
    const bool mine_intact = mine.retries == 3 && own_value.mine == 5 && own_connection.mine == 7;
    return (c.open() && mine_intact) ? 0 : 1;
}
SRC
cat >"$consumer/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.25)
project(consumer CXX)
set(CMAKE_CXX_STANDARD 20)
find_package(objwire REQUIRED)
add_executable(consumer main.cpp)
target_include_directories(consumer PRIVATE include)
target_link_libraries(consumer PRIVATE objwire::client)
CM
cmake -S "$consumer" -B "$consumer/build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
  ${launcher:+-DCMAKE_CXX_COMPILER_LAUNCHER=ccache} >"$dir/consumer.log" 2>&1 &&
  cmake --build "$consumer/build" >>"$dir/consumer.log" 2>&1 ||
  fail "a consumer with its own include/proto, config and client headers: $(grep -m5 error "$dir/consumer.log")"
"$consumer/build/consumer" || fail "the consumer (find_package) exited $?"
"${launcher[@]}" c++ -std=c++20 -I"$consumer/include" $cflags "$consumer/main.cpp" -o "$dir/consumer-pc" \
  $libs "${rpath[@]}" 2>"$dir/consumer-pc.log" ||
  fail "the consumer with pkg-config: $(grep -m5 error "$dir/consumer-pc.log")"
"$dir/consumer-pc" || fail "the consumer (pkg-config) exited $?"

# find_package(objwire): the examples' own CMake project, nothing but the prefix given.
cmake -S "$src/examples" -B "$dir/examples-build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" ${launcher:+-DCMAKE_CXX_COMPILER_LAUNCHER=ccache} \
  >"$dir/configure.log" 2>&1 || fail "examples: configure failed: $(tail -20 "$dir/configure.log")"
cmake --build "$dir/examples-build" >"$dir/build.log" 2>&1 ||
  fail "examples: build failed: $(tail -20 "$dir/build.log")"
grep -rq -- "-DASIO\|-DSPDLOG\|-DFMT\|-DOBJWIRE" "$dir/examples-build/build.ninja" &&
  fail "an internal define reached the examples: $(grep -o -- '-D[A-Z_]*' "$dir/examples-build/build.ninja" | sort -u | tr '\n' ' ')"

# pkg-config: one compiler line (and, for shared libraries in a private prefix, where to
# find them at run time: rpath, set above).
"${launcher[@]}" c++ -std=c++20 -O2 "$src/examples/producer.cpp" -o "$dir/producer-pc" $cflags $libs "${rpath[@]}" \
  2>"$dir/pc-build.log" || fail "pkg-config build failed: $(head -20 "$dir/pc-build.log")"

start_daemon "$dir/log" "$dir/data"
to=127.0.0.1:$port
"$dir/examples-build/producer" "$to" 300 >"$dir/cmake-run.out" || fail "producer (CMake build) exited $?"
grep -q "300 trades acknowledged" "$dir/cmake-run.out" || fail "producer said: $(cat "$dir/cmake-run.out")"
"$dir/producer-pc" "$to" 200 >"$dir/pc-run.out" || fail "producer (pkg-config build) exited $?"
grep -q "200 trades acknowledged" "$dir/pc-run.out" || fail "producer said: $(cat "$dir/pc-run.out")"

"$prefix/bin/objwire" read --to "$to" -o "$dir/back.jsonl" 2>"$dir/read.err" || fail "read exited $?: $(cat "$dir/read.err")"
trades=$(grep -c '"\$type":"Trade"' "$dir/back.jsonl" || true)
[ "$trades" -eq 500 ] || fail "read back $trades trades, sent 500: $(head -3 "$dir/back.jsonl")"
grep -q '"sym":"INIT","px":100.25,"qty":1' "$dir/back.jsonl" || fail "trade 1 not as sent: $(sed -n 2p "$dir/back.jsonl")"
# Typed records: 400 described structs; the consumer reads all 900 trades back as structs (the
# value producer's 500 lack the newer fields, which keep their defaults), following the daemon
# until it has them; the graph sends a route of shared cities in a ring and reads it back.
"$dir/examples-build/typed_producer" "$to" 400 >"$dir/typed-run.out" || fail "typed_producer exited $?"
grep -q "400 trades acknowledged" "$dir/typed-run.out" || fail "typed_producer said: $(cat "$dir/typed-run.out")"
timeout 60 "$dir/examples-build/typed_consumer" "$to" 900 --follow >"$dir/consumer.out" 2>&1 ||
  fail "typed_consumer exited $?: $(cat "$dir/consumer.out")"
grep -q "900 trades, 134 sells" "$dir/consumer.out" || fail "typed_consumer said: $(cat "$dir/consumer.out")"
timeout 60 "$dir/examples-build/typed_graph" "$to" >"$dir/graph.out" 2>&1 ||
  fail "typed_graph exited $?: $(cat "$dir/graph.out")"
echo "installed_examples: ok"
