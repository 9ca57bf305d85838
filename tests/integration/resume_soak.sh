#!/usr/bin/env bash
# The resume tests at full size: 1,000,000 `events` objects while objwired
# is killed with SIGKILL at 5 random moments and restarted (fsync always); the connection cut
# 10 times through a proxy; SIGTERM while 10 clients send 100,000 each. ctest runs the same
# tests with 100,000 objects (OBJWIRE_RESUME_OBJECTS sets the count).
#
#   tests/integration/resume_soak.sh [BUILD_DIR]        # default: build
set -euo pipefail
build=${1:-build}
tests="$build/tests/integration/integration_tests"
[[ -x $tests ]] || { echo "resume_soak: build $tests first" >&2; exit 1; }
export OBJWIRE_RESUME_OBJECTS=${OBJWIRE_RESUME_OBJECTS:-1000000}
start=$(date +%s)
"$tests" --gtest_filter='ResumeChild.*:ResumeInProcess.ConnectionCut*'
echo "resume_soak: $OBJWIRE_RESUME_OBJECTS objects, passed in $(( $(date +%s) - start )) s"
