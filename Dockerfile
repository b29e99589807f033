# sqsmock's server image, built from this checkout (not from the package index):
#
#   docker build -t sqsmock .
#   docker run --rm -p 9324:9324 sqsmock
#
# BASE is any image with Python 3.10 or later, python3 on PATH and its venv module: python's
# slim images from any registry, or one built locally (see docs/container.md).
ARG BASE=python:3.12-slim

FROM ${BASE} AS build
# a virtual environment, copied whole into the final stage: the build leaves nothing behind
RUN python3 -m venv /opt/sqsmock
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
# the dependencies first, in a layer of their own that a change to sqsmock's code keeps: the
# server's, Redis's (--persistence redis://...) and ElasticMQ's configuration reader's
COPY pyproject.toml LICENSE ./
COPY sqsmock/_version.py sqsmock/
RUN touch README.md && /opt/sqsmock/bin/pip install ".[server,redis,elasticmq]"
# then sqsmock itself; pip leaves with the build
COPY README.md ./
COPY sqsmock sqsmock/
RUN /opt/sqsmock/bin/pip install --no-deps --force-reinstall . \
 && /opt/sqsmock/bin/pip uninstall --yes pip setuptools \
 && /opt/sqsmock/bin/sqsmock --version

FROM ${BASE}
LABEL org.opencontainers.image.title="sqsmock" \
      org.opencontainers.image.description="A fast, faithful Amazon SQS emulator" \
      org.opencontainers.image.licenses="MIT"
COPY --from=build /opt/sqsmock /opt/sqsmock
# a user of its own, not root; /data is its home and the volume (for a later file store: today
# state outlives a container only with --persistence redis://...)
RUN groupadd --gid 10001 sqsmock \
 && useradd --uid 10001 --gid sqsmock --home-dir /data --no-create-home --shell /usr/sbin/nologin sqsmock \
 && mkdir -p /data /etc/localstack/init/ready.d \
 && chown sqsmock:sqsmock /data
# SQSMOCK_HOST too, so that a command of one's own (sqsmock serve --localstack) listens on every
# interface as well
ENV PATH=/opt/sqsmock/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    SQSMOCK_HOST=0.0.0.0
VOLUME /data
WORKDIR /data
USER sqsmock
# 9324: sqsmock's port (ElasticMQ's); 4566: LocalStack's, with --localstack (SQSMOCK_LOCALSTACK=1)
EXPOSE 9324 4566
# whichever port it serves on: SQSMOCK_PORT, else 9324, else LocalStack's 4566
HEALTHCHECK --interval=5s --timeout=3s --start-period=10s --retries=3 \
  CMD ["python3", "-c", "import os, urllib.request as u\nfor p in dict.fromkeys([os.environ.get('SQSMOCK_PORT'), '9324', '4566']):\n    try:\n        u.urlopen(f'http://127.0.0.1:{p}/_sqsmock/health', timeout=2).close()\n        raise SystemExit(0)\n    except (OSError, ValueError):\n        pass\nraise SystemExit(1)"]
STOPSIGNAL SIGTERM
CMD ["sqsmock", "serve", "--host", "0.0.0.0"]
