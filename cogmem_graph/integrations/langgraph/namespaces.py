"""Which cogmem scope a LangGraph namespace lives in.

A store maps namespaces with one pattern, by default `("memories", "{user_id}")`: a namespace
whose leading labels match it names a user, and its items are memories of that user's scope
(`("memories", "u1", ...)` → `user:u1`). Any other namespace is the agent's shared memory
(the agent scope), seen by every user of the store's agent. A read names one user at most:
each read runs with one identity's scope keys, so no prefix reaches two users' memories;
only a store opened as the memory store's owner (`every_user=True`) runs a read whose
prefix names no user once per user as well (`NamespaceScopes.reaches_users`).

A namespace is kept on its memories as a path: its labels joined by "." behind a leading
"." (`("memories", "u1")` → `.memories.u1`, the root is `.`). LangGraph refuses "." inside
a label, so a path always splits back into the labels it was made of.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from langgraph.store.base import InvalidNamespaceError

from cogmem_graph.errors import InvalidArgument
from cogmem_graph.model import MAX_NAME_CHARS, Scope

USER_LABEL = "{user_id}"
WILDCARD = "*"
PATH_SEPARATOR = "."
ROOT_PATH = PATH_SEPARATOR
DEFAULT_USER_NAMESPACE = ("memories", USER_LABEL)


def namespace_path(labels: Sequence[str]) -> str:
    """`("memories", "u1")` as `.memories.u1`; the empty namespace as `.`."""
    return PATH_SEPARATOR + PATH_SEPARATOR.join(labels)


def path_prefixes(labels: Sequence[str]) -> list[str]:
    """The path of every prefix of a namespace, the root and the namespace itself included:
    what a prefix search matches on."""
    return [namespace_path(labels[:n]) for n in range(len(labels) + 1)]


def labels_of(path: str) -> tuple[str, ...]:
    return () if path == ROOT_PATH else tuple(path[1:].split(PATH_SEPARATOR))


def check_namespace(namespace: object, argument: str, *, allow_wildcard: bool = False) -> tuple[str, ...]:
    """`namespace` as a tuple of labels LangGraph accepts (non-empty strings without "." or
    NUL), short enough for its path to be matched on; an error naming `argument` otherwise."""
    if not isinstance(namespace, tuple | list):
        raise InvalidNamespaceError(f"{argument} must be a tuple of strings, not {type(namespace).__name__}")
    labels = tuple(namespace)
    for label in labels:
        if not isinstance(label, str) or not label:
            raise InvalidNamespaceError(f"{argument} {labels!r}: every label must be a non-empty string")
        if PATH_SEPARATOR in label or "\x00" in label:
            raise InvalidNamespaceError(f"{argument} {labels!r}: a label must not contain '.' or NUL")
        if label == WILDCARD and not allow_wildcard:
            raise InvalidNamespaceError(f"{argument} {labels!r}: '*' matches any label in list_namespaces only")
    if len(namespace_path(labels)) > MAX_NAME_CHARS:
        raise InvalidNamespaceError(f"{argument} is longer than {MAX_NAME_CHARS} characters once joined")
    return labels


@dataclass(frozen=True)
class Place:
    """Where a namespace's items are written: whose they are (None: the agent's shared
    memory) and the scope that holds them."""

    user_id: str | None
    scope: Scope


@dataclass(frozen=True)
class ReadView:
    """What a read may see: the identity it runs as (None: the agent alone) and the scopes
    it keeps to; no scopes means nothing is visible."""

    user_id: str | None
    scopes: tuple[Scope, ...]


class NamespaceScopes:
    """The namespace → scope rule of one store: `pattern` ends with "{user_id}" and its other
    labels are literal or "*"; `bound_user` confines the store to one user's memories."""

    def __init__(self, pattern: Sequence[str] = DEFAULT_USER_NAMESPACE, bound_user: str | None = None) -> None:
        if isinstance(pattern, str) or not isinstance(pattern, Sequence) or not pattern:
            raise InvalidArgument(f"user_namespace must be a tuple of labels ending with {USER_LABEL!r}, "
                                  f"got {pattern!r}", argument="user_namespace")
        pattern = tuple(pattern)
        if pattern[-1] != USER_LABEL or pattern.count(USER_LABEL) != 1:
            raise InvalidArgument(f"user_namespace must end with {USER_LABEL!r} and name it once, got {pattern!r}",
                                  argument="user_namespace")
        check_namespace(pattern[:-1], "user_namespace", allow_wildcard=True)
        self.pattern = pattern
        self.bound_user = bound_user

    @property
    def user_position(self) -> int:
        return len(self.pattern) - 1

    def _leads_like_pattern(self, labels: Sequence[str]) -> bool:
        """The labels before the user's position agree with the pattern as far as both go."""
        return all(p in (WILDCARD, label) for p, label in zip(self.pattern[:-1], labels, strict=False))

    def user_named_by(self, labels: Sequence[str]) -> str | None:
        """The user a namespace (or a prefix) names, or None when it names none ("*" names none)."""
        if len(labels) <= self.user_position or not self._leads_like_pattern(labels):
            return None
        user = labels[self.user_position]
        return None if user == WILDCARD else user

    def place_of(self, namespace: Sequence[str]) -> Place:
        user = self.user_named_by(namespace)
        return Place(None, Scope.AGENT) if user is None else Place(user, Scope.USER)

    def is_hidden(self, place: Place) -> bool:
        """A user's namespace that a store bound to another user may not touch."""
        return place.user_id is not None and self.bound_user is not None and place.user_id != self.bound_user

    def reaches_users(self, prefix: Sequence[str]) -> bool:
        """A prefix that names no user but could lead to users' namespaces (`()`,
        `("memories",)`, `("memories", "*")` with the default pattern)."""
        return self.user_named_by(prefix) is None and self._leads_like_pattern(prefix)

    def read_view(self, prefix: Sequence[str]) -> ReadView:
        """What a read under `prefix` sees: the named user's scope; else the shared scope, and
        the bound user's scope too when the prefix could lead to it."""
        user = self.user_named_by(prefix)
        if user is not None:
            if self.bound_user is not None and user != self.bound_user:
                return ReadView(None, ())
            return ReadView(user, (Scope.USER,))
        reaches_users = self._leads_like_pattern(prefix)
        if reaches_users and self.bound_user is not None:
            return ReadView(self.bound_user, (Scope.AGENT, Scope.USER))
        return ReadView(self.bound_user, (Scope.AGENT,))
