"""The runner's targets (issue 10), each measured side by side in one run; prints, never asserts.

    python benchmarks/runner_targets.py [--repeats 3] [--accumulated casino.mines]
    python benchmarks/runner_targets.py --only first-request [--repeats 5]
    python benchmarks/runner_targets.py --only whole-suite --baseline OLD/bin/fairvec
    python benchmarks/runner_targets.py --only node-full [--full ALGORITHM ...]

1. overhead: Session.run at -j 1 against the Node adapter fed directly (pipelined), same load;
2. capacity: vectors a second through the runner with benchmarks/table_adapter.py, an adapter
   that answers from a precomputed table (so the time is the runner's own);
3. whole suite: ``fairvec run --bundled node --tier none`` wall clock, with and without the
   slow vectors (tag slow: chain walks) and videopoker.analysis (whole pay tables);
4. accumulated: ``fairvec run --bundled node`` over one algorithm's accumulated vectors;
5. start: from starting ``fairvec run`` to the adapter reading its first request;
6. (``--only node-full``, issue 20) the full tier of each accumulated algorithm the Node port
   covers through ``fairvec run --bundled node --tier full`` (the port computing the digest
   itself: the accumulate request), against the Node port computing the same digest alone
   (``adapters/node/accumulate.js``), the two alternated; target within 1.2x.
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
from fairvec.vectorfiles import default_vectors_root, vector_file_paths

HERE = Path(__file__).resolve().parent
FAIRVEC = [sys.executable, "-m", "fairvec"]
# everything but videopoker.analysis (no tag marks it; --algorithm selects around it)
NO_ANALYSIS = ["battle.*", "bustabit.*", "casino.*", "nardy.*", "stake.*", "tenhou.*"] + [
    f"videopoker.{name}"
    for name in ("best_hold", "card", "cards", "commitment", "draw", "evaluate", "game", "hash")
]
FULL_TAG = "accumulated-full"
FULL_TARGET = 1.2  # issue 20: the full tier within 1.2x of the port computing it alone
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
    # from outside the checkout: there "python -m fairvec" would import the checkout's code,
    # not this interpreter's install
    done = subprocess.run(
        [*(fairvec or FAIRVEC), *arguments],
        capture_output=True,
        text=True,
        cwd=tempfile.gettempdir(),
    )
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        print(f"  note: {' '.join(arguments)} exited {done.returncode}: {done.stderr[-300:]}")
    return elapsed


def first_request(folder: Path) -> float:
    script, mark = folder / "first.py", folder / "first.time"
    script.write_text(FIRST_REQUEST, encoding="utf-8")
    mark.unlink(missing_ok=True)
    started = time.time()
    subprocess.run(  # (outside the checkout, as wall)
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
        cwd=tempfile.gettempdir(),
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


def full_tiers(algorithms: list[str] | None) -> list[tuple[Path, str, str, str]]:
    """(vector file, algorithm, accumulated id, digest) of each committed full tier the
    bundled Node adapter declares (of ``algorithms``, if given), in the suite's order."""
    hello = subprocess.run(
        bundled_adapter("node"), input="", capture_output=True, text=True, check=True
    ).stdout.splitlines()[0]
    declared = json.loads(hello)["algorithms"]
    found = []
    for path in vector_file_paths(default_vectors_root()):
        data = json.loads(path.read_bytes())
        algorithm = data["algorithm"]
        if algorithm not in declared or (algorithms and algorithm not in algorithms):
            continue
        for entry in data.get("accumulated", []):
            if FULL_TAG in entry["tags"]:
                found.append((path, algorithm, entry["id"], entry["expected"]["digest"]))
    return found


def node_alone(path: Path, accumulated_id: str, digest: str) -> float:
    """The Node port computing the digest alone, no fairvec in it (checked, untimed)."""
    script = Path(bundled_adapter("node")[-1]).with_name("accumulate.js")
    started = time.perf_counter()
    done = subprocess.run(
        ["node", str(script), str(path), accumulated_id], capture_output=True, text=True
    )
    elapsed = time.perf_counter() - started
    if done.returncode != 0 or json.loads(done.stdout)["digest"] != digest:
        print(f"  note: accumulate.js {accumulated_id}: not the digest: {done.stderr[-300:]}")
    return elapsed


def report_node_full_tiers(repeats: int, algorithms: list[str] | None) -> None:
    """Issue 20's first target, for the bundled Node port (see the module's docstring)."""
    print(f"load average before {load_average()}, cpus {os.cpu_count()}")
    print(f"\nfull tiers through the Node port, median of {repeats} (wall s); target 1.2x")
    ratios = []
    for path, algorithm, accumulated_id, digest in full_tiers(algorithms):
        through = ["run", "--bundled", "node", "--tier", "full", "--tag", FULL_TAG]
        through += ["--algorithm", algorithm, "--no-progress"]
        alone: list[float] = []
        fairvec: list[float] = []
        for round_number in range(repeats):  # the sides alternated round by round
            for side in ("alone", "fairvec") if round_number % 2 == 0 else ("fairvec", "alone"):
                if side == "alone":
                    alone.append(node_alone(path, accumulated_id, digest))
                else:
                    fairvec.append(wall(through))
        ratio = statistics.median(fairvec) / statistics.median(alone)
        ratios.append(ratio)
        verdict = "meets" if ratio <= FULL_TARGET else "misses"
        print(
            f"  {accumulated_id:<48} alone {statistics.median(alone):7.2f}  fairvec run "
            f"{statistics.median(fairvec):7.2f}  {ratio:.2f}x ({verdict})"
        )
    if ratios:
        print(f"  largest ratio {max(ratios):.2f}x of {len(ratios)} full tiers")
    print(f"load average after {load_average()}")


def main() -> None:
    parser = argparse.ArgumentParser(description="The runner's targets, measured (prints only).")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--synthetic", type=int, default=20000)
    parser.add_argument("--accumulated", default="casino.mines", metavar="ALGORITHM")
    parser.add_argument(
        "--only",
        choices=("first-request", "whole-suite", "node-full"),
        help="measure only this (quick but node-full, minutes a tier; --repeats runs)",
    )
    parser.add_argument(
        "--full",
        action="append",
        metavar="ALGORITHM",
        help="with --only node-full: this algorithm's full tier only (repeatable)",
    )
    parser.add_argument(
        "--baseline",
        metavar="FAIRVEC",
        help="with --only whole-suite: another fairvec command (an older install's "
        "bin/fairvec) measured beside this one",
    )
    arguments = parser.parse_args()
    if arguments.only == "node-full":
        report_node_full_tiers(arguments.repeats, arguments.full)
        return
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
