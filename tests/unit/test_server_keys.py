"""API keys and the checks in front of every server request, without a server."""

from __future__ import annotations

import json
import os
import stat
import time

import pytest

from cogmem_graph.server.guards import RateLimiter, presented_key
from cogmem_graph.server.keys import KeyRing
from cogmem_graph.server.service import ServiceError, refuse_identity_arguments


def test_a_key_is_shown_once_stored_hashed_and_maps_to_its_identity(tmp_path) -> None:
    ring = KeyRing(tmp_path / "keys.json")
    key, entry = ring.add(agent_id="a1", user_id="u1", organization_id="acme", name="alice")
    text = (tmp_path / "keys.json").read_text()
    assert key not in text and key.split("_", 2)[2] not in text and entry.digest in text
    assert stat.S_IMODE(os.stat(tmp_path / "keys.json").st_mode) == 0o600
    principal = KeyRing(tmp_path / "keys.json").authenticate(key)
    assert principal is not None and principal.role == "agent" and not principal.is_owner
    assert principal.identity.visible_scope_keys() == ["agent:acme/a1", "user:acme/u1", "organization:acme"]
    for wrong in (None, "", key + "x", key[:-1], "Bearer " + key, key.replace("cgm_", "cgx_")):
        assert ring.authenticate(wrong) is None


def test_keys_added_or_revoked_elsewhere_count_without_a_restart(tmp_path) -> None:
    serving = KeyRing(tmp_path / "keys.json")
    assert serving.authenticate("cgm_00000000_nothing") is None
    owner_key, owner = KeyRing(tmp_path / "keys.json").add(role="owner")
    assert serving.authenticate(owner_key).is_owner and serving.authenticate(owner_key).identity is None
    time.sleep(0.01)  # a distinct modification time on coarse file systems
    assert KeyRing(tmp_path / "keys.json").revoke(owner.key_id) is True
    assert serving.authenticate(owner_key) is None
    assert serving.revoke(owner.key_id) is False


@pytest.mark.parametrize("fields, message", [
    ({"role": "agent"}, "agent_id is required"),
    ({"role": "owner", "user_id": "u1"}, "agent_id is required"),
    ({"role": "admin", "agent_id": "a"}, "role must be"),
    ({"agent_id": "a", "user_id": "acme/u1"}, "must not contain"),
    ({"agent_id": "a", "rate_per_second": 0}, "rate_per_second"),
])
def test_bad_keys_are_refused_with_the_argument_named(tmp_path, fields, message) -> None:
    with pytest.raises(ValueError, match=message):
        KeyRing(tmp_path / "keys.json").add(**fields)
    assert not (tmp_path / "keys.json").exists()


def test_a_broken_key_file_is_named(tmp_path) -> None:
    (tmp_path / "keys.json").write_text(json.dumps({"keys": [{"nope": 1}]}))
    with pytest.raises(ValueError, match="not a valid cogmem key file"):
        KeyRing(tmp_path / "keys.json").entries()


def test_the_key_is_read_from_bearer_or_x_api_key() -> None:
    assert presented_key({"authorization": "Bearer cgm_x"}) == "cgm_x"
    assert presented_key({"authorization": "bearer   cgm_x "}) == "cgm_x"
    assert presented_key({"x-api-key": "cgm_y"}) == "cgm_y"
    assert presented_key([(b"authorization", b"Bearer cgm_z")]) == "cgm_z"
    assert presented_key({"authorization": "Basic cgm_x"}) is None
    assert presented_key({}) is None


def test_the_rate_limit_is_a_bucket_per_key(tmp_path) -> None:
    ring = KeyRing(tmp_path / "keys.json")
    fast = ring.authenticate(ring.add(agent_id="fast")[0])
    slow = ring.authenticate(ring.add(agent_id="slow", rate_per_second=2)[0])
    limiter = RateLimiter(default_rate=1000)
    assert [limiter.check(slow) for _ in range(4)] == [0.0] * 4, "bursts of twice the rate"
    wait = limiter.check(slow)
    assert 0 < wait <= 0.5
    assert limiter.check(fast) == 0.0, "one key's bucket is not another's"
    time.sleep(wait + 0.05)
    assert limiter.check(slow) == 0.0
    assert RateLimiter(default_rate=None).check(fast) == 0.0


def test_arguments_naming_an_identity_are_refused() -> None:
    refuse_identity_arguments({"query": "x", "top_k": 3, "scope": "organization"})
    for name in ("user_id", "agent_id", "organization_id", "thread_id", "persona_id", "scope_keys", "org"):
        with pytest.raises(ServiceError) as refused:
            refuse_identity_arguments({"query": "x", name: "other"})
        assert refused.value.status == 403 and name in refused.value.message
