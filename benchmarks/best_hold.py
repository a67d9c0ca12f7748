"""videopoker.best_hold before and after issue 35 (the per-deal draw lists), side by side.

    python benchmarks/best_hold.py [--before COMMIT] [--no-generate]

Prints, never asserts. Two figures, both as CPU seconds (the machine this runs on is shared,
so wall time is mostly other people's load):

* best_hold over the inputs of every committed vector (vectors/videopoker/best_hold.json),
  the reference of ``--before`` (read with ``git show``, loaded from a temporary directory)
  and this tree's, one vector after the other, each vector timed with time.process_time;
  their outputs are compared too (the same answer, or the same error code).
* ``fairvec generate --check --algorithm 'videopoker.*'`` as a child process (user + system
  CPU of it and its workers, from the operating system), once on a ``git archive`` of
  ``--before`` and once on this tree.

Run it from the repository root, with this tree installed (pip install -e '.[analysis]').
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import resource
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any
from unittest import mock

from fairvec.reference import InvalidInput, _algorithm
from fairvec.reference import videopoker as after

ROOT = Path(__file__).resolve().parents[1]
# The last commit whose reference/videopoker.py counted each hold on its own
BEFORE = "670f3908fbc4c29ecde68a22413f33d2f984650e"
VECTORS = ROOT / "vectors" / "videopoker" / "best_hold.json"


def archive(commit: str, into: Path) -> Path:
    """The tree of ``commit`` (git archive), unpacked under ``into``."""
    tree = into / commit[:12]
    tree.mkdir()
    tar = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", commit],
        capture_output=True, check=True,
    ).stdout
    tar_path = into / "tree.tar"
    tar_path.write_bytes(tar)
    with tarfile.open(tar_path) as unpacked:
        unpacked.extractall(tree, filter="tar")
    return tree


def load_before(tree: Path) -> ModuleType:
    """reference/videopoker.py of the old tree as a module of its own. Its @algorithm lines
    would register the ids a second time: they are made to register nothing."""
    path = tree / "reference" / "videopoker.py"
    spec = importlib.util.spec_from_file_location("videopoker_before", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    with mock.patch.object(_algorithm, "algorithm", lambda *_, **__: lambda function: function):
        spec.loader.exec_module(module)
    return module


def answer(function: Callable[..., Any], inputs: dict[str, Any]) -> Any:
    try:
        return function(**inputs)
    except InvalidInput as error:
        return {"error": error.code}
    except (TypeError, KeyError, ValueError) as error:  # inputs the schema check rejects
        return {"error": type(error).__name__}


def compare_best_hold(before: ModuleType) -> None:
    inputs = [vector["input"] for vector in json.loads(VECTORS.read_text("utf-8"))["vectors"]]
    seconds = {"before": 0.0, "after": 0.0}
    same = 0
    for one in inputs:  # alternating, so a change in the machine's load hits both alike
        outputs = []
        for name, module in (("before", before), ("after", after)):
            start = time.process_time()
            outputs.append(answer(module.best_hold, one))
            seconds[name] += time.process_time() - start
        same += outputs[0] == outputs[1]
    print(f"best_hold over the {len(inputs)} committed vectors' inputs (CPU s):")
    for name, cpu in seconds.items():
        print(f"  {name:<6} {cpu:8.2f}   {1000 * cpu / len(inputs):6.1f} ms a vector")
    ratio = seconds["before"] / seconds["after"]
    print(f"  ratio  {ratio:8.1f}x   same output: {same}/{len(inputs)}")


@contextmanager
def child_cpu() -> Iterator[list[float]]:
    """User + system CPU of the children waited for within, into the yielded list."""
    result: list[float] = []
    start = resource.getrusage(resource.RUSAGE_CHILDREN)
    yield result
    end = resource.getrusage(resource.RUSAGE_CHILDREN)
    result.append(end.ru_utime - start.ru_utime + end.ru_stime - start.ru_stime)


def generate_check(tree: Path) -> tuple[float, float, str]:
    """CPU and wall seconds of generate --check in ``tree`` (its own fairvec package first
    on the path), and its last line."""
    environment = {**os.environ, "PYTHONPATH": str(tree)}
    command = [sys.executable, "-m", "fairvec", "generate", "--check"]
    command += ["--algorithm", "videopoker.*"]
    wall = time.perf_counter()
    with child_cpu() as cpu:
        done = subprocess.run(command, cwd=tree, env=environment, capture_output=True, text=True)
    lines = (done.stdout + done.stderr).strip().splitlines() or ["(no output)"]
    return cpu[0], time.perf_counter() - wall, f"exit {done.returncode}: {lines[-1]}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--before", default=BEFORE, help=f"the commit to compare (default {BEFORE[:12]})"
    )
    parser.add_argument("--no-generate", action="store_true", help="skip the generate --check pair")
    arguments = parser.parse_args()
    print(
        f"python {platform.python_version()}  cpus {os.cpu_count()}  {platform.platform()}"
        f"  load {os.getloadavg()[0]:.2f}  before {arguments.before[:12]}"
    )
    with tempfile.TemporaryDirectory() as temporary:
        old_tree = archive(arguments.before, Path(temporary))
        compare_best_hold(load_before(old_tree))
        if arguments.no_generate:
            return
        print("fairvec generate --check --algorithm 'videopoker.*' (CPU s of it and its workers):")
        for name, tree in (("before", old_tree), ("after", ROOT)):
            cpu, wall, last = generate_check(tree)
            print(f"  {name:<6} {cpu:8.2f} CPU s  {wall:7.2f} wall s   {last}")
    print(f"load at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
