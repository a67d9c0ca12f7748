"""How long --known-failures takes to match a large list against the whole suite's ids.

    python benchmarks/known_failures.py [--entries 200000] [--shape SHAPE ...]

Each shape writes ``--entries`` globs, every one beginning with an algorithm's id (the
globs docs/adapter-protocol.md, "Known failures", says cost next to nothing however many
there are), spread over the suite's algorithms, and matches them against every vector id
of the installed suite (about 20,000), as ``fairvec run`` does after a run. It prints the
seconds each shape takes to read the list, index it and match every id (wall clock, and
the process's CPU time, which a loaded machine disturbs less); it never asserts
(tests/test_runner.py asserts the behaviour, not the time):

* distinct-start  ``casino.mines/r123*``: each glob has its own literal start
* shared-start    ``casino.mines/*-123``: every glob of an algorithm shares its start
* suffix-class    ``casino.mines/*1[0-9]3``: a class near the end
* inner-literal   ``casino.mines/*-123-*``: a literal between two wildcards
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections.abc import Callable
from importlib import resources
from pathlib import Path

from fairvec.runner.known_failures import KnownFailureIndex, read_known_failures

SHAPES: dict[str, Callable[[str, int], str]] = {
    "distinct-start": lambda algorithm, i: f"{algorithm}/r{i}*",
    "shared-start": lambda algorithm, i: f"{algorithm}/*-{i}",
    "suffix-class": lambda algorithm, i: f"{algorithm}/*{i // 10}[0-9]{i % 10}",
    "inner-literal": lambda algorithm, i: f"{algorithm}/*-{i}-*",
}


def suite_ids() -> list[str]:
    root = Path(str(resources.files("fairvec").joinpath("vectors")))
    ids: list[str] = []
    for path in sorted(root.glob("*/*.json")):
        data = json.loads(path.read_bytes())
        ids += [vector["id"] for vector in data.get("vectors", [])]
    return ids


def seconds(shape: str, entries: int, ids: list[str], folder: Path) -> tuple[float, float, int]:
    algorithms = sorted({vector_id.partition("/")[0] for vector_id in ids})
    path = folder / f"{shape}.txt"
    make = SHAPES[shape]
    lines = (make(algorithms[i % len(algorithms)], i) for i in range(entries))
    path.write_text("\n".join(f"{line}  # benchmark" for line in lines) + "\n")
    started, cpu = time.perf_counter(), time.process_time()
    index = KnownFailureIndex(read_known_failures(path))
    matched = sum(index.find(vector_id) is not None for vector_id in ids)
    return time.perf_counter() - started, time.process_time() - cpu, matched


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=200_000)
    parser.add_argument("--shape", action="append", choices=sorted(SHAPES))
    arguments = parser.parse_args()
    ids = suite_ids()
    print(f"{len(ids):,} vector ids, {arguments.entries:,} globs per shape")
    with tempfile.TemporaryDirectory() as folder:
        for shape in arguments.shape or list(SHAPES):
            took, cpu, matched = seconds(shape, arguments.entries, ids, Path(folder))
            print(f"{shape:15} {took:8.2f} s wall {cpu:8.2f} s CPU  ({matched:,} ids matched)")


if __name__ == "__main__":
    main()
