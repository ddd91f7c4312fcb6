"""The audit file's bounds: how big each file grows, how many are kept, and how refusals are
summarised, so that no caller can fill the disk with audit lines (docs/privacy.md)."""

from __future__ import annotations

from pydantic import Field

from cogmem_graph.config.graph import _Config


class AuditConfig(_Config):
    """Sizes and windows of `<home>/audit.jsonl` and the files it rotates into."""

    max_file_bytes: int = Field(
        50 * 1024 * 1024, ge=4096, le=1 << 40,
        description="size at which audit.jsonl is rotated (renamed audit.jsonl.1, the older ones shifted up)")
    rotated_files: int = Field(
        4, ge=1, le=1000,
        description="rotated files kept beside audit.jsonl: with the defaults the routine lines take at most "
        "5 x 50 MB. A line of the owner, of a key change or summarising refusals is copied to "
        "audit-kept.jsonl before the oldest file is deleted, so it outlives the rotation")
    refusal_window_s: float = Field(
        3600.0, gt=0, le=30 * 86_400,
        description="refusals of one key, operation and reason are summarised per window: the first one at "
        "once, the rest as one line with their count when the window ends (or the store closes)")
