"""Reports that point the right way (issue 33, gap 7): a port with one realistic misreading
of an input fails vectors whose tags name that misreading, and the terminal shows every
short field of a failing input even when a long one (Tenhou's 3,328-character seed) is cut.

The ports are tests/adapters/misread_inputs.py: the reference with one mistake each."""

from __future__ import annotations

import json
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from support import REPO, fairvec

MISREAD = Path(__file__).resolve().parent / "adapters" / "misread_inputs.py"


def failures(mistake: str, *selection: str) -> tuple[str, list[dict[str, Any]]]:
    """The terminal report and the failed results of ``fairvec run`` against the port."""
    with tempfile.TemporaryDirectory() as folder:
        report_path = Path(folder) / "report.json"
        done = fairvec(
            "run", *selection, "--tier", "none", "--exclude-tag", "shape", "--no-progress",
            "--json", report_path, "--", sys.executable, MISREAD, mistake,
        )  # fmt: skip
        assert "Traceback" not in done.stderr, done.stderr
        results = done.report(report_path)["results"]
    return done.stdout, [result for result in results if result["status"] in ("fail", "error")]


@pytest.mark.parametrize(
    ("mistake", "selection", "cause"),
    [
        (
            "hand-from-one",
            ["--algorithm", "tenhou.hand_wall", "--algorithm", "tenhou.wall_tiles"],
            "hand-is-zero-based",
        ),
        ("hex-server-seed", ["--algorithm", "stake.*"], "server-seed-is-text"),
    ],
)
def test_every_failure_of_a_misreading_port_names_the_cause(
    mistake: str, selection: list[str], cause: str
) -> None:
    """Every vector the port fails carries the tag of the rule it breaks, so the tag the
    failures share is the cause (before: a port counting hands from 1 failed wall_tiles
    with no such tag, one hex-decoding Stake's seed failed every game but stake.bytes
    tagged only [document-example] or nothing)."""
    _, failed = failures(mistake, *selection)
    assert len(failed) > 100  # the mistake shows: the port fails a good part of the vectors
    untagged = sorted(result["id"] for result in failed if cause not in result["tags"])
    assert not untagged, (
        f"{len(untagged)} failing vectors lack the tag {cause} (add their case or set to the "
        f"quirk {cause}'s exercised_by in their spec): {untagged[:10]}"
    )
    shared = Counter(tag for result in failed for tag in result["tags"])
    assert shared[cause] == len(failed)


def test_the_terminal_shows_a_short_field_after_a_long_one() -> None:
    """tenhou.hand_wall's input is a 3,328-character seed, then hand and players: the seed
    is cut, the hand and the players are shown whole (before: the whole input was cut at
    400 characters, inside the seed)."""
    stdout, failed = failures("hand-from-one", "--algorithm", "tenhou.hand_wall", "-k", "/hand-3")
    assert [result["id"] for result in failed] == ["tenhou.hand_wall/hand-3"]
    line = next(line for line in stdout.splitlines() if line.startswith("  input:"))
    assert line.startswith('  input:    {"seed": "lFMmGcbVp9Ut') and " ..." in line
    assert line.endswith('"hand": 3, "players": 4}'), line
    assert len(line) < 450  # the seed cut to what the short fields leave of 400


def test_the_terminal_line_stays_bounded_whatever_the_object() -> None:
    """An adapter's object of thousands of keys, or one nested deep, is still one bounded
    line, and a short field beside a long nested one is still shown."""
    from fairvec.runner.report import SHOWN_JSON, SHOWN_MOST, _short

    many = {f"key{index}": "x" * 50 for index in range(5000)}
    assert len(_short(many)) <= SHOWN_MOST + len(" ...")
    nested = {"a": {"b": {"c": "y" * 10000}}, "short": 1}
    text = _short(nested)
    assert text.endswith('"short": 1}') and len(text) < SHOWN_JSON + 50
    assert _short({"seed": "z" * 30}) == '{"seed": "' + "z" * 30 + '"}'  # short: whole


@pytest.mark.parametrize(
    ("algorithms", "cause"),
    [
        (("tenhou/hand_wall", "tenhou/wall_tiles"), "hand-is-zero-based"),
        (("stake/dice", "stake/limbo", "stake/mines", "stake/plinko"), "server-seed-is-text"),
    ],
)
def test_the_streams_a_misreading_port_fails_name_the_cause(
    algorithms: tuple[str, ...], cause: str
) -> None:
    """The accumulated streams draw hands above 0 and hex server seeds, so the same ports fail
    them: each stream (both tiers) carries the cause's tag, named in the quirk's exercised_by
    as a case is (before: their tags were [accumulated] alone)."""
    for algorithm in algorithms:
        vector_file = json.loads((REPO / "vectors" / f"{algorithm}.json").read_text("utf-8"))
        streams = vector_file["accumulated"]
        untagged = [stream["id"] for stream in streams if cause not in stream["tags"]]
        assert streams and not untagged, (algorithm, untagged)
