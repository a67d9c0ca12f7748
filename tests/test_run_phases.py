"""benchmarks/run_phases.py wraps runner functions by name: a rename must fail here, not
leave the benchmark printing zeros."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from support import THREE

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "run_phases.py"


def test_every_phase_of_a_run_is_timed() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--repeats", "1", "--", *THREE, "--tier", "none",
         "--bundled", "python"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    times = {
        line.split()[0]: float(line.split()[1]) for line in done.stdout.splitlines()[1:]
    }
    assert list(times) == [
        "start", "imports", "load", "hello", "claims", "vectors", "accumulated",
        "digests", "reports", "exit", "total", "fill",
    ]  # fmt: skip
    # each wrapped function was met (a phase never met would take the next one's time)
    for phase in ("imports", "load", "hello", "vectors", "reports", "fill"):
        assert times[phase] > 0, done.stdout
    phases = sum(v for k, v in times.items() if k not in ("total", "fill"))
    assert abs(phases - times["total"]) < 1.0
