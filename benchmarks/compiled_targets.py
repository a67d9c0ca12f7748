"""Issue 20's targets for a fast port, through a compiled adapter; prints, never asserts.

    python benchmarks/compiled_targets.py [--repeats 3] [--full stake.dice]
    python benchmarks/compiled_targets.py --skip-full --baseline /old/venv/bin/fairvec
    python benchmarks/compiled_targets.py --pairwise 25 --baseline /old/venv/bin/fairvec

Builds benchmarks/c_adapter/adapter (C11, gcc, OpenSSL's libcrypto, cJSON: Debian's
gcc, libssl-dev and libcjson-dev), or says what is missing and exits (status 2). Then,
each as the ratio ``fairvec run`` / the same adapter fed directly, measured side by side:

1. the fixed vectors of the algorithms the adapter's hello declares (34: stake's,
   tenhou's and bustabit's but the BLS ones, the issue's three families), but the 16 tagged
   ``slow`` (as the issue's load: chain walks that would time SHA-256, not the runner):
   the request lines the runner would send (every vector's input, as
   ``{"id","algorithm","variant","input"}``, lone surrogates in the marked encoding the
   adapter's hello asks for) piped into the adapter from a file, its answers to /dev/null,
   against ``fairvec run --tier none --exclude-tag slow --algorithm ... -- ADAPTER``;
1w. the same requests against ``fairvec run --tier none --exclude-tag slow -- ADAPTER``:
   the whole suite selected, as a port's author runs it, every vector of another algorithm
   skipped;
1b. the default tier: the accumulate requests added to the file, against ``fairvec run
   --exclude-tag slow`` without ``--tier``;
1c. the command of 1 as a first run: the answer memo (runner/answer_memo.py), which the
   untimed runs fill, emptied before each run (in a cache folder of the benchmark's own);
2. the full tier of an accumulated algorithm (stake.dice by default, 1,000,000 cases): the
   adapter answering the one accumulate request piped in, against ``fairvec run --tier full
   --tag accumulated-full --algorithm stake.dice -- ADAPTER``;
3. the time from starting ``fairvec run`` (the commands of 1 and 1w) to the adapter reading
   its first request line (the adapter appends the time to the file named by
   FAIRVEC_C_ADAPTER_FIRST_REQUEST), against 0.2 s.

Also printed: ``python -c pass`` and ``fairvec --version`` (the floor no run goes under),
and in 1 a bare Python pipe (BARE_PIPE: no fairvec, only the interpreter starting the
adapter, writing it the request file and comparing its answers byte for byte): what any
harness written in Python pays at least.
Every figure is the median of --repeats runs, alternating the sides of each comparison,
after one untimed run of each command (so the caches are warm, as in use); the answers are
checked once, untimed (every request answered; the full tier's digest). ``--baseline``
measures another fairvec command (an older install) beside this one in 1, 1w, 1b and 3.
``--skip-full`` leaves out 2. ``--pairwise ROUNDS`` measures rows 1 and 1w alone, as
pairs (the port alone, then fairvec, within a second of each other) whose ratios' median
it prints: the steadier figure on a machine whose speed drifts between minutes; each
round starts with the bare Python pipe's pair, the floor. ``--runner-cpu ROUNDS`` measures
rows 1 and 1w as the runner's own CPU time, in process (RUNNER_CPU): what a change to the
runner saves, without the noise of the interpreter's start and the port's scheduling.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "c_adapter" / "adapter.c"
ADAPTER = HERE / "c_adapter" / "adapter"
CFLAGS = ["-O2", "-std=c11", "-Wall", "-Wextra", "-pedantic"]
LIBS = ["-lcrypto", "-lcjson", "-lm"]
MARK = "\uffff"
# Left out of rows 1, 1w and 1b on both sides, as the load did: bustabit's 16 chain
# walks (30.8 million SHA-256 steps, 4 s of the C port's) would time SHA-256, not the runner.
SLOW = "slow"
PIPE = "bare Python pipe"
TARGETS = {"fixed": 2.0, "full": 1.2, "first": 0.2}


def missing_for_build() -> list[str]:
    """What the build needs and this machine lacks, each with the Debian package."""
    compiler = shutil.which("gcc")
    if compiler is None:
        return ["gcc (Debian: gcc)"]
    missing = []
    for header, package in (("openssl/sha.h", "libssl-dev"), ("cjson/cJSON.h", "libcjson-dev")):
        probe = subprocess.run(
            [compiler, "-E", "-x", "c", "-"],
            input=f"#include <{header}>\n",
            capture_output=True,
            text=True,
        )
        if probe.returncode != 0:
            missing.append(f"<{header}> (Debian: {package})")
    return missing


def build(output: Path = ADAPTER) -> str | None:
    """Compiles the adapter to ``output`` unless it is newer than the source; None when it
    is there, else what went wrong (what is missing, or the compiler's last lines)."""
    if output.exists() and output.stat().st_mtime >= SOURCE.stat().st_mtime:
        return None
    missing = missing_for_build()
    if missing:
        return "missing: " + ", ".join(missing)
    done = subprocess.run(
        ["gcc", *CFLAGS, "-o", str(output), str(SOURCE), *LIBS], capture_output=True, text=True
    )
    if done.returncode != 0:
        return "gcc failed: " + done.stderr[-1500:]
    return None


def implemented(adapter: Path = ADAPTER) -> dict[str, str]:
    """What the adapter's hello says it implements: algorithm -> its vector file under the
    vector folder (read from the hello, so the adapter can grow without this script)."""
    done = subprocess.run([str(adapter)], input=b"", capture_output=True, check=True, timeout=30)
    hello = json.loads(done.stdout.splitlines()[0])
    return {name: file_of(name) for name in hello["algorithms"]}


def file_of(algorithm: str) -> str:
    return algorithm.replace(".", "/", 1) + ".json"


def vector_folder() -> Path:
    import fairvec

    return Path(fairvec.__file__).resolve().parent / "vectors"


def marked(value: Any) -> Any:
    """The request's input in the marked lone-surrogate encoding (docs/adapter-protocol.md)."""
    if isinstance(value, str):
        lone = any(0xD800 <= ord(c) <= 0xDFFF for c in value)
        if not lone and not value.startswith(MARK):
            return value
        units = value.encode("utf-16-be", "surrogatepass").hex()
        return MARK + units
    if isinstance(value, list):
        return [marked(item) for item in value]
    if isinstance(value, dict):
        return {marked(key): marked(item) for key, item in value.items()}
    return value


def fixed_requests(folder: Path, algorithms: dict[str, str]) -> list[bytes]:
    lines = []
    for algorithm, file in algorithms.items():
        data = json.loads((folder / file).read_text(encoding="utf-8"))
        for vector in data["vectors"]:
            if SLOW in vector["tags"]:
                continue
            request = {
                "id": vector["id"],
                "algorithm": algorithm,
                "variant": vector["variant"],
                "input": marked(vector["input"]),
            }
            lines.append(json.dumps(request, separators=(",", ":")).encode("ascii") + b"\n")
    return lines


def accumulate_requests(
    folder: Path, tier: str, algorithms: dict[str, str]
) -> list[tuple[dict[str, Any], bytes]]:
    """Each accumulated vector of the tier, with the accumulate request the runner sends."""
    found = []
    for algorithm, file in algorithms.items():
        data = json.loads((folder / file).read_text(encoding="utf-8"))
        for vector in data.get("accumulated", []):
            if vector["tier"] != tier:
                continue
            request = {
                "id": vector["id"],
                "algorithm": algorithm,
                "variant": vector["variant"],
                "accumulate": {
                    key: vector[key] for key in ("stream", "encoding", "count", "block")
                },
            }
            line = json.dumps(request, separators=(",", ":")).encode("ascii") + b"\n"
            found.append((vector, line))
    return found


def full_tier(folder: Path, algorithm: str) -> tuple[dict[str, Any], bytes]:
    """The algorithm's full-tier accumulated vector and the accumulate request for it."""
    prefix = algorithm + "/"
    return next(
        pair
        for pair in accumulate_requests(folder, "full", {algorithm: file_of(algorithm)})
        if pair[0]["id"].startswith(prefix)
    )


def alone(requests: Path) -> float:
    """Wall seconds of the adapter answering the request file, answers to /dev/null
    (process start included)."""
    with requests.open("rb") as stdin:
        started = time.perf_counter()
        subprocess.run([str(ADAPTER)], stdin=stdin, stdout=subprocess.DEVNULL, check=True)
        return time.perf_counter() - started


# What any harness written in Python pays at least, with no fairvec in it: the interpreter,
# the adapter started, the request file written to it on a thread, every answer line read
# and compared byte for byte with the adapter's own earlier answers (argv: adapter,
# requests, answers).
BARE_PIPE = r"""
import subprocess, sys, threading
adapter, requests, answers = sys.argv[1:]
sent, wanted = open(requests, "rb").read(), open(answers, "rb").read().split(b"\n")
process = subprocess.Popen([adapter], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
def write():
    process.stdin.write(sent)
    process.stdin.close()
writer = threading.Thread(target=write)
writer.start()
got = process.stdout.read().split(b"\n")
writer.join()
process.wait()
sys.exit(sum(a != b for a, b in zip(got, wanted)) + abs(len(got) - len(wanted)))
"""


def bare_pipe(requests: Path, answers: Path) -> float:
    """Wall seconds of BARE_PIPE over ``requests`` (it fails unless every answer matches)."""
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", BARE_PIPE, str(ADAPTER), str(requests), str(answers)], check=True
    )
    return time.perf_counter() - started


