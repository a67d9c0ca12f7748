"""The vendored real data (upstream/) is complete and unmodified."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from support import REPO

UPSTREAM = REPO / "upstream"
SHARED_UPSTREAM = REPO.parent / "shared" / "upstream"


def listed_sums() -> dict[str, str]:
    lines = (UPSTREAM / "SHA256SUMS").read_text(encoding="utf-8").splitlines()
    return {name: digest for digest, name in (line.split("  ", 1) for line in lines)}


def test_every_vendored_file_matches_its_recorded_sum() -> None:
    sums = listed_sums()
    assert len(sums) == 7 + 33 + 1  # the validation game's seven files, 33 logs, mjx's licence
    for name, digest in sums.items():
        assert hashlib.sha256((UPSTREAM / name).read_bytes()).hexdigest() == digest, name


def test_nothing_unlisted_was_added_to_the_data() -> None:
    extras = {"tenhou/validation/LICENSE-tenhou-shuffle"}
    present = {
        path.relative_to(UPSTREAM).as_posix()
        for path in (UPSTREAM / "tenhou").rglob("*")
        if path.is_file()
    }
    assert present - extras == set(listed_sums())


def test_vendored_copy_equals_the_shared_copy() -> None:
    if not SHARED_UPSTREAM.is_dir():
        pytest.skip(f"no shared copy to compare with at {SHARED_UPSTREAM}")
    shared = {
        path.relative_to(SHARED_UPSTREAM).as_posix(): path.read_bytes()
        for path in SHARED_UPSTREAM.rglob("*")
        if path.is_file()
    }
    vendored = {name: (UPSTREAM / name).read_bytes() for name in shared}
    assert vendored == shared
    assert set(shared) == set(listed_sums())


def test_licences_travel_with_the_data() -> None:
    for licence in ("tenhou/mjlog/LICENSE-mjx", "tenhou/validation/LICENSE-tenhou-shuffle"):
        assert "MIT" in (UPSTREAM / licence).read_text(encoding="utf-8")
    assert Path(UPSTREAM / "PROVENANCE.md").is_file()
