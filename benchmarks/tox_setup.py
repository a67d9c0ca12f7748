"""The test command's setup: tox's environments created and installed (``tox run-parallel
--notest``, each into a fresh work folder), an old tree's and a new one's alternately in
one go, so that both meet the same machine and the same warm pip cache.

Usage: python benchmarks/tox_setup.py OLD_TREE NEW_TREE [--rounds N]

Prints each run's wall and CPU seconds (user + system of tox and everything it started)
and its exit status.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def setup_once(tree: Path) -> tuple[float, float, int]:
    """Wall and CPU seconds of one ``tox run-parallel --notest`` in ``tree``, and its status."""
    with tempfile.TemporaryDirectory(prefix="tox-setup-") as work:
        before, started = children_cpu(), time.monotonic()
        done = subprocess.run(
            [sys.executable, "-m", "tox", "run-parallel", "--notest", "--workdir", work, "-q"],
            cwd=tree, capture_output=True, check=False,
        )  # fmt: skip
        return time.monotonic() - started, children_cpu() - before, done.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("--rounds", type=int, default=1)
    arguments = parser.parse_args()
    print(f"{'tree':<5} {'round':>5} {'wall s':>8} {'CPU s':>8} status")
    for round_number in range(1, arguments.rounds + 1):
        for name, tree in (("old", arguments.old), ("new", arguments.new)):
            wall, cpu, status = setup_once(tree)
            print(f"{name:<5} {round_number:>5} {wall:>8.1f} {cpu:>8.1f} {status}", flush=True)


if __name__ == "__main__":
    main()
