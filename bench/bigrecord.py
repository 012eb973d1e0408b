"""Peak memory of `errdocs check` (or `build`) on a file holding one huge record.

Writes a JSON Lines file with a small record, one record of SIZE MB (a long `documentation`)
and another small record into a temporary folder (the big file is never kept), runs the
command on it in a child process and prints the child's peak resident memory
(``getrusage(RUSAGE_CHILDREN).ru_maxrss``: the largest process, not a sum) and its output.
The huge record is over the size limit (``MAX_RECORD_BYTES``), so it is reported and skipped;
the two others are kept. Issue 10, finding 11: one 200 MB record took 3.8 GB.

    .venv/bin/python bench/bigrecord.py [--size-mb 200] [--command check|build]
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ERRDOCS = Path(sys.executable).with_name("errdocs")
PIECE = 1 << 20


def record(record_id: str) -> bytes:
    return json.dumps({"id": record_id, "repo": "acme/widgets", "slug": record_id,
                       "errorMessage": f"Widget {record_id} failed"}).encode()


def write_data(path: Path, size: int) -> None:
    """A small record, one of ``size`` bytes, a small record; written piece by piece."""
    head = b'{"id": "huge", "repo": "acme/widgets", "slug": "huge", ' \
           b'"errorMessage": "Huge", "documentation": "'
    with path.open("wb") as out:
        out.write(record("before") + b"\n" + head)
        left = size - len(head) - 2
        while left > 0:
            out.write(b"x" * min(PIECE, left))
            left -= PIECE
        out.write(b'"}\n' + record("after") + b"\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size-mb", type=int, default=200)
    parser.add_argument("--command", choices=["check", "build"], default="check")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp)
        shutil.copy(ROOT / "mkdocs.yml", project / "mkdocs.yml")
        for name in ("docs", "overrides"):
            shutil.copytree(ROOT / name, project / name, ignore=shutil.ignore_patterns("errors"))
        data = project / "big.jsonl"
        write_data(data, args.size_mb * 1_000_000)
        print(f"{data.name}: {data.stat().st_size:,} bytes")
        start = time.perf_counter()
        done = subprocess.run([str(ERRDOCS), args.command, data.name], cwd=project,
                              capture_output=True, text=True, check=False)
        seconds = time.perf_counter() - start
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        print(done.stderr + done.stdout, end="")
        print(f"errdocs {args.command}: exit {done.returncode}, {seconds:.1f} s, "
              f"peak RSS {peak:.0f} MB")


if __name__ == "__main__":
    main()
