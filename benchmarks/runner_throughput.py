"""How fast the runner drives an adapter, and what the runner itself costs per vector.

    python benchmarks/runner_throughput.py [--repeats 5] [--synthetic 10000] [--adapter node]

For each bundled adapter (python, node) and each load (the 745 battle vectors, and
optionally the battle vectors repeated under new ids to --synthetic requests) it prints:

* start-up: spawning the adapter up to its hello line (Session construction), timed apart;
* runner: ``Session.run`` over the load at window 1 (lockstep) and 32 (the default);
* direct: the same request lines fed straight into the adapter, no runner in between:
  "direct-pipe" writes them all from a thread while the main thread reads the answers
  (the most an adapter can do), "direct-lock" writes one and reads one (what window 1 is
  up against);
* runner overhead: (runner - direct) / vectors in microseconds, and runner / direct.

Every figure is the median of --repeats runs; each run uses a fresh, already-greeted
adapter process, so start-up never lands in a throughput figure. It prints, never asserts.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from fairvec.data_model import Vector
from fairvec.runner.arguments import bundled_adapter
from fairvec.runner.options import SelectionOptions
from fairvec.runner.protocol import request_line
from fairvec.runner.results import Work
from fairvec.runner.selection import select_works
from fairvec.runner.session import Session

WINDOWS = (1, 32, 256)  # lockstep, the old default, the default (--window)


@dataclass
class Row:
    adapter: str
    load: str
    mode: str
    vectors: int
    seconds: float  # median

    @property
    def per_second(self) -> float:
        return self.vectors / self.seconds

    @property
    def micros_per_vector(self) -> float:
        return self.seconds / self.vectors * 1e6


def battle_works(vectors: Path | None) -> list[Work]:
    """Exactly what ``fairvec run --algorithm 'battle.*'`` selects."""
    return select_works(SelectionOptions(vectors=vectors, algorithms=("battle.*",)))


def synthetic_works(works: Sequence[Work], size: int) -> list[Work]:
    """The works repeated, each copy under a new id, up to ``size`` requests."""
    out = []
    for number in range(size):
        work = works[number % len(works)]
        vector: Vector = {**work.vector, "id": f"{work.vector['id']}~{number // len(works)}"}
        out.append(Work(vector, work.algorithm, work.output_schema))
    return out


def median_of(repeats: int, measure: Callable[[], float]) -> float:
    return statistics.median(measure() for _ in range(repeats))


def time_startup(command: list[str]) -> float:
    started = time.perf_counter()
    session = Session(command, timeout=30.0, window=1)
    elapsed = time.perf_counter() - started
    session.close()
    return elapsed


def time_runner(command: list[str], works: list[Work], window: int) -> float:
    session = Session(command, timeout=30.0, window=window)  # start-up not timed
    try:
        started = time.perf_counter()
        results = session.run(works)
        elapsed = time.perf_counter() - started
    finally:
        session.close()
    statuses = Counter(result.status for result in results)
    if statuses["pass"] != len(works) or session.restarts:
        print(
            f"  note: {' '.join(command)} window {window}: {dict(statuses)}, "
            f"{session.restarts} restart(s)",
            file=sys.stderr,
        )
    return elapsed


def time_direct(command: list[str], lines: list[bytes], *, lockstep: bool) -> float:
    """Feed the request lines straight into a fresh adapter; time first write to last answer."""
    process = subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert process.stdin and process.stdout
    stdin, stdout = process.stdin, process.stdout
    stdout.readline()  # the hello line

    def write_all() -> None:
        for line in lines:
            stdin.write(line)
            stdin.flush()

    started = time.perf_counter()
    if lockstep:
        for line in lines:
            stdin.write(line)
            stdin.flush()
            stdout.readline()
    else:
        writer = threading.Thread(target=write_all)
        writer.start()
        for _ in lines:
            stdout.readline()
        writer.join()
    elapsed = time.perf_counter() - started
    stdin.close()
    process.wait(timeout=10)
    return elapsed


def measure(adapter: str, load: str, works: list[Work], repeats: int) -> list[Row]:
    command = bundled_adapter(adapter)
    lines = [(request_line(w.vector, w.algorithm) + "\n").encode("utf-8") for w in works]
    timers: list[tuple[str, Callable[[], float]]] = [
        ("direct-lock", partial(time_direct, command, lines, lockstep=True)),
        ("direct-pipe", partial(time_direct, command, lines, lockstep=False)),
    ]
    for window in WINDOWS:
        timers.append((f"runner w={window}", partial(time_runner, command, works, window)))
    return [
        Row(adapter, load, mode, len(works), median_of(repeats, timer)) for mode, timer in timers
    ]


def node_version() -> str:
    try:
        found = subprocess.run(
            [*bundled_adapter("node")[:1], "--version"], capture_output=True, text=True, check=True
        )
    except Exception as error:  # a missing node only drops the node rows
        return f"unavailable ({error})"
    return found.stdout.strip()


def load_average() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def print_table(rows: list[Row]) -> None:
    """Runner rows also show their overhead over the direct feeds of the same load."""
    print(
        f"{'adapter':<7} {'load':<11} {'mode':<11} {'vectors':>7} {'median s':>8} "
        f"{'vec/s':>7} {'us/vec':>7}  {'overhead vs pipe':>16}  {'vs lock':>14}"
    )
    direct = {(row.adapter, row.load, row.mode): row for row in rows}
    for row in rows:
        line = (
            f"{row.adapter:<7} {row.load:<11} {row.mode:<11} {row.vectors:>7} "
            f"{row.seconds:>8.3f} {row.per_second:>7.0f} {row.micros_per_vector:>7.1f}"
        )
        if row.mode.startswith("runner"):
            for base_mode, width in (("direct-pipe", 16), ("direct-lock", 14)):
                base = direct[(row.adapter, row.load, base_mode)]
                extra = row.micros_per_vector - base.micros_per_vector
                line += f"  {f'{extra:+.1f} us x{row.seconds / base.seconds:.2f}':>{width}}"
        print(line)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Runner throughput and overhead (prints only).")
    parser.add_argument("--repeats", type=int, default=5, help="runs per figure (default 5)")
    parser.add_argument(
        "--synthetic",
        type=int,
        default=10000,
        metavar="N",
        help="also a load of the battle vectors repeated to N requests (default 10000; 0 skips it)",
    )
    parser.add_argument(
        "--adapter",
        action="append",
        choices=("python", "node"),
        help="only this bundled adapter; repeatable (default both)",
    )
    parser.add_argument(
        "--vectors", type=Path, metavar="DIR", help="vector folder (default: the installed vectors)"
    )
    arguments = parser.parse_args(argv)
    battle = battle_works(arguments.vectors)
    loads = [("battle", battle)]
    if arguments.synthetic:
        loads.append((f"synth-{arguments.synthetic}", synthetic_works(battle, arguments.synthetic)))
    node = node_version()
    adapters = [
        a
        for a in arguments.adapter or ["python", "node"]
        if a != "node" or not node.startswith("unavailable")
    ]
    load_before = load_average()
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else "?"
    print(
        f"date {dt.date.today()}  python {platform.python_version()}  node {node}  "
        f"cpus {os.cpu_count()} (usable {usable})  {platform.platform()}"
    )
    print(f"median of {arguments.repeats} runs; throughput figures exclude adapter start-up\n")
    startups = {
        a: median_of(arguments.repeats, partial(time_startup, bundled_adapter(a))) for a in adapters
    }
    rows = [
        row
        for a in adapters
        for load, works in loads
        for row in measure(a, load, works, arguments.repeats)
    ]
    print_table(rows)
    print(
        "\nadapter start-up, spawn to hello line (median): "
        + ", ".join(f"{a} {seconds * 1000:.0f} ms" for a, seconds in startups.items())
    )
    print(f"load average before {load_before}, after {load_average()} (other work skews figures)")


if __name__ == "__main__":
    main()
