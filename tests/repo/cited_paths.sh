#!/usr/bin/env bash
# Every repository path that the docs, the README, source comments and scripts cite exists, and
# nothing cites a path outside the repository. A cited path is a word that starts with one of
# the repository's top-level folders (proto/, client/, docs/, tests/ ...) - globs (`daemon/
# journal*.cpp`, `client/pipeline/pipeline.*`) must match a file, braces (`proto/codec.{hpp,cpp}`) name
# each file. Prints every dangling citation as FILE:LINE: PATH and exits 1 if there is one.
#   tests/repo/cited_paths.sh [ROOT]   (default: the repository this script is in)
set -euo pipefail
root=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
cd "$root"

if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1 && [ -z "${CITED_PATHS_ALL_FILES:-}" ]; then
    mapfile -t files < <(git ls-files --cached --others --exclude-standard | grep -vE '^(build|\.git)/')
else
    mapfile -t files < <(find . -type f ! -path './.git/*' ! -path './build*' | sed 's|^\./||')
fi

tops='proto|config|daemon|client|tests|docs|scripts|docker|cmake|examples|packaging|\.ci'
bad=0
exists() {
    local p=$1 q
    # Braces name several files: each must exist. Only these characters reach eval.
    if [[ $p == *'{'*'}'* ]]; then
        for q in $(eval "printf '%s ' $p"); do exists "$q" || return 1; done
        return 0
    fi
    if [[ $p == *'*'* ]]; then
        compgen -G "$p" >/dev/null
        return
    fi
    # A part named without its extension (proto/json_writer, a built tests/bench/codec_digest).
    [ -e "$p" ] || compgen -G "$p.*" >/dev/null
}
# One grep over every file, not a few per file: forks crawl on a busy machine.
scanned=()
for f in "${files[@]}"; do
    case $f in
        tests/repo/*) continue ;;  # the check and its test, which cite missing paths on purpose
        *.md | *.cpp | *.hpp | *.h | *.sh | *.txt | *.toml | *.cmake | *.in | *.service | \
            Dockerfile | *.yaml | *.yml | .ci/* | .dockerignore) ;;
        *) continue ;;
    esac
    [ -f "$f" ] && scanned+=("$f")
done
[ "${#scanned[@]}" -gt 0 ] || exit 0
# Paths outside the repository: a parent folder's shared material, or absolute work paths.
while IFS=: read -r f line text; do
    echo "$f:$line: cites a path outside the repository: ${text:0:200}"
    bad=1
done < <(grep -nHE '\.\./shared|/work/(main|shared)' -- "${scanned[@]}" || true)
while IFS=: read -r f line p; do
    p=${p%%[.,;:)\`\'\"]}
    p=${p%%[.,;:)]}
    [[ $p == */ ]] && p=${p%/}
    exists "$p" && continue
    # A README may cite what lies beside it (tests/fuzz/regressions/README.md: config/...).
    (cd "${f%/*}" 2>/dev/null && exists "$p") && continue
    echo "$f:$line: $p does not exist"
    bad=1
done < <(grep -nHoP "(?<![A-Za-z0-9_./\$-])(?:$tops)/[A-Za-z0-9_.*{},/-]*[A-Za-z0-9_*}]" -- "${scanned[@]}" || true)
exit $bad
