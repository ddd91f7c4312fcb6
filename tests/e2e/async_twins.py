"""Shared check of the async twins: a call refused by the sync API is refused the same way,
same type, same message (and the same HTTP status for a server's refusals), by its twin."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest


async def refused_alike(sync: Any, twin: Any, calls: Sequence[tuple[str, tuple, dict]]) -> None:
    for name, args, kwargs in calls:
        with pytest.raises(Exception) as want:  # noqa: PT011 - whatever the sync API raises
            getattr(sync, name)(*args, **kwargs)
        with pytest.raises(want.type) as got:
            await getattr(twin, name)(*args, **kwargs)
        assert str(got.value) == str(want.value), name
        assert getattr(got.value, "status", None) == getattr(want.value, "status", None), name
