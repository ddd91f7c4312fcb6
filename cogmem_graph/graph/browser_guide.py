"""Builds the Neo4j Browser guide from the saved queries in `cypher/browser/`.

Each `.cypher` file becomes one slide: its leading `//` comment lines are the
explanation (a line starting `:param` becomes a runnable parameter block), the
statement is a runnable code block. The committed `cypher/browser/guide.html`
is this function's output; a test keeps the two in step.
"""

from __future__ import annotations

import html

from cogmem_graph.graph.cypher import cypher_root

TITLE = "cogmem-graph: why did the agent remember that?"


def _split(text: str) -> tuple[list[str], list[str], str]:
    notes: list[str] = []
    params: list[str] = []
    body: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("//") and not body:
            comment = stripped[2:].strip()
            for part in [p.strip() for p in comment.split("   ") if p.strip()]:
                (params if part.startswith(":param") else notes).append(part)
        elif stripped or body:
            body.append(line)
    return notes, params, "\n".join(body).strip()


def render_guide() -> str:
    folder = cypher_root() / "browser"
    slides = []
    for path in sorted(folder.glob("*.cypher")):
        notes, params, statement = _split(path.read_text(encoding="utf-8"))
        title = path.stem.replace("_", " ").capitalize()
        parts = [f"<slide class=\"row-fluid\">\n<div class=\"col-sm-12\">\n<h3>{html.escape(title)}</h3>"]
        parts += [f"<p>{html.escape(n)}</p>" for n in notes]
        for p in params:
            parts.append(f"<pre class=\"pre-scrollable code runnable\">{html.escape(p)}</pre>")
        parts.append(f"<pre class=\"pre-scrollable code runnable\">{html.escape(statement)}</pre>")
        parts.append("</div>\n</slide>")
        slides.append("\n".join(parts))
    intro = (
        "<slide class=\"row-fluid\">\n<div class=\"col-sm-12\">\n"
        f"<h3>{html.escape(TITLE)}</h3>\n"
        "<p>Traces are memories (coloured by type), Entities what they mention, Schemas what "
        "consolidation learned. Edge weights are association strengths in [0, 1]. Load the style "
        "first by dragging <code>cypher/browser/style.grass</code> onto the Browser, or with "
        "<code>:style</code>. Every query takes the scope keys you may see as a parameter.</p>\n"
        "</div>\n</slide>"
    )
    return (
        "<article class=\"guide\" ng-controller=\"AppCtrl\">\n<carousel class=\"deck container-fluid\">\n"
        + "\n".join([intro, *slides])
        + "\n</carousel>\n</article>\n"
    )


def write_guide() -> str:
    target = cypher_root() / "browser" / "guide.html"
    target.write_text(render_guide(), encoding="utf-8")
    return str(target)
