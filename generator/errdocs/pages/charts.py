"""Small bar charts drawn at build time as inline SVG: no script, no request.

The SVG takes its colours from the theme's CSS variables (errdocs.css, ``.errdocs-chart``),
so it reads in the light and the dark scheme; its ``<title>`` says every bar in words, for
screen readers. Labels are record text: escaped as HTML (the chart is a raw HTML block,
which Markdown leaves alone).
"""

from __future__ import annotations

from markupsafe import Markup, escape

from errdocs.pages.short import ROW_VALUE_CHARS, clip, shorten

BAR = 18
"""Height of a bar, in SVG units."""
GAP = 6
"""Space between bars."""
LABEL = 140
"""Width of the labels' column: :data:`LABEL_CHARS` characters of 13 units fit in it (an
18-character label overflowed 120 units, and a phone cut it off)."""
WIDTH = 340
"""Width of the whole chart."""
LABEL_CHARS = 16
"""A label is cut to this many characters (its full text, up to
:data:`~errdocs.pages.short.ROW_VALUE_CHARS`, stays in the title)."""


def bar_chart(ident: str, caption: str, bars: list[tuple[str, int]]) -> Markup:
    """A ``<figure>`` with one horizontal bar per ``(label, count)``, longest first as
    given. ``ident`` must be unique on the page (it ties the SVG to its title)."""
    if not bars:
        return Markup("")
    largest = max(count for _, count in bars) or 1
    room = WIDTH - LABEL - 48  # the count's text after the longest bar
    height = len(bars) * (BAR + GAP)
    # The title says each label whole, up to a row's length (a value can be any length).
    words = "; ".join(f"{clip(label, ROW_VALUE_CHARS)}: {count}" for label, count in bars)
    parts = ['<figure class="errdocs-chart">',
             f'<figcaption aria-hidden="true">{escape(caption)}</figcaption>',
             f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" '
             f'role="img" aria-labelledby="{ident}">',
             f'<title id="{ident}">{escape(caption)}: {escape(words)}.</title>']
    for row, (label, count) in enumerate(bars):
        y = row * (BAR + GAP)
        width = max(1, round(room * count / largest))
        middle = y + BAR / 2
        parts.append(
            f'<text x="{LABEL - 6}" y="{middle:g}" text-anchor="end" dominant-baseline="central">'
            f'{escape(shorten(label, LABEL_CHARS))}</text>'
            f'<rect x="{LABEL}" y="{y}" width="{width}" height="{BAR}" rx="2"/>'
            f'<text x="{LABEL + width + 4}" y="{middle:g}" dominant-baseline="central">'
            f'{count}</text>')
    parts += ["</svg>", "</figure>"]
    return Markup("".join(parts))