def answers_of(requests: Path) -> list[dict[str, Any]]:
    """The adapter's lines for the request file (untimed: to check what is timed)."""
    with requests.open("rb") as stdin:
        done = subprocess.run([str(ADAPTER)], stdin=stdin, capture_output=True, check=True)
    return [json.loads(line) for line in done.stdout.splitlines()[1:]]


def fairvec_command() -> list[str]:
    script = Path(sys.executable).with_name("fairvec")
    return [str(script)] if script.exists() else [sys.executable, "-m", "fairvec"]


def through_fairvec(
    arguments: list[str],
    mark: Path | None = None,
    fairvec: list[str] | None = None,
    cache: Path | None = None,
) -> tuple[float, float | None]:
    """Wall seconds of ``fairvec run ARGUMENTS -- ADAPTER``, and (with ``mark``) the seconds
    from starting it to an adapter reading its first request. ``fairvec``: another command
    than this interpreter's (--baseline); ``cache``: a cache folder of its own."""
    environment = dict(os.environ)
    if cache is not None:
        environment["FAIRVEC_CACHE_DIR"] = str(cache)
    if mark is not None:
        mark.unlink(missing_ok=True)
        environment["FAIRVEC_C_ADAPTER_FIRST_REQUEST"] = str(mark)
    command = [*(fairvec or fairvec_command()), "run", "--no-progress", *arguments]
    command += ["--", str(ADAPTER)]
    wall_started, started = time.time(), time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=environment)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        print(f"  note: fairvec run {' '.join(arguments)} exited {done.returncode}:")
        print("  " + (done.stdout + done.stderr)[-600:].replace("\n", "\n  "))
    first = None
    if mark is not None and mark.exists():
        first = min(float(line) for line in mark.read_text().split()) - wall_started
    return elapsed, first


