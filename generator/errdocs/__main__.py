"""The ``errdocs`` command (and ``python -m errdocs``): choose the engine, then run the CLI.

The engine (MkDocs or ProperDocs, see :mod:`errdocs.units.engine`) must be in place before anything
imports MkDocs, and :mod:`errdocs.cli` does: so it is chosen here, from ``--engine`` or
``ERRDOCS_ENGINE``, and the CLI is imported after.
"""

from __future__ import annotations

import sys

from errdocs.units import engine


def main() -> None:
    """Entry point of the ``errdocs`` command."""
    try:
        engine.activate_from(sys.argv[1:])
    except engine.EngineError as exc:
        raise SystemExit(f"Error: {exc.line()}") from None
    from errdocs.cli import main as cli

    cli(prog_name="errdocs")


if __name__ == "__main__":
    main()
