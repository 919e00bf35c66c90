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

GOTOOL_NAME=helm
source "$(dirname "${BASH_SOURCE[0]}")/lib/gotool.sh"

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
MOD_DIR="${REPO_ROOT}/tests/e2e/helm"
VERSION="$(go_tool_version "${MOD_DIR}" helm.sh/helm/v4)"

# The version stamping of helm's own release build (its Makefile's LDFLAGS), so
# `helm version` reports the release and charts' kubeVersion checks see it.
vpkg=helm.sh/helm/v4/internal/version
LDFLAGS="-s -w -X ${vpkg}.version=${VERSION} -X ${vpkg}.metadata= -X ${vpkg}.gitTreeState=clean"

provision_go_tool helm "${MOD_DIR}" "${VERSION}" "${KUBEBERTH_HELM_CACHE:-${HOME}/.cache/kubeberth/helm}" \
    "${KUBEBERTH_HELM_REBUILD:-0}" "${LDFLAGS}"
