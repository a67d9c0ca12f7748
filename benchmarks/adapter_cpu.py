"""The CPU the bundled Python adapter spends on some algorithms' fixed vectors, old code
beside new (issue 35: the main job's adapter processes); prints, never asserts.

    git archive <commit> | tar -x -C ../old          # the code before
    python benchmarks/adapter_cpu.py --old ../old    # nardy.archive and the chain walks
    python benchmarks/adapter_cpu.py --old ../old --algorithm 'videopoker.*' --rounds 3
    python benchmarks/adapter_cpu.py --old ../old --main-job --rounds 1   # the README's job

Each measurement is a child process that does what one adapter process does with those
vectors: imports fairvec (from the tree named, through PYTHONPATH, before the editable
install), then answers every fixed vector of the chosen algorithms in file order with
``compute``, in one process (so the chain walks share their memo as in an adapter), and
compares each answer with the vector's expected value. Its CPU is the child's own
(user + sys, from the parent's ``resource.getrusage(RUSAGE_CHILDREN)``, imports included).
Old and new run alternately, round after round, so that both meet the same load.

With ``--main-job`` each measurement is instead the README's main job, ``fairvec run
--bundled python`` (every fixed vector and every default-tier stream, -j as the machine's
CPUs, or ``-j``), from the tree named, with an empty vector cache and one fresh-stream seed
for both: the CPU of the runner and its adapter processes together (the runner's code is the same
in both trees when only the reference changed, so the difference is the adapters').
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent
DEFAULT_ALGORITHMS = ["nardy.archive", "bustabit.chain_check", "bustabit.chain_position"]


def vector_files(tree: Path, patterns: list[str]) -> list[tuple[str, list[dict[str, Any]]]]:
    """(algorithm, vectors) of every vector file under ``tree`` whose algorithm matches."""
    chosen = []
    for path in sorted((tree / "vectors").glob("*/*.json")):
        document = json.loads(path.read_text(encoding="utf-8"))
        if any(fnmatch.fnmatchcase(document["algorithm"], pattern) for pattern in patterns):
            chosen.append((document["algorithm"], document["vectors"]))
    return chosen


def answer_all(tree: Path, patterns: list[str]) -> dict[str, Any]:
    """The child's work: every chosen vector answered; how many agree with the vector."""
    from fairvec.reference import InvalidInput, compute

    agree = total = 0
    for algorithm, vectors in vector_files(tree, patterns):
        for vector in vectors:
            try:
                answer: dict[str, Any] = {
                    "output": compute(algorithm, vector["input"], vector.get("variant"))
                }
            except InvalidInput as error:
                answer = {"error": error.code}
            agree += answer == vector["expected"]
            total += 1
    return {"agree": agree, "total": total}


def measure(tree: Path, patterns: list[str]) -> tuple[float, dict[str, Any]]:
    """CPU seconds (user + sys) of one child answering the vectors from ``tree``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    command = [sys.executable, __file__, "--child", str(tree)]
    for pattern in patterns:
        command += ["--algorithm", pattern]
    environment = {**os.environ, "PYTHONPATH": str(tree.resolve())}
    done = subprocess.run(command, env=environment, capture_output=True, text=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode:
        sys.exit(f"a measuring child failed ({done.returncode}): {done.stderr.strip()[-400:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, json.loads(done.stdout)


# The bundled adapter's command (runner/arguments.py, bundled_adapter), each process keeping
# its own CPU seconds (user + sys) in a file of its own under ADAPTER_CPU_LOG: rewritten
# every 0.2 s and at exit, as the runner kills an adapter that is not done a second after
# its stdin closes (runner/process.py, stop), and a killed process runs no exit handler.
ADAPTER = """
import atexit, os, resource, runpy, threading, time
place = os.path.join(os.environ["ADAPTER_CPU_LOG"], str(os.getpid()))
def written():
    used = resource.getrusage(resource.RUSAGE_SELF)
    with open(place + ".new", "w") as log:
        log.write(str(used.ru_utime + used.ru_stime))
    os.replace(place + ".new", place)
