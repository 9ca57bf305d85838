#!/usr/bin/env bash
# Writes the C++ snippets of docs/LIBRARY.md marked `<!-- snippet: namespace -->` (declarations,
# at namespace scope) or `<!-- snippet: body -->` (statements, each in a function of its own that
# has a `conn` and a `source`) into one translation unit, which typed_tests compiles: a snippet
# that stops compiling fails the build.
# Usage: library_snippets.sh LIBRARY.md OUT.cpp
set -euo pipefail
doc=$1
out=$2
{
    cat <<'PRELUDE'
// Generated from docs/LIBRARY.md by tests/unit/typed/library_snippets.sh: do not edit.
#include <iostream>
#include <string>

#include <objwire/connection.hpp>
#include <objwire/reader.hpp>
#include <objwire/typed.hpp>
#include <objwire/typed_reader.hpp>

// What the snippets take as given: the Trade of "Sending structs", fail() and use().
namespace library_snippets_given {
struct Trade {
    std::string sym;
    double px = 0;
    std::int64_t qty = 0;
};
BOOST_DESCRIBE_STRUCT(Trade, (), (sym, px, qty))
[[noreturn]] inline void fail(const std::string& why) {
    throw std::runtime_error(why);
}
template <class T>
void use(std::uint64_t, const T&) {}
}  // namespace library_snippets_given
using library_snippets_given::fail;
using library_snippets_given::Trade;
using library_snippets_given::use;
PRELUDE
    awk '
        /^<!-- snippet: (namespace|body) -->$/ { kind = $3; next }
        kind != "" && /^```cpp$/ { inside = 1; n++;
            print "// docs/LIBRARY.md, snippet " n " (" kind ")"
            if (kind == "body")
                print "void library_snippet_" n "([[maybe_unused]] objwire::client::connection& conn, [[maybe_unused]] objwire::client::reader& source) {"
            next }
        inside && /^```$/ { if (kind == "body") print "}"; inside = 0; kind = ""; next }
        inside { print }
        !inside { kind = (/^$/ ? kind : "") }
    ' "$doc"
} >"$out.tmp"
grep -q 'library_snippet_\|snippet 1 ' "$out.tmp" || { echo "no snippets found in $doc" >&2; exit 1; }
mv "$out.tmp" "$out"
