"""The dashboard's report pages: consolidation, reminders and statistics. Every value is the
operations' JSON, escaped (`pages.esc`); content appears only where the key's own operation
returned it (an owner key without an identity gets counts, never content)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cogmem_graph.server.dashboard.pages import definition, esc, memory_href, message, when

MEMBERS_SHOWN = 10
RUN_COUNTS = (("dormant", "made dormant"), ("pruned", "forgotten"), ("merged", "merged"),
              ("schemas_created", "schemas"), ("conflicts_resolved", "contradictions settled"),
              ("reinforced", "reinforced"), ("edges_created", "edges"), ("gisted", "gisted"))


def _memory_link(trace_id: Any, content: Any) -> str:
    return f'<a href="{esc(memory_href(str(trace_id)))}">{esc(content if content is not None else trace_id)}</a>'


def _runs(runs: list[Mapping[str, Any]], store_wide: bool) -> str:
    if not runs:
        return message("No consolidation run has counted anything here yet.")
    head = "".join(f"<th>{esc(label)}</th>" for _, label in RUN_COUNTS)
    rows = "".join(
        f'<tr><td>{esc(when(r.get("at")))}</td><td>{esc(r.get("trigger"))}</td>'
        + "".join(f'<td class="num">{esc((r.get("counts") or {}).get(name, 0))}</td>' for name, _ in RUN_COUNTS)
        + "</tr>" for r in runs)
    scope = ("Counts of the whole store (no content: an owner key sees counts)." if store_wide else
             "Only the runs that counted something in this key's scopes, with those scopes' counts.")
    return (f'<p class="hint">{scope}</p><table class="runs"><thead><tr><th>when</th><th>trigger</th>{head}'
            f'</tr></thead><tbody>{rows}</tbody></table>')


def _why(row: Mapping[str, Any]) -> str:
    """What set the winner apart, by the two facts consolidation decides on
    (`contradictions.resolution_winner`): event time and confidence."""
    w_time, l_time = row.get("winnerCreatedAt") or 0, row.get("loserCreatedAt") or 0
    w_conf, l_conf = row.get("winnerConfidence"), row.get("loserConfidence")
    facts = ["newer" if w_time > l_time else "older" if w_time < l_time else "as old"]
    if isinstance(w_conf, int | float) and isinstance(l_conf, int | float):
        facts.append(f"{'more' if w_conf > l_conf else 'less' if w_conf < l_conf else 'as'} confident "
                     f"({w_conf:.2f} against {l_conf:.2f})")
    return "the winner is " + " and ".join(facts)


def consolidation(report: Mapping[str, Any]) -> str:
    store_wide = bool(report.get("store_wide"))
    body = "<h3>Runs</h3>" + _runs(report.get("runs") or [], store_wide)
    if store_wide:
        return body
    schemas = "".join(
        f'<li class="schema"><b>{esc(s.get("summary"))}</b> <span class="facts">{esc(s.get("size"))} member(s), '
        f'{esc(when(s.get("createdAt")))}, up to {MEMBERS_SHOWN} shown</span><ul>'
        + "".join(f"<li>{_memory_link(m.get('id'), m.get('content'))}</li>" for m in s.get("members") or [])
        + "</ul></li>" for s in report.get("schemas") or [])
    settled = "".join(
        f'<li class="contradiction">{_memory_link(c.get("winner"), c.get("winnerContent"))} <b>won over</b> '
        f'{_memory_link(c.get("loser"), c.get("loserContent"))}<div class="facts">{esc(when(c.get("at")))}: '
        f'{esc(_why(c))}</div></li>' for c in report.get("contradictions") or [])
    still_open = "".join(
        f'<li class="contradiction">{_memory_link(c.get("a"), c.get("aContent"))} <b>against</b> '
        f'{_memory_link(c.get("b"), c.get("bContent"))}</li>' for c in report.get("open_contradictions") or [])
    return (body + "<h3>Schemas and their members</h3>"
            + (f'<ul class="schemas">{schemas}</ul>' if schemas else message("No schema yet."))
            + "<h3>Contradictions settled</h3>"
            + '<p class="hint">An honest agent believes the newer side; otherwise the side more confident by a '
              'clear margin wins. The loser stays in the history as superseded, its validity ending where the '
              'winner\'s begins.</p>'
            + (f'<ul class="contradictions">{settled}</ul>' if settled else message("None settled yet."))
            + '<h3>Contradictions still open</h3><p class="hint">Undecided: neither the newer side of an honest '
              'agent nor a clearly more confident side.</p>'
            + (f'<ul class="contradictions">{still_open}</ul>' if still_open else message("None open.")))


def reminders(items: list[Mapping[str, Any]]) -> str:
    if not items:
        return message("No pending reminder.")
    rows = []
    for r in items:
        kind = r.get("kind")
        if kind == "time_based":
            every = r.get("interval_ms") or 0
            trigger = f"at {when(r.get('trigger_at'))}" + (f", every {every / 3_600_000:g} h" if every else "")
        elif kind == "event_based":
            trigger = "when a turn mentions " + ", ".join(r.get("keywords") or [])
        else:
            trigger = f"when a turn resembles: {r.get('cue')}"
        rows.append(f'<li class="reminder"><b>{esc(r.get("content"))}</b><div class="facts">{esc(trigger)} · '
                    f'importance {esc(r.get("importance"))} · fired {esc(r.get("fired_count"))} time(s)'
                    f'{" · next " + esc(when(r.get("next_fire_at"))) if r.get("next_fire_at") else ""}'
                    f' · set {esc(when(r.get("created_at")))}</div></li>')
    return f'<ul class="reminders">{"".join(rows)}</ul>'


def _counts(rows: Mapping[str, Any]) -> str:
    return definition([(str(k), esc(v)) for k, v in sorted(rows.items())]) if rows else message("None.")


def stats(mine: Mapping[str, Any] | None, store: Mapping[str, Any] | None) -> str:
    body = ""
    if mine is not None:
        total = mine.get("total_traces") or 0
        active = mine.get("active_traces") or 0
        dormant = mine.get("dormant_traces") or 0
        share = f"{100 * dormant / active:.1f} %" if active else "–"
        body += ("<h3>What this key can see</h3>" + definition([
            ("memories", esc(total)), ("active", esc(active)), ("dormant (among the active)", esc(dormant)),
            ("dormant share", esc(share)),
            ("inactive (merged, superseded, forgotten)", esc(mine.get("inactive_traces"))),
            ("entities mentioned", esc(mine.get("entities")))])
            + "<h3>Memories by type</h3>" + _counts(mine.get("traces_by_type") or {})
            + "<h3>Edges by type</h3>" + _counts(mine.get("edges_by_type") or {}))
    if store is not None:
        counts = store.get("store") or {}
        body += ("<h3>The whole store (counts only, no content)</h3>" + definition([
            ("memories", esc((counts.get("active_traces") or 0) + (counts.get("inactive_traces") or 0))),
            ("active", esc(counts.get("active_traces"))), ("dormant", esc(counts.get("dormant_traces"))),
            ("inactive", esc(counts.get("inactive_traces"))), ("unindexed", esc(counts.get("unindexed_traces"))),
            ("entities", esc(counts.get("entities")))])
            + "<h3>Store memories by type</h3>" + _counts(counts.get("traces_by_type") or {})
            + "<h3>Store edges by type</h3>" + _counts(counts.get("edges_by_type") or {}))
    return body
