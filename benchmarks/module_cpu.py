"""CPU seconds (user + system, children included) of test modules, an old tree's and a new
one's run alternately in one go: wall time means nothing on a loaded machine, CPU does.

Usage: python benchmarks/module_cpu.py OLD_TREE NEW_TREE [--python OLD_PY NEW_PY] MODULE...

Each module runs as ``pytest -n 0 -p no:randomly tests/MODULE`` from each tree, with that
tree's python (by default the one running this script for both), old then new, module by
module. Prints a table: old CPU, new CPU, and each run's exit status and test count.
"""

from __future__ import annotations

import argparse
import re
import resource
import subprocess
import sys
from pathlib import Path


def children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def measure(python: str, tree: Path, module: str) -> tuple[float, int, str]:
    """CPU seconds of one pytest run of ``module`` in ``tree``, its status and its tally."""
    before = children_cpu()
    done = subprocess.run(
        [python, "-m", "pytest", "-q", "-n", "0", "-p", "no:randomly", f"tests/{module}"],
        cwd=tree, capture_output=True, text=True, check=False,
    )  # fmt: skip
    cpu = children_cpu() - before
    tally = re.findall(r"^=* ?(\d+ passed.*?) ?=*$", done.stdout, re.MULTILINE)
    return cpu, done.returncode, tally[-1] if tally else done.stdout[-200:]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("old", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("--python", nargs=2, default=[sys.executable, sys.executable])
    parser.add_argument("modules", nargs="+")
    arguments = parser.parse_args()
    totals = [0.0, 0.0]
    print(f"{'module':32} {'old CPU s':>9} {'new CPU s':>9}  old tally | new tally", flush=True)
    for module in arguments.modules:
        runs = [
            measure(python, tree, module)
            for python, tree in zip(arguments.python, (arguments.old, arguments.new), strict=True)
        ]
        totals = [total + cpu for total, (cpu, _, _) in zip(totals, runs, strict=True)]
        (old, old_status, old_tally), (new, new_status, new_tally) = runs
        print(
            f"{module.removesuffix('.py'):32} {old:9.1f} {new:9.1f}  "
            f"{old_tally} ({old_status}) | {new_tally} ({new_status})",
            flush=True,
        )
    print(f"{'total':32} {totals[0]:9.1f} {totals[1]:9.1f}", flush=True)


if __name__ == "__main__":
    main()
