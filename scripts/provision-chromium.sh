#!/usr/bin/env bash
# Provision a headless Chromium (Debian's `chromium` package) for the report rendering tests.
#
#   scripts/provision-chromium.sh       # install if missing; prints the binary's path last
#
# The tests of `kubeberth simulate --report` open the generated HTML page in this browser and
# assert that it loads without errors and shows the expected nodes. Nothing else is downloaded:
# the page is self-contained.
set -euo pipefail
# shellcheck source=lib/apt.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/apt.sh"

log() { printf '[provision-chromium] %s\n' "$*" >&2; }

find_chromium() {
  for name in chromium chromium-browser; do
    if command -v "$name" >/dev/null 2>&1; then command -v "$name"; return 0; fi
  done
  return 1
}

if ! bin="$(find_chromium)"; then
  log "installing Debian's chromium package"
  apt_install chromium fonts-dejavu-core || { log "error: no chromium on PATH and it could not be installed with apt-get"; exit 1; }
  bin="$(find_chromium)"
fi
log "$("$bin" --version 2>/dev/null || echo "$bin")"
echo "$bin"
