"""Where the bytes of a built page go: head, header, sidebars, each code block, scripts...

    .venv/bin/python bench/page_anatomy.py SITE/errors/OWNER/REPO/SLUG/index.html [...]

Prints, per page (or the mean over several), the bytes of each region of the page (regions do
not overlap; "rest" is what no region claims) and, across regions, of some kinds of markup
(inline SVG icons, line-number markup, syntax-highlighting spans, heading permalinks).
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param",
        "source", "track", "wbr"}


class Elements(HTMLParser):
    """Start and end offsets of every element, from a page's text."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=False)
        self.lines = [0]
        for line in text.splitlines(keepends=True):
            self.lines.append(self.lines[-1] + len(line.encode("utf-8")))
        self.text = text
        self.found: list[tuple[str, dict[str, str], int, int]] = []
        self.stack: list[tuple[str, dict[str, str], int]] = []
        self.feed(text)

    def _offset(self) -> int:
        line, column = self.getpos()
        # getpos() counts characters; the line table counts bytes: code text here is ASCII.
        return self.lines[line - 1] + column

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        start = self._offset()
        values = {k: v or "" for k, v in attrs}
        if tag in VOID:
            self.found.append((tag, values, start, start + len(self.get_starttag_text() or "")))
        else:
            self.stack.append((tag, values, start))

    def handle_endtag(self, tag: str) -> None:
        end = self._offset() + len(f"</{tag}>")
        while self.stack:
            name, attrs, start = self.stack.pop()
            self.found.append((name, attrs, start, end))
            if name == tag:
                break


def _region(tag: str, attrs: dict[str, str]) -> str | None:
    """The region an element starts, or None."""
    classes = attrs.get("class", "").split()
    if tag == "head":
        return "head"
    if tag == "header":
        return "header (logo, title, palette, search box)"
    if "md-sidebar--primary" in classes:
        return "nav sidebar (drawer)"
    if "md-sidebar--secondary" in classes:
        return "TOC sidebar"
    if tag == "footer":
        return "footer"
    if tag == "script" and attrs.get("id") == "__config":
        return "__config JSON"
    if any(c.startswith("language-") for c in classes) and "highlight" in classes:
        return "code block"
    return None


def anatomy(path: Path) -> tuple[int, Counter[str], Counter[str]]:
    """Total bytes, bytes by region, bytes by kind of markup."""
    raw = path.read_bytes()
    text = raw.decode("utf-8")
    regions: Counter[str] = Counter()
    claimed: list[tuple[int, int]] = []
    blocks = 0
    for tag, attrs, start, end in sorted(Elements(text).found, key=lambda e: e[2]):
        name = _region(tag, attrs)
        if name is None or any(a <= start < b for a, b in claimed):
            continue
        if name == "code block":
            blocks += 1
            linenos = "linenos" in text[start:end]
            name = f"code block {blocks}{' (numbered excerpt)' if linenos else ''}"
        claimed.append((start, end))
        regions[name] += end - start
    scripts = sum(len(m.group(0).encode()) for m in re.finditer(r"<script\b.*?</script>",
                                                              text, re.S)
                  if not any(a <= m.start() < b for a, b in claimed))
    regions["other inline and linked scripts"] = scripts
    regions["rest (article text, headings, tabs, body toggles)"] = len(raw) - sum(
        regions.values())
    kinds: Counter[str] = Counter()
    for label, pattern in {
        "inline SVG icons": r"<svg\b.*?</svg>",
        "line-number column (td.linenos)": r'<td class="linenos">.*?</td>',
        "line anchors in the code": r'<a id="__codelineno[^>]*></a>',
        "highlighting spans (tags only)": r'<span class="[a-z0-9]{1,3}">|</span>',
        "heading permalinks": r'<a class="headerlink"[^>]*>&para;</a>',
        "JSON-LD": r'<script type="application/ld\+json">.*?</script>',
        "Open Graph / article / twitter meta": r'<meta (?:property|name)="(?:og|article|twitter)'
                                                r'[^>]*>',
    }.items():
        kinds[label] = sum(len(m.group(0).encode()) for m in re.finditer(pattern, text, re.S))
    return len(raw), regions, kinds


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    total, regions, kinds = 0, Counter[str](), Counter[str]()
    for name in argv:
        size, by_region, by_kind = anatomy(Path(name))
        total += size
        regions.update(by_region)
        kinds.update(by_kind)
    count = len(argv)
    print(f"{count} page(s), mean {total / count:,.0f} bytes\n")
    print("| region | bytes | share |\n| --- | ---: | ---: |")
    for label, size in sorted(regions.items(), key=lambda item: -item[1]):
        print(f"| {label} | {size / count:,.0f} | {100 * size / total:.1f}% |")
    print("\n| kind of markup (across regions) | bytes | share |\n| --- | ---: | ---: |")
    for label, size in sorted(kinds.items(), key=lambda item: -item[1]):
        print(f"| {label} | {size / count:,.0f} | {100 * size / total:.1f}% |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
