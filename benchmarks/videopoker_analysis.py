"""Time the exact video poker analysis (fairvec/analysis/videopoker.py) per pay table.

Prints figures and never asserts; it is not a test. Each repeat runs in a fresh Python
process, so "cold" includes everything a first `fairvec analyze` pays (building the
per-set tables and the 134,459 suit classes), and "warm" is a further table in the same
process. Figures are medians over --repeats runs.

    python benchmarks/videopoker_analysis.py [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys

TABLES = ("jacks-or-better", "tens-or-better", "bonus-poker")

ONE_RUN = """
import json, sys, time
start, cpu_start = time.perf_counter(), time.process_time()
from fairvec.analysis import videopoker as fast
times = {}
for name in sys.argv[1:]:
    began = time.perf_counter()
    result = fast.analyze(fast.PAY_TABLES[name])
    times[name] = [time.perf_counter() - began, fast.decimal(result.returns)]
    if len(times) == 1:
        cold, cold_cpu = time.perf_counter() - start, time.process_time() - cpu_start
print(json.dumps({"cold": cold, "cold_cpu": cold_cpu, "times": times}))
"""


def one_run(first: str) -> dict[str, object]:
    order = [first, *(t for t in TABLES if t != first)]
    done = subprocess.run(
        [sys.executable, "-c", ONE_RUN, *order], capture_output=True, text=True, check=True
    )
    result: dict[str, object] = json.loads(done.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="runs per table (default 5)")
    repeats = parser.parse_args().repeats
    print(
        f"python {platform.python_version()}  cpus {os.cpu_count()}  {platform.platform()}"
        f"  load {os.getloadavg()[0]:.2f}"
    )
    print(f"median of {repeats} runs, each in a fresh process\n")
    print(f"{'table':<18}{'cold s':>9}{'cold cpu s':>12}{'warm s':>9}  return")
    for table in TABLES:
        cold, cold_cpu, warm, returns = [], [], [], ""
        for _ in range(repeats):
            run = one_run(table)
            times = run["times"]
            assert isinstance(times, dict)
            cold.append(float(run["cold"]))  # type: ignore[arg-type]
            cold_cpu.append(float(run["cold_cpu"]))  # type: ignore[arg-type]
            returns = times[table][1]
            # the same table timed warm: first in another run's order, it is timed second here
            warm.append(one_run(next(t for t in TABLES if t != table))["times"][table][0])  # type: ignore[index]
        print(
            f"{table:<18}{statistics.median(cold):>9.2f}{statistics.median(cold_cpu):>12.2f}"
            f"{statistics.median(warm):>9.2f}  {returns}"
        )
    print("\ncold: import + this table first in a new process (wall, and CPU time of the process);")
    print("warm: this table after another one in the same process")


if __name__ == "__main__":
    main()
