# Shared by the provisioning scripts: install Debian packages non-interactively.
#
#   source "$(dirname "${BASH_SOURCE[0]}")/lib/apt.sh"
#   apt_install etcd-server            # returns non-zero if apt-get is missing or the install fails
#
# Runs as root, or through passwordless sudo. A package's postinst must not start a system
# service (containers have no init system, and the tests start their own servers), so a
# policy-rc.d that forbids it is in place for the install. Package lists may be missing or stale
# on a fresh machine: one `apt-get update` and a second try follow a failed install.

apt_install() {
    command -v apt-get >/dev/null 2>&1 || return 1
    local sudo=()
    if [[ "$(id -u)" != "0" ]]; then
        command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null || return 1
        sudo=(sudo -n)
    fi
    local policy_rc=/usr/sbin/policy-rc.d created_policy=0
    if [[ ! -e "${policy_rc}" ]]; then
        printf '#!/bin/sh\nexit 101\n' | "${sudo[@]}" tee "${policy_rc}" >/dev/null
        "${sudo[@]}" chmod 755 "${policy_rc}"
        created_policy=1
    fi
    local rc=0
    if ! DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y --no-install-recommends "$@" >&2; then
        DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get update >&2 || true
        DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y --no-install-recommends "$@" >&2 || rc=$?
    fi
    if (( created_policy )); then
        "${sudo[@]}" rm -f "${policy_rc}"
    fi
    return "${rc}"
}
