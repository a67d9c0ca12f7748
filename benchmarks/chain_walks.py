"""The bustabit chain walks before and after their memo (issue 35), in CPU seconds.

    python benchmarks/chain_walks.py [--old COMMIT] [--skip-run]

Part 1, one process: every bustabit.chain_position and bustabit.chain_check vector through
the reference's walk functions, the old ones (walk_exactly and walk_chain as they were at
COMMIT, taken from ``git show COMMIT:reference/bustabit.py``) and the new ones (this
tree's, with their memo: emptied first; then chain_position and chain_check with one memo,
as one adapter process runs them, and each with its own, as generate's workers do).

Part 2: ``fairvec run --bundled python --algorithm 'bustabit.chain_*' --tier none`` at
-j 1 and -j 2, from COMMIT's whole tree (``git archive`` into a temporary folder, put first
on PYTHONPATH: runner and adapter alike are COMMIT's) and from this tree. The CPU is the
runner's and its adapters' (the children's rusage), wall time is printed too but is noise
on a loaded machine. Prints figures, never asserts; run it under ``nice -n 10``.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from fairvec.reference import bustabit  # noqa: E402

# main before the memo (the commit the chains branch started from)
OLD_COMMIT = "5a50688"
WALKS = ("walk_chain", "walk_exactly")
Walks = dict[str, Callable[..., Any]]


def old_walks(commit: str) -> Walks:
    """walk_chain and walk_exactly as COMMIT's module defines them: only those two
    functions are executed (the module itself would register its algorithms twice)."""
    text = subprocess.run(
        ["git", "show", f"{commit}:reference/bustabit.py"],
        cwd=ROOT, check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip
    tree = ast.parse(text)
    functions: list[ast.stmt] = [
        n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in WALKS
    ]
    namespace: dict[str, Any] = {"hashlib": hashlib}
    exec(compile(ast.Module(functions, type_ignores=[]), "old bustabit", "exec"), namespace)
    return {name: namespace[name] for name in WALKS}


def new_walks() -> Walks:
    return {name: getattr(bustabit, name) for name in WALKS}


def vectors(name: str) -> list[dict[str, Any]]:
    path = ROOT / "vectors" / "bustabit" / f"{name}.json"
    found = json.loads(path.read_text(encoding="utf-8"))["vectors"]
    return [v for v in found if "output" in v["expected"]]  # (refused inputs walk nothing)


def position_walk(walks: Walks, vector: dict[str, Any]) -> str:
    number = vector["input"]["game_number"]
    rule, _terminating, origin = bustabit.CHAINS[bustabit.chain_of(number)]
    start = bytes.fromhex(vector["input"]["game_hash"])
    end: bytes = walks["walk_exactly"](start, number - origin, rule)
    return end.hex()


def check_walk(walks: Walks, vector: dict[str, Any]) -> int | None:
    given = vector["input"]
    steps: int | None = walks["walk_chain"](
        bytes.fromhex(given["game_hash"]),
        bytes.fromhex(given["terminating_hash"]),
        given["max_steps"],
        vector["variant"],
    )
    return steps


def timed(
    walk: Callable[[Walks, dict[str, Any]], Any], walks: Walks, name: str
) -> tuple[float, list[Any]]:
    chosen = vectors(name)
    began = time.process_time()
    answers = [walk(walks, vector) for vector in chosen]
    return time.process_time() - began, answers


def wrong(name: str, answers: list[Any]) -> int:
    """How many answers differ from the committed vectors' (0: the walks agree)."""
    key = "end_hash" if name == "chain_position" else "steps"
    committed = [v["expected"]["output"][key] for v in vectors(name)]
    return sum(a != e for a, e in zip(answers, committed, strict=True))


RUNS = {"chain_position": position_walk, "chain_check": check_walk}


def part_one(commit: str) -> None:
    print(f"Part 1: the reference's walks in one process (CPU seconds; old = {commit})")
    old, new = old_walks(commit), new_walks()
    figures: dict[str, list[float]] = {name: [] for name in RUNS}
    mistakes = 0
    for walks in (old, new):  # the new: one memo for both, as one adapter process runs them
        bustabit.forget_walks()
        for name, walk in RUNS.items():
            seconds, answers = timed(walk, walks, name)
            figures[name].append(seconds)
            mistakes += wrong(name, answers)
    segments, size = bustabit.remembered_segments(), memo_bytes()
    for name, walk in RUNS.items():  # the new, each with its own memo (generate's workers)
        bustabit.forget_walks()
        seconds, answers = timed(walk, new, name)
        figures[name].append(seconds)
        mistakes += wrong(name, answers)
    print(f"  {'algorithm':16} {'vectors':>7} {'old':>7} {'new':>7} {'new alone':>9}")
    for name, (old_s, new_s, alone_s) in figures.items():
        print(f"  {name:16} {len(vectors(name)):7} {old_s:7.1f} {new_s:7.1f} {alone_s:9.1f}")
    totals = [sum(column) for column in zip(*figures.values(), strict=True)]
    print(f"  {'both':16} {'':7} {totals[0]:7.1f} {totals[1]:7.1f} {totals[2]:9.1f}")
    print(f"  answers differing from the vectors': {mistakes}")
    print(f"  segments remembered after both: {segments} (bound {bustabit.MEMO_SEGMENTS}),")
    print(f"  {size:,} bytes ({size / max(segments, 1):.0f} a segment; sys.getsizeof)")


def memo_bytes() -> int:
    """The memo's size: its tables, and each key, value tuple and step count (an end is the
    next segment's key, the same object: counted once)."""
    tables = bustabit._segments.values()
    objects = {id(o): o for t in tables for k, v in t.items() for o in (k, v, *v)}
    return sum(map(sys.getsizeof, tables)) + sum(map(sys.getsizeof, objects.values()))


def part_two(commit: str) -> None:
    print("Part 2: fairvec run --bundled python --algorithm 'bustabit.chain_*' --tier none")
    print(f"  {'tree':12} {'-j':>2} {'CPU s':>7} {'wall s':>7} exit")
    with tempfile.TemporaryDirectory(prefix="chain-walks-") as folder:
        archive = subprocess.run(
            ["git", "archive", commit], cwd=ROOT, check=True, capture_output=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", folder], input=archive, check=True)
        for jobs in (1, 2):
            for label, tree in ((f"old {commit}", Path(folder)), ("new", ROOT)):
                cpu, wall, code = fairvec_run(tree, jobs)
                print(f"  {label:12} {jobs:2} {cpu:7.1f} {wall:7.1f} {code}")


def fairvec_run(tree: Path, jobs: int) -> tuple[float, float, int]:
    """The run from ``tree`` (its fairvec first on the path): children's CPU, wall, exit."""
    command = [sys.executable, "-m", "fairvec", "run", "--bundled", "python"]
    command += ["--algorithm", "bustabit.chain_*", "--tier", "none", "-j", str(jobs)]
    environment = {**os.environ, "PYTHONPATH": str(tree)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.monotonic()
    done = subprocess.run(command, cwd=tree, env=environment, capture_output=True)
    wall = time.monotonic() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, done.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--old", default=OLD_COMMIT, help=f"the commit before (default {OLD_COMMIT})"
    )
    parser.add_argument("--skip-run", action="store_true", help="part 1 only")
    arguments = parser.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.1f}")
    part_one(arguments.old)
    if not arguments.skip_run:
        part_two(arguments.old)
    print(f"load average at end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
