"""The build's worker processes (``units/workers.py``)."""

from __future__ import annotations

from errdocs.pages import excerpt, render
from errdocs.units.workers import Workers


def _made() -> tuple[int, int, int]:
    """In a worker: the template environments it made, the templates it holds compiled and
    the file name endings whose language it looked up."""
    made = render.environment.cache_info().currsize
    compiled = len(render.environment().cache or {}) if made else 0
    return made, compiled, excerpt._lexer_alias.cache_info().currsize


def test_a_worker_compiles_the_templates_and_pygments_patterns_as_it_starts() -> None:
    # Forked from a process that has made none of it, so the worker made what it holds.
    render.environment.cache_clear()
    excerpt._lexer_alias.cache_clear()
    with Workers(2) as workers:
        call = workers.call(_made)
        assert call is not None
        made, compiled, looked = call()
    templates = render.environment().list_templates(extensions=["j2"])
    assert made == 1 and compiled == len(templates) > 5
    assert looked >= 1
