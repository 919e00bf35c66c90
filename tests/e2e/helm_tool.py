"""The helm binary of the chart tests: built from its Go module by scripts/provision-helm.sh.

Mirrors cluster.find_binaries for kube-apiserver & co.: ``$KUBEBERTH_HELM_BIN`` (a helm binary)
wins; otherwise the version-keyed cache is used and the script is run once to fill it.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

_HERE = Path(__file__).resolve().parent
PROVISION_SCRIPT = _HERE.parents[1] / "scripts" / "provision-helm.sh"
GO_MOD = _HERE / "helm" / "go.mod"


def pinned_version() -> str:
    """The helm.sh/helm/v4 version pinned in tests/e2e/helm/go.mod."""
    for line in GO_MOD.read_text().splitlines():
        fields = line.split()
        if len(fields) >= 2 and fields[0] == "helm.sh/helm/v4" and fields[1].startswith("v"):
            return fields[1]
    raise RuntimeError(f"no helm.sh/helm/v4 requirement in {GO_MOD}")


def find_helm(provision: bool = True) -> Path:
    """The helm binary, built on first use (a few minutes cold, then cached)."""
    env_bin = os.environ.get("KUBEBERTH_HELM_BIN")
    if env_bin:
        return Path(env_bin)
    cache = os.environ.get("KUBEBERTH_HELM_CACHE") or str(Path.home() / ".cache" / "kubeberth" / "helm")
    binary = Path(cache) / pinned_version() / "bin" / "helm"
    if binary.exists() and os.access(binary, os.X_OK):
        return binary
    if not provision:
        raise RuntimeError(f"no helm at {binary} (run {PROVISION_SCRIPT})")
    proc = subprocess.run(["bash", str(PROVISION_SCRIPT)], stdout=subprocess.PIPE, text=True, timeout=3600)
    if proc.returncode != 0:
        raise RuntimeError(f"{PROVISION_SCRIPT} failed with exit code {proc.returncode}")
    return Path(proc.stdout.strip().splitlines()[-1]) / "helm"