def every_fifth_of_a_second():
    while True:
        written()
        time.sleep(0.2)
atexit.register(written)
threading.Thread(target=every_fifth_of_a_second, daemon=True).start()
runpy.run_module("fairvec.adapters.python", run_name="__main__", alter_sys=True)
"""


def run_main_job(tree: Path, jobs: int | None) -> tuple[float, list[float], float, str]:
    """CPU seconds (runner and adapters; each adapter's), wall seconds and summary line of
    the main job, the bundled Python adapter given as its command."""
    command = [sys.executable, "-m", "fairvec", "run", "--no-progress"]
    command += ["--fresh-seed", "adapter-cpu"] + (["-j", str(jobs)] if jobs else [])
    command += ["--", sys.executable, "-P", "-c", ADAPTER]
    with tempfile.TemporaryDirectory() as cache:
        log = Path(cache) / "adapters"
        log.mkdir()
        environment = {
            **os.environ,
            "PYTHONPATH": str(tree.resolve()),
            "FAIRVEC_CACHE_DIR": cache,
            "ADAPTER_CPU_LOG": str(log),
        }
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.monotonic()
        done = subprocess.run(command, env=environment, capture_output=True, text=True, check=False)
        wall = time.monotonic() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        adapters = [float(path.read_text()) for path in log.iterdir() if path.suffix != ".new"]
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    lines = [line for line in (done.stdout + done.stderr).splitlines() if " passed, " in line]
    return cpu, adapters, wall, f"exit {done.returncode}: {lines[-1] if lines else '(no summary)'}"


def main_job_rounds(trees: list[tuple[str, Path]], rounds: int, jobs: int | None) -> None:
    print(f"{'round':>5s} {'tree':4s} {'CPU s':>7s} {'adapters':>8s} {'wall s':>7s}  result")
    for round_number in range(1, rounds + 1):
        for name, tree in trees:
            cpu, adapters, wall, summary = run_main_job(tree, jobs)
            each = " + ".join(f"{seconds:.2f}" for seconds in adapters)
            print(
                f"{round_number:5d} {name:4s} {cpu:7.2f} {sum(adapters):8.2f} {wall:7.1f}  "
                f"{summary} (adapters {each})"
            )
            sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", type=Path, help="the checkout before (a git archive of it)")
    parser.add_argument("--new", type=Path, default=HERE, help="the checkout after (default: this)")
    parser.add_argument("--algorithm", action="append", help="glob; repeatable")
    parser.add_argument("--rounds", type=int, default=2, help="old-then-new pairs (default 2)")
    parser.add_argument(
        "--main-job", action="store_true", help="time fairvec run --bundled python instead"
    )
    parser.add_argument(
        "-j", "--jobs", type=int, help="--main-job: fairvec run's -j (default: its own)"
    )
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    patterns = arguments.algorithm or DEFAULT_ALGORITHMS
    if arguments.child:
        print(json.dumps(answer_all(arguments.child, patterns)))
        return
    trees = ([("old", arguments.old)] if arguments.old else []) + [("new", arguments.new)]
    load = Path("/proc/loadavg").read_text().split()[0]
    if arguments.main_job:
        jobs = f" -j {arguments.jobs}" if arguments.jobs else ""
        print(f"fairvec run --bundled python{jobs}; python {sys.version.split()[0]}; load {load}")
        main_job_rounds(trees, arguments.rounds, arguments.jobs)
        print(f"load {Path('/proc/loadavg').read_text().split()[0]} at the end")
        return
    print(f"algorithms {' '.join(patterns)}; python {sys.version.split()[0]}; load {load}")
    print(f"{'round':>5s} {'tree':4s} {'CPU s':>7s}  agree/vectors")
    for round_number in range(1, arguments.rounds + 1):
        for name, tree in trees:
            cpu, result = measure(tree, patterns)
            print(f"{round_number:5d} {name:4s} {cpu:7.2f}  {result['agree']}/{result['total']}")
            sys.stdout.flush()
    load = Path("/proc/loadavg").read_text().split()[0]
    print(f"load {load} at the end")


if __name__ == "__main__":
    main()
