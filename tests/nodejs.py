"""Run the site's JavaScript in Node (tests/js/lookup_runner.js) from the Python tests."""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest

from .conftest import ROOT

NODE = shutil.which("node")
RUNNER = ROOT / "tests" / "js" / "lookup_runner.js"
LOOKUP_JS = ROOT / "overrides" / "assets" / "errdocs" / "lookup.js"

needs_node = pytest.mark.skipif(NODE is None,
                                reason="Node.js is not installed (.ci/run installs it)")


def run_node(request: dict) -> Any:
    """Send ``request`` to the runner; its JSON answer (any JSON value: the request says which)."""
    assert NODE is not None
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump({"lookupJs": str(LOOKUP_JS), **request}, handle)
    try:
        done = subprocess.run([NODE, str(RUNNER), handle.name], capture_output=True, text=True,
                              timeout=60, check=False)
    finally:
        Path(handle.name).unlink()
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)
