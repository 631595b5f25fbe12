# kvpage: two commands a newcomer needs (see README.md).
#   make site   installs what the build needs, then builds site/ and dist/kvpage-site.zip
#   make test   installs what the tests need too, builds, and runs every test and check
#
# Each step installs what it needs on a fresh Debian machine: a virtualenv with pinned
# Python packages (constraints.txt), the pinned npm packages (package-lock.json), Debian's
# Chromium for the browser tests, Java for the HTML checker, and the hash-pinned pytest wheels that the Pyodide tests
# install inside Pyodide (tests/pyodide/requirements.txt).

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
WHEELS := .cache/pyodide-wheels

.PHONY: site test deps test-deps chromium java check pytest pyodide-test clean

site: deps
	$(PY) build.py --single-file

test: test-deps
	$(PY) build.py --single-file
	$(MAKE) --no-print-directory check pytest pyodide-test

check:
	$(VENV)/bin/ruff check kvpage sitegen build.py tests bench
	$(VENV)/bin/ruff format --check kvpage sitegen build.py tests bench
	$(VENV)/bin/mypy

pytest:
	$(PY) -m pytest

# tests/kvpage again, inside Pyodide under Node, against the wheel in site/ (offline).
pyodide-test:
	node tests/pyodide/run.mjs --site site --wheels $(WHEELS)

deps: $(STAMP) node_modules/.package-lock.json

test-deps: deps chromium java $(WHEELS)/.downloaded

$(STAMP): pyproject.toml constraints.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -c constraints.txt -e '.[test]'
	touch $@

$(WHEELS)/.downloaded: tests/pyodide/requirements.txt $(STAMP)
	$(PY) -m pip download --quiet --only-binary=:all: --no-deps --require-hashes \
	  -r tests/pyodide/requirements.txt -d $(WHEELS)
	touch $@

node_modules/.package-lock.json: package.json package-lock.json
	npm ci --no-audit --no-fund

chromium:
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "installing Debian's chromium for the browser tests"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq chromium; }

java:
	@command -v java >/dev/null 2>&1 || { \
	  echo "installing a Java runtime for the Nu HTML Checker"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq default-jre-headless; }

clean:
	rm -rf site dist .site-* .dist-*
