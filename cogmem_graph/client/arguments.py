"""A client method's arguments as a request's JSON: one conversion per kind of argument.

Which conversion an argument gets is decided by the type of its field in the operation's
argument model (`converter_for`), never by the method: a moment or a duration is converted
alike wherever it is taken. `tools/generate_client.py` writes the chosen call into each
generated method (`client/generated.py`); `converted` applies the same choice to arguments a
method takes as `**fields` or as batch items. Each conversion takes the value and the name the
caller gave it, keeps None, and passes a value it cannot convert as given, for the model to
refuse naming the argument (as the facade does).
"""

from __future__ import annotations

import functools
import inspect
import types
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from enum import Enum
from typing import Any, Literal

from pydantic import BaseModel

from cogmem_graph.client.wire import where_json
from cogmem_graph.filters import MemoryFilter
from cogmem_graph.model import Moment, duration_ms, epoch_ms_of
from cogmem_graph.operations import Given, operation

__all__ = ["Converter", "converted", "converter_for", "enum_value", "epoch_ms", "filter_json", "listed", "milliseconds",
           "model_json", "one_or_many", "plain_dict"]

Converter = Callable[[Any, str], Any]
MOMENT_MARKS = typing.get_args(Moment)[1:]
"""What marks a field as a `Moment` (its validator), nested in a union or lifted onto the field."""


def epoch_ms(value: Any, name: str) -> int | None:
    """A moment (an aware datetime, a date, ISO-8601 text or epoch ms) as epoch ms: a datetime has
    no JSON form, and a bad value fails here, naming the argument, as it fails in process."""
    return None if value is None else epoch_ms_of(value, name)


def milliseconds(value: Any, name: str) -> Any:
    """A duration: a timedelta as milliseconds, anything else as given."""
    return duration_ms(value)


def enum_value(value: Any, name: str) -> Any:
    """An enum member as its value (`MemoryType.SEMANTIC` -> "semantic")."""
    return value.value if isinstance(value, Enum) else value


def listed(value: Any, name: str) -> Any:
    """A sequence (a tuple, a generator) as a list; text stays text, which the model refuses for a list."""
    return list(value) if isinstance(value, Iterable) and not isinstance(value, str | bytes | Mapping) else value


def one_or_many(value: Any, name: str) -> Any:
    """One text as a list of one; a sequence as a list (an argument marked `Given.ONE`)."""
    return [value] if isinstance(value, str) else listed(value, name)


def plain_dict(value: Any, name: str) -> Any:
    """A mapping as a dict."""
    return dict(value) if isinstance(value, Mapping) else value


def model_json(value: Any, name: str) -> Any:
    """A pydantic model (a `Mood`) as its JSON; a mapping of its fields as given."""
    return value.model_dump(mode="json", exclude_none=True) if isinstance(value, BaseModel) else value


def filter_json(value: Any, name: str) -> dict[str, Any] | None:
    """A filter (a `MemoryFilter` or a dict of its fields), checked here: a ValueError names the bad field."""
    return where_json(value)


def converter_for(annotation: Any, marks: Sequence[Any] = ()) -> Converter | None:
    """The conversion of an argument whose model field has type `annotation` (`marks`: the
    metadata pydantic lifted off it); None when the value goes as given (text, numbers, flags)."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        base, *more = typing.get_args(annotation)
        return converter_for(base, [*marks, *more])
    if origin is typing.Union or origin is types.UnionType:
        kinds = {converter_for(arg, marks) for arg in typing.get_args(annotation) if arg is not type(None)}
        return kinds.pop() if len(kinds) == 1 else None
    if any(mark in MOMENT_MARKS for mark in marks):
        return epoch_ms
    if Given.TIMEDELTA in marks:
        return milliseconds
    if Given.ONE in marks:
        return one_or_many
    if origin is Literal:
        return enum_value
    if origin is list:
        return listed
    if origin is dict:
        return plain_dict
    if annotation is MemoryFilter:
        return filter_json
    if inspect.isclass(annotation) and issubclass(annotation, Enum):
        return enum_value
    if inspect.isclass(annotation) and issubclass(annotation, BaseModel):
        return model_json
    return None


@functools.cache
def _conversions(op: str) -> dict[str, Converter]:
    fields = operation(op).args.model_fields
    found = {name: converter_for(field.annotation, field.metadata) for name, field in fields.items()}
    return {name: convert for name, convert in found.items() if convert is not None}


def converted(op: str, values: Mapping[str, Any]) -> dict[str, Any]:
    """`values`, arguments of operation `op` by field name, each converted by its field's type;
    a name the model does not declare is passed as given, for the model to refuse."""
    conversions = _conversions(op)
    return {name: conversions[name](value, name) if name in conversions else value for name, value in values.items()}
