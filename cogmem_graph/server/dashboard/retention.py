"""A memory's strength over time, drawn on the server as SVG (no script): the store's decay
curve (`cognition.decay`, the model and pruning threshold of its `DecayConfig`) from the
last use, projected forward as if the memory were not used again, with the moment the decay
sweep may make it dormant (its category's minimum retention counted, `RetentionConfig`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cogmem_graph.cognition.decay import current_strength, dormant_from
from cogmem_graph.cognition.retention import min_retention_ms
from cogmem_graph.config import CogmemConfig
from cogmem_graph.model import MemoryTrace

MS_PER_DAY = 86_400_000
POINTS = 60
WIDTH, HEIGHT, PAD = 640, 180, 32
MAX_SPAN_MS = 730 * MS_PER_DAY
"""The curve spans at most two years from the last use; a later dormancy is said, not drawn."""


@dataclass(frozen=True)
class Projection:
    now_ms: int
    strength_now: float
    threshold: float
    dormant_at: int | None
    why_never: str | None
    points: list[tuple[int, float]]


def project(trace_json: Mapping[str, Any], config: CogmemConfig, now_ms: int) -> Projection:
    """The curve of one memory (as the API's JSON has it) from its last use."""
    trace = MemoryTrace.model_validate(dict(trace_json))
    decay = config.decay
    keep = min_retention_ms(trace.category, config.retention)
    dormant_at = dormant_from(trace, keep, decay)
    why = None
    if dormant_at is None:
        why = ("it is pinned" if trace.pinned else
               f"its category ({trace.category.value}) is never forgotten by decay" if keep is None else
               "it is emotional (above the protection intensity)"
               if trace.intensity > decay.emotional_protection_intensity else
               "the pruning threshold is 0")
    start = trace.last_accessed_at
    end = max(now_ms, dormant_at or 0) + 7 * MS_PER_DAY
    end = min(max(end, start + 30 * MS_PER_DAY), start + MAX_SPAN_MS)
    step = max(1, (end - start) // (POINTS - 1))
    points = [(t, current_strength(trace.encoding_strength, trace.stability, start, t, decay))
              for t in range(start, end + 1, step)]
    return Projection(now_ms, current_strength(trace.encoding_strength, trace.stability, start, now_ms, decay),
                      decay.pruning_threshold, dormant_at, why, points)


def svg(p: Projection) -> str:
    """The curve, the threshold (dashed), now and the dormancy moment (when drawn)."""
    t0, t1 = p.points[0][0], p.points[-1][0]
    span = max(1, t1 - t0)

    def x(t: int) -> float:
        return PAD + (WIDTH - 2 * PAD) * (min(max(t, t0), t1) - t0) / span

    def y(s: float) -> float:
        return HEIGHT - PAD - (HEIGHT - 2 * PAD) * max(0.0, min(1.0, s))

    line = " ".join(f"{x(t):.1f},{y(s):.1f}" for t, s in p.points)
    parts = [
        f'<svg class="retention" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-label="strength over time, projected without further use">',
        f'<line x1="{PAD}" y1="{HEIGHT - PAD}" x2="{WIDTH - PAD}" y2="{HEIGHT - PAD}" stroke="#5b6576"/>',
        f'<line x1="{PAD}" y1="{PAD}" x2="{PAD}" y2="{HEIGHT - PAD}" stroke="#5b6576"/>',
        f'<text x="4" y="{PAD + 4}" font-size="11" fill="#5b6576">1.0</text>',
        f'<text x="4" y="{HEIGHT - PAD + 4}" font-size="11" fill="#5b6576">0</text>',
        f'<line x1="{PAD}" y1="{y(p.threshold):.1f}" x2="{WIDTH - PAD}" y2="{y(p.threshold):.1f}" stroke="#b3261e" '
        f'stroke-dasharray="4 3"/>',
        f'<text x="{WIDTH - PAD - 110}" y="{y(p.threshold) - 4:.1f}" font-size="11" fill="#b3261e">'
        f'dormancy threshold</text>',
        f'<polyline points="{line}" fill="none" stroke="#2f6fdf" stroke-width="2"/>',
        f'<line x1="{x(p.now_ms):.1f}" y1="{PAD}" x2="{x(p.now_ms):.1f}" y2="{HEIGHT - PAD}" stroke="#1d2430"/>',
        f'<text x="{x(p.now_ms) + 3:.1f}" y="{PAD + 10}" font-size="11" fill="#1d2430">now</text>',
    ]
    if p.dormant_at is not None and t0 <= p.dormant_at <= t1:
        parts.append(f'<circle cx="{x(p.dormant_at):.1f}" cy="{y(p.threshold):.1f}" r="4" fill="#b3261e"/>')
    parts.append(f'<text x="{PAD}" y="{HEIGHT - 8}" font-size="11" fill="#5b6576">last use</text>')
    parts.append(f'<text x="{WIDTH - PAD - 60}" y="{HEIGHT - 8}" font-size="11" fill="#5b6576">'
                 f'+{(t1 - t0) / MS_PER_DAY:.0f} days</text>')
    return "".join(parts) + "</svg>"
