"""The CPU each default-tier accumulated stream costs the bundled Python adapter, split into
drawing the inputs, ``compute`` (the input check and the algorithm) and the record (issue 35);
prints, never asserts.

    python benchmarks/stream_cases.py                       # this checkout, every stream
    python benchmarks/stream_cases.py --tree ../old-main    # old and new side by side
    python benchmarks/stream_cases.py --split               # draws, answers, records apart
    python benchmarks/stream_cases.py -k nardy --cases 3000 --profile   # cProfile one stream

Each stream is measured in one process (the one the adapter's accumulate request runs in):
``time.process_time`` around drawing its cases, answering them (``case_answer``, as
fairvec/adapters/python/accumulate.py does) and writing their records, then the whole
``accumulate`` request once more as the adapter runs it. With ``--tree`` every checkout
named is measured in its own child process, importing fairvec from that tree (PYTHONPATH
comes before the editable install), and the rows are printed side by side.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from itertools import islice
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent


def default_streams(root: Path, pattern: str) -> list[dict[str, Any]]:
    """Every default-tier accumulated vector of the vector files under ``root``."""
    streams = []
    for path in sorted((root / "vectors").glob("*/*.json")):
        document = json.loads(path.read_text(encoding="utf-8"))
        for vector in document.get("accumulated", []):
            if vector.get("tier") == "default" and pattern in vector["id"]:
                streams.append({"algorithm": document["algorithm"], **vector})
    return streams


def measure(vector: dict[str, Any], cases_wanted: int | None, split: bool) -> dict[str, float]:
    """CPU seconds of one stream's accumulate request, and with ``split`` of its draws,
    answers and records apart."""
    from fairvec.accumulated_digest import cases, record
    from fairvec.adapters.python.accumulate import accumulate, case_answer

    count = cases_wanted or vector["count"]
    stream, variant, algorithm = vector["stream"], vector.get("variant"), vector["algorithm"]
    case_answer(algorithm, next(cases(stream["seed"], stream["input"])), variant)  # warm up
    figures = dict.fromkeys(("draw", "compute", "record"), 0.0)
    if split:
        started = time.process_time()
        inputs = list(islice(cases(stream["seed"], stream["input"]), count))
        drawn = time.process_time()
        answers = [case_answer(algorithm, case, variant) for case in inputs]
        answered = time.process_time()
        for answer in answers:
            record(answer)
        figures = {
            "draw": drawn - started,
            "compute": answered - drawn,
            "record": time.process_time() - answered,
        }
    request = {
        "id": vector["id"],
        "algorithm": algorithm,
        "variant": variant,
        "accumulate": {
            "encoding": vector["encoding"],
            "count": count,
            "block": count,
            "stream": stream,
        },
    }
    started = time.process_time()
    for _ in accumulate(request):
        pass
    return {**figures, "accumulate": time.process_time() - started}


def profile(vector: dict[str, Any], cases_wanted: int) -> None:
    import cProfile
    import pstats

    from fairvec.accumulated_digest import cases
    from fairvec.adapters.python.accumulate import case_answer

    stream, variant = vector["stream"], vector.get("variant")
    profiler = cProfile.Profile()
    profiler.enable()
    inputs = list(islice(cases(stream["seed"], stream["input"]), cases_wanted))
    for case in inputs:
        case_answer(vector["algorithm"], case, variant)
    profiler.disable()
    pstats.Stats(profiler).sort_stats("tottime").print_stats(18)


def measure_here(pattern: str, cases_wanted: int | None, split: bool) -> dict[str, Any]:
    return {v["id"]: measure(v, cases_wanted, split) for v in default_streams(HERE, pattern)}


def start_tree(
    tree: Path, pattern: str, cases_wanted: int | None, split: bool
) -> subprocess.Popen[str]:
    """measure_here in a child importing fairvec (and its reference) from ``tree``. The
    trees are measured at once, one child each, so that they share the machine's load."""
    command = [sys.executable, __file__, "--json", "-k", pattern]
    command += ["--cases", str(cases_wanted)] if cases_wanted else []
    command += ["--split"] if split else []
    environment = {**os.environ, "PYTHONPATH": str(tree.resolve())}
    return subprocess.Popen(command, env=environment, stdout=subprocess.PIPE, text=True)


def finish(child: subprocess.Popen[str]) -> dict[str, Any]:
    output, _ = child.communicate()
    if child.returncode:
        sys.exit(f"a measuring child failed ({child.returncode}): {child.args!r}")
    result: dict[str, Any] = json.loads(output)
    return result


def show(columns: dict[str, dict[str, dict[str, float]]]) -> None:
    names = list(columns)
    header = "".join(f" | {name[-26:]:>26s}" for name in names)
    print(f"{'stream':46s}{header}")
    print(f"{'':46s}" + " | draw compute record  accum" * len(names))
    totals = {
        name: dict.fromkeys(("draw", "compute", "record", "accumulate"), 0.0) for name in names
    }
    for stream in columns[names[0]]:
        row = f"{stream[:46]:46s}"
        for name in names:
            figures = columns[name].get(stream)
            if figures is None:
                row += f" | {'-':>26s}"
                continue
            for key in totals[name]:
                totals[name][key] += figures[key]
            row += " | {draw:4.2f} {compute:7.2f} {record:6.2f} {accumulate:6.2f}".format(**figures)
        print(row)
    row = f"{'total (CPU s)':46s}"
    for name in names:
        row += " | {draw:4.2f} {compute:7.2f} {record:6.2f} {accumulate:6.2f}".format(
            **totals[name]
        )
    print(row)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-k", default="", help="only the streams whose id holds this")
    parser.add_argument("--cases", type=int, help="cases per stream (default: the stream's)")
    parser.add_argument(
        "--tree",
        type=Path,
        action="append",
        default=[],
        help="another checkout to measure beside this one (repeatable)",
    )
    parser.add_argument("--profile", action="store_true", help="cProfile the chosen streams")
    parser.add_argument(
        "--split", action="store_true", help="also measure draws, answers and records apart"
    )
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.profile:
        for vector in default_streams(HERE, arguments.k):
            print(f"== {vector['id']}")
            profile(vector, arguments.cases or 3000)
        return
    if arguments.json:
        print(json.dumps(measure_here(arguments.k, arguments.cases, arguments.split)))
        return
    load = Path("/proc/loadavg").read_text().split()[0]
    print(
        f"CPU seconds per stream (time.process_time); python {sys.version.split()[0]}; "
        f"load {load} at the start"
    )
    trees = {str(tree): tree for tree in arguments.tree} | {"this checkout": HERE}
    children = {
        name: start_tree(tree, arguments.k, arguments.cases, arguments.split)
        for name, tree in trees.items()
    }
    show({name: finish(child) for name, child in children.items()})


if __name__ == "__main__":
    main()
