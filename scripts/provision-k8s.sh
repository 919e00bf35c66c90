#!/usr/bin/env bash
# Provision the Kubernetes control-plane binaries used by the end-to-end tests.
#
#   scripts/provision-k8s.sh            # build (or reuse) and print the bin dir
#
# Builds kube-apiserver, kube-scheduler and kubectl from source with the Go
# toolchain, using the module pinned in tests/e2e/k8s/go.mod, into
#
#   ${KUBEBERTH_K8S_CACHE:-$HOME/.cache/kubeberth/k8s}/<version>/bin/
#
# and makes an etcd server available there as well (a symlink to Debian's
# etcd-server package, installed with apt-get if missing). Binaries that are
# already present and were built from the same go.mod/go.sum are reused, so the
# script is cheap to run repeatedly. The last line printed on stdout is the bin
# dir; everything else goes to stderr.
#
# Environment:
#   KUBEBERTH_K8S_CACHE   cache root (default: $HOME/.cache/kubeberth/k8s)
#   KUBEBERTH_K8S_REBUILD set to 1 to force a rebuild of the Go binaries
#   KUBEBERTH_ETCD        path of an etcd binary to use instead of Debian's
#   GOFLAGS, GOMODCACHE, GOCACHE, GOPROXY ... are honoured as usual.
set -euo pipefail
# shellcheck source=lib/apt.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/apt.sh"

log() { printf '[provision-k8s] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
MOD_DIR="${REPO_ROOT}/tests/e2e/k8s"
[[ -f "${MOD_DIR}/go.mod" ]] || die "missing ${MOD_DIR}/go.mod"

# The pinned release, read from go.mod without touching the network.
K8S_VERSION="$(awk '$1 == "k8s.io/kubernetes" && $2 ~ /^v[0-9]/ { print $2; exit }' "${MOD_DIR}/go.mod")"
[[ -n "${K8S_VERSION}" ]] || die "cannot find the k8s.io/kubernetes version in ${MOD_DIR}/go.mod"

CACHE_ROOT="${KUBEBERTH_K8S_CACHE:-${HOME}/.cache/kubeberth/k8s}"
VERSION_DIR="${CACHE_ROOT}/${K8S_VERSION}"
BIN_DIR="${VERSION_DIR}/bin"
STAMP_FILE="${VERSION_DIR}/build.stamp"
GO_BINARIES=(kube-apiserver kube-scheduler kubectl)

# ---------------------------------------------------------------------------
# Go binaries
# ---------------------------------------------------------------------------
build_stamp() {
    # Identifies the inputs of the build: a replace-only change to go.mod
    # (same k8s version, other staging versions) still triggers a rebuild.
    cat "${MOD_DIR}/go.mod" "${MOD_DIR}/go.sum" | sha256sum | awk '{ print $1 }'
}

have_go_binaries() {
    local b
    for b in "${GO_BINARIES[@]}"; do
        [[ -x "${BIN_DIR}/${b}" ]] || return 1
    done
    [[ -f "${STAMP_FILE}" && "$(cat "${STAMP_FILE}")" == "$(build_stamp)" ]]
}

check_go() {
    command -v go >/dev/null 2>&1 || die "the Go toolchain (go >= 1.26) is required to build Kubernetes ${K8S_VERSION}"
    local v
    v="$(go env GOVERSION)"          # e.g. go1.26.8
    v="${v#go}"
    local major="${v%%.*}" rest="${v#*.}"
    local minor="${rest%%[.a-z]*}"
    if (( major < 1 || (major == 1 && minor < 26) )); then
        # An older go still works when it may switch toolchains (GOTOOLCHAIN=auto).
        if [[ "$(go env GOTOOLCHAIN)" == "local" ]]; then
            die "go ${v} is too old for Kubernetes ${K8S_VERSION} (needs >= 1.26) and GOTOOLCHAIN=local"
        fi
    fi
}

build_go_binaries() {
    check_go
    mkdir -p "${VERSION_DIR}"
    local tmp_bin
    tmp_bin="$(mktemp -d "${VERSION_DIR}/bin.tmp.XXXXXX")"
    # shellcheck disable=SC2064
    trap "rm -rf '${tmp_bin}'" EXIT

    # Same version stamping as the upstream release build (hack/lib/version.sh),
    # so `kubectl version`, /version and the components' own version checks see
    # the real release instead of v0.0.0-master.
    local minor_num="${K8S_VERSION#v1.}"
    minor_num="${minor_num%%.*}"
    local build_date
    build_date="$(date -u +'%Y-%m-%dT%H:%M:%SZ')"
    local ldflags="-s -w"
    local pkg key val
    for pkg in k8s.io/client-go/pkg/version k8s.io/component-base/version; do
        for key in gitVersion gitMajor gitMinor gitTreeState buildDate; do
            case "${key}" in
                gitVersion)   val="${K8S_VERSION}" ;;
                gitMajor)     val="1" ;;
                gitMinor)     val="${minor_num}" ;;
                gitTreeState) val="clean" ;;
                buildDate)    val="${build_date}" ;;
            esac
            ldflags+=" -X ${pkg}.${key}=${val}"
        done
    done

    log "building ${GO_BINARIES[*]} ${K8S_VERSION} into ${BIN_DIR} (cold builds take a while)"
    local start=${SECONDS}
    # One invocation for all three main packages (the `tool` directives of
    # go.mod), so the shared packages are compiled only once.
    (
        cd "${MOD_DIR}"
        CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags="${ldflags}" -o "${tmp_bin}/" tool
    )
    local b
    for b in "${GO_BINARIES[@]}"; do
        [[ -x "${tmp_bin}/${b}" ]] || die "go build did not produce ${b}"
    done
    mkdir -p "${BIN_DIR}"
    for b in "${GO_BINARIES[@]}"; do
        mv -f "${tmp_bin}/${b}" "${BIN_DIR}/${b}"
    done
    build_stamp > "${STAMP_FILE}"
    rm -rf "${tmp_bin}"
    trap - EXIT
    log "built in $(( SECONDS - start ))s"
}

