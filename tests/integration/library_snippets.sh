#!/usr/bin/env bash
# Writes the C++ snippets of docs/LIBRARY.md into one translation unit: those marked
# `<!-- snippet: namespace -->` as declarations at namespace scope, those marked
# `<!-- snippet: body -->` or `<!-- snippet: run -->` as statements, each in a function of its own
# given `options`, `conn` and `source` (library_snippets.hpp), in a block of its own so that it
# may declare its own. The port the guide writes, objwired's default 7878, becomes the test
# daemon's. The `run` snippets are listed in library_snippets_to_run, which
# library_snippets_test.cpp runs in order against objwired.
# Usage: library_snippets.sh LIBRARY.md OUT.cpp
set -euo pipefail
doc=$1
out=$2
{
    cat <<'PRELUDE'
// Generated from docs/LIBRARY.md by tests/integration/library_snippets.sh: do not edit.
// No asio header but io_context's (library_snippets.hpp): the guide's snippets include the
// ones of the completion tokens they use, so a snippet that needs one the guide does not show
// fails to compile.
#include <iostream>
#include <string>

#include "library_snippets.hpp"

// The third party's type of "Mapping a struct", declared in a header the program cannot change.
namespace thirdparty {
struct Point {
    double x = 0;
    double y = 0;
};
}  // namespace thirdparty

using library_snippets_given::fail;
using library_snippets_given::io;
using library_snippets_given::msg;
using library_snippets_given::use;
PRELUDE
    awk '
        /^<!-- snippet: (namespace|body|run) -->$/ { kind = $3; next }
        kind != "" && /^```cpp$/ { inside = 1; n++;
            print "// docs/LIBRARY.md, snippet " n " (" kind ")"
            if (kind != "namespace") {
                print "void library_snippet_" n "([[maybe_unused]] objwire::client::options& options, [[maybe_unused]] objwire::client::connection& conn, [[maybe_unused]] objwire::client::reader& source) {"
                print "{"
            }
            if (kind == "run") runs = runs "    {" n ", library_snippet_" n "},\n"
            next }
        inside && /^```$/ { if (kind != "namespace") print "}\n}"; inside = 0; kind = ""; next }
        inside { gsub(/= 7878;/, "= library_snippets_given::port;"); print }
        !inside { kind = (/^$/ ? kind : "") }
        END { printf "const std::vector<library_snippet> library_snippets_to_run{\n%s};\n", runs }
    ' "$doc"
} >"$out.tmp"
grep -q 'library_snippet_1\|snippet 1 ' "$out.tmp" || { echo "no snippets found in $doc" >&2; exit 1; }
grep -q '    {[0-9]*, library_snippet_' "$out.tmp" || { echo "no snippet of $doc is marked to run" >&2; exit 1; }
mv "$out.tmp" "$out"
