# kvpage: two commands a newcomer needs (see README.md).
#   make site   installs what the build needs, then builds site/ and dist/kvpage-site.zip
#   make test   installs what the tests need too, builds, and runs every test and check
#   make bench  the bench harness's quick run (bench/README.md): timing, so not in make test
# and two for writing: make serve (the book on http://127.0.0.1:8000/, reloaded as you edit), and
# make fix (ruff's fixes and its format over the Python that make check lints).
# BUILD_FLAGS adds options to make site's build (GitHub Pages: BUILD_FLAGS=--publish-zip).
#
# Each step installs what it needs on a fresh Debian machine: a virtualenv with pinned
# Python packages (constraints.txt), the pinned npm packages (package-lock.json), Debian's
# Chromium, Firefox ESR and WebKitGTK's WebDriver (under Xvfb) for the browser tests, Java for the HTML checker, and the hash-pinned pytest wheels that the Pyodide tests
# install inside Pyodide (tests/pyodide/requirements.txt).

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
WHEELS := .cache/pyodide-wheels
BUILD_FLAGS ?=

# Python's compiled modules go to one folder of the checkout (git-ignores .cache/), written once and
# read by every later process, even where the environment sets PYTHONDONTWRITEBYTECODE (this
# machine's does, to keep source folders clean; the prefix keeps them clean too). Without it each of
# make test's Python processes (pytest's four, some 150 the tests start) compiled every module it
# imported, pytest's and Playwright's included, from source (decision 0066).
export PYTHONPYCACHEPREFIX := $(CURDIR)/.cache/pycache
export PYTHONDONTWRITEBYTECODE :=

.PHONY: site serve fix test bench test-site site-and-pyodide-test deps test-deps chromium browsers java check pytest pyodide-test clean

site: deps
	$(PY) build.py --single-file $(BUILD_FLAGS)

serve: deps
	$(PY) build.py serve

# ruff's own fixes (an import's order, an unused import) and its format, over what make check lints:
# so lint is never the first surprise of make test. What ruff cannot mend, it prints at path:line, and
# goes on (--exit-zero) to the format, which mends a line too long (issue 46: a new lab's long Choice
# stopped make fix at its first command, unformatted).
LINTED := kvpage sitegen build.py tests bench
fix: deps
	$(VENV)/bin/ruff check --fix --exit-zero $(LINTED)
	$(VENV)/bin/ruff format $(LINTED)

# The site is built, then the Pyodide run made on it, while the checks run (all only read the
# sources), then every pytest test: modules are spread whole (--dist loadscope) over three workers, so a module's
# fixtures are made once; the Firefox and WebKit modules one unit per way of opening the book, the
# longest units first, in the order tests/scheduling.py gives (which --no-loadscope-reorder keeps).
# Three on two cores: with two, the cores idle while browsers wait on their pages; with three they
# stay busy (docs/performance.md, "The test suite").
test: test-deps
	$(MAKE) --no-print-directory -j2 --output-sync=target site-and-pyodide-test check
	$(MAKE) --no-print-directory pytest

test-site:
	$(PY) build.py --single-file

site-and-pyodide-test: test-site
	$(MAKE) --no-print-directory pyodide-test

# The Python: ruff, mypy --strict, and vulture for dead code at --min-confidence 60 (the level of an
# unused function, class, variable or attribute; 100 would catch only unreachable code), its
# exceptions each named with who uses them in tests/vulture_whitelist.py. The JavaScript: tsc over the
# page's JSDoc-annotated modules under --strict, against config.d.ts, which must be what
# sitegen/site/page_types.py writes from the Python that builds the config (decision 0060), and ESLint.
check:
	$(VENV)/bin/ruff check $(LINTED)
	$(VENV)/bin/ruff format --check $(LINTED)
	$(VENV)/bin/mypy
	$(VENV)/bin/vulture kvpage sitegen build.py tests/vulture_whitelist.py --min-confidence 60
	$(PY) -m sitegen.site.page_types --check
	node_modules/.bin/tsc -p tsconfig.json
	node_modules/.bin/eslint sitegen site_template bench/stock_spawn.js

pytest:
	$(PY) -m pytest -n 3 --dist loadscope --no-loadscope-reorder

# The bench's own tests (bench/test_*.py): its harness run once, quick, on the site built here, and
# stock Pyodide's page it builds to compare with. Timing, not a reader's check: not in make test.
bench: test-deps test-site
	$(PY) -m pytest -p no:cacheprovider bench

# tests/kvpage again, inside Pyodide under Node, against the wheel in site/ (offline).
pyodide-test:
	node tests/pyodide/run.mjs --site site --wheels $(WHEELS)

# The virtualenv and the npm packages install side by side: neither reads the other.
deps:
	@$(MAKE) --no-print-directory -j2 --output-sync=target $(STAMP) node_modules/.package-lock.json

test-deps: deps chromium browsers java $(WHEELS)/.downloaded

# pip installs uv (its version pinned in constraints.txt), and uv installs the rest, the same
# pinned versions: about 2 s where pip took 25 s of one core (docs/performance.md, "The test
# suite"). The virtualenv keeps its pip, for the Pyodide wheels' hash-checked download below.
$(STAMP): pyproject.toml kvpage/pyproject.toml constraints.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet -c constraints.txt uv
	# The generator, editable (its command kvpage-book too): its .pth puts this checkout on the path,
	# so the model in kvpage/ is imported from here as well; the browser gets the model's own wheel.
	$(VENV)/bin/uv pip install --quiet --python $(PY) -c constraints.txt -e '.[test]'
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

# Firefox and WebKit for tests/browsers/: Debian's firefox-esr (driven by npm puppeteer-core),
# WebKitGTK's WebDriver, Xvfb for it, and PyGObject with WebKit's introspection data for the
# audit browser (tests/browsers/webkit_browser.py).
BROWSER_PACKAGES := firefox-esr webkit2gtk-driver xvfb python3-gi gir1.2-webkit2-4.1
browsers:
	@missing=$$(for p in $(BROWSER_PACKAGES); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null \
	  | grep -q '^install ok installed$$' || echo $$p; done); \
	test -z "$$missing" || { \
	  echo "installing $$missing for the Firefox and WebKit tests"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq $$missing; }

java:
	@command -v java >/dev/null 2>&1 || { \
	  echo "installing a Java runtime for the Nu HTML Checker"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq default-jre-headless; }

clean:
	rm -rf site dist .site-* .dist-*
