#!/usr/bin/env bash
# Regenerate constraints.txt: the exact versions the image installs (Dockerfile), resolved from
# pyproject.toml's dependencies, the image's extras and the build backend, for CPython 3.11 on
# Linux (the image's base). Run it after changing a dependency or to take newer releases:
#
#   scripts/update-constraints.sh            # then rebuild the image and commit constraints.txt
#
# pip-compile (pip-tools, pinned below) runs from a throwaway virtual environment, so the
# project's own environment is left alone. tests/test_image_recipe.py checks that every pin
# satisfies pyproject.toml.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

PIP_TOOLS_VERSION=7.6.2
EXTRAS=(contrib otlp-grpc)   # keep in step with the Dockerfile's `.[contrib,otlp-grpc]`

python3 -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' \
    || { echo "error: run with CPython 3.11 (the image's Python) to resolve its pins" >&2; exit 2; }

venv="$(mktemp -d)"
trap 'rm -rf "${venv}"' EXIT
python3 -m venv "${venv}"
"${venv}/bin/pip" install --quiet --disable-pip-version-check "pip-tools==${PIP_TOOLS_VERSION}"

extra_args=()
for e in "${EXTRAS[@]}"; do extra_args+=(--extra "${e}"); done
CUSTOM_COMPILE_COMMAND="scripts/update-constraints.sh" "${venv}/bin/pip-compile" \
    --quiet --strip-extras --no-emit-index-url --no-emit-find-links --allow-unsafe --all-build-deps \
    "${extra_args[@]}" --output-file constraints.txt pyproject.toml
echo "constraints.txt: $(grep -c '==' constraints.txt) pins" >&2
