"""API keys: each maps to one identity (agent, user, thread, persona, organization) or to
the owner role. The identity a request acts as comes from its key only.

Keys are random 256-bit secrets shown once when made; the file keeps only their SHA-256
(a fast hash is enough for secrets of that entropy: there is nothing to guess), with the
identity, a name, an optional rate and an optional expiry. The file is re-read when it
changes, so a key added or revoked with `cogmem keys` counts on a running server without a
restart.

Roles: an "agent" key reads and writes its identity's memories, a "read" (read-only) key
only calls the operations the table gives the "read" role, an "owner" key also runs the
store-wide ones. An expired key still authenticates, as a `Principal` whose `expired` is
true, so each surface can answer 401 "key expired" instead of "unknown key"; it may call
nothing (`Principal.may` is false, and `MemoryService.call` refuses it first). Key files
written before roles "read" and expiry existed load unchanged.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import re
import secrets
import threading
import time
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from cogmem_graph.errors import InvalidArgument
from cogmem_graph.home import private_dir, write_private
from cogmem_graph.identity import AgentIdentity

KEY_PREFIX = "cgm_"
KEYS_FILE = "server-keys.json"
ROLES = ("agent", "read", "owner")
# Which operation roles (`cogmem_graph.operations.Role`) a key of each role may call.
GRANTS: dict[str, frozenset[str]] = {
    "agent": frozenset({"agent", "read"}),
    "read": frozenset({"read"}),
    "owner": frozenset({"owner", "agent", "read"}),
}
_DURATION = re.compile(r"^\s*(\d+)\s*([smhdw])\s*$", re.IGNORECASE)
_UNIT_S = {"s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 7 * 86_400}


def now_ms() -> int:
    return int(time.time() * 1000)


def parse_expiry(text: str, *, now: int | None = None) -> int:
    """When a key given `--expires text` expires, in epoch ms: a duration from now (`30d`,
    `12h`, `90m`, `2w`, `45s`) or an ISO 8601 date or date-time (`2026-01-31`: midnight UTC
    at its start; a date-time without a zone is UTC). ValueError naming `expires` for
    anything else, or for a moment not in the future."""
    now = now_ms() if now is None else now
    duration = _DURATION.match(text)
    if duration:
        amount, unit = int(duration.group(1)), duration.group(2).lower()
        if amount <= 0:
            raise InvalidArgument(f"expires: a duration must be positive, got {text!r}", argument="expires")
        return now + amount * _UNIT_S[unit] * 1000
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise InvalidArgument(f"expires: {text!r} is neither a duration (30d, 12h, 90m, 2w, 45s) nor an ISO date or "
                              "date-time (2026-01-31, 2026-01-31T18:00:00+01:00)", argument="expires") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    at = int(moment.timestamp() * 1000)
    if at <= now:
        raise InvalidArgument(f"expires: {text!r} is not in the future", argument="expires")
    return at


def expiry_text(expires_at: int | None) -> str:
    """An expiry as ISO 8601 UTC to the second, "-" for a key that never expires."""
    if expires_at is None:
        return "-"
    return datetime.fromtimestamp(expires_at / 1000, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
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
    expires_at: int | None = None

    @property
    def is_owner(self) -> bool:
        return self.role == "owner"

    @property
    def read_only(self) -> bool:
        """True for a key that may change nothing (it calls "read" operations only)."""
        return not self.may("agent")

    @property
    def expired(self) -> bool:
        """True once the key's expiry has passed (checked now, so a long-lived holder notices)."""
        return self.expires_at is not None and now_ms() >= self.expires_at

    def may(self, operation_role: str) -> bool:
        """True when this key may call an operation of `operation_role` ("agent", "read", "owner");
        never once it has expired."""
        return not self.expired and operation_role in GRANTS.get(self.role, frozenset())

    def describe(self) -> dict[str, Any]:
        ident = self.identity.model_dump(exclude_none=True) if self.identity else None
        return {"key_id": self.key_id, "role": self.role, "name": self.name, "identity": ident,
                "visible_scope_keys": self.identity.visible_scope_keys() if self.identity else [],
                "expires_at": self.expires_at}


