"""Which MkDocs engine builds the pages: MkDocs itself, or ProperDocs (its maintained fork).

ProperDocs 1.6 is MkDocs 1.6.1 under another name. It runs the plugins and themes registered
under MkDocs' entry-point groups (``mkdocs.plugins``, ``mkdocs.themes``: Material, errdocs'
own plugins) and reads ``mkdocs.yml``. Those plugins import ``mkdocs.*``; ProperDocs makes them
work by importing :mod:`properdocs.replacement`, which points every ``mkdocs`` import of the
process at the matching ``properdocs`` module. So the engine is a choice for the whole process,
made before anything imports MkDocs: the ``errdocs`` command makes it first thing
(:mod:`errdocs.__main__`), from ``--engine`` or ``ERRDOCS_ENGINE``. Worker processes are
forked from it and inherit it.

Nothing here imports MkDocs.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from importlib import metadata

from errdocs.errors import InputError

MKDOCS = "mkdocs"
PROPERDOCS = "properdocs"
ENGINES = (MKDOCS, PROPERDOCS)
NAMES = {MKDOCS: "MkDocs", PROPERDOCS: "ProperDocs"}
"""How messages name them."""
ENV = "ERRDOCS_ENGINE"
OPTION = "--engine"


class EngineError(InputError):
    """The engine asked for cannot run in this process (or is not installed)."""


def active() -> str:
    """The engine this process runs: ProperDocs once its replacement module is in place."""
    properdocs = sys.modules.get(PROPERDOCS)
    return PROPERDOCS if properdocs is not None and sys.modules.get(MKDOCS) is properdocs \
        else MKDOCS


def display() -> str:
    """The active engine's name for messages: ``MkDocs`` or ``ProperDocs``."""
    return NAMES[active()]


def label() -> str:
    """The active engine and its version, e.g. ``properdocs==1.6.7`` (part of the build key,
    so units built by one engine are never taken as built by the other)."""
    name = active()
    try:
        return f"{name}=={metadata.version(name)}"
    except metadata.PackageNotFoundError:
        return f"{name}==-"


def requested(argv: Sequence[str], environ: Mapping[str, str]) -> str | None:
    """The engine named by ``--engine NAME`` / ``--engine=NAME`` in ``argv`` (before any
    ``--``), else by ``ERRDOCS_ENGINE``; None when neither names one."""
    for position, arg in enumerate(argv):
        if arg == "--":
            break
        if arg == OPTION and position + 1 < len(argv):
            return argv[position + 1]
        if arg.startswith(OPTION + "="):
            return arg.partition("=")[2]
    return environ.get(ENV) or None


def activate(name: str) -> None:
    """Make ``name`` this process's engine; it must be called before MkDocs is imported.

    An unknown name is left to the command line's own check (which lists the choices).
    """
    if name not in ENGINES or name == active():
        return
    if name == MKDOCS or MKDOCS in sys.modules:
        raise EngineError(
            f"{OPTION} {name}: this process already loaded {active()}, and the engine is chosen "
            f"when errdocs starts; run `errdocs ... {OPTION} {name}` (or set {ENV}={name}) "
            "as a new command")
    try:
        import properdocs.replacement  # noqa: F401  (mkdocs.* imports now load properdocs.*)
    except ImportError as exc:
        raise EngineError(f"{OPTION} {PROPERDOCS}: ProperDocs is not installed; install it "
                          "with `pip install properdocs==1.6.7` (`make site` does)") from exc


def require(name: str) -> None:
    """Check that the active engine is ``name`` (the command's ``--engine``), activating it
    when nothing has imported MkDocs yet."""
    activate(name)
    if active() != name:  # pragma: no cover - activate() raises first
        raise EngineError(f"{OPTION} {name}: this process runs {active()}")


def activate_from(argv: Sequence[str], environ: Mapping[str, str] = os.environ) -> None:
    """At start-up: activate the engine that ``argv`` or the environment asks for."""
    name = requested(argv, environ)
    if name is not None:
        activate(name)
