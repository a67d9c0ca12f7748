"""What a person and a CI log see while ``fairvec run`` runs (issue 35, section 3): progress
counted in cases (a 10,000-case stream weighs 10,000), a line every few seconds when stderr
is not a terminal, and --no-progress silencing it; and the bundled Python adapter's
accumulate request (section 1), whose answers are the committed checkpoints."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from support import FAIRVEC_COMMAND, HANG, REPO

from fairvec.runner.progress import Progress, shown

LINE = re.compile(r"^fairvec run: [\d,]+ of ([\d,]+) cases \(\d+%\), [\d,]+ of ([\d,]+) vectors")


def run_logged(*arguments: str, interval: str = "0.2") -> subprocess.CompletedProcess[str]:
    """fairvec run with stderr a pipe (a CI log), progress lines every ``interval`` s."""
    environment = {**os.environ, "FAIRVEC_PROGRESS_SECONDS": interval}
    environment.pop("CI", None)
    return subprocess.run(
        [*FAIRVEC_COMMAND, "run", "--bundled", "python", *arguments],
        capture_output=True, text=True, env=environment, timeout=HANG,
        cwd=tempfile.gettempdir(),
    )  # fmt: skip


# stake.crash: 10,000 accumulated cases (the adapter computes them) and its fixed vectors;
# no fresh stream beside it (test_fresh_streams_join_the_totals counts those)
STAKE_CRASH = ("--algorithm", "stake.crash", "--tag", "accumulated", "--fresh-cases", "0")


@pytest.mark.heavy
def test_a_log_gets_progress_lines_counting_cases_and_no_progress_silences_them() -> None:
    done = run_logged(*STAKE_CRASH)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = [LINE.match(line) for line in done.stderr.splitlines()]
    assert lines and all(lines), done.stderr
    # one stream of 10,000 cases: counted as its cases, one vector
    assert {(found.group(1), found.group(2)) for found in lines if found} == {("10,000", "1")}
    silent = run_logged("--no-progress", *STAKE_CRASH)
    assert silent.returncode == 0, silent.stdout + silent.stderr
    assert "fairvec run:" not in silent.stderr


def test_fresh_streams_join_the_totals_once_the_hello_is_read() -> None:
    """The fresh streams are made after the hello (runner/fresh_streams.py): added to the
    totals then, a stream already counted not twice, and the bar's total follows."""
    progress = Progress(3, {"s/accumulated": (10_000, 1_000)})
    out = io.StringIO()
    with shown(progress, "bar", out):
        progress.add_streams({"s/accumulated": (10_000, 1_000), "s/accumulated-fresh": (20, 1)})
        assert (progress.cases, progress.vectors) == (10_023, 5)
        progress.stream_done("s/accumulated-fresh")
    assert progress.cases_done == 20
    assert "10.0k" in out.getvalue()  # the bar's total: 10,023 cases


def test_the_bar_counts_cases_and_moves_with_each_block() -> None:
    """A stream's blocks move the bar as they come; its result counts what is left."""
    progress = Progress(3, {"s/accumulated": (10_000, 1_000)})
    assert (progress.cases, progress.vectors) == (10_003, 4)
    out = io.StringIO()
    with shown(progress, "bar", out):
        progress.vector_done()
        progress.block_done("s/accumulated", 2)
        progress.block_done("s/accumulated", 2)  # (a block told twice counts once)
        assert progress.cases_done == 2_001
        progress.stream_done("s/accumulated")
    assert (progress.cases_done, progress.vectors_done) == (10_001, 2)
    assert "/10.0k" in out.getvalue()  # the bar's total: cases, not 4 vectors


def test_a_line_says_the_rate_and_the_time_left() -> None:
    progress = Progress(0, {"s": (1_000, 100)})
    progress.block_done("s", 3)
    assert progress.line(3.0) == (
        "fairvec run: 300 of 1,000 cases (30%), 0 of 1 vectors, 100 cases/s, about 7 s left"
    )


# -- the bundled Python adapter computes accumulated vectors itself --------------------------


