"""`cogmem demo`: the whole memory on the embedded default, across two conversations.

A user talks to a helper agent in two sessions twelve days apart (two threads,
one user). The demo shows what encoding decided (strength, emotion, entities),
then, inside the second session, asks recall questions whose answers were only
said in the first: memories at user scope outlive the thread they were told in.
It shows how retrieval ranked them (the six signals, and which traces the graph
brought in), tenant isolation, the prompt context an LLM would receive, and the
store statistics. The exit code is 1 when a recall or isolation check fails,
so `make demo` doubles as a smoke test.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.panel import Panel
from rich.table import Table

import cogmem_graph as cg
from cogmem_graph.clock import MS_PER_MINUTE, MS_PER_SECOND, ManualClock
from cogmem_graph.redact import redact_url

USER = "maya"
ORGANIZATION = "acme"
TURN_GAP_MS = 30 * MS_PER_SECOND


@dataclass(frozen=True)
class Session:
    """One conversation: its thread, when it started, and what the user said in it."""

    thread_id: str
    started: datetime
    turns: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    @property
    def started_ms(self) -> int:
        return int(self.started.timestamp() * 1000)


@dataclass(frozen=True)
class RecallQuestion:
    """A question asked in a later session, and words only the earlier session's answer holds."""

    question: str
    answer_words: tuple[str, ...]
    session: str


SESSIONS: list[Session] = [
    Session("kickoff", datetime(2025, 3, 3, 9, 30, tzinfo=UTC), [
        ("Hi! I'm Maya, I run the platform team at Acme.", {}),
        ("We deploy everything with Docker Compose on a single big server.", {"type": "semantic"}),
        ("Last Friday the server ran out of disk and production went down for two hours. It was awful.",
         {"mood": cg.Mood(valence=-0.7, arousal=0.8)}),
        ("Kubernetes keeps coming up, but the team finds it too complex for now.", {"type": "semantic"}),
        ("My manager Tom wants a written postmortem by Thursday.", {"type": "prospective"}),
        ("Our monitoring is Grafana with Prometheus alerts to Slack.", {"type": "semantic"}),
        ("I love hiking with my dog Biscuit on weekends.", {"mood": cg.Mood(valence=0.8, arousal=0.4)}),
    ]),
    Session("follow-up", datetime(2025, 3, 15, 14, 0, tzinfo=UTC), [
        ("Back again. The postmortem went fine and Tom signed it off.", {}),
        ("We moved the database off the server to managed Postgres this week.", {"type": "semantic"}),
        ("Next I want a warning well before storage runs low again.", {"type": "prospective"}),
        ("Can you help me plan that?", {}),
    ]),
]

RECALL: list[RecallQuestion] = [
    RecallQuestion("How does the team deploy?", ("Docker Compose",), "kickoff"),
    RecallQuestion("Which tools do we use for monitoring?", ("Grafana", "Prometheus"), "kickoff"),
    RecallQuestion("What is the name of my dog?", ("Biscuit",), "kickoff"),
    RecallQuestion("Why did production go down?", ("ran out of disk",), "kickoff"),
]

RECALL_TOP_K = 3


def session_agent(store: cg.MemoryStore, session: Session) -> cg.AgentMemory:
    """The helper as it is in one session: same user and organisation, that session's thread."""
    return store.agent("helper", user_id=USER, thread_id=session.thread_id, organization_id=ORGANIZATION,
                       traits=cg.Hexaco(conscientiousness=0.8, openness=0.7),
                       mood=cg.Mood(valence=-0.3, arousal=0.5))


def encode_session(store: cg.MemoryStore, clock: ManualClock, session: Session) -> list[cg.MemoryTrace]:
    """Replay one session live: the clock stands at the session's start and moves 30 s a turn."""
    clock.set(max(clock.now_ms(), session.started_ms))
    agent = session_agent(store, session)
    traces = []
    for index, (text, fields) in enumerate(session.turns):
        metadata = {"session": session.thread_id, "turn": index, "speaker": USER}
        traces.append(agent.encode(text, metadata=metadata, **fields))
        clock.advance(TURN_GAP_MS)
    return traces


def recalled(result: cg.RetrievalResult, question: RecallQuestion) -> cg.ScoredTrace | None:
    """The first retrieved memory that holds the answer and was told in the expected session."""
    for item in result.traces:
        trace = item.trace
        if trace.metadata.get("session") == question.session and all(
            word.lower() in trace.content.lower() for word in question.answer_words
        ):
            return item
    return None