def load_average() -> str:
    try:
        return " ".join(f"{value:.2f}" for value in os.getloadavg())
    except OSError:
        return "unknown"


def verdict(value: float, target: float) -> str:
    return "meets" if value <= target else "misses"


@dataclass
class Sides:
    """The commands measured side by side: this fairvec, and --baseline's (if given)."""

    baseline: list[str] | None

    def commands(self) -> list[tuple[str, list[str] | None]]:
        named: list[tuple[str, list[str] | None]] = [("fairvec run", None)]
        if self.baseline is not None:
            named.append(("baseline", self.baseline))
        return named


def timed_sides(
    sides: Sides,
    arguments: list[str],
    repeats: int,
    requests: Path | None,
    mark: Path | None,
    answers: Path | None = None,
) -> dict[str, tuple[list[float], list[float]]]:
    """{side: (walls, firsts)}, plus "alone" (the adapter fed ``requests``) when given, and
    "bare Python pipe" (BARE_PIPE, its answers checked against ``answers``) when given; the
    sides alternated run by run, after one untimed run of each (the caches warm, as in use)."""
    for _, command in sides.commands():
        through_fairvec(arguments, fairvec=command)
    timed: dict[str, tuple[list[float], list[float]]] = {}
    for _ in range(repeats):
        if requests is not None:
            timed.setdefault("alone", ([], []))[0].append(alone(requests))
        if requests is not None and answers is not None:
            timed.setdefault(PIPE, ([], []))[0].append(bare_pipe(requests, answers))
        for label, command in sides.commands():
            seconds, first = through_fairvec(arguments, mark, fairvec=command)
            walls, firsts = timed.setdefault(label, ([], []))
            walls.append(seconds)
            if first is not None:
                firsts.append(first)
    return timed


