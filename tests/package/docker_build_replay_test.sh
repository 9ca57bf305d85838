#!/usr/bin/env bash
# Replays docker/Dockerfile's build stage without a container engine: copies the source tree
# as `docker build` would send it (through .dockerignore), then runs the stage's RUN commands
# in the copy, in the stage's WORKDIR. A host build/ directory that reaches the copy (CMake:
# "CMakeCache.txt directory ... is different"), or a file the build needs that the context
# leaves out, fails here. Also every COPY source of the other stages must be in the context.
#   docker_build_replay_test.sh SOURCE_DIR [--full]
# By default the compile step is a dry run (`cmake --build` passes -n to Ninja: every input
# must exist, nothing is compiled) to stay quick; --full compiles, as the image does.
set -euo pipefail
src=$(cd "$1" && pwd)
full=${2:-}
dockerfile=$src/docker/Dockerfile
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# .dockerignore -> one extended regex per rule (Docker's rules: `*` within one path element,
# `**` any number of them, a match on a directory excludes what is inside, `!` re-includes,
# the last matching rule wins).
rules=() negate=()
if [ -f "$src/.dockerignore" ]; then
  while IFS= read -r line || [ -n "$line" ]; do
    line=${line%%$'\r'}
    [[ -z "${line// /}" || $line == \#* ]] && continue
    neg=0
    if [[ $line == !* ]]; then neg=1; line=${line#!}; fi
    line=${line#/}; line=${line%/}
    re=$(printf '%s' "$line" | sed -e 's/[.+^$(){}|]/\\&/g' -e 's/\*\*/\x01/g' -e 's/\*/[^\/]*/g' \
                                   -e 's/?/[^\/]/g' -e 's/\x01\//(.*\/)?/g' -e 's/\x01/.*/g')
    rules+=("^$re(/.*)?$")
    negate+=("$neg")
  done <"$src/.dockerignore"
fi
excluded() {
  local path=$1 out=1 i
  for i in "${!rules[@]}"; do
    if [[ $path =~ ${rules[$i]} ]]; then
      if [ "${negate[$i]}" = 1 ]; then out=1; else out=0; fi
    fi
  done
  return $out
}

# The build context: every file of the tree, as is (tracked or not), less the excluded ones;
# an excluded directory is not entered (unless a `!` rule could bring something back).
ctx=$dir/context
mkdir -p "$ctx"
sent=0
has_negation=0
for n in "${negate[@]}"; do [ "$n" = 1 ] && has_negation=1; done
copy_tree() {  # copy_tree RELATIVE_DIR ("" for the root)
  local rel=$1 entry name path
  for entry in "$src/$rel"* "$src/$rel".[!.]* "$src/$rel"..?*; do
    [ -e "$entry" ] || [ -L "$entry" ] || continue
    name=${entry##*/}
    path=$rel$name
    [ "$path" = .git ] && continue  # never needed by the build (a worktree's is a file)
    if [ -d "$entry" ] && [ ! -L "$entry" ]; then
      excluded "$path" && [ "$has_negation" = 0 ] && continue
      copy_tree "$path/"
    else
      excluded "$path" && continue
      mkdir -p "$ctx/$rel"
      cp -p "$entry" "$ctx/$path"
      sent=$((sent + 1))
    fi
  done
}
copy_tree ""
echo "replay: context of $sent files"

# The build stage: from its FROM to the next FROM, continuation lines joined.
stage=$(awk '/^FROM .* AS build/{on=1; next} /^FROM /{on=0} on' "$dockerfile" |
        sed -e ':a' -e '/\\$/N; s/\\\n/ /; ta')
[ -n "$stage" ] || fail "no 'FROM ... AS build' stage in docker/Dockerfile"

# Dry run: `cmake --build` as a Ninja dry run, in this shell and in the scripts it runs.
if [ "$full" != --full ]; then
  cmake() {
    if [ "${1:-}" = --build ]; then command cmake "$@" -- -n >/dev/null; else command cmake "$@"; fi
  }
  export -f cmake
fi

workdir=/
while IFS= read -r line; do
  read -r instr args <<<"$line"
  case "${instr^^}" in
    WORKDIR) workdir=$args ;;
    COPY)
      [ "$args" = ". ." ] || fail "the build stage copies something else than the context: COPY $args"
      [ "$workdir" = /src ] || fail "COPY . . into $workdir: the replay expects /src"
      ;;
    RUN)
      echo "replay: RUN $args"
      (cd "$ctx" && bash -ec "$args") >"$dir/run.log" 2>&1 ||
        fail "RUN $args failed: $(tail -20 "$dir/run.log")"
      ;;
    ENV | ARG | "" | \#*) ;;
    *) fail "the replay does not know '$instr' (docker/Dockerfile build stage)" ;;
  esac
done <<<"$stage"

# What the later stages take: from the build stage (with --full), or from the context.
while read -r from_build a b; do
  for f in $a $b; do
    case $f in /src/*) ;; *) continue ;; esac
    rel=${f#/src/}
    if [ "$full" = --full ]; then
      [ -x "$ctx/$rel" ] || fail "the build stage made no $f"
    else
      grep -q "build ${rel#build/}:" "$ctx/build/build.ninja" || fail "the build stage builds no $f"
    fi
  done
done < <(grep -o '^COPY --from=build .*' "$dockerfile" | sed 's/^COPY //' | awk '{print $1, $2, $3}')
while read -r srcs; do
  for f in $srcs; do
    [ -e "$ctx/$f" ] || fail "COPY $f: not in the build context (.dockerignore?)"
  done
done < <(grep '^COPY ' "$dockerfile" | grep -v -- '--from=' | grep -v '^COPY \. \.' |
         awk '{ for (i = 2; i < NF; i++) printf "%s ", $i; print "" }')
echo "docker_build_replay: ok"
