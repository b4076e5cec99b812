"""Charts as inline SVG (pure): grouped bars, histograms, baseline-vs-candidate bars, trend lines.

No charting library and no network: each function returns a self-contained `<svg>` string whose
colours come from CSS variables (`--series-0` …), so the page's light and dark themes apply. Every
label is escaped; a `<title>` in each mark gives the exact value on hover.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape

WIDTH, BAR_AREA = 720, 220
SERIES = 8


def _e(text: object) -> str:
    return escape(str(text), quote=True)


def _fmt(value: float | None) -> str:
    if value is None:
        return "n/a"
    return f"{value:.3g}" if abs(value) < 1000 else f"{value:,.0f}"


def _scale(lo: float, hi: float) -> tuple[float, float]:
    """Axis ends: from 0 (or a round negative) to a round number above the largest value."""
    low = -_nice(-lo) if lo < 0 else 0.0
    high = _nice(hi) if hi > 0 else 0.0
    return (low, high) if high > low else (low, low + 1.0)


def _nice(value: float) -> float:
    """The next 'round' number at or above `value` (1, 2, 2.5, 5 × 10^n), for axis ends."""
    magnitude = 10 ** math.floor(math.log10(value))
    return next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= value - 1e-12)


def grouped_bars(title: str, groups: Sequence[tuple[str, Sequence[tuple[str, float | None]]]],
                 unit: str = "") -> str:
    """One cluster of bars per group (e.g. an exercise), one bar per series (e.g. a model)."""
    series = list(dict.fromkeys(name for _, bars in groups for name, _ in bars))
    position = {name: s for s, name in enumerate(series)}
    values = [v for _, bars in groups for _, v in bars if v is not None]
    if not groups or not values:
        return ""
    lo, hi = _scale(min(values), max(values))
    left, top, height = 48, 28, BAR_AREA
    slot = (WIDTH - left - 10) / len(groups)
    bar = max(2.0, min(28.0, (slot - 8) / max(1, len(series))))
    parts = [f'<svg class="chart" viewBox="0 0 {WIDTH} {top + height + 60}" role="img" aria-label="{_e(title)}">',
             f'<text class="chart-title" x="{left}" y="16">{_e(title)}</text>']
    parts += _y_axis(lo, hi, left, top, height, unit)
    zero = top + height * (hi / (hi - lo)) if hi != lo else top + height
    for g, (label, bars) in enumerate(groups):
        x0 = left + g * slot + (slot - bar * len(series)) / 2
        for name, value in bars:
            if value is None:
                continue
            s = position[name]
            y = top + height * (hi - max(value, 0)) / (hi - lo)
            h = abs(value) * height / (hi - lo)
            parts.append(f'<rect class="bar s{s % SERIES}" x="{x0 + s * bar:.1f}" y="{min(y, zero):.1f}" '
                         f'width="{bar - 1:.1f}" height="{max(h, 0.5):.1f}"><title>{_e(label)} · {_e(name)}: '
                         f'{_fmt(value)}{_e(unit)}</title></rect>')
        parts.append(f'<text class="tick" x="{left + g * slot + slot / 2:.1f}" y="{top + height + 14}" '
                     f'text-anchor="middle">{_e(_short(label, int(slot / 8)))}</text>')
    parts += _legend(series, top + height + 34)
    return "".join(parts) + "</svg>"


def histogram(title: str, samples: Sequence[tuple[str, Sequence[float]]], bins: int = 12,
              bounds: tuple[float, float] | None = None) -> str:
    """The distribution of a per-item value, one colour per series, bars side by side in each bin."""
    values = [v for _, xs in samples for v in xs]
    if not values:
        return ""
    lo, hi = bounds if bounds else (min(values), max(values))
    if hi <= lo:
        lo, hi = lo - 0.5, hi + 0.5
    width = (hi - lo) / bins
    counts = []
    for _, xs in samples:
        row = [0] * bins
        for x in xs:
            row[min(bins - 1, max(0, int((x - lo) / width)))] += 1
        counts.append(row)
    top_count = _nice(max(max(row) for row in counts) or 1)
    left, top, height = 48, 28, BAR_AREA
    slot = (WIDTH - left - 10) / bins
    bar = max(1.5, (slot - 4) / len(samples))
    parts = [f'<svg class="chart" viewBox="0 0 {WIDTH} {top + height + 60}" role="img" aria-label="{_e(title)}">',
             f'<text class="chart-title" x="{left}" y="16">{_e(title)}</text>']
    parts += _y_axis(0, top_count, left, top, height, "")
    for s, (name, _) in enumerate(samples):
        for b, count in enumerate(counts[s]):
            if not count:
                continue
            h = count * height / top_count
            parts.append(f'<rect class="bar s{s % SERIES}" x="{left + b * slot + 2 + s * bar:.1f}" '
                         f'y="{top + height - h:.1f}" width="{bar - 0.5:.1f}" height="{h:.1f}"><title>{_e(name)}: '
                         f'{count} in [{_fmt(lo + b * width)}, {_fmt(lo + (b + 1) * width)})</title></rect>')
    for b in range(0, bins + 1, max(1, bins // 6)):
        parts.append(f'<text class="tick" x="{left + b * slot:.1f}" y="{top + height + 14}" '
                     f'text-anchor="middle">{_fmt(lo + b * width)}</text>')
    parts += _legend([name for name, _ in samples], top + height + 34)
    return "".join(parts) + "</svg>"


def comparison_bars(title: str, rows: Sequence[tuple[str, float | None, float | None, str, str]]) -> str:
    """Baseline and candidate side by side per metric, with Δ% and the test's outcome as the label."""
    groups = [(f"{metric} {delta}{' ' + outcome if outcome else ''}", [("baseline", base), ("candidate", cand)])
              for metric, base, cand, delta, outcome in rows if base is not None or cand is not None]
    return grouped_bars(title, groups)