def print_ratios(timed: dict[str, tuple[list[float], list[float]]], target: float | None) -> None:
    d = statistics.median(timed["alone"][0])
    print(f"   adapter alone (requests piped from a file)  {d:8.3f} s")
    for label, (walls, _) in timed.items():
        if label == "alone":
            continue
        r = statistics.median(walls)
        if label == PIPE:
            print(f"   {label + ' (no fairvec: the floor)':<44}{r:8.3f} s: {r / d:.1f}x")
            continue
        goal = "" if target is None else f" (target within {target:.0f}x: {verdict(r / d, target)})"
        print(f"   {label:<44}{r:8.3f} s: {r / d:.1f}x{goal}; the runner adds {r - d:.3f} s")


def print_firsts(timed: dict[str, tuple[list[float], list[float]]]) -> None:
    for label, (_, firsts) in timed.items():
        if label in ("alone", PIPE):
            continue
        if not firsts:
            print(f"   {label}: not measured (the adapter wrote no time)")
            continue
        first = statistics.median(firsts)
        shown = " ".join(f"{value:.3f}" for value in firsts)
        print(
            f"   {label:<12} first request {first:.3f} s, median of {len(firsts)} ({shown}); "
            f"target under {TARGETS['first']} s: {verdict(first, TARGETS['first'])}"
        )


def start_floor(repeats: int) -> tuple[float, float]:
    """Medians of `python -c pass` and `fairvec --version`: what no run can go under."""
    python, version = [], []
    for _ in range(repeats):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        python.append(time.perf_counter() - started)
        started = time.perf_counter()
        subprocess.run([*fairvec_command(), "--version"], capture_output=True, check=True)
        version.append(time.perf_counter() - started)
    return statistics.median(python), statistics.median(version)


