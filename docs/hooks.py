"""MkDocs hooks: what the rulesets' pages show that is generated, never written by hand.

A page whose front matter says `ruleset: ID` gets, after its own text, the ruleset's clauses from the
rule catalogue (the words `morale rules` prints) and its state graph, drawn from the rows the engine
fires. A page that says `clauses: ID` gets the clauses alone (`engine`: the engine's own).

The graph is an inline SVG drawn here rather than Mermaid: Material for MkDocs draws Mermaid with a
script it fetches from a CDN at page load, which an offline site cannot do, and the SVG needs no
script at all. `morale graph` still gives the same graph as Mermaid text.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from html import escape
from typing import Any

from morale.core import catalogue
from morale.core.machine import STATES
from morale.core.rulesets import latest

KIND_WORDS = {
    "seed": "stated in our source text",
    "standard": "the published rules beyond our text",
    "default": "a figure our text lost, shipped as data you may replace",
    "engine": "the engine's bookkeeping",
}


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    ruleset = page.meta.get("ruleset")
    if ruleset:
        # The rulesets' index page, beside a ruleset's page, as a link from it.
        engine_page = "../" if config["use_directory_urls"] else "index.html"
        return f"{markdown}\n\n{graph_section(ruleset, engine_page)}\n\n{clauses_section(ruleset)}\n"
    listed = page.meta.get("clauses")
    if listed:
        return f"{markdown}\n\n{clauses_section(listed)}\n"
    return markdown


# -- the clauses -------------------------------------------------------------------------------------
def clauses_section(ruleset: str) -> str:
    clauses = catalogue.of_ruleset(ruleset)
    if not clauses:
        raise ValueError(f"the catalogue has no clauses for {ruleset!r}")
    counts = defaultdict(int)
    for clause in clauses:
        counts[clause.kind] += 1
    said = ", ".join(f"{counts[kind]} {kind}" for kind in KIND_WORDS if counts[kind])
    rows = "\n".join(
        f'<dt id="{escape(c.id)}"><code>{escape(c.id)}</code> {escape(c.title)} '
        f'<small title="{escape(KIND_WORDS[c.kind])}">{escape(c.kind)}</small></dt>\n<dd>{escape(c.words)}</dd>'
        for c in clauses
    )
    return (
        "## Its clauses\n\n"
        f"Every rule ID the engine cites for `{ruleset}`, in the catalogue's words and order ({said}; "
        f"`morale rules {ruleset}` prints the same). A clause is `seed` when our source text states it, "
        "`standard` when the published rules add it, `default` when it is a figure the source text lost, "
        "shipped as data you may replace.\n\n"
        f'<dl class="clauses">\n{rows}\n</dl>'
    )


# -- the state graph ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Edge:
    number: int
    source: str
    dest: str
    moves: tuple[tuple[str, str], ...]  # (trigger, rule ID), as the graph's rows give them


def edges(rows: tuple[dict[str, Any], ...], states: list[str]) -> list[Edge]:
    """One edge per (source, destination), carrying every row that moves a unit along it."""
    moves: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
    for row in rows:
        sources = states if row["source"] == "*" else row["source"]
        for source in [sources] if isinstance(sources, str) else sources:
            dest = source if row["dest"] == "=" else row["dest"]
            moves[(source, dest)].append((row["trigger"], row["rule"]))
    ordered = sorted(moves, key=lambda pair: (states.index(pair[0]), states.index(pair[1])))
    return [Edge(n, s, d, tuple(moves[(s, d)])) for n, (s, d) in enumerate(ordered, 1)]


BOX_W, BOX_H, RADIUS_X, RADIUS_Y, MARGIN = 150, 44, 260, 170, 40


def graph_section(ruleset_id: str, engine_page: str) -> str:
    ruleset = latest(ruleset_id)
    graph = ruleset.graph
    used = ["steady", *sorted(graph.states - {"steady"}, key=STATES.index)]
    drawn = edges(graph.rows, used)
    names = ruleset.state_names
    table = "\n".join(
        f"<tr><td>{e.number}</td><td><code>{e.source}</code></td><td><code>{e.dest}</code></td>"
        f"<td>{'<br>'.join(move_html(trigger, rule, engine_page) for trigger, rule in e.moves)}</td></tr>"
        for e in drawn
    )
    return (
        "## Its state graph\n\n"
        f"The unit states of `{ruleset.id}` version {ruleset.version} and every move between them, drawn from "
        "the rows of its `transitions` graph, the only moves the engine makes (a referee's ruling aside). "
        "Each box gives the machine's value and, below it, the ruleset's word for it; each numbered arrow "
        "is a row of the table, which names the clause that moves the unit. A unit starts `steady`.\n\n"
        f"{svg(used, names, drawn, f'{ruleset.id}: {ruleset.title}')}\n\n"
        '<table class="moves">\n<thead><tr><th>#</th><th>from</th><th>to</th><th>move (rule)</th></tr></thead>\n'
        f"<tbody>\n{table}\n</tbody>\n</table>"
    )


def move_html(trigger: str, rule: str, engine_page: str) -> str:
    """A move of the table: its trigger, and its rule ID linking to its clause (the engine's are listed
    on the rulesets' index page, `engine_page`)."""
    where = engine_page if rule.startswith("engine.") else ""
    return f'<code>{escape(trigger)}</code> (<a href="{where}#{escape(rule)}"><code>{escape(rule)}</code></a>)'


def positions(states: list[str]) -> dict[str, tuple[float, float]]:
    """The states on an ellipse, `steady` on the left, in the machine's order clockwise: no edge
    crosses a box, and each edge's number sits clear of the others'."""
    centre_x, centre_y = MARGIN + BOX_W / 2 + RADIUS_X, MARGIN + BOX_H / 2 + RADIUS_Y
    placed = {}
    for i, state in enumerate(states):
        angle = math.pi + 2 * math.pi * i / len(states)
        placed[state] = (centre_x + RADIUS_X * math.cos(angle), centre_y + RADIUS_Y * math.sin(angle))
    return placed


def border_point(centre: tuple[float, float], towards: tuple[float, float]) -> tuple[float, float]:
    """Where the line from a box's centre towards a point leaves the box."""
    dx, dy = towards[0] - centre[0], towards[1] - centre[1]
    scale = min(BOX_W / 2 / abs(dx) if dx else math.inf, BOX_H / 2 / abs(dy) if dy else math.inf)
    return centre[0] + dx * scale, centre[1] + dy * scale


def svg(states: list[str], names: dict[str, str], drawn: list[Edge], title: str) -> str:
    placed = positions(states)
    width, height = 2 * (MARGIN + RADIUS_X) + BOX_W, 2 * (MARGIN + RADIUS_Y) + BOX_H
    parts = [
        f'<svg class="state-graph" role="img" viewBox="0 0 {width:.0f} {height:.0f}" '
        f'xmlns="http://www.w3.org/2000/svg"><title>{escape(title)}</title>',
        '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" '
        'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="currentColor"/></marker></defs>',
    ]
    for edge in drawn:
        parts.append(edge_svg(edge, placed))
    for state in states:
        x, y = placed[state]
        parts.append(
            f'<g class="state"><rect x="{x - BOX_W / 2:.1f}" y="{y - BOX_H / 2:.1f}" width="{BOX_W}" height="{BOX_H}" '
            f'rx="8" fill="white" stroke="currentColor"/>'
            f'<text x="{x:.1f}" y="{y - 4:.1f}" text-anchor="middle" font-family="monospace" font-size="13">'
            f"{state}</text>"
            f'<text x="{x:.1f}" y="{y + 13:.1f}" text-anchor="middle" font-size="12" font-style="italic">'
            f"{escape(names.get(state, state))}</text></g>"
        )
    parts.append("</svg>")
    return "".join(parts)


def edge_svg(edge: Edge, placed: dict[str, tuple[float, float]]) -> str:
    sx, sy = placed[edge.source]
    if edge.source == edge.dest:  # a loop above the box
        top = sy - BOX_H / 2
        left, right, high = f"{sx - 20:.1f},{top:.1f}", f"{sx + 20:.1f},{top:.1f}", top - 50
        path = f"M{left} C{sx - 40:.1f},{high:.1f} {sx + 40:.1f},{high:.1f} {right}"
        label = (sx, top - 38)
    else:
        dx, dy = placed[edge.dest]
        # Two edges between the same pair (there and back) bend to either side of the straight line.
        length = math.hypot(dx - sx, dy - sy)
        normal = (-(dy - sy) / length, (dx - sx) / length)
        bend = 30
        control = ((sx + dx) / 2 + normal[0] * bend, (sy + dy) / 2 + normal[1] * bend)
        start, end = border_point((sx, sy), control), border_point((dx, dy), control)
        path = f"M{start[0]:.1f},{start[1]:.1f} Q{control[0]:.1f},{control[1]:.1f} {end[0]:.1f},{end[1]:.1f}"
        # The number a little nearer the source than the middle, so that an edge there and the edge
        # back, and the edges meeting at one box, keep their numbers apart.
        at = 0.4
        label = (
            (1 - at) ** 2 * start[0] + 2 * at * (1 - at) * control[0] + at**2 * end[0],
            (1 - at) ** 2 * start[1] + 2 * at * (1 - at) * control[1] + at**2 * end[1],
        )
    moves = "; ".join(f"{t} ({r})" for t, r in edge.moves)
    return (
        f'<g class="move"><title>{escape(f"{edge.number}: {edge.source} to {edge.dest}: {moves}")}</title>'
        f'<path d="{path}" fill="none" stroke="currentColor" marker-end="url(#arrow)"/>'
        f'<circle cx="{label[0]:.1f}" cy="{label[1]:.1f}" r="10" fill="white" stroke="currentColor"/>'
        f'<text x="{label[0]:.1f}" y="{label[1] + 4:.1f}" text-anchor="middle" font-size="11">{edge.number}</text></g>'
    )
