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

GOTOOL_NAME=jaeger
source "$(dirname "${BASH_SOURCE[0]}")/lib/gotool.sh"

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
MOD_DIR="${REPO_ROOT}/tests/e2e/jaeger"
VERSION="$(go_tool_version "${MOD_DIR}" github.com/jaegertracing/jaeger)"

# The version stamping of the upstream release build (scripts/makefiles/BuildInfo.mk),
# so `jaeger version` and the build-info metric report the real release.
vpkg=github.com/jaegertracing/jaeger/internal/version
LDFLAGS="-s -w -X ${vpkg}.latestVersion=${VERSION} -X ${vpkg}.date=$(date -u +'%Y-%m-%dT%H:%M:%SZ')"

provision_go_tool jaeger "${MOD_DIR}" "${VERSION}" "${KUBEBERTH_JAEGER_CACHE:-${HOME}/.cache/kubeberth/jaeger}" \
    "${KUBEBERTH_JAEGER_REBUILD:-0}" "${LDFLAGS}"
