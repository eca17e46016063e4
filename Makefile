# One entry point for learners, instructors, operators and CI.
#   make serve   set everything up, build the site, serve site + grader at http://127.0.0.1:8000
#   make test    set everything up and run every test
# Every target is safe to run twice.

SHELL := /bin/bash
PY    := .venv/bin/python
PIP   := .venv/bin/pip
HOST  ?= 127.0.0.1
PORT  ?= 8000
export NO_MKDOCS_2_WARNING := 1

# Pinned front-end runtimes (npm). Installed under .build/npm, copied into site_overrides/vendor/.
PYODIDE_VERSION := 314.0.7
KATEX_VERSION   := 0.16.22

.PHONY: setup system-deps venv vendor wheel site serve test check lint bench clean

setup: system-deps venv vendor

# Debian packages: Chromium for browser tests, PostgreSQL for storage tests.
system-deps:
	@if [ ! -x /usr/bin/chromium ] || ! command -v pg_ctlcluster >/dev/null || [ -z "$$(ls /usr/lib/postgresql 2>/dev/null)" ]; then \
	  echo "installing Debian packages: chromium postgresql"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium postgresql >/dev/null; \
	fi

venv: .venv/.installed

.venv/.installed: pyproject.toml
	test -x $(PY) || python3 -m venv .venv
	$(PIP) install -q --upgrade pip
	$(PIP) install -q -e '.[site,grade,service,labs,dev]'
	touch $@

vendor: .build/npm/.installed wheel
	$(PY) -m grader.site_assets vendor --npm .build/npm/node_modules --dest site_overrides/vendor

.build/npm/.installed: Makefile
	mkdir -p .build/npm
	npm install --prefix .build/npm --no-audit --no-fund --silent \
	  pyodide@$(PYODIDE_VERSION) katex@$(KATEX_VERSION)
	touch $@

# The grader package as a pure-Python wheel, loaded into Pyodide by the lesson cells.
wheel: venv
	rm -rf .build/wheel && $(PY) -m build --wheel --no-isolation --outdir .build/wheel . >/dev/null

site: setup
	$(PY) -m mkdocs build --strict --site-dir site

check: venv
	$(PY) -m grader check

serve: site
	$(PY) -m grader serve --host $(HOST) --port $(PORT) --site-dir site

lint: venv
	.venv/bin/ruff check grader tests bench labs

test: setup
	.venv/bin/ruff check grader tests bench labs
	$(PY) -m pytest -q -p no:cacheprovider

bench: setup
	for b in bench/bench_*.py; do echo "== $$b"; $(PY) $$b || exit 1; done

clean:
	rm -rf site .build site_overrides/vendor
