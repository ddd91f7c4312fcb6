"""Who an agent is, and therefore which memories it may see.

Scope ids are qualified by the tenant that contains them, so ids chosen by
different tenants can never meet: user "u1" of organization "acme" and user
"u1" of organization "globex" are `user:acme/u1` and `user:globex/u1`, and a
thread belongs to its user (`thread:acme/u1/t1`). The visible scope keys are
computed once from the identity and passed to every read as a parameter.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, field_validator

from cogmem_graph.errors import InvalidArgument
from cogmem_graph.model import MAX_ID_CHARS, Scope, check_text, scope_key

SEPARATOR = "/"


class AgentIdentity(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    agent_id: str
    user_id: str | None = None
    thread_id: str | None = None
    persona_id: str | None = None
    organization_id: str | None = None

    @field_validator("agent_id", "user_id", "thread_id", "persona_id", "organization_id")
    @classmethod
    def _valid_id(cls, value: str | None, info) -> str | None:
        if value is None:
            return None
        check_text(value, info.field_name, allow_empty=False, max_len=MAX_ID_CHARS)
        if SEPARATOR in value:
            raise InvalidArgument(f"{info.field_name} must not contain {SEPARATOR!r}", argument=info.field_name)
        if any(ord(ch) < 32 or ord(ch) == 127 for ch in value):
            # Ids become scope keys that every query compares; the graph client's parameter
            # encoding does not round-trip control characters reliably, so they are refused.
            raise InvalidArgument(f"{info.field_name} must not contain control characters", argument=info.field_name)
        return value

    # ------------------------------------------------------------ qualified ids

    def _org_prefix(self) -> str:
        return f"{self.organization_id}{SEPARATOR}" if self.organization_id else ""

    def scope_id(self, scope: Scope | str) -> str:
        """The qualified id this agent writes under for a scope; a clear error if the
        identity lacks what that scope needs."""
        scope = Scope(scope)
        org = self._org_prefix()
        if scope is Scope.AGENT:
            return f"{org}{self.agent_id}"
        if scope is Scope.ORGANIZATION:
            if not self.organization_id:
                raise InvalidArgument("scope 'organization' needs the agent's organization_id", argument="scope")
            return self.organization_id
        if scope is Scope.PERSONA:
            if not self.persona_id:
                raise InvalidArgument("scope 'persona' needs the agent's persona_id", argument="scope")
            return f"{org}{self.persona_id}"
        if not self.user_id:
            raise InvalidArgument(f"scope {scope.value!r} needs the agent's user_id", argument="scope")
        if scope is Scope.USER:
            return f"{org}{self.user_id}"
        if not self.thread_id:
            raise InvalidArgument("scope 'thread' needs the agent's thread_id", argument="scope")
        return f"{org}{self.user_id}{SEPARATOR}{self.thread_id}"

    def scope_key(self, scope: Scope | str) -> str:
        return scope_key(scope, self.scope_id(scope))

    def user_key(self) -> str | None:
        """The organization-qualified user id ("acme/u1"), the author of what this agent writes."""
        return f"{self._org_prefix()}{self.user_id}" if self.user_id else None

    def visible_scope_keys(self) -> list[str]:
        """Own agent scope, then thread, user, persona and organization when known."""
        keys = [self.scope_key(Scope.AGENT)]
        if self.user_id and self.thread_id:
            keys.append(self.scope_key(Scope.THREAD))
        if self.user_id:
            keys.append(self.scope_key(Scope.USER))
        if self.persona_id:
            keys.append(self.scope_key(Scope.PERSONA))
        if self.organization_id:
            keys.append(self.scope_key(Scope.ORGANIZATION))
        return keys

    def default_scope(self) -> Scope:
        """Where a memory goes when the caller does not say: the user if known, else the agent."""
        return Scope.USER if self.user_id else Scope.AGENT


_SCOPE_ID_FIELDS: dict[Scope, tuple[str, ...]] = {
    Scope.AGENT: ("agent_id",),
    Scope.USER: ("user_id",),
    Scope.THREAD: ("user_id", "thread_id"),
    Scope.PERSONA: ("persona_id",),
}
"""The identity fields a scope id is made of, after its organization prefix (`scope_id`)."""


def identity_of_scope_key(key: str) -> dict[str, str]:
    """The identity an agent needs to see the memories of scope key `key`, the inverse of
    `scope_key`: "user:acme/u1" -> {"organization_id": "acme", "user_id": "u1"}. Empty for a
    key no identity produces."""
    scope_name, _, qualified = key.partition(":")
    if scope_name not in {s.value for s in Scope} or not qualified:
        return {}
    scope = Scope(scope_name)
    if scope is Scope.ORGANIZATION:
        return {"organization_id": qualified}
    fields = _SCOPE_ID_FIELDS[scope]
    parts = qualified.split(SEPARATOR)
    if len(parts) == len(fields) + 1:
        return {"organization_id": parts[0], **dict(zip(fields, parts[1:], strict=True))}
    if len(parts) == len(fields):
        return dict(zip(fields, parts, strict=True))
    return {}
