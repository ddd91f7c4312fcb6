"""API keys: each maps to one identity (agent, user, thread, persona, organization) or to
the owner role. The identity a request acts as comes from its key only.

Keys are random 256-bit secrets shown once when made; the file keeps only their SHA-256
(a fast hash is enough for secrets of that entropy: there is nothing to guess), with the
identity, a name and an optional rate. The file is re-read when it changes, so a key added
or revoked with `cogmem keys` counts on a running server without a restart.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import secrets
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from cogmem_graph.identity import AgentIdentity

KEY_PREFIX = "cgm_"
KEYS_FILE = "server-keys.json"
ROLES = ("agent", "owner")
# Which operation roles (`cogmem_graph.operations.Role`) a key of each role may call. There
# is no read-only key yet: "read" operations are an agent key's. A read-only key role would
# be ("read",) here and a new entry of ROLES.
GRANTS: dict[str, frozenset[str]] = {
    "agent": frozenset({"agent", "read"}),
    "owner": frozenset({"owner", "agent", "read"}),
}
IDENTITY_FIELDS = ("agent_id", "user_id", "thread_id", "persona_id", "organization_id")


def default_keys_path(home: Path) -> Path:
    """Where the owner's key file lives: beside the store it opens keys to."""
    return Path(home) / KEYS_FILE


def key_digest(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Principal:
    """Who a request is: a key's id, role and identity (None for an owner key without one)."""

    key_id: str
    role: str
    identity: AgentIdentity | None
    name: str = ""
    rate_per_second: float | None = None

    @property
    def is_owner(self) -> bool:
        return self.role == "owner"

    def may(self, operation_role: str) -> bool:
        """True when this key may call an operation of `operation_role` ("agent", "read", "owner")."""
        return operation_role in GRANTS.get(self.role, frozenset())

    def describe(self) -> dict[str, Any]:
        ident = self.identity.model_dump(exclude_none=True) if self.identity else None
        return {"key_id": self.key_id, "role": self.role, "name": self.name, "identity": ident,
                "visible_scope_keys": self.identity.visible_scope_keys() if self.identity else []}


@dataclass
class KeyEntry:
    key_id: str
    digest: str
    role: str = "agent"
    identity: dict[str, str] = field(default_factory=dict)
    name: str = ""
    rate_per_second: float | None = None
    created_at: int = 0

    def principal(self) -> Principal:
        ident = AgentIdentity(**self.identity) if self.identity else None
        return Principal(self.key_id, self.role, ident, self.name, self.rate_per_second)


class KeyRing:
    """The owner's key file: add, list, revoke, and look a presented key up."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._entries: dict[str, KeyEntry] = {}
        self._by_digest: dict[str, KeyEntry] = {}
        self._stamp: tuple[int, int] | None = None

    # ------------------------------------------------------------ reading

    def _file_stamp(self) -> tuple[int, int] | None:
        try:
            st = self.path.stat()
        except FileNotFoundError:
            return None
        return st.st_mtime_ns, st.st_size

    def _reload(self) -> None:
        stamp = self._file_stamp()
        if stamp == self._stamp and self._stamp is not None:
            return
        entries: dict[str, KeyEntry] = {}
        if stamp is not None:
            try:
                data = json.loads(self.path.read_text(encoding="utf-8"))
                for raw in data.get("keys", []):
                    entry = KeyEntry(**raw)
                    entries[entry.key_id] = entry
            except (OSError, ValueError, TypeError) as exc:
                raise ValueError(f"key file {self.path} is not a valid cogmem key file: {exc}") from None
        self._entries = entries
        self._by_digest = {e.digest: e for e in entries.values()}
        self._stamp = stamp

    def entries(self) -> list[KeyEntry]:
        with self._lock:
            self._reload()
            return list(self._entries.values())

    def authenticate(self, presented: str | None) -> Principal | None:
        """The principal of a presented key, or None when it is missing or unknown."""
        if not presented or not isinstance(presented, str) or not presented.startswith(KEY_PREFIX):
            return None
        digest = key_digest(presented)
        with self._lock:
            self._reload()
            entry = self._by_digest.get(digest)
        if entry is None or not hmac.compare_digest(entry.digest, digest):
            return None
        return entry.principal()

    # ------------------------------------------------------------ writing

    def _write(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        payload = {"version": 1, "keys": [asdict(e) for e in self._entries.values()]}
        tmp = self.path.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(payload, f, indent=2)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.path)
        self._stamp = None

    def add(self, *, role: str = "agent", agent_id: str | None = None, user_id: str | None = None,
            thread_id: str | None = None, persona_id: str | None = None, organization_id: str | None = None,
            name: str = "", rate_per_second: float | None = None) -> tuple[str, KeyEntry]:
        """Make a key; returns (the key, shown only now, and its entry)."""
        if role not in ROLES:
            raise ValueError(f"role must be one of {', '.join(ROLES)}, not {role!r}")
        ident = {k: v for k, v in {"agent_id": agent_id, "user_id": user_id, "thread_id": thread_id,
                                   "persona_id": persona_id, "organization_id": organization_id}.items() if v}
        if role == "agent" and not agent_id:
            raise ValueError("agent_id is required for an agent key")
        if ident and not agent_id:
            raise ValueError("agent_id is required when a key names an identity")
        if ident:
            AgentIdentity(**ident)  # a clear error now, not at the first request
        if rate_per_second is not None and not rate_per_second > 0:
            raise ValueError(f"rate_per_second must be positive, got {rate_per_second!r}")
        key_id = secrets.token_hex(4)
        key = f"{KEY_PREFIX}{key_id}_{secrets.token_urlsafe(32)}"
        entry = KeyEntry(key_id=key_id, digest=key_digest(key), role=role, identity=ident, name=name,
                         rate_per_second=rate_per_second, created_at=int(time.time() * 1000))
        with self._lock:
            self._reload()
            self._entries[key_id] = entry
            self._write()
        return key, entry

    def revoke(self, key_id: str) -> bool:
        with self._lock:
            self._reload()
            if key_id not in self._entries:
                return False
            del self._entries[key_id]
            self._write()
        with contextlib.suppress(OSError):
            self._reload()
        return True