def measure_fixed(sides: Sides, folder: Path, work: Path, repeats: int) -> None:
    requests, mark = work / "fixed.jsonl", work / "first.time"
    algorithms = implemented()
    lines = fixed_requests(folder, algorithms)
    requests.write_bytes(b"".join(lines))
    answered = answers_of(requests)
    if len(answered) != len(lines):
        print(f"  note: the adapter answered {len(answered)} of {len(lines)} requests")
    answers = work / "answers.jsonl"  # the bare pipe's check: the adapter's own lines
    with requests.open("rb") as stdin:
        answers.write_bytes(subprocess.run([str(ADAPTER)], stdin=stdin, capture_output=True).stdout)
    selection = [part for name in algorithms for part in ("--algorithm", name)]
    fixed = ["--tier", "none", "--exclude-tag", SLOW, *selection]
    print(f"\n1. fixed vectors of {len(algorithms)} algorithms: {len(lines)} requests")
    print("   (" + ", ".join(algorithms) + ")")
    timed = timed_sides(sides, fixed, repeats, requests, mark, answers)
    print_ratios(timed, TARGETS["fixed"])
    j1 = timed_sides(Sides(None), [*fixed, "-j", "1"], repeats, None, None)
    print(f"   (fairvec run at -j 1: {statistics.median(j1['fairvec run'][0]):.3f} s)")
    python, version = start_floor(repeats)
    print(f"   (python -c pass {python:.3f} s; fairvec --version {version:.3f} s)")
    print("\n3. fairvec run (the command of 1) to the adapter reading its first request")
    print_firsts(timed)
    whole = timed_sides(sides, ["--tier", "none", "--exclude-tag", SLOW], repeats, requests, mark)
    print(
        "\n1w/3b. the whole suite selected, as a port's author runs it (fairvec run --tier "
        "none -- ADAPTER: the same requests sent, every other vector skipped)"
    )
    print_ratios(whole, TARGETS["fixed"])
    print_firsts(whole)
    defaults = accumulate_requests(folder, "default", algorithms)
    requests.write_bytes(b"".join(lines) + b"".join(line for _, line in defaults))
    cases = sum(vector["count"] for vector, _ in defaults)
    print(
        f"\n1b. the same with the default tier: {len(lines)} requests and {len(defaults)} "
        f"accumulate requests ({cases:,} cases)"
    )
    with_defaults = ["--exclude-tag", SLOW, *selection]
    print_ratios(timed_sides(sides, with_defaults, repeats, requests, None), None)
    measure_first_run(sides, fixed, work, repeats)


def measure_first_run(sides: Sides, arguments: list[str], work: Path, repeats: int) -> None:
    """1c: the command of 1 as a first run: in a cache folder of its own, whose answer memo
    (runner/answer_memo.py) is removed before each run of this fairvec, the other caches
    kept warm, as after a change to the port; the baseline in the same folder."""
    cache = work / "cache"
    for _, command in sides.commands():
        through_fairvec(arguments, fairvec=command, cache=cache)
    timed: dict[str, list[float]] = {}
    for _ in range(repeats):
        for label, command in sides.commands():
            if command is None:
                for memo in cache.glob("answers-*"):
                    shutil.rmtree(memo)
            timed.setdefault(label, []).append(
                through_fairvec(arguments, fairvec=command, cache=cache)[0]
            )
    print("\n1c. the command of 1 as a first run (the answer memo emptied before each)")
    for label, walls in timed.items():
        print(f"   {label:<44}{statistics.median(walls):8.3f} s")


def measure_full(folder: Path, work: Path, algorithm: str, repeats: int) -> None:
    vector, request = full_tier(folder, algorithm)
    accumulate = work / "full.jsonl"
    accumulate.write_bytes(request)
    answer = answers_of(accumulate)[-1].get("accumulated", {})
    shown = "matches" if answer.get("digest") == vector["expected"]["digest"] else "DIFFERS from"
    run = ["--tier", "full", "--tag", "accumulated-full", "--algorithm", algorithm]
    timed = timed_sides(Sides(None), run, repeats, accumulate, None)
    d, r = statistics.median(timed["alone"][0]), statistics.median(timed["fairvec run"][0])
    print(f"\n2. full tier of {algorithm}: {vector['count']:,} cases ({vector['id']})")
    print(f"   adapter alone (one accumulate request)      {d:8.3f} s (its digest {shown} ", end="")
    print("the vector's)")
    print(f"   fairvec run --tier full                     {r:8.3f} s")
    print(
        f"   ratio {r / d:.2f}x (target within {TARGETS['full']}x: "
        f"{verdict(r / d, TARGETS['full'])}); the runner adds {r - d:.3f} s"
    )


