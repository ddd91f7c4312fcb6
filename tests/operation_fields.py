"""How an operation's argument model declares each field, read the way the surface tests
compare them: its bounds, its default, and values just past its limits."""

from __future__ import annotations

import inspect
from typing import Any

import annotated_types
from pydantic.fields import FieldInfo

from cogmem_graph.filters import MemoryFilter
from cogmem_graph.operations import Operation

EMPTY = inspect.Parameter.empty


def field_of(op: Operation, name: str) -> FieldInfo:
    """The operation's field `name`, or the filter's (an argument gathered into `where`)."""
    field = op.args.model_fields.get(name)
    if field is None and "where" in op.args.model_fields:
        field = MemoryFilter.model_fields.get(name)
    assert field is not None, f"{op.name} has no argument {name}"
    return field


def bounds(field: FieldInfo) -> tuple[Any, Any]:
    """(lowest, highest) value the field takes, None where it has no bound."""
    low = high = None
    for item in field.metadata:
        if isinstance(item, annotated_types.Ge):
            low = item.ge
        elif isinstance(item, annotated_types.Gt):
            low = item.gt + 1 if isinstance(item.gt, int) else item.gt
        elif isinstance(item, annotated_types.Le):
            high = item.le
        elif isinstance(item, annotated_types.Lt):
            high = item.lt - 1 if isinstance(item.lt, int) else item.lt
    return low, high


def default_of(field: FieldInfo) -> Any:
    return EMPTY if field.is_required() else field.get_default(call_default_factory=True)


def same(a: Any, b: Any) -> bool:
    """Equal as a request carries them (a tuple default is the list it sends; an enum its value)."""
    def plain(value: Any) -> Any:
        value = list(value) if isinstance(value, tuple) else value
        return getattr(value, "value", value)

    return plain(a) == plain(b)


def beyond(field: FieldInfo) -> list[Any]:
    """The values one step below its lowest and above its highest bound (none where unbounded)."""
    low, high = bounds(field)
    step = 1 if isinstance(low if low is not None else high, int) else 0.5
    return [value for value in (None if low is None else low - step, None if high is None else high + step)
            if value is not None]
