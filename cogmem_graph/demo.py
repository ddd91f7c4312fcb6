"""`cogmem demo`: the whole memory on the embedded default, on a small scripted story.

Two agents of one organisation remember a user's conversation; the demo shows
what encoding decided (strength, emotion, entities), what the graph linked,
how retrieval ranked (the six signals, and which traces the graph brought in),
tenant isolation, and the prompt context an LLM would receive.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from rich.console import Console
from rich.panel import Panel
from rich.table import Table

import cogmem_graph as cg
from cogmem_graph.clock import MS_PER_MINUTE, MS_PER_SECOND, ManualClock

STORY: list[tuple[str, dict]] = [
    ("Hi! I'm Maya, I run the platform team at Acme.", {}),
    ("We deploy everything with Docker Compose on a single big server.", {"type": "semantic"}),
    ("Last Friday the server ran out of disk and production went down for two hours. It was awful.",
     {"mood": cg.Mood(valence=-0.7, arousal=0.8)}),
    ("Kubernetes keeps coming up, but the team finds it too complex for now.", {"type": "semantic"}),
    ("My manager Tom wants a written postmortem by Thursday.", {"type": "prospective"}),
    ("Our monitoring is Grafana with Prometheus alerts to Slack.", {"type": "semantic"}),
    ("Correction: we actually moved the database off the server to managed Postgres last month.",
     {"type": "semantic"}),
    ("I love hiking with my dog Biscuit on weekends.", {"mood": cg.Mood(valence=0.8, arousal=0.4)}),
]

QUESTIONS = [
    "What went wrong with production?",
    "How does Maya deploy?",
    "What do I need to do for my manager?",
]


def _encode_story(agent: cg.AgentMemory, clock: ManualClock) -> list[cg.MemoryTrace]:
    traces = []
    for text, fields in STORY:
        traces.append(agent.encode(text, **fields))
        clock.advance(30 * MS_PER_SECOND)
    return traces


def _trace_table(traces: list[cg.MemoryTrace]) -> Table:
    table = Table(title="Encoded: what the cognitive core decided", show_lines=False)
    for column in ("type", "S0", "valence", "intensity", "entities", "content"):
        table.add_column(column, overflow="fold")
    for t in traces:
        table.add_row(t.type.value, f"{t.encoding_strength:.2f}", f"{t.valence:+.2f}", f"{t.intensity:.2f}",
                      ", ".join(t.entities[:3]), t.content[:60])
    return table


def _result_table(result: cg.RetrievalResult) -> Table:
    table = Table(title=f"retrieve({result.query!r})")
    for column in ("score", "sim", "str", "act", "emo", "via", "content"):
        table.add_column(column, overflow="fold")
    for item in result.traces:
        s = item.signals
        table.add_row(f"{item.score:.3f}", f"{s['similarity']:.2f}", f"{s['strength']:.2f}",
                      f"{s['activation']:.2f}", f"{s['emotional']:.2f}", "+".join(item.sources),
                      item.trace.content[:60])
    return table


def run_demo(home: Path | None = None, embedder: str | None = None, console: Console | None = None, *,
             graph: str | None = None, vectors: str | None = None) -> int:
    """The scripted story; on the embedded default, or on servers when `graph`/`vectors` are URLs
    (the demo's memories then stay in those servers, under user "maya" of organisation "acme")."""
    console = console or Console()
    clock = ManualClock()
    with tempfile.TemporaryDirectory(prefix="cogmem-demo-") as tmp:
        home = home or Path(tmp) / "home"
        where = f"graph {graph or 'embedded FalkorDB'}, vectors {vectors or 'Qdrant local mode'}, home {home}"
        console.print(Panel.fit(f"cogmem-graph demo — {where}"))
        with console.status("starting the graph and loading the embedder…"):
            store = cg.open(home=home, embedder=embedder, clock=clock, graph=graph, vectors=vectors)
        with store:
            console.print(f"store: {store!r}")
            helper = store.agent("helper", user_id="maya", thread_id="chat-1", organization_id="acme",
                                 traits=cg.Hexaco(conscientiousness=0.8, openness=0.7),
                                 mood=cg.Mood(valence=-0.3, arousal=0.5))
            traces = _encode_story(helper, clock)
            console.print(_trace_table(traces))
            helper.encode("Acme's on-call rotation changes every Monday.", scope="organization", type="semantic")
            clock.advance(10 * MS_PER_MINUTE)

            for question in QUESTIONS:
                console.print(_result_table(helper.retrieve(question, top_k=4)))

            colleague = store.agent("reviewer", user_id="sam", organization_id="acme")
            outsider = store.agent("helper", user_id="maya", organization_id="globex")
            shared = colleague.retrieve("on-call rotation", top_k=3)
            leaked = outsider.retrieve("production went down Docker Compose Maya", top_k=3)
            console.print(
                f"tenant isolation: another Acme agent sees {len(shared)} organisation memory "
                f"({shared.traces[0].trace.content if shared.traces else '-'}); "
                f"a same-named user at another organisation sees {len(leaked)} of Maya's memories."
            )

            ctx = helper.assemble_for_prompt("Help me write the postmortem", token_budget=250)
            console.print(Panel(ctx.text, title=f"assemble_for_prompt: {ctx.tokens_used}/{ctx.token_budget} tokens"))
            stats = store.stats()
            edges = ", ".join(f"{k} {v}" for k, v in sorted(stats.edges_by_type.items()))
            console.print(f"graph: {stats.active_traces} traces, {stats.entities} entities; edges: {edges}")
            if leaked.traces:
                console.print("[red]isolation check failed[/red]")
                return 1
    console.print("[green]demo finished[/green]")
    return 0
