#!/usr/bin/env bash
# The README's layout table and the tree agree: every folder the table names holds tracked
# files, and every folder that holds tracked files - at the top, and one level into proto/,
# daemon/, client/, tests/ and include/ - is in the table. Public headers live only in
# include/objwire/, are included as <objwire/NAME.hpp> and include only <...> headers; proto/
# includes nothing of config/, daemon/ or client/, and proto/util/ nothing of proto/; the parts
# of daemon/ and client/ include only the parts below them in the table.
#   tests/repo/layout_test.sh [ROOT]   (default: the repository this script is in)
set -euo pipefail
root=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
cd "$root"
fail() { echo "FAIL: $*" >&2; bad=1; }
bad=0

mapfile -t files < <(git ls-files)
listed=$(awk '/^## Layout$/{on=1; next} /^## /{on=0} on' README.md |
    grep -oE '^\| `[^`]+/`' | sed -E 's/^\| `(.*)\/`$/\1/' | sort -u)
[ -n "$listed" ] || fail "README.md has no '## Layout' table"

declare -A present
for f in "${files[@]}"; do
    [[ $f == */* ]] || continue
    d=${f%/*}
    top=${d%%/*}
    case $top in .*) continue ;; esac
    [ "$top" = include ] || present[$top]=1
    case $top in daemon | client | tests | include | proto)
        rest=${d#"$top"}
        rest=${rest#/}
        [ -n "$rest" ] && present[$top/${rest%%/*}]=1 ;;
    esac
done
for p in $listed; do
    [ -n "${present[$p]:-}" ] || fail "README's layout names $p/, which holds no tracked file"
done
for p in "${!present[@]}"; do
    grep -qxF "$p" <<<"$listed" || fail "$p/ holds tracked files but README's layout does not name it"
done

for f in "${files[@]}"; do
    case $f in
        include/objwire/*.hpp) ;;
        include/*) fail "$f: include/ holds only the public headers, include/objwire/*.hpp" ;;
    esac
done
if git grep -nE '#include "(include/)?objwire/' -- '*.cpp' '*.hpp' >/dev/null; then
    fail "public headers included with quotes (use <objwire/NAME.hpp>):"
    git grep -nE '#include "(include/)?objwire/' -- '*.cpp' '*.hpp' >&2
fi
if git grep -nE '#include "(config|daemon|client)/' -- 'proto/*' >/dev/null; then
    fail "proto/ includes a layer above it:"
    git grep -nE '#include "(config|daemon|client)/' -- 'proto/*' >&2
fi
# proto/ reaches the public headers' folder only for its own installed vocabulary
# (<objwire/proto/NAME.hpp>, a link to proto/ in the build) and the generated version.hpp.
if git grep -nE '#include <objwire/' -- 'proto/*' | grep -vE '#include <objwire/(proto/|version.hpp)' >/dev/null; then
    fail "proto/ includes the client library's public headers:"
    git grep -nE '#include <objwire/' -- 'proto/*' | grep -vE '#include <objwire/(proto/|version.hpp)' >&2
fi
# The public headers include no folder of the tree by its own path: installed, such a name
# would be looked up on the user's include path (docs/LIBRARY.md).
if git grep -nE '#include "' -- 'include/objwire/*' >/dev/null; then
    fail "public headers with quoted includes (use <objwire/...>):"
    git grep -nE '#include "' -- 'include/objwire/*' >&2
fi
if git grep -nE '#include "proto/[a-z_]+\.hpp"' -- 'proto/util/*' >/dev/null; then
    fail "proto/util/ includes the protocol above it:"
    git grep -nE '#include "proto/[a-z_]+\.hpp"' -- 'proto/util/*' >&2
fi
if git grep -nE '#include "(daemon|client)/' -- 'config/*' >/dev/null; then
    fail "config/ includes a layer above it:"
    git grep -nE '#include "(daemon|client)/' -- 'config/*' >&2
fi
# Inside daemon/ and client/ the table lists the parts from the top layer down: a file of one
# part includes only its own part and those in lower rows (daemon/main.cpp, above them all, any).
for group in daemon client; do
    mapfile -t parts < <(grep -xE "$group/[a-z_]+" <<<"$(awk '/^## Layout$/{on=1; next} /^## /{on=0} on' README.md |
        grep -oE '^\| `[^`]+/`' | sed -E 's/^\| `(.*)\/`$/\1/')")
    declare -A rank=()
    for i in "${!parts[@]}"; do rank[${parts[$i]#"$group"/}]=$i; done
    while IFS=: read -r file line text; do
        # Parameter expansion, not a sed per line: forks crawl on a busy machine.
        from=${file#"$group"/}
        from=${from%%/*}
        to=${text#*\#include \"$group/}
        to=${to%%/*}
        [ -n "${rank[$from]:-}" ] || continue
        if [ -z "${rank[$to]:-}" ] || [ "${rank[$to]}" -lt "${rank[$from]}" ]; then
            fail "$file:$line: $group/$from/ includes $group/$to/, a higher part (README's layout order)"
        fi
    done < <(git grep -nE "#include \"$group/[a-z_]+/" -- "$group/*/*")
    unset rank
done
[ $bad = 0 ] && echo "layout: README's table, the tree and the include rules agree"
exit $bad
