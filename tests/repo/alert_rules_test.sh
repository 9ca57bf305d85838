#!/usr/bin/env bash
# The shipped Prometheus rules (docs/prometheus/alerts.yml) pass `promtool check rules`, their
# tests (docs/prometheus/alerts_test.yml) pass `promtool test rules`, and the Grafana dashboard
# (docs/grafana/objwired.json) is JSON with an expression in every panel. Which metrics they
# name is checked against a live objwired by tests/integration/metrics_values_test.sh.
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
fail() { echo "FAIL: $*" >&2; exit 1; }
if ! command -v promtool >/dev/null; then
  echo "SKIP: promtool is not installed (Debian package prometheus; scripts/install-deps.sh installs it)"
  exit 77
fi
promtool check rules "$src/docs/prometheus/alerts.yml" || fail "promtool check rules"
(cd "$src/docs/prometheus" && promtool test rules alerts_test.yml) || fail "promtool test rules"
python3 - "$src/docs/grafana/objwired.json" <<'PY' || fail "dashboard"
import json, sys
d = json.load(open(sys.argv[1]))
panels = d["panels"]
assert panels, "no panels"
for p in panels:
    exprs = [t.get("expr", "") for t in p.get("targets", [])]
    assert exprs and all(e.strip() for e in exprs), f"panel '{p.get('title')}' has an empty query"
ids = [p["id"] for p in panels]
assert len(ids) == len(set(ids)), "panel ids repeat"
print(f"dashboard: {len(panels)} panels")
PY
echo "alert_rules: ok"
