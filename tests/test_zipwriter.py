"""The bundle's zip writer (:mod:`errdocs.site.zipwriter`): what any zip reader reads, and
nothing held per member."""

from __future__ import annotations

import io
import shutil
import struct
import subprocess
import tracemalloc
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from errdocs.site import zipwriter
from errdocs.site.bundle import BundleError, write_zip
from errdocs.site.zipwriter import ZipTooLarge, ZipWriter

DATE = (1980, 1, 1, 0, 0, 0)

NAMES = st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=40)
MEMBERS = st.dictionaries(NAMES, st.tuples(st.binary(max_size=3000), st.booleans()),
                          max_size=12)
"""Names (non-ASCII ones too) to contents, each written from bytes or from a file."""


def _written(members: dict[str, tuple[bytes, bool]], folder: Path, **limits: int) -> bytes:
    target = io.BytesIO()
    with ZipWriter(target, DATE, folder, **limits) as writer:
        for number, (name, (data, from_file)) in enumerate(members.items()):
            if from_file:
                path = folder / f"member-{number}"
                path.write_bytes(data)
                writer.add_file(name, path)
            else:
                writer.add_bytes(name, data)
    return target.getvalue()


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(members=MEMBERS, zip64=st.booleans())
def test_zipfile_reads_every_member_back(members: dict[str, tuple[bytes, bool]], zip64: bool,
                                         tmp_path: Path) -> None:
    """With and without the ZIP64 records (forced by limits of a few bytes): the names,
    contents, CRCs, date and permissions ``zipfile`` reads are those written."""
    limits = {"zip64_limit": 10, "count_limit": 1} if zip64 else {}
    data = _written(members, tmp_path, **limits)
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        assert archive.testzip() is None
        assert archive.namelist() == list(members)
        for info in archive.infolist():
            assert archive.read(info) == members[info.filename][0]
            assert info.date_time == DATE and info.external_attr == 0o644 << 16
            assert info.compress_type == zipfile.ZIP_DEFLATED
    if zip64 and members:  # the ZIP64 end locator (before the end record) finds its record
        signature, _disk, at, disks = struct.unpack("<4sLQL", data[-42:-22])
        assert (signature, data[at:at + 4], disks) == (b"PK\x06\x07", b"PK\x06\x06", 1)


def test_the_members_are_those_zipfile_writes(tmp_path: Path) -> None:
    """Each member's compressed bytes are ``zipfile``'s for the same data (zlib's default
    level), so the bundle's size did not change with the writer."""
    members = {"site/index.html": (b"<p>" * 500, False), "site/caf\u00e9.json": (b"{}" * 99, True)}
    ours = zipfile.ZipFile(io.BytesIO(_written(members, tmp_path)))
    theirs_bytes = io.BytesIO()
    with zipfile.ZipFile(theirs_bytes, "w", zipfile.ZIP_DEFLATED) as theirs:
        for name, (data, _) in members.items():
            theirs.writestr(zipfile.ZipInfo(name, DATE), data, zipfile.ZIP_DEFLATED)
    reread = zipfile.ZipFile(theirs_bytes)
    for ours_info, their_info in zip(ours.infolist(), reread.infolist(), strict=True):
        assert (ours_info.filename, ours_info.CRC, ours_info.compress_size, ours_info.flag_bits
                ) == (their_info.filename, their_info.CRC, their_info.compress_size,
                      their_info.flag_bits)


def test_nothing_is_held_per_member(tmp_path: Path) -> None:
    """20,000 members: the writer's memory at its peak is that of one member, not of every
    one (``zipfile`` holds ~500 bytes a member: ~10 MB here)."""
    with open(tmp_path / "a.zip", "wb") as target, ZipWriter(target, DATE, tmp_path) as writer:
        tracemalloc.start()
        try:
            for number in range(20_000):
                writer.add_bytes(
                    f"errdocs-bundle/errors/owner/repository/slug-{number}/index.html",
                    b"<html>%d</html>" % number)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert peak < 1_000_000
    with zipfile.ZipFile(tmp_path / "a.zip") as archive:
        assert len(archive.infolist()) == 20_000


@pytest.mark.skipif(shutil.which("unzip") is None, reason="needs Info-ZIP's unzip")
def test_unzip_tests_a_zip64_archive(tmp_path: Path) -> None:
    archive = tmp_path / "a.zip"
    archive.write_bytes(_written({f"d/{n}.txt": (b"x" * n, n % 2 == 0) for n in range(40)},
                                 tmp_path, zip64_limit=100, count_limit=3))
    result = subprocess.run(["unzip", "-tq", str(archive)], capture_output=True, text=True,
                            check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_file_over_the_limit_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                          ) -> None:
    monkeypatch.setattr(zipwriter, "ZIP64_LIMIT", 100)
    path = tmp_path / "big"
    path.write_bytes(b"y" * 101)
    with ZipWriter(io.BytesIO(), DATE) as writer:
        with pytest.raises(ZipTooLarge, match="101 bytes"):
            writer.add_bytes("big", b"x" * 101)
        with pytest.raises(ZipTooLarge):
            writer.add_file("big", path)


def test_a_file_the_zip_cannot_hold_fails_the_bundle_and_leaves_no_zip(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = tmp_path / "site"
    (site / "assets").mkdir(parents=True)
    (site / "index.html").write_text("<p>home</p>", "utf-8")
    (site / "assets" / "big.json").write_bytes(b"0" * 500)
    monkeypatch.setattr(zipwriter, "ZIP64_LIMIT", 100)
    output = tmp_path / "out" / "bundle.zip"
    with pytest.raises(BundleError, match=r"big\.json: 500 bytes"):
        write_zip(site, output, "bundle")
    assert list(output.parent.iterdir()) == []
