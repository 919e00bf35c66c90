#!/usr/bin/env bash
# Makes a Prometheus server available for the contrib load-aware tests: Debian's `prometheus`
# package, installed with apt-get if missing (like etcd-server in provision-k8s.sh). The tests
# start their own server on 127.0.0.1 with a temporary storage dir; the package's own service is
# never started. Prints the binary's path on success.
#
#   KUBEBERTH_PROMETHEUS   path of a prometheus binary to use instead of Debian's
set -euo pipefail
# shellcheck source=lib/apt.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/apt.sh"

log() { printf 'provision-prometheus: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

find_prometheus() {
    if [[ -n "${KUBEBERTH_PROMETHEUS:-}" ]]; then
        [[ -x "${KUBEBERTH_PROMETHEUS}" ]] || die "KUBEBERTH_PROMETHEUS=${KUBEBERTH_PROMETHEUS} is not executable"
        printf '%s\n' "${KUBEBERTH_PROMETHEUS}"
        return 0
    fi
    local candidate
    for candidate in /usr/bin/prometheus "$(command -v prometheus 2>/dev/null || true)"; do
        if [[ -n "${candidate}" && -x "${candidate}" ]]; then
            printf '%s\n' "${candidate}"
            return 0
        fi
    done
    return 1
}

PROM_PATH="$(find_prometheus || true)"
if [[ -z "${PROM_PATH}" ]]; then
    log "installing Debian's prometheus"
    apt_install prometheus || die "no prometheus found and Debian's prometheus could not be installed (set KUBEBERTH_PROMETHEUS)"
    PROM_PATH="$(find_prometheus)" || die "prometheus was installed but no binary was found"
fi
log "prometheus: ${PROM_PATH} ($("${PROM_PATH}" --version 2>&1 | head -n 1 || echo 'unknown version'))"
printf '%s\n' "${PROM_PATH}"
