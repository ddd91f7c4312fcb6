"""`cogmem serve`: one process that owns a memory store and serves it to many agents.

The server sits above the facade and uses nothing below it but the formulas the
dashboard's retention page shows (`cognition/`; import-linter contracts in
pyproject.toml): `keys` maps API keys to identities (stored hashed), `service` runs the
operations for the identity a key names, `rest` and `mcp_tools` expose them (a REST API
with an OpenAPI schema, and MCP over streamable HTTP or stdio), `guards` checks keys,
body sizes and rates before a request reaches either, `scheduler` consolidates on an
interval, `app` wires them and `runner` starts the process.
"""

from __future__ import annotations

from cogmem_graph.server.keys import KeyRing, Principal, default_keys_path

__all__ = ["KeyRing", "Principal", "default_keys_path"]