def _day(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%a %d %b %Y %H:%M")


def _trace_table(session: Session, traces: list[cg.MemoryTrace]) -> Table:
    table = Table(title=f"session {session.thread_id!r}, {_day(session.started_ms)}: what encoding decided")
    for column in ("type", "S0", "valence", "intensity", "entities", "content"):
        table.add_column(column, overflow="fold")
    for t in traces:
        table.add_row(t.type.value, f"{t.encoding_strength:.2f}", f"{t.valence:+.2f}", f"{t.intensity:.2f}",
                      ", ".join(t.entities[:3]), t.content[:60])
    return table


def _result_table(result: cg.RetrievalResult, found: cg.ScoredTrace | None) -> Table:
    mark = "[green]recalled from the first session[/green]" if found else "[red]not recalled[/red]"
    table = Table(title=f"retrieve({result.query!r}) — {mark}")
    for column in ("score", "sim", "str", "act", "emo", "via", "told", "content"):
        table.add_column(column, overflow="fold")
    for item in result.traces:
        s = item.signals
        told = f"{item.trace.metadata.get('session', '-')} {_day(item.trace.created_at)[:10]}"
        table.add_row(f"{item.score:.3f}", f"{s['similarity']:.2f}", f"{s['strength']:.2f}",
                      f"{s['activation']:.2f}", f"{s['emotional']:.2f}", "+".join(item.sources), told,
                      item.trace.content[:60])
    return table


def run_demo(home: Path | None = None, embedder: str | None = None, console: Console | None = None, *,
             graph: str | None = None, vectors: str | None = None) -> int:
    """The two-session conversation; on the embedded default, or on servers when `graph`/`vectors`
    are URLs (the demo's memories then stay in those servers, under user "maya" of organisation "acme")."""
    console = console or Console()
    clock = ManualClock(SESSIONS[0].started_ms)
    failures: list[str] = []
    with tempfile.TemporaryDirectory(prefix="cogmem-demo-") as tmp:
        home = home or Path(tmp) / "home"
        where = (f"graph {redact_url(graph) or 'embedded FalkorDB'}, "
                 f"vectors {redact_url(vectors) or 'embedded Qdrant Edge'}, home {home}")
        console.print(Panel.fit(f"cogmem-graph demo — {where}"))
        with console.status("starting the graph and loading the embedder…"):
            store = cg.open(home=home, embedder=embedder, clock=clock, graph=graph, vectors=vectors)
        with store:
            console.print(f"store: {store!r}")
            for session in SESSIONS:
                console.print(_trace_table(session, encode_session(store, clock, session)))
            first, last = SESSIONS[0], SESSIONS[-1]
            helper = session_agent(store, last)
            helper.encode("Acme's on-call rotation changes every Monday.", scope="organization", type="semantic")
            clock.advance(10 * MS_PER_MINUTE)
            days = (last.started_ms - first.started_ms) // (24 * 3600 * 1000)
            console.print(f"\nStill in session {last.thread_id!r}, the helper is asked about things said only "
                          f"in session {first.thread_id!r}, {days} days earlier:")
            for question in RECALL:
                result = helper.retrieve(question.question, top_k=RECALL_TOP_K)
                found = recalled(result, question)
                console.print(_result_table(result, found))
                if found is None:
                    failures.append(f"not recalled: {question.question!r}")

            colleague = store.agent("reviewer", user_id="sam", organization_id=ORGANIZATION)
            outsider = store.agent("helper", user_id=USER, organization_id="globex")
            shared = colleague.retrieve("on-call rotation", top_k=3)
            leaked = outsider.retrieve("production went down Docker Compose Maya Biscuit", top_k=3)
            console.print(
                f"tenant isolation: another Acme agent sees {len(shared)} organisation memory "
                f"({shared.traces[0].trace.content if shared.traces else '-'}); "
                f"a same-named user at another organisation sees {len(leaked)} of Maya's memories."
            )
            if leaked.traces:
                failures.append("isolation: another organisation saw Maya's memories")

            ctx = helper.assemble_for_prompt("Help me plan a low-storage warning for the server", token_budget=300)
            console.print(Panel(ctx.text, title=f"assemble_for_prompt: {ctx.tokens_used}/{ctx.token_budget} tokens"))
            stats = store.stats()
            types = ", ".join(f"{k} {v}" for k, v in sorted(stats.traces_by_type.items()))
            edges = ", ".join(f"{k} {v}" for k, v in sorted(stats.edges_by_type.items()))
            console.print(f"store statistics: {stats.active_traces} active traces ({types}), "
                          f"{stats.entities} entities; edges: {edges}")
    if failures:
        for failure in failures:
            console.print(f"[red]check failed — {failure}[/red]")
        return 1
    console.print(f"[green]demo finished: {len(RECALL)} of {len(RECALL)} questions recalled across sessions[/green]")
    return 0
