"""Where the time of one ``fairvec run`` goes, phase by phase; prints, never asserts.

    python benchmarks/run_phases.py [--repeats 5] -- RUN-ARGUMENTS... -- ADAPTER...
    python benchmarks/run_phases.py -- --tier none --bundled node
    python benchmarks/run_phases.py -- --tier none -- benchmarks/c_adapter/adapter

Runs ``fairvec run RUN-ARGUMENTS`` in a child interpreter that wraps a few of the
runner's functions to note the wall clock as each phase ends (the functions run as ever),
and prints the median of --repeats runs of each phase:

  start      the interpreter, up to this script's first line (site, the venv)
  imports    fairvec's command line and the runner's modules
  load       reading, hashing and choosing the vector files (select: skeletal where cached)
  hello      the adapter's start, up to its hello (it was spawned before the load)
  claims     pins, partial outputs and fresh vectors (runner/claims.py)
  vectors    Session.run: every request sent, answered and judged, the rest skipped
  accumulated  the accumulated vectors (runner/accumulated_run.py)
  digests    the suite's and the run's digests (cached: a lookup)
  reports    writing the reports
  exit       the rest: main's return to the process's end

and, apart, the time spent reading the hello's files whole (VectorFile.fill), which happens
within claims and vectors: each file just before its first request (selection.Filler); and
reading the answer memo's files (runner/answer_memo.py), which take the place of most fills
on a rerun whose answers have not changed (FAIRVEC_NO_CACHE=1 measures a run without them).

The run's first run is untimed (so the caches are warm, as in use). The wrapping costs a
few microseconds a phase, not a vector.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHILD = r"""
import json, os, sys, time
marks = [("start", time.time())]
def mark(name):
    marks.append((name, time.time()))

import fairvec.cli as cli
import fairvec.runner.accumulated_run as accumulated_run
import fairvec.runner.run as run
import fairvec.runner.session as session
import fairvec.vectorfiles as vectorfiles
mark("imports")

import fairvec.runner.answer_memo as answer_memo
apart = {"fill": 0.0, "memo": 0.0}
def timed_apart(owner, name, noted):
    function = getattr(owner, name)
    def timed(*args, **kwargs):
        started = time.time()
        try:
            return function(*args, **kwargs)
        finally:
            apart[noted] += time.time() - started
    setattr(owner, name, timed)
timed_apart(vectorfiles.VectorFile, "fill", "fill")
timed_apart(answer_memo.AnswerMemo, "_read", "memo")

def after(module, name, phase):
    function = getattr(module, name)
    def wrapped(*args, **kwargs):
        result = function(*args, **kwargs)
        mark(phase)
        return result
    setattr(module, name, wrapped)

after(run, "select", "load")
after(run, "_start_session", "hello")
after(run, "_claimed", "claims")
after(session.Session, "run", "vectors")
after(session.ParallelSession, "run", "vectors")
after(accumulated_run, "run_for_run", "accumulated")
after(run, "digests", "digests")
after(run, "write_reports", "reports")
try:
    status = cli.main(sys.argv[2:])
finally:
    with open(sys.argv[1], "w") as out:
        json.dump({"marks": marks, **apart}, out)
sys.stdout.flush()
os._exit(status)
"""

PHASES = (
    "start", "imports", "load", "hello", "claims", "vectors", "accumulated", "digests",
    "reports", "exit",
)  # fmt: skip


def one_run(arguments: list[str], marks: Path, child: Path) -> dict[str, float]:
    """Each phase's seconds in one run (a phase met twice, as vectors with -j, adds up)."""
    started = time.time()
    subprocess.run(
        [sys.executable, str(child), str(marks), "run", "--no-progress", *arguments],
        capture_output=True,
        check=False,
    )
    ended = time.time()
    seconds = dict.fromkeys(PHASES, 0.0)
    previous = started
    noted = json.loads(marks.read_text())
    for name, at in noted["marks"]:
        seconds[name] += at - previous
        previous = at
    seconds["exit"] = ended - previous
    seconds["total"] = ended - started
    seconds["fill"], seconds["memo"] = noted["fill"], noted["memo"]
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description="Where the time of one fairvec run goes.")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("run", nargs=argparse.REMAINDER, help="-- RUN-ARGUMENTS -- ADAPTER")
    options = parser.parse_args()
    arguments = options.run[1:] if options.run[:1] == ["--"] else options.run
    if not arguments or options.repeats < 1:
        parser.error("give --repeats 1 or more, then -- RUN-ARGUMENTS (-- ADAPTER or --bundled)")
    with tempfile.TemporaryDirectory() as name:
        child, marks = Path(name) / "child.py", Path(name) / "marks.json"
        child.write_text(CHILD, encoding="utf-8")
        one_run(arguments, marks, child)  # untimed: the caches warm
        runs = [one_run(arguments, marks, child) for _ in range(options.repeats)]
    print(f"fairvec run {' '.join(arguments)}: median of {options.repeats} runs (ms)")
    for phase in (*PHASES, "total", "fill", "memo"):
        values = [run[phase] * 1000 for run in runs]
        shown = " ".join(f"{value:.0f}" for value in values)
        print(f"  {phase:<12}{statistics.median(values):8.1f}   ({shown})")


if __name__ == "__main__":
    main()
