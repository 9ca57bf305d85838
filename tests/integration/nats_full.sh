#!/usr/bin/env bash
# The NATS sink's acceptance run: 1,000,000 events from two senders through two objwired into
# an R3 stream on a three-server cluster, one server killed mid-stream; every object must
# arrive exactly once - in the stream, and read back through the other objwired (`objwire
# read` served from the stream). Also the single-server run at the same size. CI runs the same
# tests with 20,000 events.
#   tests/integration/nats_full.sh [build-dir]      (default: build)
set -euo pipefail
build=${1:-build}
export OBJWIRE_NATS_EVENTS=${OBJWIRE_NATS_EVENTS:-1000000}
exec "$build/tests/integration/nats_tests" \
  --gtest_filter='NatsSink.ClusterLosesOneServer*:NatsSink.SingleServer*'
