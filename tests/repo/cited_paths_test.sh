#!/usr/bin/env bash
# cited_paths.sh itself: on a small tree it passes while every cited path exists, and fails,
# naming the file, line and path, once a cited file is removed or a path outside the tree is
# cited. Then the repository's own docs, README, comments and scripts (must pass).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
check=$here/cited_paths.sh
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

mkdir -p "$dir/docs" "$dir/proto" "$dir/daemon/store"
touch "$dir/proto/codec.hpp" "$dir/proto/codec.cpp" "$dir/daemon/store/journal_index.cpp"
cat >"$dir/docs/A.md" <<'DOC'
The codec (`proto/codec.{hpp,cpp}`), the journal (daemon/store/journal*.cpp) and
proto/codec.hpp, cited at the end of a sentence: proto/codec.
DOC
CITED_PATHS_ALL_FILES=1 bash "$check" "$dir" >"$dir/out" || fail "a tree whose paths all exist: $(cat "$dir/out")"

rm "$dir/proto/codec.cpp"
if CITED_PATHS_ALL_FILES=1 bash "$check" "$dir" >"$dir/out"; then fail "a removed file went unnoticed"; fi
grep -q '^docs/A.md:1: proto/codec.{hpp,cpp} does not exist' "$dir/out" || fail "report: $(cat "$dir/out")"
touch "$dir/proto/codec.cpp"

printf 'See ../%s/notes.md.\n' shared >>"$dir/docs/A.md"  # a parent folder's material
if CITED_PATHS_ALL_FILES=1 bash "$check" "$dir" >"$dir/out"; then fail "a path outside the tree went unnoticed"; fi
grep -q '^docs/A.md:3: cites a path outside the repository' "$dir/out" || fail "report: $(cat "$dir/out")"

bash "$check" || fail "the repository cites paths that do not exist (above)"
echo "cited_paths: ok"
