"""Accumulated vectors a port must compute (issue 34, items 1 and 2): a fresh stream drawn
at run time beside each committed one (an adapter copying the committed checkpoints out of
the vector files fails it), the answer's count compared, the seed replayed by --fresh-seed,
and a port claiming part of the outputs judged on a stream through the digest of its
fields. The adapters are tests/adapters/copying.py and tests/adapters/accumulating.py."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from support import check_reports, fairvec

from fairvec import accumulated_digest

pytestmark = pytest.mark.heavy  # every test runs streams through an adapter process

ADAPTERS = Path(__file__).resolve().parent / "adapters"
DICE = "stake.dice/accumulated@truncate"
FRESH_DICE = "stake.dice/accumulated-fresh@truncate"


SHORT = 200  # cases of the short committed stream the partial port is run on


@pytest.fixture(scope="module")
def short_dice(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A vector folder holding stake.dice with its accumulated vector cut to SHORT cases
    (a partial port's digest is the reference's, computed at run time: the committed
    checkpoints are not read, so they are left as they are, cut to the blocks)."""
    from fairvec.vectorfiles import SCHEMA_NAME, default_vectors_root

    installed = default_vectors_root()
    data = json.loads((installed / "stake" / "dice.json").read_text(encoding="utf-8"))
    entry = next(e for e in data["accumulated"] if e["id"] == DICE)
    block = accumulated_digest.default_block(SHORT)
    entry.update(count=SHORT, block=block)
    checkpoints = entry["expected"]["checkpoints"][: SHORT // block]
    entry["expected"] = {"digest": checkpoints[-1], "checkpoints": checkpoints}
    data["accumulated"] = [entry]
    folder = tmp_path_factory.mktemp("vectors")
    (folder / "stake").mkdir()
    (folder / SCHEMA_NAME).write_bytes((installed / SCHEMA_NAME).read_bytes())
    (folder / "stake" / "dice.json").write_text(json.dumps(data), encoding="utf-8")
    return folder


def run(
    tmp_path: Path, adapter: str, *modes: str, options: tuple[str | Path, ...] = ()
) -> tuple[Any, dict[str, Any]]:
    json_path, junit_path = tmp_path / "report.json", tmp_path / "junit.xml"
    done = fairvec(
        "run", "--algorithm", "stake.dice", "--tag", "accumulated", *options,
        "--json", json_path, "--junit", junit_path,
        "--", sys.executable, str(ADAPTERS / adapter), *modes,
    )  # fmt: skip
    assert "Traceback" not in done.stderr, done.stderr
    return done, check_reports(json_path, junit_path)


def result(report: dict[str, Any], vector_id: str) -> dict[str, Any]:
    return next(r for r in report["results"] if r["id"] == vector_id)


# -- item 1: a copying port, a lying count, the seed --------------------------------------


def test_a_port_copying_the_committed_checkpoints_fails_the_fresh_stream(tmp_path: Path) -> None:
    done, report = run(tmp_path, "copying.py", options=("--fresh-seed", "copy-1"))
    assert done.status == 1, done.stdout + done.stderr
    assert result(report, DICE)["status"] == "pass"  # copied: no file can stop that
    fresh = result(report, FRESH_DICE)
    assert fresh["status"] == "fail" and fresh["fresh"] is True, fresh
    assert "replay it with --fresh-seed copy-1" in fresh["message"]
    assert fresh["input"]["stream"]["seed"] == "stake.dice/accumulated/v1/fresh/copy-1"
    streams = report["attestation"]["fresh_streams"]
    assert streams == {"seed": "copy-1", "cases": 20, "streams": {FRESH_DICE: 20}}
    assert "replay with --fresh-seed copy-1" in done.stderr


@pytest.mark.parametrize("count", ["1", "99999999999999"])
def test_a_lying_count_fails(tmp_path: Path, count: str) -> None:
    done, report = run(tmp_path, "copying.py", f"count:{count}", options=("--fresh-cases", "0"))
    assert done.status == 1, done.stdout + done.stderr
    committed = result(report, DICE)
    assert committed["status"] == "fail", committed
    assert f"its answer says {int(count):,} cases, 10,000 were asked for" in committed["message"]
    assert report["attestation"]["fresh_streams"] is None  # --fresh-cases 0: none made


def test_the_seed_replays_the_same_stream(tmp_path: Path) -> None:
    """Twice with one seed: the same stream and the same expected digests (a third run with
    another seed would draw from another stream seed, `.../fresh/<seed>`: checked above)."""
    expected = []
    for _ in range(2):
        _, report = run(tmp_path, "copying.py", options=("--fresh-seed", "same"))
        fresh = result(report, FRESH_DICE)
        expected.append((fresh["input"]["stream"], fresh["expected"]))
    assert expected[0] == expected[1]
    assert expected[0][0]["seed"].endswith("/fresh/same")


def test_tier_none_makes_no_fresh_stream(tmp_path: Path) -> None:
    json_path, junit_path = tmp_path / "report.json", tmp_path / "junit.xml"
    done = fairvec(
        "run", "--algorithm", "stake.dice", "--tier", "none",
        "--json", json_path, "--junit", junit_path,
        "--", sys.executable, str(ADAPTERS / "copying.py"),
    )  # fmt: skip
    assert done.status == 0, done.stdout + done.stderr
    assert check_reports(json_path, junit_path)["attestation"]["fresh_streams"] is None
    assert "fresh accumulated" not in done.stderr


# -- item 2: a port claiming part of the outputs keeps its streams -------------------------


@pytest.mark.parametrize("computed_by", ["adapter", "runner"])
def test_a_partial_port_is_judged_on_its_field(
    tmp_path: Path, short_dice: Path, computed_by: str
) -> None:
    """stake.dice's result alone: the committed stream and the fresh one are judged on the
    digest of that field (the reference's), through the accumulate request or case by
    case; the same port with case 123's result wrong fails the committed stream there."""
    modes = ("partial",) if computed_by == "adapter" else ("partial", "no-accumulate")
    options = ("--vectors", short_dice)
    done, report = run(tmp_path, "accumulating.py", *modes, options=options)
    assert done.status == 0, done.stdout + done.stderr
    for vector_id in (DICE, FRESH_DICE):
        assert result(report, vector_id)["status"] == "pass", result(report, vector_id)
    assert report["attestation"]["algorithms"]["stake.dice"]["outputs_judged"] == ["result"]
    done, report = run(tmp_path, "accumulating.py", *modes, "wrong-result:123", options=options)
    assert done.status == 1, done.stdout + done.stderr
    failed = result(report, DICE)
    assert failed["status"] == "fail", failed
    assert "the first differing case is 123: input {" in failed["message"]
    assert '"result": -1' in failed["message"]
