"""What errdocs' output depends on besides its inputs and the project: its own code and
templates, and the versions of the tools it renders with.

Whatever errdocs keeps between runs that its code derived (the catalogue's rows, page and unit
keys) is keyed by :func:`code_digest`, so a new errdocs, or an edited one, never reuses what an
older one made: the next build gives what a cold build in a fresh clone gives.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

TOOLS = ("mkdocs", "mkdocs-material", "pymdown-extensions", "pygments", "markdown", "jinja2")
"""Packages whose version changes what a page looks like."""
_SOURCES = (".py", ".j2", ".html", ".yml")
"""The package's files that make output: modules, templates, default configs."""


def code_parts() -> Iterator[bytes]:
    """errdocs' code and templates (each file's name and bytes, in a fixed order), and the
    versions of the tools it renders with."""
    package = Path(__file__).parent
    for path in sorted(package.rglob("*")):
        if path.is_file() and path.suffix in _SOURCES:
            yield from (str(path.relative_to(package)).encode(), path.read_bytes())
    for tool in TOOLS:
        yield f"{tool}=={_version(tool)}".encode()


@functools.cache
def code_digest() -> str:
    """SHA-256 of :func:`code_parts`, read once a process (the code does not change while it
    runs)."""
    digest = hashlib.sha256()
    for part in code_parts():
        digest.update(len(part).to_bytes(8, "big"))
        digest.update(part)
    return digest.hexdigest()


def _version(tool: str) -> str:
    try:
        return metadata.version(tool)
    except metadata.PackageNotFoundError:
        return "-"
