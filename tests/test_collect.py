"""The suite runs without Playwright: ``conftest.collect_ignore`` lists every test module that
imports it when loaded (directly, through Axe's wrapper, or through another such module)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
BROWSER_PACKAGES = {"playwright", "axe_playwright_python"}


def _module_imports(source: str) -> tuple[set[str], set[str]]:
    """The packages and the sibling test modules ``source`` imports when it is loaded (not
    inside a function or ``if TYPE_CHECKING:``, which cost nothing without Playwright)."""
    packages: set[str] = set()
    siblings: set[str] = set()
    for node in ast.parse(source).body:
        if isinstance(node, ast.Import):
            packages |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            packages.add(node.module.split(".")[0])
        elif isinstance(node, ast.ImportFrom) and node.level == 1:
            names = [node.module] if node.module else [a.name for a in node.names]
            siblings |= {f"{name.split('.')[0]}.py" for name in names}
    return packages, siblings


def needs_playwright(folder: Path) -> set[str]:
    """The modules of ``folder`` that cannot be loaded without Playwright."""
    imports = {p.name: _module_imports(p.read_text("utf-8")) for p in folder.glob("*.py")}
    found = {name for name, (packages, _) in imports.items() if packages & BROWSER_PACKAGES}
    grew = True
    while grew:  # a module importing such a module needs it too
        more = {name for name, (_, siblings) in imports.items() if siblings & found}
        grew = not more <= found
        found |= more
    return found


def test_collect_ignore_lists_every_module_that_needs_playwright() -> None:
    tree = ast.parse((TESTS / "conftest.py").read_text("utf-8"))
    listed = next(ast.literal_eval(node.value) for node in ast.walk(tree)
                  if isinstance(node, ast.Assign)
                  and any(getattr(t, "id", None) == "collect_ignore" for t in node.targets))
    assert sorted(listed) == sorted(needs_playwright(TESTS) - {"conftest.py"})


def test_the_check_finds_direct_and_indirect_imports(tmp_path: Path) -> None:
    (tmp_path / "a_browser.py").write_text("from playwright.sync_api import expect\n")
    (tmp_path / "b.py").write_text("from .a_browser import X\n")
    (tmp_path / "c.py").write_text("from . import a_browser\n")
    (tmp_path / "d.py").write_text("import axe_playwright_python.sync_playwright\n")
    (tmp_path / "e.py").write_text("def f():\n    from playwright.sync_api import expect\n"
                                   "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                   "    import playwright\n")
    assert needs_playwright(tmp_path) == {"a_browser.py", "b.py", "c.py", "d.py"}


@pytest.mark.parametrize("module", ["test_browser.py", "test_permalinks_browser.py"])
def test_a_known_browser_module_is_found(module: str) -> None:
    assert module in needs_playwright(TESTS)
