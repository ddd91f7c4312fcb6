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
SCOPES = tuple(s.value for s in Scope)
STATES = tuple(s.value for s in MemoryState)


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
            links.append('<a href="/ui/health">Store health</a>')
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
    picked = set(chosen)
    items = "".join(f'<option value="{esc(v)}"{" selected" if v in picked else ""}>{esc(v)}</option>' for v in values)
    return f'<select name="{name}" multiple size="4">{items}</select>'


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


def _trace_line(trace: Mapping[str, Any], extra: str = "") -> str:
    tags = "".join(f'<span class="tag">{esc(t)}</span>' for t in trace.get("tags") or [])
    pinned = '<span class="pin">pinned</span>' if trace.get("pinned") else ""
    return (f'<li class="memory"><a href="{esc(memory_href(trace["id"]))}">{esc(trace.get("content"))}</a>'
            f'<div class="facts">{esc(trace.get("type"))} · {esc(trace.get("scope"))} · '
            f'{esc(when(trace.get("created_at")))} {pinned} {tags}</div>{extra}</li>')


def memory_list(form: Mapping[str, list[str]], page: Mapping[str, Any], next_href: str | None, *,
                timeline: bool = False) -> str:
    """A page of memories; as a timeline, oldest first under a heading per day."""
    lines: list[str] = []
    day = None
    for r in page["items"]:
        if timeline and when(r["trace"].get("created_at"))[:10] != day:
            day = when(r["trace"].get("created_at"))[:10]
            lines.append(f'</ul><h3 class="day">{esc(day)}</h3><ul class="memories">')
        lines.append(_trace_line(r["trace"], f'<div class="facts">state {esc(r.get("state"))} · '
                                             f'version {esc(r.get("version"))}</div>'))
    items = "".join(lines)
    more = f'<p><a href="{esc(next_href)}" rel="next">Next page</a></p>' if next_href else ""
    listing = (f'<ul class="memories{" timeline" if timeline else ""}">{items}</ul>' if items
               else message("No memories match."))
    return filters_form(form) + listing + more


def _signals(signals: Mapping[str, Any]) -> str:
    rows = []
    for name, value in sorted(signals.items()):
        if not isinstance(value, int | float):
            continue
        rows.append(f'<tr><th>{esc(name)}</th><td><meter min="0" max="1" value="{max(0.0, min(1.0, value)):.4f}">'
                    f'</meter></td><td class="num">{value:.3f}</td></tr>')
    return f'<table class="signals">{"".join(rows)}</table>' if rows else ""


def search_results(form: Mapping[str, list[str]], result: Mapping[str, Any]) -> str:
    hits = "".join(_trace_line(t["trace"], f'<div class="score">score <b>{t["score"]:.3f}</b></div>'
                                           f'{_signals(t.get("signals") or {})}') for t in result["traces"])
    listing = f'<ol class="memories hits">{hits}</ol>' if hits else message("Nothing found.")
    return filters_form(form) + listing


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
           csrf: str, may_change: bool, projection: Projection | None = None) -> str:
    trace = record["trace"]
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
    return (f'<blockquote class="content">{esc(trace.get("content"))}</blockquote>{facts}'
            f'<p><a class="graph-link" href="{esc(href)}/graph">Draw its graph</a></p>{actions}'
            + (strength(projection, record.get("state")) if projection is not None else "") +
            f'<h3>Versions</h3><ol class="versions">{history}</ol>'
            f'<h3>Edges and neighbours</h3>' + (f'<ul class="edges">{edges}</ul>' if edges else message("No edges.")))


def graph(hood: Mapping[str, Any], counts: Mapping[str, int], cap: int, drawing: str) -> str:
    """One memory's graph: the drawing (NVL), what it bounds, and the nodes as a list too."""
    trace = hood["trace"]
    captions = "".join(f'<li><a href="{esc(memory_href(n["id"]))}">{esc(n.get("content"))}</a></li>'
                       for n in hood.get("neighbours", []))
    return (f'<p><a href="{esc(memory_href(trace["id"]))}">Back to the memory</a></p>'
            f'<blockquote class="content">{esc(trace.get("content"))}</blockquote>'
            f'<p class="hint">The memory, its strongest edges and the neighbours at their other ends, at most '
            f'{cap} of them: {counts.get("nodes", 0)} node(s) and {counts.get("relationships", 0)} edge(s) '
            f'drawn.</p>{drawing}<h3>Neighbours drawn</h3>'
            + (f'<ul class="neighbours">{captions}</ul>' if captions else message("No neighbours.")))


def forget_confirm(record: Mapping[str, Any], hood: Mapping[str, Any], versions: int, *, csrf: str) -> str:
    trace = record["trace"]
    href = memory_href(trace["id"])
    if trace.get("pinned"):
        return (message("This memory is pinned (a truth anchor): unpin it before forgetting it.")
                + f'<p><a href="{esc(href)}">Back</a></p>')
    edges = len(hood.get("edges", []))
    return (f'<p>Forget this memory for good?</p><blockquote class="content">{esc(trace.get("content"))}</blockquote>'
            f'<p class="warning">Deleted: the memory, its {versions} version(s), its {edges} edge(s), its vectors, '
            'any archived original and what was made from it. This cannot be undone.</p>'
            f'<form method="post" action="{esc(href)}/forget"><input type="hidden" name="csrf" value="{esc(csrf)}">'
            f'<button class="danger">Forget it</button> <a href="{esc(href)}">Cancel</a></form>')


def health(stats: Mapping[str, Any], ready: Mapping[str, Any]) -> str:
    store = stats.get("store") or {}
    rows = [(k, esc(v)) for k, v in sorted(store.items()) if not isinstance(v, dict | list)]
    rows += [(k, f"<code>{esc(json.dumps(v, sort_keys=True))}</code>") for k, v in sorted(store.items())
             if isinstance(v, dict | list)]
    checks = [(k, esc(v)) for k, v in ready.items()]
    general = [("uptime (s)", esc(stats.get("uptime_s"))), ("agent handles", esc(stats.get("agent_handles")))]
    return ("<h3>Backends</h3>" + definition(checks) + "<h3>Server</h3>" + definition(general)
            + "<h3>Store (counts only, no content)</h3>" + definition(rows))


def query_href(form: Mapping[str, list[str]], **changes: str) -> str:
    pairs = [(k, v) for k, vs in form.items() if k not in changes for v in vs if v]
    pairs += [(k, v) for k, v in changes.items() if v]
    return "/ui/memories?" + urlencode(pairs)
