#!/usr/bin/env bash
# Provision the Jaeger v2 binary the end-to-end tests send decision traces to.
#
#   scripts/provision-jaeger.sh         # build (or reuse) and print the bin dir
#
# Builds `cmd/jaeger` (Jaeger v2, an OpenTelemetry Collector distribution that
# runs all-in-one with in-memory storage) from the github.com/jaegertracing/jaeger
# Go module pinned in tests/e2e/jaeger/go.mod, into
#
#   ${KUBEBERTH_JAEGER_CACHE:-$HOME/.cache/kubeberth/jaeger}/<version>/bin/jaeger
#
# beside the Kubernetes binaries of scripts/provision-k8s.sh. The module's own
# go.mod carries a replace directive, which `go install pkg@version` refuses, so
# it is built from a small wrapper module (as the Kubernetes binaries are). A
# binary already built from the same go.mod/go.sum is reused. The last line
# printed on stdout is the bin dir; everything else goes to stderr.
#
# Environment:
#   KUBEBERTH_JAEGER_CACHE    cache root (default: $HOME/.cache/kubeberth/jaeger)
#   KUBEBERTH_JAEGER_REBUILD  set to 1 to force a rebuild
#   GOFLAGS, GOMODCACHE, GOCACHE, GOPROXY ... are honoured as usual.
set -euo pipefail

log() { printf '[provision-jaeger] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
MOD_DIR="${REPO_ROOT}/tests/e2e/jaeger"
[[ -f "${MOD_DIR}/go.mod" ]] || die "missing ${MOD_DIR}/go.mod"

JAEGER_VERSION="$(awk '$1 == "github.com/jaegertracing/jaeger" && $2 ~ /^v[0-9]/ { print $2; exit }' "${MOD_DIR}/go.mod")"
[[ -n "${JAEGER_VERSION}" ]] || die "cannot find the github.com/jaegertracing/jaeger version in ${MOD_DIR}/go.mod"

CACHE_ROOT="${KUBEBERTH_JAEGER_CACHE:-${HOME}/.cache/kubeberth/jaeger}"
VERSION_DIR="${CACHE_ROOT}/${JAEGER_VERSION}"
BIN_DIR="${VERSION_DIR}/bin"
STAMP_FILE="${VERSION_DIR}/build.stamp"

build_stamp() {
    cat "${MOD_DIR}/go.mod" "${MOD_DIR}/go.sum" | sha256sum | awk '{ print $1 }'
}

have_binary() {
    [[ -x "${BIN_DIR}/jaeger" && -f "${STAMP_FILE}" && "$(cat "${STAMP_FILE}")" == "$(build_stamp)" ]]
}

build_binary() {
    command -v go >/dev/null 2>&1 || die "the Go toolchain (go >= 1.24) is required to build Jaeger ${JAEGER_VERSION}"
    mkdir -p "${VERSION_DIR}"
    local tmp_bin
    tmp_bin="$(mktemp -d "${VERSION_DIR}/bin.tmp.XXXXXX")"
    # shellcheck disable=SC2064
    trap "rm -rf '${tmp_bin}'" EXIT

    # The version stamping of the upstream release build (scripts/makefiles/BuildInfo.mk),
    # so `jaeger version` and the build-info metric report the real release.
    local vpkg=github.com/jaegertracing/jaeger/internal/version
    local ldflags="-s -w -X ${vpkg}.latestVersion=${JAEGER_VERSION} -X ${vpkg}.date=$(date -u +'%Y-%m-%dT%H:%M:%SZ')"

    log "building jaeger ${JAEGER_VERSION} into ${BIN_DIR}"
    local start=${SECONDS}
    (
        cd "${MOD_DIR}"
        CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags="${ldflags}" -o "${tmp_bin}/" tool
    )
    [[ -x "${tmp_bin}/jaeger" ]] || die "go build did not produce jaeger"
    mkdir -p "${BIN_DIR}"
    mv -f "${tmp_bin}/jaeger" "${BIN_DIR}/jaeger"
    build_stamp > "${STAMP_FILE}"
    rm -rf "${tmp_bin}"
    trap - EXIT
    log "built in $(( SECONDS - start ))s"
}

if [[ "${KUBEBERTH_JAEGER_REBUILD:-0}" != "1" ]] && have_binary; then
    log "reusing jaeger ${JAEGER_VERSION} in ${BIN_DIR}"
else
    build_binary
fi

printf '%s\n' "${BIN_DIR}"
