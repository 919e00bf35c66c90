# Shared by the provisioning scripts that build one Go tool from a small wrapper module under
# tests/e2e/<dir>/ (a go.mod with a `tool` directive and `replace`s where needed) and cache it
# outside the repository, keyed by version and rebuilt only when go.mod/go.sum change.
#
#   source "$(dirname "${BASH_SOURCE[0]}")/lib/gotool.sh"
#   version="$(go_tool_version "${MOD_DIR}" helm.sh/helm/v4)"
#   provision_go_tool helm "${MOD_DIR}" "${version}" "${CACHE_ROOT}" "${REBUILD:-0}" "${LDFLAGS}"
#
# provision_go_tool prints the bin dir on stdout; its log lines go to stderr.

gotool_log() { printf '[provision-%s] %s\n' "${GOTOOL_NAME:-gotool}" "$*" >&2; }
gotool_die() { gotool_log "error: $*"; exit 1; }

# The version of MODULE that MOD_DIR/go.mod requires.
go_tool_version() {
    local mod_dir=$1 module=$2 version
    [[ -f "${mod_dir}/go.mod" ]] || gotool_die "missing ${mod_dir}/go.mod"
    version="$(awk -v m="${module}" '$1 == m && $2 ~ /^v[0-9]/ { print $2; exit }' "${mod_dir}/go.mod")"
    [[ -n "${version}" ]] || gotool_die "cannot find the ${module} version in ${mod_dir}/go.mod"
    printf '%s\n' "${version}"
}

_gotool_stamp() { cat "$1/go.mod" "$1/go.sum" | sha256sum | awk '{ print $1 }'; }

# Build TOOL from MOD_DIR into CACHE_ROOT/VERSION/bin (or reuse it) and print that bin dir.
provision_go_tool() {
    local tool=$1 mod_dir=$2 version=$3 cache_root=$4 rebuild=$5 ldflags=$6
    local version_dir="${cache_root}/${version}"
    local bin_dir="${version_dir}/bin" stamp_file="${version_dir}/build.stamp"
    if [[ "${rebuild}" != "1" && -x "${bin_dir}/${tool}" && -f "${stamp_file}" \
          && "$(cat "${stamp_file}")" == "$(_gotool_stamp "${mod_dir}")" ]]; then
        gotool_log "reusing ${tool} ${version} in ${bin_dir}"
        printf '%s\n' "${bin_dir}"
        return
    fi
    command -v go >/dev/null 2>&1 || gotool_die "the Go toolchain (go >= 1.26) is required to build ${tool} ${version}"
    mkdir -p "${version_dir}"
    local tmp_bin start=${SECONDS}
    tmp_bin="$(mktemp -d "${version_dir}/bin.tmp.XXXXXX")"
    # shellcheck disable=SC2064
    trap "rm -rf '${tmp_bin}'" EXIT
    gotool_log "building ${tool} ${version} into ${bin_dir}"
    (cd "${mod_dir}" && CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags="${ldflags}" -o "${tmp_bin}/" tool)
    [[ -x "${tmp_bin}/${tool}" ]] || gotool_die "go build did not produce ${tool}"
    mkdir -p "${bin_dir}"
    mv -f "${tmp_bin}/${tool}" "${bin_dir}/${tool}"
    _gotool_stamp "${mod_dir}" > "${stamp_file}"
    rm -rf "${tmp_bin}"
    trap - EXIT
    gotool_log "built in $(( SECONDS - start ))s"
    printf '%s\n' "${bin_dir}"
}
