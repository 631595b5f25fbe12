# kvpage: two commands a newcomer needs (see README.md).
#   make site   installs what the build needs, then builds site/ and dist/kvpage-site.zip
#   make test   installs what the tests need too, builds, and runs every test and check
#
# Each step installs what it needs on a fresh Debian machine: a virtualenv with pinned
# Python packages (constraints.txt), the pinned npm packages (package-lock.json), and
# Debian's Chromium for the browser tests.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: site test deps test-deps chromium java check pytest clean

site: deps
	$(PY) build.py --single-file

test: test-deps
	$(PY) build.py --single-file
	$(MAKE) --no-print-directory check pytest

check:
	$(VENV)/bin/ruff check kvpage sitegen build.py tests
	$(VENV)/bin/ruff format --check kvpage sitegen build.py tests
	$(VENV)/bin/mypy

pytest:
	$(PY) -m pytest

deps: $(STAMP) node_modules/.package-lock.json

test-deps: deps chromium java

$(STAMP): pyproject.toml constraints.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -c constraints.txt -e '.[test]'
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