def measure_pairwise(sides: Sides, folder: Path, work: Path, rounds: int) -> None:
    """Rows 1 and 1w as pairs: in each round, for each side in turn (the order alternated
    round by round), the adapter alone on the request file, then the side's command; the
    median of the rounds' ratios, with their quartiles. A pair is taken within a second,
    so a machine whose speed drifts between minutes moves both of its halves alike. Each
    round starts with the bare Python pipe's pair (BARE_PIPE): the floor, side by side."""
    requests, answers = work / "fixed.jsonl", work / "answers.jsonl"
    algorithms = implemented()
    requests.write_bytes(b"".join(fixed_requests(folder, algorithms)))
    with requests.open("rb") as stdin:  # the bare pipe's check: the adapter's own lines
        answers.write_bytes(subprocess.run([str(ADAPTER)], stdin=stdin, capture_output=True).stdout)
    selection = [part for name in algorithms for part in ("--algorithm", name)]
    rows = {
        "1": ["--tier", "none", "--exclude-tag", SLOW, *selection],
        "1w": ["--tier", "none", "--exclude-tag", SLOW],
    }
    named = sides.commands()
    for arguments in rows.values():  # untimed: the caches warm, as in use
        for _, command in named:
            through_fairvec(arguments, fairvec=command)
    ratios: dict[tuple[str, str], list[float]] = {}
    for round_number in range(rounds):
        port = alone(requests)  # the floor: what any harness written in Python pays
        ratios.setdefault(("1", PIPE), []).append(bare_pipe(requests, answers) / port)
        for row, arguments in rows.items():
            for label, command in named if round_number % 2 else named[::-1]:
                port = alone(requests)
                seconds = through_fairvec(arguments, fairvec=command)[0]
                ratios.setdefault((row, label), []).append(seconds / port)
    print(f"\npairs: the ratio of each round's pair (port alone, then fairvec), {rounds} rounds")
    for row, label in ratios:
        values = sorted(ratios[row, label])
        quarter = len(values) // 4
        median = statistics.median(values)
        target = f"target within {TARGETS['fixed']:.0f}x: {verdict(median, TARGETS['fixed'])}"
        print(
            f"   row {row:<3}{label:<17} median {median:.2f}x (quartiles {values[quarter]:.2f}-"
            f"{values[-quarter - 1]:.2f}); {'the floor' if label == PIPE else target}"
        )


# The runner's own CPU time in one process (argv: the number of runs, then fairvec run's
# arguments): fairvec.cli.main called again and again, each run's user and system time
# (the adapters' excluded) and wall time; the medians of all but the first two (the
# caches and the interpreter warm) printed as "cpu wall" in ms. Steadier than a whole
# command's wall time, which the interpreter's start, the imports and the port's own
# scheduling move by tens of ms from one run to the next.
RUNNER_CPU = r"""
import contextlib, resource, statistics, sys, tempfile, time
import fairvec
from fairvec.cli import main
if "site-packages" not in fairvec.__file__:  # the install's code, not a checkout's
    sys.exit(f"imported {fairvec.__file__}, not an installed fairvec")
runs, arguments = int(sys.argv[1]), sys.argv[2:]
cpu, wall = [], []
for _ in range(runs):
    sys.argv = ["fairvec", *arguments]
    before, started = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    # (a file, not a StringIO: an older fairvec needs a stream it can reconfigure)
    with tempfile.TemporaryFile("w+") as printed, contextlib.redirect_stdout(printed):
        try:
            status = main()
        except SystemExit as stop:
            status = stop.code
        if status not in (0, None):  # a run that broke off early would look fast
            printed.seek(0)
            sys.exit(f"fairvec {' '.join(arguments)} exited {status}: {printed.read()[-500:]}")
    after = resource.getrusage(resource.RUSAGE_SELF)
    wall.append(time.perf_counter() - started)
    cpu.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
print(f"{statistics.median(cpu[2:]) * 1000:.1f} {statistics.median(wall[2:]) * 1000:.1f}")
"""


def python_of(command: list[str] | None) -> str:
    """The interpreter of a fairvec command (its venv's python, beside bin/fairvec)."""
    if command is None:
        return sys.executable
    return str(Path(shutil.which(command[0]) or command[0]).with_name("python"))


