"""Shared test helpers: run the installed ``fairvec`` command as a user would."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
FAIRVEC = shutil.which("fairvec", path=str(Path(sys.executable).parent)) or "fairvec"
MISBEHAVING = Path(__file__).resolve().parent / "adapters" / "misbehaving.py"
# Three battle.move vectors, one per move: small enough to reason about each one.
THREE = ["--algorithm", "battle.move", "-k", "/fire", "-k", "/grass", "-k", "/water"]
FIRE, GRASS, WATER = "battle.move/fire", "battle.move/grass", "battle.move/water"


@dataclass
class Completed:
    status: int
    stdout: str
    stderr: str

    def report(self, path: Path) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        return data


def fairvec(*arguments: str | Path, timeout: float = 300) -> Completed:
    """The installed console script, run outside the checkout (so installed package data
    is what it finds); pass --root REPO where the repository is meant."""
    done = subprocess.run(
        [FAIRVEC, *map(str, arguments)],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=tempfile.gettempdir(),
    )
    return Completed(done.returncode, done.stdout, done.stderr)


def misbehaving(*modes: str) -> list[str]:
    return ["--", sys.executable, str(MISBEHAVING), *modes]


@dataclass
class PortRun:
    done: Completed
    failed: set[str]  # ids of the vectors that failed
    total: int  # vectors run


def run_port(port: list[str | Path], algorithms: list[str]) -> PortRun:
    """``fairvec run`` over ``algorithms`` against a port."""
    with tempfile.TemporaryDirectory() as folder:
        report_path = Path(folder) / "report.json"
        selection = [part for algorithm in algorithms for part in ("--algorithm", algorithm)]
        done = fairvec("run", *selection, "--json", report_path, "--", *port)
        results = done.report(report_path)["results"]
    failed = {result["id"] for result in results if result["status"] == "fail"}
    return PortRun(done, failed, len(results))
