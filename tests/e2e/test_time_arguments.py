"""Every time argument of the Python API takes the same three forms (an aware datetime,
ISO-8601 text, epoch milliseconds) and refuses anything else with one ValueError naming the
argument: encode's times, observe, retrieve's `as_of`, remind's `at` and the filter's bounds."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta, timezone

import pytest

import cogmem_graph as cg

MARCH_1 = datetime(2024, 3, 1, 9, 30, tzinfo=UTC)
MARCH_1_MS = int(MARCH_1.timestamp() * 1000)


def test_each_time_argument_takes_a_datetime_iso_text_or_epoch_ms(embedded_store: cg.MemoryStore) -> None:
    agent = embedded_store.agent("a1", user_id="maya")
    paris = timezone(timedelta(hours=1))
    same = [agent.encode("The deploy runbook lives in the wiki.", created_at=MARCH_1),
            agent.encode("Rollbacks use the previous image tag.", created_at="2024-03-01T10:30:00+01:00"),
            agent.encode("Tom owns the on-call schedule.", created_at=MARCH_1_MS),
            agent.encode("The staging server is called Pluto.", created_at=MARCH_1.astimezone(paris))]
    assert [t.created_at for t in same] == [MARCH_1_MS] * 4
    later = agent.encode_many([{"content": "Maya is in Lisbon this week.", "created_at": "2024-03-04",
                                "valid_until": datetime(2024, 3, 9, tzinfo=UTC)}])[0]
    assert later.created_at == int(datetime(2024, 3, 4, tzinfo=UTC).timestamp() * 1000), "a date: midnight UTC"
    assert later.valid_until == int(datetime(2024, 3, 9, tzinfo=UTC).timestamp() * 1000)

    assert agent.retrieve("Lisbon", as_of="2024-03-05T12:00:00Z").as_of == int(
        datetime(2024, 3, 5, 12, tzinfo=UTC).timestamp() * 1000)
    newer = agent.list({"created_after": "2024-03-02"})
    assert [r.trace.id for r in newer.items] == [later.id]
    assert len(agent.list({"created_before": MARCH_1 + timedelta(days=1)}).items) == 4
    assert agent.remind("renew the certificate", at="2030-01-01T09:00:00Z").next_fire_at == int(
        datetime(2030, 1, 1, 9, tzinfo=UTC).timestamp() * 1000)
    agent.observe("user", "I moved to the platform team.", created_at=MARCH_1)


@pytest.mark.parametrize(("call", "argument"), [
    (lambda a: a.encode("x", created_at=datetime(2024, 3, 1)), "created_at"),
    (lambda a: a.encode("x", valid_from="last spring"), "valid_from"),
    (lambda a: a.encode("x", valid_until=math.nan), "valid_until"),
    (lambda a: a.retrieve("x", as_of="yesterday"), "as_of"),
    (lambda a: a.retrieve("x", as_of=datetime(2024, 3, 1)), "as_of"),
    (lambda a: a.list({"valid_after": -5}), "valid_after"),
    (lambda a: a.remind("x", at=datetime(2030, 1, 1)), "at"),
    (lambda a: a.observe("user", "hi", created_at=[2024]), "created_at"),
])
def test_a_naive_datetime_or_bad_value_is_one_error_naming_the_argument(embedded_store: cg.MemoryStore, call,
                                                                        argument: str) -> None:
    agent = embedded_store.agent("a1", user_id="maya")
    with pytest.raises(ValueError) as refused:
        call(agent)
    message = str(refused.value)
    assert f"{argument} must be " in message, message
    assert "pydantic" not in message and "input_value" not in message and "Value error" not in message
    assert refused.value.__cause__ is None, "no validation traceback chained under it"
    if "naive" in message or "ISO-8601" in message:
        assert "an aware datetime, an ISO-8601 string or epoch milliseconds" in message
