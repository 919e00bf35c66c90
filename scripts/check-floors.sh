#!/usr/bin/env bash
# The floors job: every dependency pyproject.toml declares, installed at the lowest version it allows
# (`name>=X` becomes `name==X`, the core dependencies and every extra's), into a fresh virtual
# environment, then a slice of the suite that exercises each of them: the unit tests closest to each
# dependency and the end-to-end test that drives `kubeberth run` against a real kube-apiserver (so a
# kubernetes client floor that lacks an API the backend calls fails here). Transitive dependencies
# resolve as pip picks them, as they would for a user who pins only our floors.
#
#   bash scripts/check-floors.sh            # FLOORS_VENV=DIR reuses (and keeps) a venv folder
set -euo pipefail
cd "$(dirname "$0")/.."
export PIP_DISABLE_PIP_VERSION_CHECK=1

started=$SECONDS
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
venv=${FLOORS_VENV:-$work/venv}
constraints=$work/floors.txt

# Every requirement must carry a `>=` floor; anything else (no bound, ==, ~=) is refused here.
python3 - "$constraints" <<'PY'
import re, sys, tomllib
project = tomllib.load(open("pyproject.toml", "rb"))["project"]
reqs = list(project["dependencies"])
for extra in project.get("optional-dependencies", {}).values():
    reqs += [r for r in extra if not r.startswith("kubeberth[")]
pins, bad = {}, []
for req in reqs:
    m = re.fullmatch(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*>=\s*([0-9][0-9A-Za-z.]*)\s*", req.split(";")[0])
    if m is None:
        bad.append(req)
        continue
    pins[re.sub(r"[-_.]+", "-", m.group(1)).lower()] = m.group(2)
if bad:
    sys.exit(f"error: pyproject.toml: requirements without a single >= floor: {', '.join(bad)}")
open(sys.argv[1], "w").write("".join(f"{n}=={v}\n" for n, v in sorted(pins.items())))
PY
echo "floors: $(tr '\n' ' ' < "$constraints")"

[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
# The build backend's floor too: the wheel is built with setuptools at its floor, without isolation.
setuptools_floor=$(python3 -c "import re,tomllib; print(re.search(r'>=\s*([0-9.]+)', tomllib.load(open('pyproject.toml','rb'))['build-system']['requires'][0]).group(1))")
"$venv/bin/python" -m pip install -q "setuptools==$setuptools_floor"
# --no-compile: byte-compiling every dependency (the kubernetes client's thousands of modules) is most
# of an install's time; Python compiles what the tests import.
"$venv/bin/python" -m pip install -q --no-compile --no-build-isolation -c "$constraints" '.[all,test]'
"$venv/bin/python" - "$constraints" <<'PY'
import sys
from importlib.metadata import version
from packaging.version import Version
wrong = []
for line in open(sys.argv[1]):
    name, floor = line.strip().split("==")
    if Version(version(name)) != Version(floor):
        wrong.append(f"{name} {version(name)} (floor {floor})")
if wrong:
    sys.exit("error: not at their floors: " + ", ".join(wrong))
PY
echo "floors: installed in $((SECONDS - started)) s"

# One test module (or a few) per dependency; see the comment beside each.
slice=(
  tests/test_import_cost.py                       # the package itself, lazy exports
  tests/test_config.py                            # pydantic, pydantic-settings, PyYAML
  tests/test_plugin_loading.py                    # pluggy, entry points
  tests/test_testing_kit.py                       # numpy through the framework, the pytest plugin
  tests/test_fuzz_objects.py                      # hypothesis (profiles, derandomize)
  tests/test_reload_watch.py                      # watchdog
  tests/test_metrics.py                           # prometheus_client
  tests/test_tracing.py                           # opentelemetry api/sdk/exporters
  tests/test_report.py::test_report_renders_in_chromium                       # plotly
  tests/builtin_plugins/test_dynamic_resources.py # common-expression-language (DRA CEL selectors)
  tests/test_secure_serving.py                    # cryptography (the self-signed serving certificate)
  tests/contrib/test_prometheus_load.py::test_scores_follow_exported_load_with_few_queries  # prometheus-api-client, real Prometheus
  tests/test_etcd_claims.py                       # etcd3gw (the etcd claims store, against a real etcd)
  # kubernetes: `kubeberth run` binding through the raw client (ApiClient.param_serialize), and
  # PersistentVolume claimRef patches, on a real API server
  tests/e2e/test_kubernetes_backend.py::test_binds_own_pods_and_leaves_others
  tests/e2e/test_kubernetes_backend.py::test_volume_binding_sets_claim_ref_on_the_chosen_pv
)
"$venv/bin/python" -m pytest -q -p no:cacheprovider "${slice[@]}"
echo "floors: done in $((SECONDS - started)) s"