def trend(title: str, series: Sequence[tuple[str, Sequence[tuple[str, float]]]]) -> str:
    """Lines over runs (x: run label, e.g. a commit), one per series."""
    points = [v for _, pts in series for _, v in pts]
    labels = list(dict.fromkeys(label for _, pts in series for label, _ in pts))
    if len(labels) < 2 or not points:
        return ""
    lo, hi = min(points), max(points)
    if hi == lo:
        lo, hi = lo - 0.5, hi + 0.5
    left, top, height = 48, 28, BAR_AREA
    step = (WIDTH - left - 20) / (len(labels) - 1)
    parts = [f'<svg class="chart" viewBox="0 0 {WIDTH} {top + height + 60}" role="img" aria-label="{_e(title)}">',
             f'<text class="chart-title" x="{left}" y="16">{_e(title)}</text>']
    parts += _y_axis(lo, hi, left, top, height, "")
    for s, (name, pts) in enumerate(series):
        coords = [(left + labels.index(x) * step, top + height * (hi - v) / (hi - lo)) for x, v in pts]
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y in coords)
        parts.append(f'<polyline class="line s{s % SERIES}" points="{path}" fill="none"><title>{_e(name)}</title>'
                     "</polyline>")
        parts += [f'<circle class="dot s{s % SERIES}" cx="{x:.1f}" cy="{y:.1f}" r="3"><title>{_e(label)}: '
                  f'{_fmt(v)}</title></circle>' for (x, y), (label, v) in zip(coords, pts, strict=True)]
    parts += _legend([name for name, _ in series], top + height + 34)
    return "".join(parts) + "</svg>"


def _y_axis(lo: float, hi: float, left: int, top: int, height: int, unit: str) -> list[str]:
    parts = [f'<line class="axis" x1="{left}" y1="{top}" x2="{left}" y2="{top + height}"/>',
             f'<line class="axis" x1="{left}" y1="{top + height}" x2="{WIDTH - 10}" y2="{top + height}"/>']
    for i in range(5):
        value = lo + (hi - lo) * i / 4
        y = top + height - height * i / 4
        parts.append(f'<line class="grid" x1="{left}" y1="{y:.1f}" x2="{WIDTH - 10}" y2="{y:.1f}"/>')
        parts.append(f'<text class="tick" x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">'
                     f'{_e(_fmt(value))}{_e(unit)}</text>')
    return parts


def _legend(names: Sequence[str], y: int) -> list[str]:
    parts, x = [], 48.0
    for s, name in enumerate(names):
        parts.append(f'<rect class="bar s{s % SERIES}" x="{x:.1f}" y="{y - 9}" width="10" height="10"/>'
                     f'<text class="legend" x="{x + 14:.1f}" y="{y}">{_e(_short(name, 28))}</text>')
        x += 24 + 7 * min(len(name), 28)
    return parts


def _short(text: str, limit: int) -> str:
    limit = max(4, limit)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def finite(values: Sequence[float | None]) -> list[float]:
    return [float(v) for v in values if v is not None and math.isfinite(v)]
