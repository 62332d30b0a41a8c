"""The report's charts, drawn by pygal as static SVG to inline in the page: no script, no fetch."""

from __future__ import annotations

import re

import pygal
from pygal.style import Style

from morale.app.language import say
from morale.core.words import Words
from morale.projections.report import STATE_ORDER, Report

# A quiet style that prints well; pygal's own tooltips script is left out (`js=[]`): the page needs
# no network, and each point's value is on the axis anyway.
STYLE = Style(
    background="white",
    plot_background="white",
    foreground="#222",
    foreground_strong="#111",
    foreground_subtle="#888",
    font_family="system-ui, sans-serif",
    # Sized for the page's box (report.css: 640 to 900px wide for 900 drawn), so none is under 11px.
    label_font_size=16,
    major_label_font_size=16,
    legend_font_size=16,
    title_font_size=20,
    value_font_size=16,
    colors=("#1b6ca8", "#d1495b", "#2e933c", "#edae49", "#6a4c93", "#00798c", "#8d5a3b", "#555555"),
)
_COMMON = {
    "style": STYLE,
    "js": [],
    "disable_xml_declaration": True,
    "width": 900,
    "height": 460,
    "legend_at_bottom": True,
    "x_label_rotation": 40,
    "truncate_label": 40,
    "truncate_legend": 40,
}


def _common() -> dict:
    """The options every chart has, with pygal's own words (the text of a chart with nothing in it)
    and its numbers (0,25 in Russian) in the reader's language."""
    return {
        **_COMMON,
        "no_data_text": say(Words("No data")),
        "value_formatter": _number,
        "x_value_formatter": _number,
    }


def _number(value: object) -> str:
    """A number on a chart as pygal writes one (ten significant digits), in the reader's language."""
    if value is None:
        return ""
    if isinstance(value, int | float):
        return say(Words("{value:.10g}", value=float(value)))
    return str(value)


def state_chart_title(side: str) -> Words:
    return Words("{side}: each unit's state at every phase end", side=side)


def state_chart(data: Report, side: str) -> str:
    """Each of a side's units, its state at every phase end: one line a unit, the states on the axis
    in the ruleset's words, from holding (bottom) to gone (top)."""
    used = [s for s in STATE_ORDER if any(s in series.states for series in data.series)]
    level = {state: index for index, state in enumerate(used)}
    chart = pygal.Line(
        **_common(),
        title=say(state_chart_title(side)),
        y_labels=[{"label": say(data.state_names[state]), "value": level[state]} for state in used],
        range=(0, max(len(used) - 1, 1)),
        x_labels_major_every=max(1, len(data.phase_ends) // 12),
        show_minor_x_labels=False,
    )
    chart.x_labels = [say(label) for label in data.phase_ends]
    for series in data.series:
        if series.side == side:
            chart.add(series.name, [level.get(state) if state else None for state in series.states])
    return _static(chart, f"states-{side}")


def luck_chart(data: Report) -> str:
    """Each side's passes minus the passes it could expect, roll after roll: above zero is luckier
    than the odds, below is unluckier."""
    chart = pygal.XY(
        **_common(),
        title=say(Words("Cumulative luck: passes minus expected passes, by event")),
        x_title=say(Words("event (sequence number)")),
        y_title=say(Words("passes minus expected")),
        dots_size=3,
    )
    for side, points in data.cumulative_luck.items():
        chart.add(side, [(seq, round(value, 3)) for seq, value in points])
    return _static(chart, "luck")


_SCRIPT = re.compile(r"<script\b.*?</script>", re.S)
_GENERATED_ON = re.compile(r"<!--Generated with .*?-->")


def _static(chart: pygal.graph.graph.Graph, name: str) -> str:
    """The chart's SVG with nothing to run (pygal writes its config into an inline script for its
    tooltips, which the page leaves out) and the same bytes for the same battle: its random id and
    the date it was drawn give way to the chart's name."""
    svg = chart.render(is_unicode=True)
    svg = _GENERATED_ON.sub("", _SCRIPT.sub("", svg))
    return svg.replace(str(chart.uuid), re.sub(r"[^A-Za-z0-9_-]", "-", name))
