"""benchmarks/run_phases.py wraps runner functions by name: a rename must fail here, not
leave the benchmark printing zeros."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from support import HANG, THREE

from fairvec.runner.answer_memo import MEMO_FOLDER

# the benchmark's whole runs, a process each: the inner loop leaves them to the test command
pytestmark = pytest.mark.heavy

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "run_phases.py"


@pytest.mark.parametrize("memo", ["kept", "unwritable"])
def test_every_phase_of_a_run_is_timed(memo: str, tmp_path: Path) -> None:
    """The rerun's requests come from the answer memo (runner/answer_memo.py), or, where it
    cannot be written, from the files filled: each wrapped function is met one way."""
    environment = {**os.environ, "FAIRVEC_CACHE_DIR": str(tmp_path / "cache")}
    environment.pop("FAIRVEC_NO_CACHE", None)
    if memo == "unwritable":
        (tmp_path / "cache").mkdir()
        (tmp_path / "cache" / MEMO_FOLDER).write_text("a file, not a folder")
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--repeats", "1", "--", *THREE, "--tier", "none",
         "--bundled", "python"],
        capture_output=True, text=True, timeout=HANG, env=environment,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    times = {
        line.split()[0]: float(line.split()[1]) for line in done.stdout.splitlines()[1:]
    }
    assert list(times) == [
        "start", "imports", "load", "hello", "claims", "vectors", "accumulated",
        "digests", "reports", "exit", "total", "fill", "memo",
    ]  # fmt: skip
    # each wrapped function was met (a phase never met would take the next one's time)
    for phase in ("imports", "load", "hello", "vectors", "reports"):
        assert times[phase] > 0, done.stdout
    met = "memo" if memo == "kept" else "fill"
    assert times[met] > 0, done.stdout
    if memo == "kept":
        assert times["fill"] == 0, done.stdout  # nothing read whole
    phases = sum(v for k, v in times.items() if k not in ("total", "fill", "memo"))
    assert abs(phases - times["total"]) < 1.0
