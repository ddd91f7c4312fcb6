"""Dashboard sessions, kept in memory on the server: a random token (the cookie's only content)
names the key id it was opened with and a CSRF token bound to it. The key itself is never
kept, here or in the browser; each request looks the key id up again, so a revoked or expired
key ends its sessions at once. Sessions expire when idle and after a fixed lifetime."""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from dataclasses import dataclass

IDLE_S = 30 * 60
LIFETIME_S = 12 * 3600
MAX_SESSIONS = 10_000


@dataclass
class Session:
    key_id: str
    csrf: str
    opened_at: float
    seen_at: float
    done: str = ""
    """What the last change did, shown once on the page it leads to (HTML made by `pages`)."""

    def take_done(self) -> str:
        done, self.done = self.done, ""
        return done


class SessionStore:
    """Token → session; at most `max_sessions` (the oldest go first when full)."""

    def __init__(self, idle_s: float = IDLE_S, lifetime_s: float = LIFETIME_S,
                 max_sessions: int = MAX_SESSIONS) -> None:
        self.idle_s = idle_s
        self.lifetime_s = lifetime_s
        self.max_sessions = max_sessions
        self._sessions: dict[str, Session] = {}
        self._lock = threading.Lock()

    def open(self, key_id: str) -> tuple[str, Session]:
        now = time.monotonic()
        token = secrets.token_urlsafe(32)
        session = Session(key_id, secrets.token_urlsafe(32), now, now)
        with self._lock:
            self._prune(now)
            if len(self._sessions) >= self.max_sessions:
                oldest = min(self._sessions, key=lambda t: self._sessions[t].seen_at)
                del self._sessions[oldest]
            self._sessions[token] = session
        return token, session

    def get(self, token: str | None) -> Session | None:
        """The live session of `token` (its idle clock restarted), or None."""
        if not token:
            return None
        now = time.monotonic()
        with self._lock:
            session = self._sessions.get(token)
            if session is None:
                return None
            if self._stale(session, now):
                del self._sessions[token]
                return None
            session.seen_at = now
            return session

    def close(self, token: str | None) -> None:
        with self._lock:
            self._sessions.pop(token or "", None)

    def __len__(self) -> int:
        return len(self._sessions)

    def _stale(self, session: Session, now: float) -> bool:
        return now - session.seen_at > self.idle_s or now - session.opened_at > self.lifetime_s

    def _prune(self, now: float) -> None:
        for token in [t for t, s in self._sessions.items() if self._stale(s, now)]:
            del self._sessions[token]


def csrf_matches(session: Session, presented: str | None) -> bool:
    return bool(presented) and hmac.compare_digest(session.csrf.encode(), str(presented).encode())