def measure_runner_cpu(sides: Sides, rounds: int, runs: int = 12) -> None:
    """Rows 1 and 1w as the runner's own CPU and wall time in process (RUNNER_CPU), each
    side in turn (the order alternated round by round); the medians of the rounds."""
    algorithms = implemented()
    selection = [part for name in algorithms for part in ("--algorithm", name)]
    rows = {
        "1": ["--tier", "none", "--exclude-tag", SLOW, *selection],
        "1w": ["--tier", "none", "--exclude-tag", SLOW],
    }
    named = sides.commands()
    figures: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for round_number in range(rounds):
        for row, arguments in rows.items():
            for label, command in named if round_number % 2 else named[::-1]:
                run = ["run", "--no-progress", *arguments, "--", str(ADAPTER)]
                # isolated (-I) and outside the checkout: from here, "-c" would import the
                # checkout's fairvec, not the install's (both sides the same code)
                done = subprocess.run(
                    [python_of(command), "-I", "-c", RUNNER_CPU, str(runs), *run],
                    capture_output=True, text=True, check=True, cwd=tempfile.gettempdir(),
                )  # fmt: skip
                cpu, wall = map(float, done.stdout.split())
                figures.setdefault((row, label), []).append((cpu, wall))
    print(f"\nthe runner in process, {rounds} rounds of {runs} runs (the first 2 untimed)")
    for (row, label), values in figures.items():
        cpu = statistics.median(value[0] for value in values)
        wall = statistics.median(value[1] for value in values)
        print(f"   row {row:<3}{label:<17} its own CPU {cpu:6.1f} ms, wall {wall:6.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description="Issue 20's targets with a compiled adapter.")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--full", default="stake.dice", choices=("stake.dice", "bustabit.crash_v2"))
    parser.add_argument("--skip-full", action="store_true", help="leave out the full tier")
    parser.add_argument(
        "--pairwise",
        type=int,
        metavar="ROUNDS",
        help="measure rows 1 and 1w only, as ROUNDS rounds of pairs (port alone, then fairvec)",
    )
    parser.add_argument(
        "--runner-cpu",
        type=int,
        metavar="ROUNDS",
        help="measure rows 1 and 1w only, as the runner's own CPU time in process",
    )
    parser.add_argument(
        "--baseline",
        metavar="FAIRVEC",
        help="another fairvec command (an older install's bin/fairvec) measured side by side "
        "in 1, 1w, 1b and 3",
    )
    arguments = parser.parse_args()
    rounds = (arguments.repeats, arguments.pairwise, arguments.runner_cpu)
    if any(value is not None and value < 1 for value in rounds):
        parser.error("--repeats, --pairwise and --runner-cpu must be at least 1")
    if arguments.baseline and shutil.which(arguments.baseline) is None:
        parser.error(f"--baseline {arguments.baseline}: no such command")
    problem = build()
    if problem is not None:
        print(f"cannot build {SOURCE.relative_to(HERE.parent)}: {problem}")
        sys.exit(2)
    print(f"adapter {ADAPTER.relative_to(HERE.parent)}, built")
    print(f"load average before {load_average()}, cpus {os.cpu_count()}")
    folder = vector_folder()
    sides = Sides([arguments.baseline] if arguments.baseline else None)
    with tempfile.TemporaryDirectory() as name:
        if arguments.pairwise or arguments.runner_cpu:
            if arguments.pairwise:
                measure_pairwise(sides, folder, Path(name), arguments.pairwise)
            if arguments.runner_cpu:
                measure_runner_cpu(sides, arguments.runner_cpu)
            print(f"\nload average after {load_average()}")
            return
        measure_fixed(sides, folder, Path(name), arguments.repeats)
        if not arguments.skip_full:
            measure_full(folder, Path(name), arguments.full, arguments.repeats)
    print(f"\nload average after {load_average()}")


if __name__ == "__main__":
    main()
