"""Bi-temporal validity (`cognition/validity.py`): whether statements' own bounds are read
("until Friday", `language/stated_bounds.py`) and whether a retrieval of the current state
leaves out what has expired."""

from __future__ import annotations

from pydantic import Field

from cogmem_graph.config.graph import _Config


class ValidityConfig(_Config):
    stated_bounds: bool = Field(
        True, description="a new memory that bounds itself (\"until Friday\", \"for the next two weeks\") gets that "
        "end as its validUntil")
    current_state: bool = Field(
        True, description="retrieve() answers for now: memories whose validity ended (stated bound passed, or "
        "superseded) are history, left to timeline and point-in-time queries and to temporal questions")
