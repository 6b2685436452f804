"""Inline SVG charts for the HTML report: no CDN, every label escaped.

Each chart scales to the width of its box (a `viewBox`, no fixed size). What a mark stands for
is in its `data-tip`, which the page's script shows on hover (and its `<title>`, for screen
readers, is the chart's). Judge names come from files an agent may have written next to the
results, so every piece of text goes through `markupsafe.escape` before it enters the markup.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from markupsafe import Markup, escape

__all__ = ["Bar", "histogram", "interval_chart", "score_color", "status_chart"]

WIDTH = 640
ROW = 26
LABEL = 200
STATUS_COLORS = {
    "error": "#c0392b",
    "timeout": "#e67e22",
    "skipped": "#95a5a6",
    "missing": "#7f8c8d",
}


def score_color(value: float, low: float = 0.0, high: float = 1.0, *, light: int = 78) -> str:
    """A colour on the continuous red → yellow → green scale for `value` on [low, high].

    >>> score_color(0.5), score_color(2.0)
    ('hsl(60, 70%, 78%)', 'hsl(120, 70%, 78%)')
    """
    share = (value - low) / (high - low) if high > low else 1.0
    return f"hsl({120 * min(1.0, max(0.0, share)):.0f}, 70%, {light}%)"


@dataclass(frozen=True, kw_only=True)
class Bar:
    """One row of an interval chart: a mean on [low_scale, high_scale] with its interval."""

    label: str
    value: float
    low: float | None
    high: float | None
    scale: tuple[float, float] = (0.0, 1.0)
    text: str = ""


def _svg(height: int, body: list[str], title: str) -> Markup:
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" viewBox="0 0 {WIDTH} {height}" '
        f'preserveAspectRatio="xMinYMin meet" class="chart"><title>{escape(title)}</title>'
    )
    return Markup(head + "".join(body) + "</svg>")


def _tip(text: str) -> str:
    return f' data-tip="{escape(text)}"'


def histogram(counts: Sequence[int], *, title: str = "reward") -> Markup:
    """`counts` of values in equal bins over [0, 1], as bars coloured by where they sit."""
    bins = len(counts)
    top = max(counts) or 1
    left, bottom, plot_h = 40, 184, 144
    width = (WIDTH - left - 20) / bins
    body = [f'<line x1="{left}" y1="{bottom}" x2="{WIDTH - 20}" y2="{bottom}" stroke="#444"/>']
    for i, count in enumerate(counts):
        h = plot_h * count / top
        x = left + i * width
        close = "]" if i == bins - 1 else ")"
        tip = f"reward in [{i / bins:.1f}, {(i + 1) / bins:.1f}{close}: {count} cases"
        body.append(
            f'<g class="bin"{_tip(tip)}><rect class="hit" x="{x:.1f}" y="{bottom - plot_h}" '
            f'width="{width:.1f}" height="{plot_h}" fill="transparent"/>'
            f'<rect class="bar" x="{x + 1:.1f}" y="{bottom - h:.1f}" width="{width - 2:.1f}" '
            f'height="{h:.1f}" fill="{score_color((i + 0.5) / bins, light=55)}"/></g>'
        )
        if count:
            body.append(_text(x + width / 2, bottom - h - 4, str(count), anchor="middle"))
    for i in range(0, bins + 1, max(1, bins // 5)):
        body.append(_text(left + i * width, bottom + 16, f"{i / bins:g}", anchor="middle"))
    body.append(_text(8, 14, f"{title}: {sum(counts)} values", anchor="start"))
    return _svg(bottom + 24, body, f"histogram of {title}")


def interval_chart(bars: Sequence[Bar], *, title: str) -> Markup:
    """One horizontal bar per row, with its 95% interval as a whisker."""
    plot_w = WIDTH - LABEL - 170
    body = []
    for i, bar in enumerate(bars):
        y = 10 + i * ROW
        lo, hi = bar.scale
        span = (hi - lo) or 1.0

        def x(v: float, lo: float = lo, span: float = span) -> float:
            return LABEL + plot_w * min(1.0, max(0.0, (v - lo) / span))

        body.append(
            f'<g class="row"{_tip(f"{bar.label}: {bar.text}")}>'
            f'<rect class="hit" x="0" y="{y}" width="{WIDTH}" height="{ROW}" fill="transparent"/>'
            + _text(LABEL - 6, y + 14, _short(bar.label), anchor="end")
            + f'<rect x="{LABEL}" y="{y + 3}" width="{plot_w}" height="16" fill="#eef2f5"/>'
            f'<rect class="bar" x="{LABEL}" y="{y + 3}" width="{x(bar.value) - LABEL:.1f}" '
            f'height="16" fill="{score_color(bar.value, lo, hi, light=50)}"/>'
        )
        if bar.low is not None and bar.high is not None:
            a, b = x(bar.low), x(bar.high)
            body.append(
                f'<path class="whisker" d="M{a:.1f} {y + 11}H{b:.1f}M{a:.1f} {y + 5}V{y + 17}'
                f'M{b:.1f} {y + 5}V{y + 17}" stroke="#1b2631" stroke-width="1.5" fill="none"/>'
            )
        body.append(_text(LABEL + plot_w + 6, y + 14, bar.text, anchor="start") + "</g>")
    return _svg(20 + ROW * max(1, len(bars)), body, title)


def status_chart(rows: Sequence[tuple[str, dict[str, int]]], *, title: str) -> Markup:
    """Per criterion, stacked counts of the outcomes that are not a score."""
    plot_w = WIDTH - LABEL - 170
    top = max((sum(c.get(s, 0) for s in STATUS_COLORS) for _, c in rows), default=0) or 1
    body = []
    for i, (label, counts) in enumerate(rows):
        y, x = 10 + i * ROW, float(LABEL)
        body.append(_text(LABEL - 6, y + 14, _short(label), anchor="end"))
        for status, color in STATUS_COLORS.items():
            w = plot_w * counts.get(status, 0) / top
            if w:
                body.append(
                    f'<rect class="{status}" x="{x:.1f}" y="{y + 3}" width="{w:.1f}" height="16" '
                    f'fill="{color}"{_tip(f"{label}: {counts[status]} {status}")}/>'
                )
                x += w
        shown = ", ".join(f"{counts[s]} {s}" for s in STATUS_COLORS if counts.get(s))
        body.append(_text(x + 6, y + 14, shown or "none", anchor="start"))
    legend = " ".join(
        f'<rect x="{LABEL + i * 90}" y="{20 + ROW * max(1, len(rows))}" width="10" height="10" '
        f'fill="{c}"/>'
        + _text(LABEL + i * 90 + 14, 29 + ROW * max(1, len(rows)), s, anchor="start")
        for i, (s, c) in enumerate(STATUS_COLORS.items())
    )
    return _svg(40 + ROW * max(1, len(rows)), [*body, legend], title)


def _text(x: float, y: float, text: str, *, anchor: str) -> str:
    return f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}">{escape(text)}</text>'


def _short(label: str, limit: int = 30) -> str:
    return label if len(label) <= limit else "…" + label[-(limit - 1) :]
