"""The steps of one consolidation run, in order: the one list `Consolidator` runs.

A step is a function of the run's `StepContext`. `EachKey` runs its functions for one scope
key after another (every function for a key before the next key) and credits what each
counted to that key; `AllKeys` gives one function every key at once (it credits each key
itself). `when` skips an entry by the config."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cogmem_graph.between_turns.consolidation import (
    archive_retention,
    contradictions,
    mechanisms,
    merge,
    replay,
    schemas,
    strength,
)

if TYPE_CHECKING:
    from cogmem_graph.between_turns.consolidation.step_context import StepContext
    from cogmem_graph.config import CogmemConfig

KeyStep = Callable[["StepContext", str], None]
KeysStep = Callable[["StepContext", Sequence[str]], None]


@dataclass(frozen=True)
class EachKey:
    """Functions run for each scope key in turn, what each counted credited to that key."""

    functions: tuple[KeyStep, ...]
    prepare: KeysStep | None = None
    """Runs once, given every key, before the first key (the merge step's budget)."""
    when: Callable[[CogmemConfig], bool] | None = None

    def run(self, sc: StepContext, keys: Sequence[str]) -> None:
        if self.prepare is not None:
            self.prepare(sc, keys)
        for key in keys:
            for function in self.functions:
                before = sc.result.counts()
                function(sc, key)
                sc.result.credit(key, before)


@dataclass(frozen=True)
class AllKeys:
    """One function given every scope key at once; it credits each key itself."""

    function: KeysStep
    when: Callable[[CogmemConfig], bool] | None = None

    @property
    def functions(self) -> tuple[KeysStep, ...]:
        return (self.function,)

    def run(self, sc: StepContext, keys: Sequence[str]) -> None:
        self.function(sc, keys)


Step = EachKey | AllKeys


def _mechanisms_on(config: CogmemConfig) -> bool:
    return config.consolidation.run_mechanisms


STEPS: tuple[Step, ...] = (
    EachKey((strength.prune,)),                                              # 1. decay sweep
    EachKey((merge.merge,), prepare=merge.plan_neighbour_queries),           # 2. near-duplicates
    EachKey((replay.replay,)),                                               # 3. replay
    AllKeys(schemas.integrate_schemas),                                      # 4. schemas
    EachKey((contradictions.resolve_contradictions,)),                       # 5. contradictions
    EachKey((strength.reinforce,)),                                          # 6. spaced repetition
    EachKey((strength.compact,)),                                            # 7. compaction
    EachKey((mechanisms.temporal_gist, mechanisms.source_confidence,         # 8. mechanisms
             mechanisms.emotion_regulation), when=_mechanisms_on),
    AllKeys(archive_retention.prune_archive),                                # 9. archive retention
)


def run_steps(sc: StepContext, keys: Sequence[str], steps: Sequence[Step] = STEPS) -> None:
    """Run `steps` in order over `keys` (the run's scope keys holding active traces)."""
    for step in steps:
        if step.when is None or step.when(sc.ctx.config):
            step.run(sc, keys)