def adapter_lines(requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    done = subprocess.run(
        [sys.executable, "-P", "-m", "fairvec.adapters.python"],
        input="".join(json.dumps(request) + "\n" for request in requests),
        capture_output=True, text=True, timeout=HANG, cwd=tempfile.gettempdir(),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def accumulate_request(family: str, name: str, count: int | None = None) -> tuple[Any, Any]:
    """The accumulate request for a committed default-tier stream (its first ``count``
    cases), and the vector."""
    data = json.loads((REPO / "vectors" / family / f"{name}.json").read_text(encoding="utf-8"))
    vector = next(entry for entry in data["accumulated"] if entry["tier"] == "default")
    asked = {
        "stream": vector["stream"], "encoding": vector["encoding"],
        "count": count or vector["count"], "block": vector["block"],
    }  # fmt: skip
    request = {
        "id": vector["id"], "algorithm": data["algorithm"], "variant": vector["variant"],
        "accumulate": asked,
    }  # fmt: skip
    return request, vector


def test_the_python_adapter_answers_accumulate_requests_with_the_committed_checkpoints() -> None:
    """stake.shuffle's first 2,000 cases (its error cases included) and bustabit.vx_game's
    whole 50-case stream (every case signs): a progress line per block, then the digest
    and checkpoints the vector files commit."""
    pytest.importorskip("py_arkworks_bls12381", reason="the fairvec[vx] extra")
    shuffle, shuffle_vector = accumulate_request("stake", "shuffle", count=2_000)
    game, game_vector = accumulate_request("bustabit", "vx_game")
    hello, *lines = adapter_lines([shuffle, game])
    assert hello["accumulate"] is True
    expected = shuffle_vector["expected"]["checkpoints"][:2]
    assert lines[:3] == [
        {"id": shuffle["id"], "checkpoint": {"block": 1, "digest": expected[0]}},
        {"id": shuffle["id"], "checkpoint": {"block": 2, "digest": expected[1]}},
        {"id": shuffle["id"], "accumulated": {
            "count": 2_000, "digest": expected[1], "checkpoints": expected}},
    ]  # fmt: skip
    answer = lines[-1]["accumulated"]
    assert lines[-1]["id"] == game["id"] and len(lines) == 3 + 10 + 1
    assert answer["checkpoints"] == game_vector["expected"]["checkpoints"]
    assert answer["digest"] == game_vector["expected"]["digest"]


def test_an_encoding_it_does_not_write_is_unsupported() -> None:
    request, _vector = accumulate_request("stake", "crash", count=10)
    request["accumulate"]["encoding"] = "fairvec-accumulated/2"
    _hello, answer = adapter_lines([request])
    assert answer["unsupported"] is True and "fairvec-accumulated/2" in answer["reason"]


# The Python adapter, noting each stream it computes; the first waits (up to a minute) for
# another process to start one, so a runner that sent both to one process fails, and one
# that sends them to two cannot pass or fail by the machine's speed.
LOGGING_ADAPTER = """
import os, sys, time
from fairvec.adapters.python import __main__ as adapter
computed = adapter.accumulate

def others(path):
    return {line.split()[0] for line in open(path, encoding="utf-8")} - {str(os.getpid())}

def logged(request):
    with open(sys.argv[1], "a", encoding="utf-8") as log:
        log.write(f"{os.getpid()} {request['id']}\\n")
    waited = time.monotonic()
    while not others(sys.argv[1]) and time.monotonic() - waited < 60:
        time.sleep(0.05)
    return computed(request)

adapter.accumulate = logged
adapter.main()
"""


@pytest.mark.heavy
def test_the_accumulated_streams_run_on_two_adapters_and_pass(tmp_path: Path) -> None:
    """-j 2: two streams, each computed by an adapter process of its own, both pass."""
    log, script = tmp_path / "computed.log", tmp_path / "adapter.py"
    script.write_text(LOGGING_ADAPTER, encoding="utf-8")
    environment = {**os.environ, "FAIRVEC_PROGRESS_SECONDS": "86400"}
    done = subprocess.run(
        [*FAIRVEC_COMMAND, "run", "-j", "2", "--tag", "accumulated", "--fresh-cases", "0",
         "--algorithm", "stake.crash", "--algorithm", "stake.dice",
         "--", sys.executable, str(script), str(log)],
        capture_output=True, text=True, env=environment, timeout=HANG, cwd=tempfile.gettempdir(),
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    computed = [line.split() for line in log.read_text(encoding="utf-8").splitlines()]
    assert sorted(vector_id for _pid, vector_id in computed) == [
        "stake.crash/accumulated@truncate", "stake.dice/accumulated@truncate",
    ]  # fmt: skip
    assert len({pid for pid, _id in computed}) == 2, computed


def test_the_costliest_streams_start_first() -> None:
    """An algorithm's seconds a case (from its fixed vectors) times the stream's cases, the
    largest first; an algorithm with no fixed figure last, in vector order."""
    from types import SimpleNamespace

    from fairvec.runner.accumulated_run import first_costliest

    chosen: Any = [
        SimpleNamespace(algorithm="stake.dice", count=10_000),
        SimpleNamespace(algorithm="unknown.one", count=10_000),
        SimpleNamespace(algorithm="tenhou.game", count=10_000),
        SimpleNamespace(algorithm="bustabit.vx_game", count=50),
        SimpleNamespace(algorithm="unknown.two", count=10_000),
    ]
    costs = {"stake.dice": 0.0002, "tenhou.game": 0.003, "bustabit.vx_game": 0.01}
    assert first_costliest(chosen, costs) == [2, 0, 3, 1, 4]
