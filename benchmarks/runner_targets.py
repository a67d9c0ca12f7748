"""The runner's targets (issue 10), each measured side by side in one run; prints, never asserts.

    python benchmarks/runner_targets.py [--repeats 3] [--accumulated casino.mines]
    python benchmarks/runner_targets.py --only first-request [--repeats 5]
    python benchmarks/runner_targets.py --only whole-suite --baseline OLD/bin/fairvec

1. overhead: Session.run at -j 1 against the Node adapter fed directly (pipelined), same load;
2. capacity: vectors a second through the runner with benchmarks/table_adapter.py, an adapter
   that answers from a precomputed table (so the time is the runner's own);
3. whole suite: ``fairvec run --bundled node --tier none`` wall clock, with and without the
   slow vectors (tag slow: chain walks) and videopoker.analysis (whole pay tables);
4. accumulated: ``fairvec run --bundled node`` over one algorithm's accumulated vectors;
5. start: from starting ``fairvec run`` to the adapter reading its first request.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from runner_throughput import (
    battle_works,
    load_average,
    synthetic_works,
    time_direct,
    time_runner,
)

from fairvec.runner.arguments import bundled_adapter
from fairvec.runner.protocol import request_bytes
from fairvec.runner.results import Work

HERE = Path(__file__).resolve().parent
FAIRVEC = [sys.executable, "-m", "fairvec"]
# everything but videopoker.analysis (no tag marks it; --algorithm selects around it)
NO_ANALYSIS = ["battle.*", "bustabit.*", "casino.*", "nardy.*", "stake.*", "tenhou.*"] + [
    f"videopoker.{name}"
    for name in ("best_hold", "card", "cards", "commitment", "draw", "evaluate", "game", "hash")
]
FIRST_REQUEST = """import sys, time
print('{"type":"hello","protocol":1,"name":"t","version":"0","algorithms":{"battle.move":[]}}',
      flush=True)
