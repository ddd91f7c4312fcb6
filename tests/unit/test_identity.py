import pytest
from hypothesis import given
from hypothesis import strategies as st

from cogmem_graph.identity import AgentIdentity, identity_of_scope_key
from cogmem_graph.model import Scope


def test_visible_keys_are_qualified_by_tenant():
    agent = AgentIdentity(agent_id="helper", user_id="u1", thread_id="t1", persona_id="bot", organization_id="acme")
    assert agent.visible_scope_keys() == [
        "agent:acme/helper",
        "thread:acme/u1/t1",
        "user:acme/u1",
        "persona:acme/bot",
        "organization:acme",
    ]


def test_same_user_id_in_two_organizations_never_shares_keys():
    a = AgentIdentity(agent_id="x", user_id="u1", thread_id="t1", organization_id="acme")
    b = AgentIdentity(agent_id="x", user_id="u1", thread_id="t1", organization_id="globex")
    assert not set(a.visible_scope_keys()) & set(b.visible_scope_keys())


def test_missing_parts_give_errors_naming_the_field():
    agent = AgentIdentity(agent_id="solo")
    assert agent.visible_scope_keys() == ["agent:solo"]
    assert agent.default_scope() is Scope.AGENT
    with pytest.raises(ValueError, match="user_id"):
        agent.scope_id(Scope.USER)
    with pytest.raises(ValueError, match="organization_id"):
        agent.scope_id("organization")
    with pytest.raises(ValueError, match="thread_id"):
        AgentIdentity(agent_id="a", user_id="u").scope_id(Scope.THREAD)


@pytest.mark.parametrize("field", ["agent_id", "user_id", "thread_id", "persona_id", "organization_id"])
def test_ids_are_validated(field):
    base = {"agent_id": "a"}
    with pytest.raises(ValueError, match=field):
        AgentIdentity(**{**base, field: "has/slash"})
    with pytest.raises(ValueError, match=field):
        AgentIdentity(**{**base, field: "nul\x00"})
    with pytest.raises(ValueError, match=field):
        AgentIdentity(**{**base, field: "control\x01char"})


ids = st.text(min_size=1, max_size=12).filter(
    lambda s: "/" not in s and s.strip() and not any(ord(c) < 32 or ord(c) == 127 for c in s)
)


@given(ids, ids, ids, ids)
def test_distinct_identities_have_distinct_private_keys(org1, org2, user1, user2):
    a = AgentIdentity(agent_id="a", user_id=user1, organization_id=org1)
    b = AgentIdentity(agent_id="a", user_id=user2, organization_id=org2)
    if (org1, user1) != (org2, user2):
        assert a.scope_key(Scope.USER) != b.scope_key(Scope.USER)


@pytest.mark.parametrize("org", ["acme", None])
def test_a_scope_key_tells_the_identity_that_sees_it(org):
    agent = AgentIdentity(agent_id="helper", user_id="u1", thread_id="t1", persona_id="bot", organization_id=org)
    for key in agent.visible_scope_keys():
        needed = identity_of_scope_key(key)
        assert needed and all(getattr(agent, field) == value for field, value in needed.items())
        assert key in AgentIdentity(**{"agent_id": "someone", **needed}).visible_scope_keys()
    assert identity_of_scope_key("user:acme/u1") == {"organization_id": "acme", "user_id": "u1"}
    assert identity_of_scope_key("thread:u1/t1") == {"user_id": "u1", "thread_id": "t1"}
    for unknown in ("nothing", "planet:earth", "user:", "user:a/b/c"):
        assert identity_of_scope_key(unknown) == {}