if [[ "${KUBEBERTH_K8S_REBUILD:-0}" != "1" ]] && have_go_binaries; then
    log "reusing ${GO_BINARIES[*]} in ${BIN_DIR}"
else
    build_go_binaries
fi

# ---------------------------------------------------------------------------
# etcd
# ---------------------------------------------------------------------------
# kube-apiserver v1.37 runs against Debian bookworm's etcd-server (3.4.23): it
# probes the etcd server and turns off what needs a newer one (it logs
# "RequestWatchProgress feature is not supported"), falling back to consistent
# reads from etcd. Upstream tests against etcd 3.6/3.7; set KUBEBERTH_ETCD to
# use such a build instead.
find_etcd() {
    if [[ -n "${KUBEBERTH_ETCD:-}" ]]; then
        [[ -x "${KUBEBERTH_ETCD}" ]] || die "KUBEBERTH_ETCD=${KUBEBERTH_ETCD} is not executable"
        printf '%s\n' "${KUBEBERTH_ETCD}"
        return 0
    fi
    local candidate
    for candidate in /usr/bin/etcd "$(command -v etcd 2>/dev/null || true)"; do
        if [[ -n "${candidate}" && -x "${candidate}" && "${candidate}" != "${BIN_DIR}/etcd" ]]; then
            printf '%s\n' "${candidate}"
            return 0
        fi
    done
    return 1
}

ETCD_PATH="$(find_etcd || true)"
if [[ -z "${ETCD_PATH}" ]]; then
    log "installing Debian's etcd-server"
    apt_install etcd-server || die "no etcd found and Debian's etcd-server could not be installed (set KUBEBERTH_ETCD to an etcd binary)"
    ETCD_PATH="$(find_etcd)" || die "etcd-server was installed but no etcd binary was found"
fi
mkdir -p "${BIN_DIR}"
ln -sfn "${ETCD_PATH}" "${BIN_DIR}/etcd"
log "etcd: ${ETCD_PATH} ($("${ETCD_PATH}" --version 2>/dev/null | head -n 1 || echo 'unknown version'))"

printf '%s\n' "${BIN_DIR}"
