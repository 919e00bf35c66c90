# syntax=docker/dockerfile:1
# The kubeberth scheduler image.
#
#   docker build -t kubeberth:0.1.0 \
#     --build-arg REVISION="$(git rev-parse HEAD)" \
#     --build-arg CREATED="$(date -u +%Y-%m-%dT%H:%M:%SZ)" .
#
# Base: pinned by version. To pin it by digest as well, resolve the tag once and append it:
#   docker buildx imagetools inspect python:3.11.14-slim-bookworm --format '{{json .Manifest.Digest}}'
#   docker build --build-arg PYTHON_IMAGE=python:3.11.14-slim-bookworm@sha256:<digest> ...
# (and write it here when you bump the version).
# Dependencies: every version comes from constraints.txt (scripts/update-constraints.sh
# regenerates it from pyproject.toml). Extras: contrib (the load-aware plugins' Prometheus
# source) and otlp-grpc (OTEL_EXPORTER_OTLP_PROTOCOL=grpc); OTLP over HTTP is always there.
# Plugin packages: build a derived image, config/examples/Dockerfile.plugins (docs/deploy.md).
ARG PYTHON_IMAGE=python:3.11.14-slim-bookworm

FROM ${PYTHON_IMAGE} AS build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1 PIP_ROOT_USER_ACTION=ignore
WORKDIR /src
COPY constraints.txt pyproject.toml README.md LICENSE ./
COPY core ./core
COPY builtin_plugins ./builtin_plugins
COPY contrib ./contrib
# One virtual environment holds kubeberth and its pinned dependencies; the final stage copies it.
RUN python -m venv /opt/kubeberth
ENV PATH=/opt/kubeberth/bin:$PATH
# PIP_CONSTRAINT also pins the isolated build environment's setuptools.
RUN PIP_CONSTRAINT=/src/constraints.txt pip install ".[contrib,otlp-grpc]" \
 && mkdir -p /opt/kubeberth/share/kubeberth \
 && version="$(python -c 'import kubeberth; print(kubeberth.__version__)')" \
 && { grep -v '^kubeberth==' constraints.txt; echo "kubeberth==${version}"; } > /opt/kubeberth/share/kubeberth/constraints.txt
# The CEL package's command-line tool and its stack (typer, rich, prompt-toolkit, pygments, ~19 MB)
# are not part of the scheduler: kubeberth.api.dra loads the compiled CEL extension without them
# (tests/test_packaging.py checks DRA placements are unchanged without the stack).
RUN pip uninstall -y typer rich prompt-toolkit pygments markdown-it-py mdurl shellingham annotated-doc wcwidth \
 && rm -f /opt/kubeberth/bin/cel

FROM ${PYTHON_IMAGE}
ARG PYTHON_IMAGE
ARG VERSION=0.1.0
ARG REVISION=""
ARG CREATED=""
LABEL org.opencontainers.image.title="kubeberth" \
      org.opencontainers.image.description="A Kubernetes scheduler framework in Python: kube-scheduler's Scheduling Framework as pluggy hooks" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.created="${CREATED}" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.url="https://github.com/kubeberth/kubeberth" \
      org.opencontainers.image.source="https://github.com/kubeberth/kubeberth" \
      org.opencontainers.image.documentation="https://github.com/kubeberth/kubeberth/blob/main/docs/deploy.md" \
      org.opencontainers.image.base.name="${PYTHON_IMAGE}"
COPY --from=build /opt/kubeberth /opt/kubeberth
ENV PATH=/opt/kubeberth/bin:$PATH
# The installed set is consistent, and derived images (`FROM kubeberth`) find the pins at
# /opt/kubeberth/share/kubeberth/constraints.txt: kubeberth itself and every dependency, so a
# plugin package that needs other versions fails its `pip install` instead of changing them.
# `pip check` may report only the CEL command-line stack removed above.
RUN pip check | grep -v -E '^common-expression-language [^ ]+ requires (typer|rich|prompt-toolkit|pygments),' \
    | { ! grep .; } \
 && groupadd --system --gid 10001 kubeberth \
 && useradd --system --uid 10001 --gid kubeberth --no-create-home --shell /usr/sbin/nologin kubeberth
USER 10001:10001
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
# HTTPS (secure serving): /healthz, /readyz, /livez open; /metrics, /debug/*, /reload with a token.
EXPOSE 10259
ENTRYPOINT ["kubeberth", "run"]
