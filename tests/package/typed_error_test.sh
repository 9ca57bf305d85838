#!/usr/bin/env bash
# What a C++ programmer sees when a member of a described struct has no wire form: one error,
# whose instantiation line names the struct, the member and its type, and whose text says what
# to do - sending it, reading it, and a member inside a container. A transient member of such
# a type compiles (its type is never looked at). The consumers are compiled against the
# library's public headers as the package installs them (include/objwire, and proto/ as
# objwire/proto through BUILD_DIR/include).
#   typed_error_test.sh CXX SOURCE_DIR BUILD_DIR
set -euo pipefail
cxx=$1
src=$2
build=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# consumer NAME MEMBER_DECL DESCRIBED_MEMBERS USE: writes $dir/NAME.cpp, a struct shop::Order
# with an int id, MEMBER_DECL, described as (id, DESCRIBED_MEMBERS), and main() doing USE.
consumer() {
  cat >"$dir/$1.cpp" <<SRC
#include <boost/describe/class.hpp>
#include <array>
#include <string_view>
#include <vector>
#include <objwire/connection.hpp>
#include <objwire/reader.hpp>
#include <objwire/typed.hpp>
#include <objwire/typed_reader.hpp>
namespace shop {
struct Opaque { int handle = 0; };
struct Order {
    int id = 0;
    $2
};
BOOST_DESCRIBE_STRUCT(Order, (), (id, $3))
}  // namespace shop
int main() {
    objwire::client::options o;
    $4
}
SRC
}

send='objwire::client::connection c(o); shop::Order order; return c.send(order) ? 1 : 0;'
read='objwire::client::reader source(o, objwire::client::read_options{});
    objwire::typed::reader<shop::Order, objwire::client::reader> orders(source);
    shop::Order order; return orders.next(order) ? 1 : 0;'

# refused NAME MEMBER TYPE: NAME.cpp does not compile, with one error, and the first
# instantiation the compiler shows names Order, MEMBER and TYPE before that error.
refused() {
  local name=$1 member=$2 type=$3
  if "$cxx" -std=c++20 -I"$src/include" -I"$build/include" -fsyntax-only "$dir/$name.cpp" \
    2>"$dir/$name.err"; then
    fail "$name: a member with no wire form compiled"
  fi
  [ "$(grep -c "error:" "$dir/$name.err")" -eq 1 ] ||
    fail "$name: not one error: $(grep "error:" "$dir/$name.err" | cut -c1-200)"
  local first_instantiation error_line
  first_instantiation=$(grep -n -m1 "In instantiation of" "$dir/$name.err") ||
    fail "$name: no instantiation shown: $(head -5 "$dir/$name.err")"
  error_line=$(grep -n "error:" "$dir/$name.err")
  [ "${first_instantiation%%:*}" -lt "${error_line%%:*}" ] || fail "$name: the error comes first"
  case "$first_instantiation" in
    *"member_has_no_wire_form() [with Record = shop::Order; auto Member = "*"{\"$member\"}; Type = $type]"*) ;;
    *) fail "$name: the first instantiation does not name Order, $member and $type: $first_instantiation" ;;
  esac
  grep -q "error: static assertion failed: objwire: member has no wire form" "$dir/$name.err" ||
    fail "$name: $error_line"
}

consumer send_opaque 'Opaque lock;' 'lock' "$send"
refused send_opaque lock shop::Opaque
consumer read_list 'std::vector<Opaque> locks;' 'locks' "$read"
refused read_list locks 'std::vector<shop::Opaque>'
consumer transient 'Opaque lock; static constexpr std::array<std::string_view, 1> objwire_transient{"lock"};' \
  'lock' "{ $send } { $read }"
"$cxx" -std=c++20 -I"$src/include" -I"$build/include" -fsyntax-only "$dir/transient.cpp" 2>"$dir/transient.err" ||
  fail "a transient member with no wire form: $(grep -m3 "error:" "$dir/transient.err")"
echo "typed_error: ok"
