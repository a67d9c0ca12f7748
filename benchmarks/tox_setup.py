"""The test command's setup: tox's environments created and installed (``tox run-parallel
--notest``, each into a fresh work folder), an old tree's and a new one's alternately in
one go, so that both meet the same machine and the same network.

Usage: python benchmarks/tox_setup.py OLD_TREE NEW_TREE [--rounds N]
           [--python OLD_PY NEW_PY] [--cold]

``--python``: the interpreters whose tox runs each tree (by default the one running this
script for both): an install of tox without tox-uv for a tree of pip's days, one with it
for a tree that requires it. ``--cold``: every run gets empty pip and uv caches, as a fresh
CI machine has (each wheel downloaded again); by default both share the warm caches.

Prints each run's wall and CPU seconds (user + system of tox and everything it started)
and its exit status.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def setup_once(python: str, tree: Path, cold: bool) -> tuple[float, float, int]:
    """Wall and CPU seconds of one ``tox run-parallel --notest`` in ``tree``, and its status."""
    with tempfile.TemporaryDirectory(prefix="tox-setup-") as work:
        environment = dict(os.environ)
        if cold:
            environment["PIP_CACHE_DIR"] = str(Path(work) / "pip-cache")
            environment["UV_CACHE_DIR"] = str(Path(work) / "uv-cache")
        before, started = children_cpu(), time.monotonic()
        done = subprocess.run(
            [python, "-m", "tox", "run-parallel", "--notest", "--workdir", work, "-q"],
            cwd=tree, env=environment, capture_output=True, check=False,
        )  # fmt: skip
        return time.monotonic() - started, children_cpu() - before, done.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--python", nargs=2, metavar=("OLD_PY", "NEW_PY"))
    parser.add_argument("--cold", action="store_true", help="empty pip and uv caches each run")
    arguments = parser.parse_args()
    pythons = arguments.python or [sys.executable, sys.executable]
    print(f"{'tree':<5} {'round':>5} {'wall s':>8} {'CPU s':>8} status")
    sides = list(zip(("old", "new"), (arguments.old, arguments.new), pythons, strict=True))
    for round_number in range(1, arguments.rounds + 1):
        for name, tree, python in sides:
            wall, cpu, status = setup_once(python, tree, arguments.cold)
            print(f"{name:<5} {round_number:>5} {wall:>8.1f} {cpu:>8.1f} {status}", flush=True)


if __name__ == "__main__":
    main()
