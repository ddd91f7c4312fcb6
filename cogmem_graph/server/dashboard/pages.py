"""The dashboard's HTML, written here with every value escaped (`esc`): memory content, tags
and metadata are the users' text and must reach the page as text, never as markup. The pages
carry no script; the signal bars are `<meter>` elements, so the content security policy can
forbid scripts and inline styles outright."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from html import escape
from typing import Any
from urllib.parse import quote, urlencode

from cogmem_graph.filters import MemoryState
from cogmem_graph.model import MemoryType, Scope
from cogmem_graph.server.dashboard.retention import Projection, svg

MEMORY_TYPES = tuple(t.value for t in MemoryType)
WEAK_HIT_FLOOR = 0.65
"""A search shows at first the hits scoring at least this share of the best one; the rest
wait behind "show more". Measured on 24 everyday memories of one user and 10 questions about
them (`recall`, 20 hits each, all-MiniLM-L6-v2): the best hit scores about 0.63 whatever the
question, unrelated ones up to 0.49 (mostly 0.40 and under: the same person named, another
errand). At 0.65 of the best, 6 of 187 unrelated hits stay in view and 2 of 13 relevant ones
go behind "show more" (second answers at 0.63 and 0.38 of the best); at 0.5, 17 unrelated
stay; at 0.8 none, with the same two relevant ones behind. The hash embedder: 11 and 1."""
SCOPES = tuple(s.value for s in Scope)
STATES = tuple(s.value for s in MemoryState)
FILTER_KEYS = ("type", "scope", "state", "tags", "metadata", "created_after", "created_before", "as_of", "view")
"""The search form's fields besides `q`: a hit's link carries them so its page re-asks the same search."""


def esc(value: Any) -> str:
    return escape("" if value is None else str(value), quote=True)


def when(ms: Any) -> str:
    """Epoch ms as UTC to the minute."""
    if not isinstance(ms, int | float):
        return ""
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%d %H:%M UTC")


def memory_href(trace_id: str) -> str:
    return f"/ui/memories/{quote(trace_id, safe='')}"


def layout(title: str, body: str, *, who: Mapping[str, Any] | None = None, csrf: str | None = None) -> str:
    nav = ""
    if who is not None:
        links = ['<a href="/ui/memories">Memories</a>', '<a href="/ui/reminders">Reminders</a>'] \
            if who.get("identity") else []
        links += ['<a href="/ui/consolidation">Consolidation</a>', '<a href="/ui/stats">Statistics</a>']
        if who.get("role") == "owner":
            links += ['<a href="/ui/health">Store health</a>', '<a href="/ui/users">Users</a>']
        ident = who.get("identity") or {}
        label = ", ".join(f"{k}={v}" for k, v in ident.items()) or "no identity"
        nav = (f'<nav>{" ".join(links)}<span class="who">{esc(who.get("role"))} key {esc(who.get("key_id"))} '
               f'({esc(label)})</span><form method="post" action="/ui/logout" class="inline">'
               f'<input type="hidden" name="csrf" value="{esc(csrf)}"><button>Log out</button></form></nav>')
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{esc(title)} · cogmem</title>'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<link rel="stylesheet" href="/ui/static/dashboard.css"></head>'
            f'<body><header><h1>cogmem</h1>{nav}</header><main><h2>{esc(title)}</h2>{body}</main></body></html>')


def message(text: str) -> str:
    return f'<p class="message" role="alert">{esc(text)}</p>'


def login(problem: str | None = None) -> str:
    body = (message(problem) if problem else "") + (
        '<form method="post" action="/ui/login" class="login">'
        '<label>API key <input type="password" name="key" autocomplete="off" required autofocus></label>'
        '<button>Log in</button></form>'
        '<p class="hint">The key is sent once; the browser keeps only a session cookie.</p>')
    return layout("Log in", body)


def _options(name: str, values: Iterable[str], chosen: Iterable[str]) -> str:
    """A multiple choice tall enough for every option (none hidden behind a scroll bar)."""
    values = tuple(values)
    picked = set(chosen)
    items = "".join(f'<option value="{esc(v)}"{" selected" if v in picked else ""}>{esc(v)}</option>' for v in values)
    return f'<select name="{name}" multiple size="{len(values)}">{items}</select>'


def filters_form(form: Mapping[str, list[str]]) -> str:
    one = lambda name: esc((form.get(name) or [""])[0])  # noqa: E731
    view = "".join(f'<option value="{v}"{" selected" if one("view") == v else ""}>{label}</option>'
                   for v, label in (("list", "newest first"), ("timeline", "timeline (oldest first, by day)")))
    return (
        '<form method="get" action="/ui/memories" class="filters">'
        f'<label class="wide">Search <input type="search" name="q" value="{one("q")}"></label>'
        f'<label>Type {_options("type", MEMORY_TYPES, form.get("type", []))}</label>'
        f'<label>Scope {_options("scope", SCOPES, form.get("scope", []))}</label>'
        f'<label>State {_options("state", STATES, form.get("state", []))}</label>'
        f'<label>Tags (any, comma separated) <input name="tags" value="{one("tags")}"></label>'
        f'<label>Metadata (key=value) <input name="metadata" value="{one("metadata")}"></label>'
        f'<label>From <input type="date" name="created_after" value="{one("created_after")}"></label>'
        f'<label>Before <input type="date" name="created_before" value="{one("created_before")}"></label>'
        f'<label>As of (held true that day) <input type="date" name="as_of" value="{one("as_of")}"></label>'
        f'<label>View <select name="view">{view}</select></label>'
        '<button>Show</button></form>')


def _link(trace: Mapping[str, Any], asked: str = "") -> str:
    """A link to a memory's page; from a search hit it carries the search (`asked`, its query
    string) so the page can say why the memory was recalled for it."""
    href = memory_href(trace["id"]) + (f"?{asked}" if asked else "")
    return f'<a href="{esc(href)}">{esc(trace.get("content"))}</a>'


def marks(trace: Mapping[str, Any], state: Any, replaced_by: Mapping[str, Any] | None, now_ms: int,
          superseded_by: Iterable[str] = ()) -> list[tuple[str, str]]:
    """(kind, HTML) of what makes a memory no longer the one to believe, by the library's own
    reading: replaced by a newer memory (`AgentMemory.replacements`, what a prompt marks
    "outdated"), superseded (an older version, or the loser of a settled contradiction), its
    stated validity over (the prompt's "held until"), contradicted by another memory, dormant."""
    out: list[tuple[str, str]] = []
    if replaced_by is not None:
        day = when(replaced_by.get("valid_from") or replaced_by.get("created_at"))[:10]
        out.append(("outdated", f"Outdated: replaced on {esc(day)} by {_link(replaced_by)}"))
    elif state == "superseded":
        newer = "".join(f' <a href="{esc(memory_href(i))}">the newer version</a>' for i in superseded_by)
        out.append(("outdated", f"Superseded: kept for history, no longer recalled.{newer}"))
    until = trace.get("valid_until")
    if not out and isinstance(until, int | float) and until <= now_ms:
        out.append(("outdated", f"Outdated: held until {esc(when(until - 1)[:10])}"))
    against = [i for i in trace.get("contradicted_by") or [] if replaced_by is None or i != replaced_by.get("id")]
    if against:
        links = ", ".join(f'<a href="{esc(memory_href(i))}">memory {n}</a>' for n, i in enumerate(against, 1))
        out.append(("contradicted", f"Contradicted by {links}"))
    if state == "dormant" or (state is None and trace.get("dormant")):
        out.append(("dormant", "Dormant: faded out of the default recall; a strong match still finds it"))
    return out


def _marks_html(found: Iterable[tuple[str, str]]) -> str:
    return "".join(f'<p class="mark {kind}">{html}</p>' for kind, html in found)


def _trace_line(trace: Mapping[str, Any], extra: str = "", found: Iterable[tuple[str, str]] = (),
                asked: str = "") -> str:
    found = list(found)
    tags = "".join(f'<span class="tag">{esc(t)}</span>' for t in trace.get("tags") or [])
    pinned = '<span class="pin">pinned</span>' if trace.get("pinned") else ""
    kinds = "".join(f" {kind}" for kind in dict.fromkeys(kind for kind, _ in found))
    return (f'<li class="memory{kinds}">{_link(trace, asked)}{_marks_html(found)}'
            f'<div class="facts">{esc(trace.get("type"))} · {esc(trace.get("scope"))} · '
            f'{esc(when(trace.get("created_at")))} {pinned} {tags}</div>{extra}</li>')


def memory_list(form: Mapping[str, list[str]], page: Mapping[str, Any], next_href: str | None, *,
                timeline: bool = False, replaced: Mapping[str, Any] | None = None, now_ms: int = 0,
                csrf: str = "") -> str:
    """A page of memories, each marked as `marks` says, and how many; as a timeline, oldest
    first under a heading per day."""
    replaced = replaced or {}
    lines: list[str] = []
    day = None
    for r in page["items"]:
        if timeline and when(r["trace"].get("created_at"))[:10] != day:
            day = when(r["trace"].get("created_at"))[:10]
            lines.append(f'</ul><h3 class="day">{esc(day)}</h3><ul class="memories">')
        found = marks(r["trace"], r.get("state"), replaced.get(r["trace"]["id"]), now_ms,
                      r.get("superseded_by") or ())
        lines.append(_trace_line(r["trace"], f'<div class="facts">state {esc(r.get("state"))} · '
                                             f'version {esc(r.get("version"))}</div>', found))
    items = "".join(lines)
    n = len(page["items"])
    more = f'<p><a href="{esc(next_href)}" rel="next">Next page</a></p>' if next_href else ""
    count = (f'<p class="count">{n} memor{"y" if n == 1 else "ies"} on this page'
             f'{", more on the next" if next_href else ""}</p>') if n else ""
    listing = (f'<ul class="memories{" timeline" if timeline else ""}">{items}</ul>' if items
               else message("No memories match."))
    return filters_form(form) + export_form(csrf) + count + listing + more


def export_form(csrf: str) -> str:
    """The key's own memories as a JSON Lines download (the `export` operation): a POST like
    every other form, from this origin with the session's CSRF token."""
    if not csrf:
        return ""
    return (f'<form method="post" action="/ui/export" class="export"><input type="hidden" name="csrf" '
            f'value="{esc(csrf)}"><button>Export my memories (JSON Lines)</button></form>')


def _signals(signals: Mapping[str, Any]) -> str:
    rows = []
    for name, value in sorted(signals.items()):
        if not isinstance(value, int | float):
            continue
        rows.append(f'<tr><th>{esc(name)}</th><td><meter min="0" max="1" value="{max(0.0, min(1.0, value)):.4f}">'
                    f'</meter></td><td class="num">{value:.3f}</td></tr>')
    return f'<table class="signals">{"".join(rows)}</table>' if rows else ""


SOURCES = {"dense": "meaning (dense vectors)", "lexical": "words (BM25)", "activation": "spreading activation",
           "gathered": "an entity the question names", "newer_version": "the newer version of a hit",
           "multi_hop": "a multi-hop path through the graph", "causal": "a cause or effect of a hit"}
SIGNALS = {"similarity": "how well it matches the question", "activation": "activation spread through the graph",
           "strength": "strength (decay since its last use)", "recency": "recency of its last use",
           "emotional": "congruence with the current mood", "importance": "importance (its confidence)"}
SCORINGS = {"prior": "relevance (similarity, activation) times a bounded prior (strength, recency, mood, "
                     "importance)", "additive": "a weighted sum of the six signals"}


def why_recalled(t: Mapping[str, Any]) -> str:
    """Why a memory was recalled, from what `recall` returns for it and nothing worked out
    again: the matchers that found it (`ScoredTrace.sources`) and how its score was composed
    (`ScoredTrace.composition`: each signal's value, weight and share of the score, as bars)."""
    ways = ", ".join(esc(SOURCES.get(s, s)) for s in t.get("sources") or [])
    found = f'<div class="facts sources">found by: {ways}</div>' if ways else ""
    how = t.get("composition")
    if not isinstance(how, Mapping):
        return found + _signals(t.get("signals") or {})
    signals, weights, adds = t.get("signals") or {}, how.get("weights") or {}, how.get("contributions") or {}
    base, score = float(how.get("base") or 0.0), float(t["score"])
    rank = how.get("fused_rank")
    where = (f"rank {esc(rank)} in the fused list of the text matchers" if isinstance(rank, int)
             else "not in the text matchers' fused list: reached through the graph")
    moved = score - base
    rules = (f"; the ranking rules (a category boost, a newer version first) moved it by {moved:+.3f}"
             if abs(moved) >= 5e-4 else "")
    scoring = str(how.get("scoring"))
    words = (f'<p class="composition">Score <b>{score:.3f}</b>: {esc(SCORINGS.get(scoring, scoring))} '
             f'gave <b>{base:.3f}</b> ({where}){rules}.</p>')
    rows = []
    for name in sorted(adds, key=lambda n: (-float(adds[n]), n)):
        value, added = float(signals.get(name, 0.0)), float(adds[name])
        rows.append(
            f'<tr><th title="{esc(SIGNALS.get(name, name))}">{esc(name)}</th>'
            f'<td><meter class="value" min="0" max="1" value="{max(0.0, min(1.0, value)):.4f}"></meter></td>'
            f'<td class="num">{value:.3f}</td><td class="num">× {float(weights.get(name, 0.0)):.2f}</td>'
            f'<td><meter class="adds" min="0" max="{max(base, 1e-9):.6f}" value="{max(0.0, added):.6f}"></meter></td>'
            f'<td class="num adds">+{added:.3f}</td></tr>')
    table = ('<table class="signals composition"><thead><tr><th>signal</th><th colspan="2">value</th>'
             '<th class="num">weight</th><th colspan="2">adds to the score</th></tr></thead>'
             f'<tbody>{"".join(rows)}</tbody></table>')
    return f'<div class="why">{found}{words}{table}</div>'


def _hit(t: Mapping[str, Any], found: list[tuple[str, str]], asked: str = "") -> str:
    """One hit: its score and why it was recalled (`why_recalled`)."""
    return _trace_line(t["trace"], f'<div class="score">score <b>{t["score"]:.3f}</b></div>{why_recalled(t)}',
                       found, asked)


def search_results(form: Mapping[str, list[str]], result: Mapping[str, Any], *,
                   replaced: Mapping[str, Any] | None = None, now_ms: int = 0) -> str:
    """The hits, outdated ones marked; those under `WEAK_HIT_FLOOR` of the best wait behind
    "show more" (a `<details>`, no script), in rank order."""
    replaced = replaced or {}
    traces = list(result["traces"])
    if not traces:
        return filters_form(form) + message("Nothing found.")
    asked = urlencode([(k, v) for k in ("q", *FILTER_KEYS) for v in form.get(k, [])])
    best = max(t["score"] for t in traces)
    cut = next((i for i, t in enumerate(traces) if best > 0 and t["score"] < WEAK_HIT_FLOOR * best), len(traces))
    strong, weak = traces[:cut], traces[cut:]

    def lines(items: list[Mapping[str, Any]]) -> str:
        return "".join(_hit(t, marks(t["trace"], None, replaced.get(t["trace"]["id"]), now_ms), asked)
                       for t in items)

    count = (f'<p class="count">{len(strong)} hit(s) scoring at least {WEAK_HIT_FLOOR:.0%} of the best'
             + (f", {len(weak)} weaker" if weak else "") + "</p>")
    listing = f'<ol class="memories hits">{lines(strong)}</ol>'
    if weak:
        listing += (f'<details class="more"><summary>Show {len(weak)} more (weaker matches)</summary>'
                    f'<ol class="memories hits weak" start="{len(strong) + 1}">{lines(weak)}</ol></details>')
    return filters_form(form) + count + listing


def definition(rows: Iterable[tuple[str, str]]) -> str:
    return '<dl class="facts">' + "".join(f"<dt>{esc(k)}</dt><dd>{v}</dd>" for k, v in rows) + "</dl>"


def strength(projection: Projection, state: Any) -> str:
    """The strength curve and when the memory would go dormant, unused."""
    p = projection
    if state == "dormant":
        fate = "It is dormant now: out of the default candidates, still found by a strong match."
    elif p.dormant_at is None:
        fate = f"Decay never makes it dormant: {esc(p.why_never)}."
    elif p.dormant_at <= p.now_ms:
        fate = "It is already below the threshold: the next consolidation makes it dormant."
    else:
        fate = (f"Unused, it may go dormant from {esc(when(p.dormant_at))} "
                "(the first consolidation after that).")
    return (f'<h3>Strength over time</h3><p class="hint">Strength now <b>{p.strength_now:.3f}</b>; the dormancy '
            f'threshold is {p.threshold:.3f}. {fate} A use (a recall that reinforces) restarts the curve and '
            f'makes it flatter.</p>{svg(p)}')


def memory(record: Mapping[str, Any], hood: Mapping[str, Any], versions: list[Mapping[str, Any]], *,
           csrf: str, may_change: bool, projection: Projection | None = None,
           replaced_by: Mapping[str, Any] | None = None, now_ms: int = 0, why: str = "") -> str:
    trace = record["trace"]
    found = marks(trace, record.get("state"), replaced_by, now_ms, record.get("superseded_by") or ())
    tid = trace["id"]
    href = memory_href(tid)
    facts = definition([
        ("id", esc(tid)), ("state", esc(record.get("state"))), ("pinned", "yes" if trace.get("pinned") else "no"),
        ("type", esc(trace.get("type"))), ("scope", esc(trace.get("scope"))),
        ("tags", esc(", ".join(trace.get("tags") or []))), ("created", esc(when(trace.get("created_at")))),
        ("version", esc(record.get("version"))),
        ("valid", esc(f'{when(trace.get("valid_from") or trace.get("created_at"))} → '
                      f'{when(trace.get("valid_until")) or "still holds"}')),
        ("last used", esc(when(trace.get("last_accessed_at")))),
        ("metadata", f"<code>{esc(json.dumps(trace.get('metadata') or {}, sort_keys=True))}</code>"),
    ])
    history = "".join(f'<li>v{esc(v.get("version"))} · {esc(when(v["trace"].get("recorded_at")))} · '
                      f'{esc(v.get("state"))}: <a href="{esc(memory_href(v["trace"]["id"]))}">'
                      f'{esc(v["trace"].get("content"))}</a></li>' for v in versions)
    names = {n["id"]: n.get("content") for n in hood.get("neighbours", [])}
    edges = "".join(
        f'<li>{esc(e.get("type"))} ({e.get("weight") or 0:.2f}) → '
        f'<a href="{esc(memory_href(other))}">{esc(names.get(other, other))}</a></li>'
        for e in hood.get("edges", []) for other in [e["dst"] if e["src"] == tid else e["src"]])
    actions = ""
    if may_change:
        hidden = f'<input type="hidden" name="csrf" value="{esc(csrf)}">'
        toggle = "unpin" if trace.get("pinned") else "pin"
        actions = (
            f'<section class="actions"><form method="post" action="{esc(href)}/{toggle}">{hidden}'
            f'<button name="do" value="{toggle}">{toggle.capitalize()}</button></form>'
            f'<form method="post" action="{esc(href)}/edit" class="edit">{hidden}'
            f'<label>New version <textarea name="content" rows="3" required>{esc(trace.get("content"))}</textarea>'
            f'</label><button>Save as a new version</button></form>'
            f'<p><a class="danger" href="{esc(href)}/forget">Forget…</a></p></section>')
    return (f'<blockquote class="content">{esc(trace.get("content"))}</blockquote>{_marks_html(found)}{why}{facts}'
            f'<p><a class="graph-link" href="{esc(href)}/graph">Draw its graph</a></p>{actions}'
            + (strength(projection, record.get("state")) if projection is not None else "") +
            f'<h3>Versions</h3><ol class="versions">{history}</ol>'
            f'<h3>Edges and neighbours</h3>' + (f'<ul class="edges">{edges}</ul>' if edges else message("No edges.")))


def graph(hood: Mapping[str, Any], counts: Mapping[str, Any], cap: int, drawing: str,
          expand: Iterable[str] = ()) -> str:
    """One memory's graph: the drawing (NVL), what it bounds, the grouped edge types (each a
    link that draws it again with that group expanded, `a.group`), the expanded ones (each a
    link that groups it again, `a.collapse`) and the nodes as a list too. Each link names its
    type (`data-group`): a click on the group, or on an expanded edge, in the drawing follows
    the same link (`static/graph.js`)."""
    trace = hood["trace"]
    opened = list(dict.fromkeys(expand))
    base = f'{memory_href(trace["id"])}/graph'

    def drawn_with(types: list[str]) -> str:
        return base + ("?" + urlencode([("expand", t) for t in types]) if types else "")

    groups = "".join(
        f'<li><a class="group" data-group="{esc(kind)}" href="{esc(drawn_with([*opened, kind]))}">'
        f'{esc(n)} × {esc(kind)}</a></li>' for kind, n in sorted((counts.get("groups") or {}).items()))
    grouped = (f'<p class="hint">Repeated edges are drawn as one group; click one, here or in the drawing, to '
               f'draw each of its edges:</p><ul class="groups">{groups}</ul>') if groups else ""
    collapse = "".join(
        f'<li><a class="collapse" data-group="{esc(kind)}" href="{esc(drawn_with([t for t in opened if t != kind]))}">'
        f'Group the {esc(n)} {esc(kind)} edges again</a></li>'
        for kind, n in sorted((counts.get("expanded") or {}).items()))
    if collapse:
        grouped += (f'<p class="hint">Expanded groups; click one, or one of its edges in the drawing, to group it '
                    f'again:</p><ul class="groups expanded">{collapse}</ul>')
    captions = "".join(f'<li><a href="{esc(memory_href(n["id"]))}">{esc(n.get("content"))}</a></li>'
                       for n in hood.get("neighbours", []))
    return (f'<p><a href="{esc(memory_href(trace["id"]))}">Back to the memory</a></p>'
            f'<blockquote class="content">{esc(trace.get("content"))}</blockquote>'
            f'<p class="hint">The memory, its strongest edges and the neighbours at their other ends, at most '
            f'{cap} of them: {counts.get("nodes", 0)} node(s) and {counts.get("relationships", 0)} edge(s) '
            f'drawn.</p>{grouped}{drawing}<h3>Neighbours</h3>'
            + (f'<ul class="neighbours">{captions}</ul>' if captions else message("No neighbours.")))


def why_section(question: str, hit: Mapping[str, Any] | None, rank: int, searched: int) -> str:
    """The memory page's answer to "why was this recalled?" for the search it was opened from:
    the same recall re-asked (read-only), this memory's entry in it."""
    title = f'<h3>Why it was recalled for “{esc(question)}”</h3>'
    if hit is None:
        return (f'<section class="why-recalled">{title}'
                + message(f"It is not among the {searched} best for this search now.") + "</section>")
    return (f'<section class="why-recalled">{title}<p class="hint">Hit {rank} of the search, score '
            f'<b>{float(hit["score"]):.3f}</b>.</p>{why_recalled(hit)}</section>')


def forget_confirm(record: Mapping[str, Any], hood: Mapping[str, Any], versions: int, *, csrf: str) -> str:
    trace = record["trace"]
    href = memory_href(trace["id"])
    if trace.get("pinned"):
        return (message("This memory is pinned (a truth anchor): unpin it before forgetting it.")
                + f'<p><a href="{esc(href)}">Back</a></p>')
    edges = len(hood.get("edges", []))
    return (f'<p>Forget this memory for good?</p><blockquote class="content">{esc(trace.get("content"))}</blockquote>'
            f'<p class="warning">Forgetting it deletes the memory, its {versions} version(s), its {edges} edge(s) '
            'to other memories, its vectors, any archived original and what was made from it. Nothing is deleted '
            'until you confirm; then it cannot be undone.</p>'
            f'<form method="post" action="{esc(href)}/forget"><input type="hidden" name="csrf" value="{esc(csrf)}">'
            f'<button class="danger">Forget it</button> <a href="{esc(href)}">Cancel</a></form>')


STORE_COUNTS = (("active_traces", "active memories"), ("dormant_traces", "dormant (among the active)"),
                ("inactive_traces", "inactive (merged, superseded, forgotten)"),
                ("unindexed_traces", "not yet indexed"), ("entities", "entities"))
BACKENDS = (("graph", "graph database"), ("vectors", "vectors (the vector index)"), ("ready", "ready for requests"))


def _duration(seconds: Any) -> str:
    if not isinstance(seconds, int | float):
        return ""
    s = int(seconds)
    return " ".join(f"{n} {unit}" for n, unit in ((s // 86400, "d"), (s // 3600 % 24, "h"), (s // 60 % 60, "min"),
                                                  (s % 60, "s")) if n) or "0 s"


def _num(value: Any) -> str:
    return f'<span class="num">{esc(value)}</span>'


def table(head: tuple[str, str], rows: Iterable[tuple[str, str]], cls: str = "counts") -> str:
    """A two-column table; values arrive escaped (or as markup made here)."""
    body = "".join(f"<tr><th>{esc(k)}</th><td>{v}</td></tr>" for k, v in rows)
    return (f'<table class="{cls}"><thead><tr><th>{esc(head[0])}</th><th>{esc(head[1])}</th></tr></thead>'
            f"<tbody>{body}</tbody></table>") if body else message("None.")


def health(stats: Mapping[str, Any], ready: Mapping[str, Any]) -> str:
    """The owner's view of the store: backends, the server, counts (never content), as labelled tables."""
    store = stats.get("store") or {}
    status = {True: "yes", False: "no", "ok": "answers"}
    checks = [(label, f'<span class="{"ok" if ready.get(k) in (True, "ok") else "bad"}">'
                      f"{esc(status.get(ready.get(k), ready.get(k)))}</span>") for k, label in BACKENDS if k in ready]
    checks += [(k, esc(v)) for k, v in ready.items() if k not in dict(BACKENDS)]
    general = [("uptime", esc(_duration(stats.get("uptime_s")))),
               ("agent handles open", esc(stats.get("agent_handles")))]
    sched = stats.get("consolidation")
    if isinstance(sched, Mapping):
        every = sched.get("interval_s")
        general += [("consolidation every", esc(_duration(every)) if every else "off"),
                    ("consolidation runs since start", esc(sched.get("runs"))),
                    ("next consolidation", esc(when(int(sched["next_at"] * 1000)) if isinstance(
                        sched.get("next_at"), int | float) else "–"))]
    counts = [(label, _num(store.get(k, 0))) for k, label in STORE_COUNTS]
    by_type = [(k, _num(v)) for k, v in sorted((store.get("traces_by_type") or {}).items())]
    edges = [(k, _num(v)) for k, v in sorted((store.get("edges_by_type") or {}).items())]
    return ("<h3>Backends</h3>" + table(("backend", "state"), checks)
            + "<h3>Server</h3>" + table(("", ""), general)
            + "<h3>Store (counts only, no content)</h3>" + table(("what", "how many"), counts)
            + "<h3>Memories by type</h3>" + table(("type", "memories"), by_type)
            + "<h3>Edges by type</h3>" + table(("type", "edges"), edges))


def users(csrf: str, *, problem: str | None = None, user_id: str = "", organization_id: str = "") -> str:
    """The owner's forms for one user: export (a JSON Lines download) and erase (typing the
    user id again to confirm). Both are POSTs with the session's CSRF token."""
    hidden = f'<input type="hidden" name="csrf" value="{esc(csrf)}">'
    who = (f'<label>User id <input name="user_id" value="{esc(user_id)}" required></label>'
           f'<label>Organization id (when the user lives under one) <input name="organization_id" '
           f'value="{esc(organization_id)}"></label>')
    return ((message(problem) if problem else "")
            + '<h3>Export one user</h3><p class="hint">Every memory of the user (their user and thread scopes) '
              'as JSON Lines, the format <code>cogmem import</code> reads.</p>'
            + f'<form method="post" action="/ui/users/export" class="user export-user">{hidden}{who}'
              '<button>Download</button></form>'
            + '<h3>Erase one user</h3><p class="warning">Deletes every memory, reminder and note of the user. '
              'Nothing is deleted until you type the user id again below; then it cannot be undone.</p>'
            + f'<form method="post" action="/ui/users/erase" class="user erase-user">{hidden}{who}'
              '<label>Type the user id again to confirm <input name="confirm" autocomplete="off" required></label>'
              '<label class="check"><input type="checkbox" name="include_shared" value="1"> also what they wrote '
              'into shared scopes</label><button class="danger">Erase</button></form>')


def receipt(title: str, counts: Mapping[str, Any], extra: Iterable[tuple[str, str]] = ()) -> str:
    """What a change did, shown once it is done."""
    rows = [(k.replace("_", " "), f'<span class="num">{esc(v)}</span>') for k, v in counts.items()]
    return (f'<section class="done" role="status"><p><b>{esc(title)}</b></p>'
            + (table(("", ""), [*extra, *rows]) if rows or extra else "") + "</section>")


def notice(text: str) -> str:
    return f'<p class="done" role="status">{esc(text)}</p>'


def query_href(form: Mapping[str, list[str]], **changes: str) -> str:
    pairs = [(k, v) for k, vs in form.items() if k not in changes for v in vs if v]
    pairs += [(k, v) for k, v in changes.items() if v]
    return "/ui/memories?" + urlencode(pairs)
