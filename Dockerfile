# kubeberth scheduler image: `docker build -t kubeberth:0.1.0 .`
FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml README.md ./
COPY core ./core
COPY builtin_plugins ./builtin_plugins
COPY contrib ./contrib
RUN pip install --no-cache-dir --prefix=/install .

FROM python:3.11-slim
COPY --from=build /install /usr/local
RUN groupadd --system --gid 10001 kubeberth \
 && useradd --system --uid 10001 --gid kubeberth --no-create-home --shell /usr/sbin/nologin kubeberth
USER 10001:10001
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
ENTRYPOINT ["kubeberth", "run"]
