"""The tenhou family's reference before and after its generator ran in C (issue 35), side by
side in one run; prints, never asserts.

    python benchmarks/tenhou_generator.py [--base COMMIT] [--cases 10000] [--repeats 3]
                                          [--no-generate]

Old is reference/tenhou.py as of --base (default: the commit before the change), loaded
from `git show` into a temporary folder; its algorithms stand in for the new ones in the
registry while it is timed, so both run the same harness: the bundled Python adapter's
accumulate request for the three 10,000-case streams, compute() for every fixed vector
of the family (the best of --repeats runs), each after a warm-up. Figures are CPU seconds
of this process (time.process_time: the machine may be loaded). Last, `fairvec generate
--check --algorithm 'tenhou.*' -j 1` of the working tree and of a `git archive` of --base,
each timed by /usr/bin/time (user + sys).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from io import BytesIO
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from adapters.python.accumulate import accumulate  # noqa: E402
from fairvec.reference import InvalidInput, _algorithm, compute, registry  # noqa: E402

BASE = "5a50688"  # main before the tenhou generator ran in C
STREAMS = ("game", "hand_wall", "wall_tiles")
FIXED = ("mt19937", "hand_wall", "game", "wall_tiles", "rnd", "shuffle", "seed", "deal")


def old_module(commit: str, folder: Path) -> ModuleType:
    """reference/tenhou.py at ``commit``, its algorithms registered aside (not in the
    registry, which holds the new ones)."""
    text = subprocess.run(
        ["git", "show", f"{commit}:reference/tenhou.py"],
        cwd=ROOT, check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip
    path = folder / "tenhou_old.py"
    path.write_text(text, encoding="utf-8")
    registering = _algorithm.algorithm
    aside: dict[str, _algorithm.Algorithm] = {}

    def algorithm(algorithm_id: str, *, variants: tuple[str, ...] = ()) -> Any:
        def register(function: Any) -> Any:
            aside[algorithm_id] = _algorithm.Algorithm(algorithm_id, function, variants)
            return function

        return register

    _algorithm.algorithm = algorithm
    try:
        spec = importlib.util.spec_from_file_location("tenhou_old", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["tenhou_old"] = module  # dataclasses look their module up there
        spec.loader.exec_module(module)
    finally:
        _algorithm.algorithm = registering
    module.ALGORITHMS = aside  # type: ignore[attr-defined]
    return module


@contextmanager
def reference(old: ModuleType | None) -> Iterator[None]:
    """The registry with the old module's tenhou algorithms in it, or as it is; compute's
    cache of algorithms emptied before and after (both pay its schema loads alike)."""
    algorithms = registry()
    swapped = old.ALGORITHMS if old is not None else {}
    saved = {name: algorithms[name] for name in swapped}
    algorithms.update(swapped)
    _algorithm._algorithm_and_schema.cache_clear()
    try:
        yield
    finally:
        algorithms.update(saved)
        _algorithm._algorithm_and_schema.cache_clear()


def vector_file(name: str) -> dict[str, Any]:
    found: dict[str, Any] = json.loads((ROOT / "vectors" / "tenhou" / f"{name}.json").read_text())
    return found


def stream_seconds(name: str, cases: int) -> tuple[float, bool]:
    """CPU seconds of the accumulate request for the algorithm's stream, and whether its
    digest is the committed one (always compared: a full count only)."""
    file = vector_file(name)
    stream = file["accumulated"][0]
    request = {
        "id": stream["id"], "algorithm": file["algorithm"], "variant": stream["variant"],
        "accumulate": {"stream": stream["stream"], "encoding": stream["encoding"],
                       "count": cases, "block": stream["block"]},
    }  # fmt: skip
    started = time.process_time()
    answer = list(accumulate(request))[-1]["accumulated"]
    seconds = time.process_time() - started
    matched = cases == stream["count"] and answer["digest"] == stream["expected"]["digest"]
    return seconds, matched


def fixed_seconds(name: str) -> tuple[float, int, int]:
    """CPU seconds to compute every fixed vector, their count, and how many agree."""
    file = vector_file(name)
    agreed = 0
    started = time.process_time()
    for vector in file["vectors"]:
        try:
            answer: dict[str, Any] = {
                "output": compute(file["algorithm"], vector["input"], vector.get("variant"))
            }
        except InvalidInput as error:
            answer = {"error": error.code}
        expected = vector["expected"]
        agreed += answer == expected or answer.get("error") == expected.get("error")
    return time.process_time() - started, len(file["vectors"]), agreed


def generate_check_seconds(root: Path) -> str:
    """user + sys of `fairvec generate --check --algorithm 'tenhou.*' -j 1` in ``root``."""
    done = subprocess.run(
        ["/usr/bin/time", "-f", "%U %S", sys.executable, "-m", "fairvec", "generate", "--check",
         "--algorithm", "tenhou.*", "-j", "1"],
        cwd=root, env={**os.environ, "PYTHONPATH": str(root)},
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    user, system = (float(value) for value in done.stderr.split()[-2:])
    last = done.stdout.strip().splitlines()[-1:] or ["(no output)"]
    return f"{user + system:7.1f} s CPU, exit {done.returncode}: {last[0]}"


def archived(commit: str, folder: Path) -> Path:
    tree = subprocess.run(
        ["git", "archive", commit], cwd=ROOT, check=True, capture_output=True
    ).stdout
    with tarfile.open(fileobj=BytesIO(tree)) as archive:
        archive.extractall(folder, filter="data")
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", default=BASE, help="the commit whose reference is 'old'")
    parser.add_argument("--cases", type=int, default=10_000, help="cases per stream")
    parser.add_argument("--repeats", type=int, default=3, help="fixed vectors: best of")
    parser.add_argument("--no-generate", action="store_true", help="skip generate --check")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as temporary:
        old = old_module(options.base, Path(temporary))
        print(f"CPU seconds, old = reference/tenhou.py at {options.base}, new = this tree")
        print(f"{'':38}{'old':>8}{'new':>8}{'ratio':>8}  digest/agree")
        for name in STREAMS:
            timed = {}
            for label, module in (("old", old), ("new", None)):
                with reference(module):
                    stream_seconds(name, 20)  # warm: the schemas loaded, the caches filled
                    timed[label] = stream_seconds(name, options.cases)
            (before, old_ok), (after, new_ok) = timed["old"], timed["new"]
            what = f"tenhou.{name} stream, {options.cases} cases"
            print(f"{what:38}{before:8.2f}{after:8.2f}{before / after:7.1f}x  {old_ok} {new_ok}")
        totals = [0.0, 0.0]
        for name in FIXED:
            timed_fixed = {}
            for label, module in (("old", old), ("new", None)):
                with reference(module):
                    runs = [fixed_seconds(name) for _ in range(options.repeats)]
                    timed_fixed[label] = min(runs)  # the least disturbed by other jobs
            (before, count, old_agree), (after, _, new_agree) = (
                timed_fixed["old"], timed_fixed["new"]
            )  # fmt: skip
            totals[0] += before
            totals[1] += after
            what = f"tenhou.{name}, {count} fixed vectors"
            print(
                f"{what:38}{before:8.2f}{after:8.2f}{before / after:7.1f}x  "
                f"{old_agree} {new_agree}"
            )
        print(f"{'the fixed vectors above':38}{totals[0]:8.2f}{totals[1]:8.2f}")
        if not options.no_generate:
            base_tree = archived(options.base, Path(temporary) / "base")
            print("generate --check --algorithm 'tenhou.*' -j 1 (user + sys, /usr/bin/time):")
            print(f"  old {generate_check_seconds(base_tree)}")
            print(f"  new {generate_check_seconds(ROOT)}")


if __name__ == "__main__":
    main()
