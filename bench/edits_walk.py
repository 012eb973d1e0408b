"""What looking for files written into by hand costs a build (:mod:`errdocs.site.edits`).

Times what every build does first, over a built project (nothing is found in a project
nobody edited): :func:`errdocs.site.edits.site_edits` (an ``lstat`` of each file the units'
lists name), the walk it falls back on (:func:`~errdocs.site.edits.written_since` over the
site), and the walk of the generated tree. With ``--cold`` (root only) the kernel's caches
are dropped before each round's first step.

    python bench/edits_walk.py PROJECT [--rounds 3] [--cold]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import time
from pathlib import Path

from errdocs.site.edits import site_edits, written_since


def _count(root: Path) -> tuple[int, int]:
    files = folders = 0
    for _folder, dirs, names in os.walk(root):
        folders += len(dirs)
        files += len(names)
    return files, folders


def _drop_caches() -> bool:
    subprocess.run(["sync"], check=True)
    try:
        Path("/proc/sys/vm/drop_caches").write_text("3\n")
    except OSError:
        return False
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("project", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cold", action="store_true", help="drop the caches first (root)")
    args = parser.parse_args()
    site, generated = args.project / "site", args.project / "docs" / "errors"
    for name, root in (("site", site), ("generated", generated)):
        files, folders = _count(root)
        print(f"{name}: {files:,} files in {folders:,} folders ({root})")
    steps = {
        "site (lists)": lambda: site_edits(args.project / ".errdocs", site),
        "site (walk)": lambda: written_since(str(site), time.time_ns()),
        "generated (walk)": lambda: written_since(str(generated), time.time_ns()),
    }
    for round_number in range(args.rounds):
        for name, step in steps.items():
            cold = args.cold and _drop_caches()
            start = time.perf_counter()
            found = step()
            seconds = time.perf_counter() - start
            print(f"round {round_number + 1}{' (cold)' if cold else ''}: {name} "
                  f"{seconds:.2f} s, {len(found)} found")


if __name__ == "__main__":
    main()
