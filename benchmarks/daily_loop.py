"""The daily loop's figures, before and after, side by side in one run (issue 35).

For each of two commits, a fresh clone (``git clone`` of this repository, then the commit
checked out), a venv, and ``pip install '.[analysis,vx,archive]'`` as the README says; then,
in turns (old, new, old, new, ...), so that both see the same machine:

- ``main-job``: ``fairvec run --bundled python`` (the README's main job), with an empty
  cache folder each time (a rerun's answer memo must not make it look fast);
- ``generate-check``: ``fairvec generate --check --root CLONE`` (``--generate-check``);
- ``test-command``: the README's test command, ``python -m tox run-parallel`` in the clone
  (``--test-command OLD_PY NEW_PY``: the interpreters whose tox runs each, since a tree's
  README may ask for another tox, e.g. one with tox-uv), with a fresh tox work folder, so
  setup included, and fairvec's own cache folder emptied first, as on CI's fresh machine
  (``~/.cache/fairvec``: tox passes HOME to the tests and nothing that would move it).

Each row gives wall seconds, CPU seconds (user + system of the command and every process
it waited for, from ``wait4``, as ``/usr/bin/time`` counts them), peak memory of the
largest process, the exit status and the run's last line; the summary gives the medians
and new / old. It prints figures and never asserts: it is not a test.

    python benchmarks/daily_loop.py --old 79a4ee5               # new: HEAD
    python benchmarks/daily_loop.py --old 79a4ee5 --new HEAD --repeats 3 --generate-check

The clones and venvs live in a temporary folder (``--work DIR`` keeps them, and reuses
what is there on the next run). Installing takes a minute or two per commit (pip's cache
helps); each main job one to two minutes on two cores.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
EXTRAS = ".[analysis,vx,archive]"  # the README's install command


@dataclass(frozen=True)
class Measured:
    label: str
    task: str
    wall: float
    cpu: float
    peak_mb: float
    status: int
    last_line: str


def run_measured(
    command: list[str], cwd: Path, env: dict[str, str]
) -> tuple[float, float, float, int, str]:
    """Wall and CPU seconds (the command and every descendant it waited for), peak RSS in
    MB of the largest of them, the exit status and the last non-empty output line."""
    with tempfile.TemporaryFile() as output:
        started = time.monotonic()
        child = subprocess.Popen(command, cwd=cwd, env=env, stdout=output, stderr=subprocess.STDOUT)
        _, wait_status, usage = os.wait4(child.pid, 0)
        wall = time.monotonic() - started
        child.returncode = os.waitstatus_to_exitcode(wait_status)  # Popen must not wait again
        output.seek(0)
        lines = [
            line for line in output.read().decode("utf-8", "replace").splitlines() if line.strip()
        ]
    cpu = usage.ru_utime + usage.ru_stime
    return wall, cpu, usage.ru_maxrss / 1024, child.returncode, lines[-1] if lines else ""


def prepare(label: str, commit: str, work: Path, venv: bool = True) -> Path:
    """A fresh clone of ``commit`` with its own venv (unless ``venv`` is false: the test
    command makes its own), fairvec installed from it as a user installs it; reused when
    ``work`` already holds one at that commit."""
    clone = work / label
    wanted = git("rev-parse", commit, cwd=REPO)
    if clone.exists() and git("rev-parse", "HEAD", cwd=clone) != wanted:
        shutil.rmtree(clone)
    if not clone.exists():
        subprocess.run(["git", "clone", "-q", "--no-local", str(REPO), str(clone)], check=True)
        subprocess.run(
            ["git", "-c", "advice.detachedHead=false", "checkout", "-q", wanted],
            cwd=clone,
            check=True,
        )
    if venv and not (clone / ".venv").exists():
        subprocess.run([sys.executable, "-m", "venv", str(clone / ".venv")], check=True)
        pip = [str(clone / ".venv" / "bin" / "pip"), "install", "-q", EXTRAS]
        subprocess.run(pip, cwd=clone, check=True)
    return clone


def git(*words: str, cwd: Path) -> str:
    return subprocess.run(
        ["git", *words], cwd=cwd, capture_output=True, text=True, check=True
    ).stdout.strip()


def measure(label: str, clone: Path, task: str, tox_python: str = "") -> Measured:
    if task == "test-command":
        return measure_test_command(label, clone, tox_python)
    bin_folder = clone / ".venv" / "bin"
    env = {**os.environ, "PATH": f"{bin_folder}{os.pathsep}{os.environ.get('PATH', '')}"}
    with tempfile.TemporaryDirectory() as cache:
        env["FAIRVEC_CACHE_DIR"] = cache  # an empty cache: the first run after a clone
        if task == "main-job":
            command = [str(bin_folder / "fairvec"), "run", "--bundled", "python", "--no-progress"]
        else:
            command = [str(bin_folder / "fairvec"), "generate", "--check", "--root", str(clone)]
        wall, cpu, peak, status, last = run_measured(command, Path(cache), env)
    return Measured(label, task, wall, cpu, peak, status, last)


def measure_test_command(label: str, clone: Path, tox_python: str) -> Measured:
    shutil.rmtree(Path.home() / ".cache" / "fairvec", ignore_errors=True)
    with tempfile.TemporaryDirectory(prefix="tox-work-") as work:
        command = [tox_python, "-m", "tox", "run-parallel", "--workdir", work]
        wall, cpu, peak, status, last = run_measured(command, clone, dict(os.environ))
    return Measured(label, "test-command", wall, cpu, peak, status, last)


def load_average() -> str:
    try:
        return " ".join(f"{value:.1f}" for value in os.getloadavg())
    except OSError:
        return "unknown"


def summary(rows: list[Measured], tasks: list[str]) -> None:
    print("\nmedians (new / old):")
    for task in tasks:
        old = [row for row in rows if row.task == task and row.label == "old"]
        new = [row for row in rows if row.task == task and row.label == "new"]
        for name, pick in (("wall", lambda r: r.wall), ("CPU", lambda r: r.cpu)):
            before, after = statistics.median(map(pick, old)), statistics.median(map(pick, new))
            print(
                f"  {task:15s} {name:4s} {before:8.1f} s -> {after:8.1f} s  ({after / before:.2f})"
            )


def main(argv: list[str] | None = None) -> int:
    words = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    words.add_argument("--old", required=True, help="the commit before")
    words.add_argument("--new", default="HEAD", help="the commit after (default HEAD)")
    words.add_argument(
        "--repeats", type=int, default=1, metavar="N", help="turns of each (default 1)"
    )
    words.add_argument("--generate-check", action="store_true", help="time generate --check too")
    words.add_argument(
        "--test-command", nargs=2, metavar=("OLD_PY", "NEW_PY"),
        help="time the test command too, each run by the tox of the interpreter given",
    )  # fmt: skip
    words.add_argument(
        "--work", type=Path, help="keep the clones here (default: a temporary folder)"
    )
    words.add_argument(
        "--only-test-command", action="store_true", help="with --test-command: time it alone"
    )
    arguments = words.parse_args(argv)
    if arguments.repeats < 1:
        words.error("--repeats must be at least 1")
    if arguments.only_test_command and not arguments.test_command:
        words.error("--only-test-command needs --test-command OLD_PY NEW_PY")
    work = arguments.work or Path(tempfile.mkdtemp(prefix="fairvec-daily-"))
    work.mkdir(parents=True, exist_ok=True)
    clones = {
        label: prepare(label, commit, work, venv=not arguments.only_test_command)
        for label, commit in (("old", arguments.old), ("new", arguments.new))
    }
    tasks = ["main-job", *(["generate-check"] if arguments.generate_check else [])]
    tox_pythons = dict(zip(("old", "new"), arguments.test_command or ["", ""], strict=True))
    if arguments.test_command:
        tasks.append("test-command")
    if arguments.only_test_command:
        tasks = ["test-command"]
    print(f"old {arguments.old}, new {arguments.new}; {os.cpu_count()} CPUs; clones in {work}")
    print(
        f"{'commit':6s} {'task':15s} {'wall s':>8s} {'CPU s':>8s} {'peak MB':>8s} {'exit':>4s}  "
        "load  | last line"
    )
    rows: list[Measured] = []
    for _ in range(arguments.repeats):
        for task in tasks:
            for label in ("old", "new"):
                before = load_average()
                row = measure(label, clones[label], task, tox_pythons[label])
                rows.append(row)
                print(
                    f"{label:6s} {task:15s} {row.wall:8.1f} {row.cpu:8.1f} {row.peak_mb:8.0f} "
                    f"{row.status:4d}  {before} | {row.last_line[:80]}",
                    flush=True,
                )
    summary(rows, tasks)
    if arguments.work is None:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
