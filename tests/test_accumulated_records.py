"""``fairvec accumulated records`` (issue 33, gap 7): a block's expected records, exactly the
lines its checkpoint hashes, for a port whose digest differs while every case sent alone
agrees; and the accumulated streams' shape since gap 5 (several blocks, error cases, the
double generator)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from support import REPO, fairvec

from fairvec import accumulated_digest

SHUFFLE = "stake.shuffle/accumulated@pick-and-remove"


def _committed(vector_id: str) -> dict[str, Any]:
    algorithm = vector_id.split("/", 1)[0]
    family, name = algorithm.split(".", 1)
    data = json.loads((REPO / "vectors" / family / f"{name}.json").read_text(encoding="utf-8"))
    entry: dict[str, Any] = next(e for e in data["accumulated"] if e["id"] == vector_id)
    return entry


def test_the_written_records_are_what_the_checkpoints_hash(tmp_path: Path) -> None:
    """Blocks 1 and 2 written to files: hashed in order they give checkpoints 1 and 2 (the
    running digest); every line is one canonical record, some of them errors."""
    committed = _committed(SHUFFLE)
    written = []
    for block in (1, 2):
        out = tmp_path / f"block-{block}.jsonl"
        done = fairvec("accumulated", "records", SHUFFLE, "--block", str(block), "--out", out)
        assert done.status == 0, done.stderr
        assert f"block {block} of {len(committed['expected']['checkpoints'])}" in done.stdout
        written.append(out.read_bytes())
    running = hashlib.sha256()
    for block, data in enumerate(written):
        running.update(data)
        assert running.hexdigest() == committed["expected"]["checkpoints"][block]
        lines = data.splitlines(keepends=True)
        assert len(lines) == committed["block"]
        assert all(accumulated_digest.record(json.loads(line)) == line for line in lines)
        assert any(line.startswith(b'{"error":') for line in lines)


def test_without_out_the_records_go_to_stdout(tmp_path: Path) -> None:
    out = tmp_path / "records.jsonl"
    fairvec("accumulated", "records", SHUFFLE, "--block", "10", "--out", out)
    done = fairvec("accumulated", "records", SHUFFLE, "--block", "10")
    assert done.status == 0 and done.stdout == out.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        (["stake.shuffle/nothing@pick-and-remove", "--block", "1"], "no accumulated vector"),
        ([SHUFFLE, "--block", "0"], "blocks count from 1"),
        ([SHUFFLE, "--block", "two"], "is not a block number"),
        ([SHUFFLE, "--block", "11"], "has 10 block(s) of 1,000 cases"),
        ([SHUFFLE, "--block", "1", "--out", "{tmp}"], "cannot write it"),
        ([SHUFFLE, "--block", "1", "--out", "{tmp}/file/under"], "cannot write it"),
    ],
)
def test_bad_arguments_are_one_line(tmp_path: Path, arguments: list[str], said: str) -> None:
    (tmp_path / "file").write_text("a file, not a folder\n")
    before = sorted(tmp_path.iterdir())
    done = fairvec("accumulated", "records", *[a.format(tmp=tmp_path) for a in arguments])
    assert done.status == 2 and done.stdout == "", done.stdout
    assert said in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert sorted(tmp_path.iterdir()) == before  # nothing left behind


@pytest.mark.heavy  # every default stream
def test_every_default_stream_has_several_blocks() -> None:
    """A checkpoint that hashed only its own block passed one-block streams (gap 5)."""
    for path in sorted((REPO / "vectors").glob("*/*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for entry in data.get("accumulated", []):
            if entry["tier"] == "default":
                assert len(entry["expected"]["checkpoints"]) == 10, entry["id"]


def test_a_default_stream_draws_doubles_and_errors() -> None:
    """Gap 5: the double generator and error records in the default tier."""
    stream = _committed(SHUFFLE)["stream"]["input"]
    assert stream["floats"]["list"]["of"] == {"double": [-0.002, 1]}
