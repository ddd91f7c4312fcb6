"""What `agent.encode` and `encode_many` accept, checked before anything is written."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from cogmem_graph.errors import InvalidArgument, field_problems, first_field
from cogmem_graph.model import (
    MAX_CONTENT_CHARS,
    MAX_ENTITIES,
    MAX_ID_CHARS,
    MAX_METADATA_CHARS,
    MAX_TAGS,
    MemoryType,
    Moment,
    Mood,
    Scope,
    SourceType,
    check_count,
    check_text,
)


class EncodeRequest(BaseModel):
    """One memory to encode, as `agent.encode(...)` or an `encode_many` item takes it."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    content: str
    type: MemoryType = MemoryType.EPISODIC
    scope: Scope | None = None
    mood: Mood | None = None
    tags: list[str] = Field(default_factory=list)
    entities: list[str] = Field(default_factory=list, description="names the caller knows; extraction adds more")
    source_type: SourceType = SourceType.USER_STATEMENT
    source_id: str | None = None
    confidence: float = Field(1.0, ge=0.0, le=1.0)
    created_at: Moment | None = Field(None, description="event time; default now")
    valid_from: Moment | None = Field(None, description="when what it says began to hold; default created_at")
    valid_until: Moment | None = Field(
        None, description="when what it says stops holding; default the end it states "
        "(\"until Friday\"), else open")
    pinned: bool = Field(False, description="a truth anchor: never made dormant, merged, gisted or weakened")
    keyed: bool = Field(False, description="an entry read back by its own key: never merged into another memory")
    metadata: dict[str, Any] = Field(default_factory=dict)
    structured_data: dict[str, Any] | None = None

    @model_validator(mode="before")
    @classmethod
    def _no_importance(cls, data: Any) -> Any:
        if isinstance(data, dict) and "importance" in data:
            raise InvalidArgument(
                "importance is not an encode field: a memory's strength comes from its content, the "
                "mood and the agent's traits. Pass pinned=True for a fact that must never fade, or "
                "confidence= (0 to 1) for how far its source is trusted", argument="importance")
        return data

    @model_validator(mode="after")
    def _validity_ordered(self) -> EncodeRequest:
        start = self.valid_from if self.valid_from is not None else self.created_at
        if self.valid_until is not None and start is not None and self.valid_until <= start:
            raise InvalidArgument(f"valid_until ({self.valid_until}) must be after valid_from / created_at ({start})",
                                  argument="valid_until")
        return self

    @field_validator("tags", "entities", mode="before")
    @classmethod
    def _bounded_lists(cls, v: Any, info) -> Any:
        check_count(v, info.field_name, MAX_TAGS if info.field_name == "tags" else MAX_ENTITIES)
        return v

    @field_validator("metadata", mode="before")
    @classmethod
    def _bounded_metadata(cls, v: Any) -> Any:
        if isinstance(v, Mapping):
            try:
                size = len(json.dumps(dict(v), ensure_ascii=False, default=str))
            except (TypeError, ValueError):
                return v  # not JSON-shaped: the type check that follows names the problem
            if size > MAX_METADATA_CHARS:
                raise InvalidArgument(f"metadata is {size:,} characters as JSON; at most {MAX_METADATA_CHARS:,} "
                                      "are allowed", argument="metadata")
        return v

    @field_validator("source_id")
    @classmethod
    def _source_id(cls, v: str | None) -> str | None:
        if v is not None:
            check_text(v, "source_id", allow_empty=False, max_len=MAX_ID_CHARS)
        return v

    @field_validator("structured_data")
    @classmethod
    def _structured(cls, v: dict[str, Any] | None) -> dict[str, Any] | None:
        if v is not None:
            try:
                json.dumps(v, allow_nan=False, ensure_ascii=False).encode("utf-8")
            except (TypeError, ValueError) as exc:
                raise InvalidArgument(
                    f"structured_data must be JSON (finite numbers, strings, lists, maps): {exc}",
                                      argument="structured_data") from None
        return v

    @field_validator("content")
    @classmethod
    def _content(cls, v: str) -> str:
        check_text(v, "content", allow_empty=False, max_len=MAX_CONTENT_CHARS)
        if not v.strip():
            raise InvalidArgument("content must not be blank", argument="content")
        return v


def as_request(item: Mapping[str, Any] | EncodeRequest, index: int) -> EncodeRequest:
    """One `encode_many` item as a request; errors name the item and the field."""
    if isinstance(item, EncodeRequest):
        return item
    if not isinstance(item, Mapping):
        raise InvalidArgument(f"items[{index}] must be a mapping of encode fields, not {type(item).__name__}",
                              argument=f"items[{index}]")
    try:
        return EncodeRequest.model_validate(dict(item))
    except ValidationError as exc:
        raise InvalidArgument(field_problems(exc.errors(), prefix=f"items[{index}]."),
                              argument=first_field(exc.errors(), f"items[{index}].", f"items[{index}]")) from None