@dataclass
class KeyEntry:
    key_id: str
    digest: str
    role: str = "agent"
    identity: dict[str, str] = field(default_factory=dict)
    name: str = ""
    rate_per_second: float | None = None
    created_at: int = 0
    expires_at: int | None = None  # epoch ms; None: never (and in files written before expiry existed)

    def principal(self) -> Principal:
        ident = AgentIdentity(**self.identity) if self.identity else None
        return Principal(self.key_id, self.role, ident, self.name, self.rate_per_second, self.expires_at)


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
                raise InvalidArgument(f"key file {self.path} is not a valid cogmem key file: {exc}",
                                      argument="path") from None
        self._entries = entries
        self._by_digest = {e.digest: e for e in entries.values()}
        self._stamp = stamp

    def entries(self) -> list[KeyEntry]:
        with self._lock:
            self._reload()
            return list(self._entries.values())

    def authenticate(self, presented: str | None) -> Principal | None:
        """The principal of a presented key, or None when it is missing or unknown. An expired
        key's principal comes back with `expired` true (it may call nothing): the caller
        answers 401 "key expired"."""
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
        # A folder made here (a fresh memory home) is private from the start; the file is 0600
        # from the moment it exists, whatever the umask.
        if not self.path.parent.exists():
            private_dir(self.path.parent)
        payload = {"version": 1, "keys": [asdict(e) for e in self._entries.values()]}
        write_private(self.path, json.dumps(payload, indent=2).encode("utf-8"))
        self._stamp = None

    def add(self, *, role: str = "agent", agent_id: str | None = None, user_id: str | None = None,
            thread_id: str | None = None, persona_id: str | None = None, organization_id: str | None = None,
            name: str = "", rate_per_second: float | None = None,
            expires_at: int | None = None) -> tuple[str, KeyEntry]:
        """Make a key; returns (the key, shown only now, and its entry). `expires_at`: epoch ms
        (see `parse_expiry`), None for a key that never expires."""
        if role not in ROLES:
            raise InvalidArgument(f"role must be one of {', '.join(ROLES)}, not {role!r}", argument="role")
        ident = {k: v for k, v in {"agent_id": agent_id, "user_id": user_id, "thread_id": thread_id,
                                   "persona_id": persona_id, "organization_id": organization_id}.items() if v}
        if role in ("agent", "read") and not agent_id:
            raise InvalidArgument(f"agent_id is required for {'a read-only' if role == 'read' else 'an agent'} key",
                                  argument="agent_id")
        if expires_at is not None and (isinstance(expires_at, bool) or not isinstance(expires_at, int)
                                       or expires_at <= now_ms()):
            raise InvalidArgument(f"expires_at must be a future time in epoch milliseconds, got {expires_at!r}",
                                  argument="expires_at")
        if ident and not agent_id:
            raise InvalidArgument("agent_id is required when a key names an identity", argument="agent_id")
        if ident:
            AgentIdentity(**ident)  # a clear error now, not at the first request
        if rate_per_second is not None and not rate_per_second > 0:
            raise InvalidArgument(f"rate_per_second must be positive, got {rate_per_second!r}",
                                  argument="rate_per_second")
        key_id = secrets.token_hex(4)
        key = f"{KEY_PREFIX}{key_id}_{secrets.token_urlsafe(32)}"
        entry = KeyEntry(key_id=key_id, digest=key_digest(key), role=role, identity=ident, name=name,
                         rate_per_second=rate_per_second, created_at=now_ms(), expires_at=expires_at)
        with self._lock:
            self._reload()
            self._entries[key_id] = entry
            self._write()
        scopes = AgentIdentity(**ident).visible_scope_keys() if ident else []
        self._audit("key_add", scopes, {"key_id": key_id, "role": role, "name": name, "expires_at": expires_at})
        return key, entry

    def _audit(self, operation: str, scope_keys: list[str], key: dict[str, Any]) -> None:
        """A key change is the owner's and outlives the audit file's rotation (`cogmem_graph.audit`)."""
        from cogmem_graph.audit import AuditLog

        AuditLog(self.path.parent).record(operation, at_ms=now_ms(), actor={"owner": True}, scope_keys=scope_keys,
                                          counts={}, extra={"key": key})

    def revoke(self, key_id: str) -> bool:
        with self._lock:
            self._reload()
            if key_id not in self._entries:
                return False
            gone = self._entries.pop(key_id)
            self._write()
        self._audit("key_revoke", [], {"key_id": key_id, "role": gone.role, "name": gone.name})
        with contextlib.suppress(OSError):
            self._reload()
        return True
