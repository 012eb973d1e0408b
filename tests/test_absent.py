"""Which generated pages a build found missing (errdocs.build._hand_written): the fewer of the
missing and the found are held, and either way every unit's page is told apart alike."""

from __future__ import annotations

from types import SimpleNamespace
from typing import cast

from hypothesis import given
from hypothesis import strategies as st

from errdocs import build
from errdocs.pages.write import MANIFEST, SortedPaths
from errdocs.project import Settings
from errdocs.units.build import Absent

_SETTINGS = cast(Settings, SimpleNamespace(subtree="errors"))
_NAMES = st.text("abc/", min_size=1, max_size=8).map(lambda name: f"{name.lstrip('/')}.md")
"""Generated-tree paths (never starting with ``/``: a unit's static files do)."""


@given(st.sets(_NAMES, max_size=30), st.data())
def test_the_missing_pages_are_those_not_found(generated: set[str], data: st.DataObject) -> None:
    found = data.draw(st.sets(st.sampled_from(sorted(generated)))) if generated else set()
    hand = data.draw(st.sets(_NAMES.filter(lambda n: n not in generated), max_size=5))
    outside = data.draw(st.sets(_NAMES, max_size=3))
    # Listed in errdocs' manifest but no longer made (the build removes them): not hand-written.
    stale = data.draw(st.sets(_NAMES.filter(lambda n: n not in generated | hand), max_size=3))
    files = sorted([f"errors/{p}" for p in found | hand | stale | {MANIFEST}]
                   + [f"other/{p}" for p in outside])
    docs = build._Docs(files, frozenset(), [])
    hand_written, absent = build._hand_written(_SETTINGS, docs, SortedPaths.of(generated),
                                               frozenset(stale))
    missing = generated - found
    assert isinstance(absent, Absent)
    assert {p for p in generated if p in absent} == missing
    assert bool(absent) == bool(missing) and absent.count == len(missing)
    assert not any(f"/{p}" in absent for p in generated)  # a unit's static file: never
    assert sorted(hand_written) == sorted([f"errors/{p}" for p in hand]
                                          + [f"other/{p}" for p in outside])
    # (found-mode holds every path of the tree found: errdocs' manifest and stale files too)
    assert len(absent.paths) <= min(len(missing), len(found)) + len(hand) + len(stale) + 1


def test_a_cold_build_holds_no_path_as_missing() -> None:
    generated = {f"r/{n}.md" for n in range(1000)}
    docs = build._Docs(["errors/index.md"], frozenset(), [])
    _hand, absent = build._hand_written(_SETTINGS, docs, SortedPaths.of(generated), frozenset())
    assert absent.found and absent.paths == frozenset() and absent.count == 1000
    assert all(p in absent for p in generated)


def test_the_paths_held_are_the_generated_ones_strings() -> None:
    """Whichever are held, the found or the missing, they are ``generated``'s strings (which
    the catalogue holds), not the walk's copies."""
    generated = [f"r/{n}.md" for n in range(10)]
    for found in (generated[:3], generated[:8]):
        docs = build._Docs([f"errors/{p}" for p in found], frozenset(), [])
        _hand, absent = build._hand_written(_SETTINGS, docs, SortedPaths.of(generated),
                                            frozenset())
        own = {id(p) for p in SortedPaths.of(generated)}
        assert absent.paths and all(id(p) in own for p in absent.paths)


@given(st.lists(_NAMES, max_size=40), st.lists(_NAMES, max_size=10))
def test_sorted_paths_hold_each_path_once_and_find_it(paths: list[str], others: list[str]
                                                      ) -> None:
    held = SortedPaths.of(paths)
    assert list(held) == sorted(set(paths)) and len(held) == len(set(paths))
    for path in paths + others:
        assert (path in held) == (path in set(paths))
        at = held.position(path)
        assert (at is not None and held.paths[at] == path) == (path in set(paths))
    assert held.position(None) is None and 3 not in held