sys.stdin.buffer.readline()
open(sys.argv[1], "w").write(repr(time.time()))
"""


def median(repeats: int, measure: Callable[[], float]) -> float:
    return statistics.median(measure() for _ in range(repeats))


def calibration() -> float:
    """Seconds for a fixed piece of pure-Python work (hashing and formatting, as the runner
    does): how fast this machine is right now, so runs on different days compare."""
    started = time.perf_counter()
    for number in range(300_000):
        hashlib.sha256(b"fairvec:%d" % number).digest()
    return time.perf_counter() - started


def report_first_request(folder: Path, repeats: int) -> None:
    """The median of ``repeats`` runs, and each run, so that a noisy machine shows."""
    samples = [first_request(folder) for _ in range(repeats)]
    shown = " ".join(f"{sample:.3f}" for sample in samples)
    print(
        f"fairvec run to the first request (whole suite loaded): "
        f"{statistics.median(samples):.3f} s, median of {repeats} ({shown})"
    )


def table_command(works: list[Work], folder: Path) -> list[str]:
    algorithms: dict[str, set[str]] = {}
    answers = {}
    for work in works:
        algorithms.setdefault(work.algorithm, set()).update(
            [work.vector["variant"]] if work.vector["variant"] else []
        )
        expected = work.vector["expected"]
        body = {"error": {"code": expected["error"]}} if "error" in expected else expected
        answers[work.vector["id"]] = json.dumps({"id": work.vector["id"], **body})
    hello: dict[str, Any] = {"type": "hello", "protocol": 1, "name": "table", "version": "0"}
    hello["algorithms"] = {name: sorted(v) for name, v in algorithms.items()}
    table = folder / "table.json"
    table.write_text(json.dumps({"hello": hello, "answers": answers}), encoding="ascii")
    return [sys.executable, str(HERE / "table_adapter.py"), str(table)]


def wall(arguments: list[str], fairvec: list[str] | None = None) -> float:
    started = time.perf_counter()
    done = subprocess.run([*(fairvec or FAIRVEC), *arguments], capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        print(f"  note: {' '.join(arguments)} exited {done.returncode}: {done.stderr[-300:]}")
    return elapsed


def first_request(folder: Path) -> float:
    script, mark = folder / "first.py", folder / "first.time"
    script.write_text(FIRST_REQUEST, encoding="utf-8")
    mark.unlink(missing_ok=True)
    started = time.time()
    subprocess.run(
        [
            *FAIRVEC,
            "run",
            "--tier",
            "none",
            "--max-crashes",
            "1",
            "--",
            sys.executable,
            "-S",
            str(script),
            str(mark),
        ],
        capture_output=True,
    )
    return float(mark.read_text()) - started


def report_whole_suite_pairs(repeats: int, baseline: str | None) -> None:
    """The whole suite through the bundled Node adapter (no accumulate requests: --tier
    none), this fairvec and --baseline's alternated run by run, after one untimed run of
    each (so both caches are warm)."""
    arguments = ["run", "--bundled", "node", "--tier", "none", "--exclude-tag", "slow"]
    arguments += ["--no-progress", "-j", "1"]
    sides: list[tuple[str, list[str] | None]] = [("fairvec", None)]
    if baseline is not None:
        sides.append(("baseline", [baseline]))
    for _, command in sides:
        wall(arguments, command)
    walls: dict[str, list[float]] = {label: [] for label, _ in sides}
    for _ in range(repeats):
        for label, command in sides:
            walls[label].append(wall(arguments, command))
    print(f"\nwhole suite, fairvec {' '.join(arguments[1:])} (wall s, median of {repeats})")
    for label, seconds in walls.items():
        shown = " ".join(f"{value:.2f}" for value in seconds)
        print(f"  {label:<9} {statistics.median(seconds):6.2f}  ({shown})")


def main() -> None:
    parser = argparse.ArgumentParser(description="The runner's targets, measured (prints only).")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--synthetic", type=int, default=20000)
    parser.add_argument("--accumulated", default="casino.mines", metavar="ALGORITHM")
    parser.add_argument(
        "--only",
        choices=("first-request", "whole-suite"),
        help="measure only this (quick; --repeats runs)",
    )
    parser.add_argument(
        "--baseline",
        metavar="FAIRVEC",
        help="with --only whole-suite: another fairvec command (an older install's "
        "bin/fairvec) measured beside this one",
    )
    arguments = parser.parse_args()
    if arguments.only == "whole-suite":
        report_whole_suite_pairs(arguments.repeats, arguments.baseline)
        return
    print(f"load average before {load_average()}, cpus {os.cpu_count()}")
    print(f"calibration (300,000 SHA-256 of short texts in Python): {calibration():.3f} s")
    if arguments.only == "first-request":
        with tempfile.TemporaryDirectory() as name:
            report_first_request(Path(name), arguments.repeats)
        print(f"load average after {load_average()}")
        return
    works = synthetic_works(battle_works(None), arguments.synthetic)
    lines = [request_bytes(w.vector, w.algorithm) for w in works]
    node = bundled_adapter("node")
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        table = table_command(works, folder)
        rows = []
        for label, command in (("node", node), ("table", table)):
            direct = median(
                arguments.repeats, functools.partial(time_direct, command, lines, lockstep=False)
            )
            for window in (32, 256):
                ran = median(
                    arguments.repeats, functools.partial(time_runner, command, works, window)
                )
                rows.append((label, window, direct, ran))
        print(f"\n{len(works)} synthetic battle requests, median of {arguments.repeats}")
        print("adapter window  direct s  runner s  runner vec/s  runner/direct")
        for label, window, direct, ran in rows:
            print(
                f"{label:<7} {window:>6} {direct:>9.3f} {ran:>9.3f} {len(works) / ran:>13.0f}"
                f" {ran / direct:>13.2f}"
            )
        print("\nwhole suite, fairvec run --bundled node --tier none --no-progress (wall s)")
        base = ["run", "--bundled", "node", "--tier", "none", "--no-progress"]
        fast = [part for glob in NO_ANALYSIS for part in ("--algorithm", glob)]
        for label, extra in (
            ("everything", []),
            ("--exclude-tag slow", ["--exclude-tag", "slow"]),
            ("--exclude-tag slow, no analysis", ["--exclude-tag", "slow", *fast]),
        ):
            for jobs in (1, 2):
                seconds = median(
                    arguments.repeats, functools.partial(wall, [*base, "-j", str(jobs), *extra])
                )
                print(f"  -j {jobs} {label:<34} {seconds:7.2f}")
        accumulated = [
            "run",
            "--bundled",
            "node",
            "--no-progress",
            "--tier",
            "full",
            "--algorithm",
            arguments.accumulated,
            "-k",
            "accumulated",
        ]
        print(
            f"\naccumulated {arguments.accumulated} (full tier where committed): "
            f"{wall(accumulated):.2f} s wall"
        )
        report_first_request(folder, arguments.repeats)
    print(f"load average after {load_average()}")


if __name__ == "__main__":
    main()
