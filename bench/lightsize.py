"""What the light records of a build's scan hold as objects, field by field, in bytes a record.

The build keeps them in a temporary database (`errdocs.catalog.lights`) and reads them back a
batch at a time; this is what they cost when read back (and what holding them all cost before
session 34). Runs the build's scan (`errdocs.catalog.scan.scan`, a fresh catalogue in a
temporary folder) on DATA, reads every light record back and counts each object once
(`sys.getsizeof`; a string shared by many records, an interned repository or tag, counts once
for all), by the field holding it; prints bytes a record and what that makes at ``--scale``
records.

    .venv/bin/python bench/lightsize.py bench/out/data/r20000.jsonl [--scale 310000]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections import Counter
from pathlib import Path

from errdocs.catalog.lights import Light
from errdocs.catalog.scan import scan
from errdocs.records.record import Record

LIGHT = tuple(name for name in Light.__dataclass_fields__ if name != "record")
"""The fields of :class:`Light` beside its record."""


def sizes(lights: list[Light]) -> Counter[str]:
    """Bytes held by each field over ``lights``, each object counted once."""
    seen: set[int] = set()
    held: Counter[str] = Counter()

    def count(value: object, name: str) -> None:
        if id(value) in seen:
            return
        seen.add(id(value))
        held[name] += sys.getsizeof(value)
        if isinstance(value, tuple):
            for item in value:
                count(item, name)

    for light in lights:
        count(light, "Light")
        for name in LIGHT:
            count(getattr(light, name), f"light.{name}")
        count(light.record, "Record")
        for name in Record.__slots__:
            count(getattr(light.record, name), name)
    return held


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path)
    parser.add_argument("--scale", type=int, default=310_000)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as work:
        lights = list(scan([args.data], Path(work)).lights)
    held = sizes(lights)
    count = len(lights)
    print(f"{count} light records; bytes a record, and MB at {args.scale:,} records:")
    for name, total in held.most_common():
        if total:
            print(f"  {name:<20} {total / count:8.1f} B {total / count * args.scale / 1e6:8.1f} MB")
    whole = sum(held.values()) / count
    print(f"  {'all':<20} {whole:8.1f} B {whole * args.scale / 1e6:8.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
