#!/usr/bin/env bash
# Provision the helm binary that renders, lints and dry-runs charts/kubeberth in the tests.
#
#   scripts/provision-helm.sh           # build (or reuse) and print the bin dir
#
# Builds `cmd/helm` from the helm.sh/helm/v4 Go module pinned in tests/e2e/helm/go.mod
# (a small wrapper module with a `tool` directive, as the Kubernetes and Jaeger binaries
# are built) into
#
#   ${KUBEBERTH_HELM_CACHE:-$HOME/.cache/kubeberth/helm}/<version>/bin/helm
#
# beside the binaries of scripts/provision-k8s.sh. The wrapper module raises helm's k8s.io
# modules from v0.37.1 to v0.37.2, the Kubernetes release the tests run, so the packages the two
# builds share compile once (cold: 423 CPU-s alone, 338 CPU-s after provision-k8s.sh). A binary
# already built from the same go.mod/go.sum is reused, so the script is cheap to run
# repeatedly. The last line printed on stdout is the bin dir; everything else goes to stderr.
#
# Environment:
#   KUBEBERTH_HELM_CACHE    cache root (default: $HOME/.cache/kubeberth/helm)
#   KUBEBERTH_HELM_REBUILD  set to 1 to force a rebuild
#   GOFLAGS, GOMODCACHE, GOCACHE, GOPROXY ... are honoured as usual.
set -euo pipefail

log() { printf '[provision-helm] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
MOD_DIR="${REPO_ROOT}/tests/e2e/helm"
[[ -f "${MOD_DIR}/go.mod" ]] || die "missing ${MOD_DIR}/go.mod"

HELM_VERSION="$(awk '$1 == "helm.sh/helm/v4" && $2 ~ /^v[0-9]/ { print $2; exit }' "${MOD_DIR}/go.mod")"
[[ -n "${HELM_VERSION}" ]] || die "cannot find the helm.sh/helm/v4 version in ${MOD_DIR}/go.mod"

CACHE_ROOT="${KUBEBERTH_HELM_CACHE:-${HOME}/.cache/kubeberth/helm}"
VERSION_DIR="${CACHE_ROOT}/${HELM_VERSION}"
BIN_DIR="${VERSION_DIR}/bin"
STAMP_FILE="${VERSION_DIR}/build.stamp"

build_stamp() {
    cat "${MOD_DIR}/go.mod" "${MOD_DIR}/go.sum" | sha256sum | awk '{ print $1 }'
}

have_binary() {
    [[ -x "${BIN_DIR}/helm" && -f "${STAMP_FILE}" && "$(cat "${STAMP_FILE}")" == "$(build_stamp)" ]]
}

build_binary() {
    command -v go >/dev/null 2>&1 || die "the Go toolchain (go >= 1.26) is required to build helm ${HELM_VERSION}"
    mkdir -p "${VERSION_DIR}"
    local tmp_bin
    tmp_bin="$(mktemp -d "${VERSION_DIR}/bin.tmp.XXXXXX")"
    # shellcheck disable=SC2064
    trap "rm -rf '${tmp_bin}'" EXIT

    # The version stamping of helm's own release build (its Makefile's LDFLAGS), so
    # `helm version` reports the release and charts' kubeVersion checks see it.
    local vpkg=helm.sh/helm/v4/internal/version
    local ldflags="-s -w -X ${vpkg}.version=${HELM_VERSION} -X ${vpkg}.metadata= -X ${vpkg}.gitTreeState=clean"

    log "building helm ${HELM_VERSION} into ${BIN_DIR}"
    local start=${SECONDS}
    (
        cd "${MOD_DIR}"
        CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags="${ldflags}" -o "${tmp_bin}/" tool
    )
    [[ -x "${tmp_bin}/helm" ]] || die "go build did not produce helm"
    mkdir -p "${BIN_DIR}"
    mv -f "${tmp_bin}/helm" "${BIN_DIR}/helm"
    build_stamp > "${STAMP_FILE}"
    rm -rf "${tmp_bin}"
    trap - EXIT
    log "built in $(( SECONDS - start ))s"
}

if [[ "${KUBEBERTH_HELM_REBUILD:-0}" != "1" ]] && have_binary; then
    log "reusing helm ${HELM_VERSION} in ${BIN_DIR}"
else
    build_binary
fi

printf '%s\n' "${BIN_DIR}"
