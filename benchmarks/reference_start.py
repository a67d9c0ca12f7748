"""The CPU of a process that starts and answers one valid request with the reference, old
code beside new (issue 35: the test command starts about 650 such processes, the bundled
adapter and the test adapters that answer with the reference); prints, never asserts.

    git archive <commit> | tar -x -C ../old                   # the code before
    python benchmarks/reference_start.py --old ../old --rounds 20

Each measurement is a child ``python -c`` that imports ``fairvec.reference`` from the tree
named (PYTHONPATH, before any install) and computes one valid input of stake.dice (the
algorithm most test adapters are sent): its user + system
CPU, from ``resource.getrusage(RUSAGE_CHILDREN)``, the interpreter's start included. The
cache folder is one of the benchmark's own, shared by both trees and warmed by an untimed
first round, as the test command's processes share the user's. Old and new alternate.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = """
import json, sys
from fairvec.reference import compute
for algorithm, given in json.loads(sys.argv[1]).items():
    compute(algorithm, given, None)
"""


def children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def measure(tree: Path, requests: str, cache: str) -> float:
    environment = dict(os.environ, PYTHONPATH=str(tree), FAIRVEC_CACHE_DIR=cache)
    environment.pop("FAIRVEC_NO_CACHE", None)
    before = children_cpu()
    subprocess.run(
        [sys.executable, "-c", CHILD, requests], env=environment, check=True,
        cwd=tempfile.gettempdir(),
    )  # fmt: skip
    return children_cpu() - before


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old", type=Path, required=True, help="the old tree (its root)")
    parser.add_argument("--new", type=Path, default=Path(__file__).resolve().parent.parent)
    parser.add_argument("--rounds", type=int, default=20)
    arguments = parser.parse_args()
    requests = '{"stake.dice": {"server_seed": "a", "client_seed": "b", "nonce": 0}}'
    sides = {"old": arguments.old.resolve(), "new": arguments.new.resolve()}
    with tempfile.TemporaryDirectory(prefix="reference-start-") as cache:
        for tree in sides.values():
            measure(tree, requests, cache)  # untimed: the .pyc files and the cache warmed
        times: dict[str, list[float]] = {name: [] for name in sides}
        for _ in range(arguments.rounds):
            for name, tree in sides.items():
                times[name].append(measure(tree, requests, cache))
    for name, found in times.items():
        quartiles = statistics.quantiles(found, n=4)
        print(f"{name}: median {statistics.median(found) * 1000:.0f} ms of CPU "
              f"(quartiles {quartiles[0] * 1000:.0f}-{quartiles[2] * 1000:.0f}), "
              f"{len(found)} runs")  # fmt: skip
    ratio = statistics.median(times["new"]) / statistics.median(times["old"])
    print(f"new / old: {ratio:.2f}; load {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
