"""`fairvec list`: every algorithm with its variants, vector counts and tags, as the vector
files hold them (issue 36: no command listed what the suite has)."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from support import REPO

from fairvec.cli import main


def _from_files(family: str) -> dict[str, dict[str, object]]:
    """What the listing must say, read straight from the family's vector files."""
    expected = {}
    for path in sorted((REPO / "vectors" / family).glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        every = [*data["vectors"], *data.get("accumulated", [])]
        expected[data["algorithm"]] = {
            "variants": [variant["id"] for variant in data["variants"]],
            "vectors": len(data["vectors"]),
            "accumulated": len(data.get("accumulated", [])),
            "tags": dict(sorted(Counter(t for v in every for t in v["tags"]).items())),
        }
    return expected


def test_the_json_listing_is_what_the_vector_files_hold(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["list", "--json", "--algorithm", "nardy.*", "--algorithm", "casino.dice"]) == 0
    listing = json.loads(capsys.readouterr().out)
    expected = _from_files("nardy") | {"casino.dice": _from_files("casino")["casino.dice"]}
    got = {
        entry["id"]: {key: entry[key] for key in ("variants", "vectors", "accumulated", "tags")}
        for entry in listing["algorithms"]
    }
    assert got == dict(sorted(expected.items()))
    assert listing["totals"]["vectors"] == sum(int(str(e["vectors"])) for e in expected.values())
    assert listing["algorithms"][0]["variants"] == ["hex-text", "raw-bytes"]  # casino.dice


def test_the_text_listing_has_a_line_per_algorithm_and_the_totals(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["list", "--algorithm", "nardy.*"]) == 0
    lines = capsys.readouterr().out.splitlines()
    expected = _from_files("nardy")
    for algorithm, entry in expected.items():
        row = next(line for line in lines if line.startswith(f"{algorithm} "))
        assert f" {entry['vectors']:,} " in row and all(tag in row for tag in entry["tags"])
    vectors = sum(int(str(entry["vectors"])) for entry in expected.values())
    assert f"{len(expected)} algorithms, {vectors:,} fixed vectors" in lines[-2]


def test_an_algorithm_glob_matching_nothing_is_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["list", "--algorithm", "nope.*"]) == 2
    error = capsys.readouterr().err
    assert "no algorithm of" in error and error.count("\n") == 1
