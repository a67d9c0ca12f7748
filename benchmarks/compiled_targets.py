"""Issue 20's targets for a fast port, through a compiled adapter; prints, never asserts.

    python benchmarks/compiled_targets.py [--repeats 3] [--full stake.dice]

Builds benchmarks/c_adapter/adapter (C11, gcc, OpenSSL's libcrypto, cJSON: Debian's
gcc, libssl-dev and libcjson-dev), or says what is missing and exits (status 2). Then,
each as the ratio ``fairvec run`` / the same adapter fed directly, measured side by side:

1. the fixed vectors of the adapter's algorithms: the request lines the runner would send
   (every vector's input, as ``{"id","algorithm","variant","input"}``, lone surrogates in
   the marked encoding the adapter's hello asks for) piped into the adapter from a file, its
   answers to /dev/null, against ``fairvec run --tier none --algorithm ... -- ADAPTER``;
2. the full tier of an accumulated algorithm (stake.dice by default, 1,000,000 cases): the
   adapter answering the one accumulate request piped in, against ``fairvec run --tier full
   --tag accumulated-full --algorithm stake.dice -- ADAPTER``;
3. the time from starting ``fairvec run`` (the command of 1) to the adapter reading its first
   request line (the adapter appends the time to the file named by
   FAIRVEC_C_ADAPTER_FIRST_REQUEST), against 0.2 s.

Also printed: 1b, the fixed vectors with the default tier (the accumulate requests added to
the file, against ``fairvec run`` without ``--tier``), ``fairvec --version`` (the interpreter
and start alone), and 3b, the first request with the whole suite selected. Every figure is
the median of --repeats runs, alternating the two sides of each ratio; the answers are
checked once, untimed (every request answered; the full tier's digest). ``--skip-full``
leaves out 2.
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
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "c_adapter" / "adapter.c"
ADAPTER = HERE / "c_adapter" / "adapter"
CFLAGS = ["-O2", "-std=c11", "-Wall", "-Wextra", "-pedantic"]
LIBS = ["-lcrypto", "-lcjson", "-lm"]
# what the adapter implements (its hello): algorithm -> vector file under the vector folder
ALGORITHMS = {
    "stake.bytes": "stake/bytes.json",
    "stake.floats": "stake/floats.json",
    "stake.dice": "stake/dice.json",
    "bustabit.previous_hash": "bustabit/previous_hash.json",
    "bustabit.crash_v2": "bustabit/crash_v2.json",
}
MARK = "\uffff"
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


def fixed_requests(folder: Path) -> list[bytes]:
    lines = []
    for algorithm, file in ALGORITHMS.items():
        data = json.loads((folder / file).read_text(encoding="utf-8"))
        for vector in data["vectors"]:
            request = {
                "id": vector["id"],
                "algorithm": algorithm,
                "variant": vector["variant"],
                "input": marked(vector["input"]),
            }
            lines.append(json.dumps(request, separators=(",", ":")).encode("ascii") + b"\n")
    return lines


def accumulate_requests(folder: Path, tier: str) -> list[tuple[dict[str, Any], bytes]]:
    """Each accumulated vector of the tier, with the accumulate request the runner sends."""
    found = []
    for algorithm, file in ALGORITHMS.items():
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
        pair for pair in accumulate_requests(folder, "full") if pair[0]["id"].startswith(prefix)
    )


def alone(requests: Path) -> float:
    """Wall seconds of the adapter answering the request file, answers to /dev/null
    (process start included)."""
    with requests.open("rb") as stdin:
        started = time.perf_counter()
        subprocess.run([str(ADAPTER)], stdin=stdin, stdout=subprocess.DEVNULL, check=True)
        return time.perf_counter() - started


def answers_of(requests: Path) -> list[dict[str, Any]]:
    """The adapter's lines for the request file (untimed: to check what is timed)."""
    with requests.open("rb") as stdin:
        done = subprocess.run([str(ADAPTER)], stdin=stdin, capture_output=True, check=True)
    return [json.loads(line) for line in done.stdout.splitlines()[1:]]


def fairvec_command() -> list[str]:
    script = Path(sys.executable).with_name("fairvec")
    return [str(script)] if script.exists() else [sys.executable, "-m", "fairvec"]


def through_fairvec(arguments: list[str], mark: Path | None = None) -> tuple[float, float | None]:
    """Wall seconds of ``fairvec run ARGUMENTS -- ADAPTER``, and (with ``mark``) the seconds
    from starting it to an adapter reading its first request."""
    environment = dict(os.environ)
    if mark is not None:
        mark.unlink(missing_ok=True)
        environment["FAIRVEC_C_ADAPTER_FIRST_REQUEST"] = str(mark)
    command = [*fairvec_command(), "run", "--no-progress", *arguments, "--", str(ADAPTER)]
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


def main() -> None:
    parser = argparse.ArgumentParser(description="Issue 20's targets with a compiled adapter.")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--full", default="stake.dice", choices=("stake.dice", "bustabit.crash_v2"))
    parser.add_argument("--skip-full", action="store_true", help="leave out the full tier")
    arguments = parser.parse_args()
    if arguments.repeats < 1:
        parser.error("--repeats must be at least 1")
    problem = build()
    if problem is not None:
        print(f"cannot build {SOURCE.relative_to(HERE.parent)}: {problem}")
        sys.exit(2)
    print(f"adapter {ADAPTER.relative_to(HERE.parent)}, built")
    print(f"load average before {load_average()}, cpus {os.cpu_count()}")
    folder = vector_folder()
    selection = [part for name in ALGORITHMS for part in ("--algorithm", name)]
    with tempfile.TemporaryDirectory() as name:
        work = Path(name)
        requests, mark = work / "fixed.jsonl", work / "first.time"
        lines = fixed_requests(folder)
        requests.write_bytes(b"".join(lines))
        direct, ran, ran_j1, floor, firsts = [], [], [], [], []
        fixed = ["--tier", "none", *selection]
        answers = len(answers_of(requests))
        for _ in range(arguments.repeats):
            direct.append(alone(requests))
            seconds, first = through_fairvec(fixed, mark)
            ran.append(seconds)
            if first is not None:
                firsts.append(first)
            ran_j1.append(through_fairvec([*fixed, "-j", "1"])[0])
            started = time.perf_counter()
            subprocess.run([*fairvec_command(), "--version"], capture_output=True, check=True)
            floor.append(time.perf_counter() - started)
        if answers != len(lines):
            print(f"  note: the adapter answered {answers} of {len(lines)} requests")
        d, r, r1 = statistics.median(direct), statistics.median(ran), statistics.median(ran_j1)
        print(f"\n1. fixed vectors of {', '.join(ALGORITHMS)}: {len(lines)} requests")
        print(f"   adapter alone (requests piped from a file)  {d:8.3f} s")
        print(f"   fairvec run --tier none (-j default)        {r:8.3f} s")
        print(f"   fairvec run --tier none -j 1                {r1:8.3f} s")
        print(f"   (fairvec --version: interpreter and start   {statistics.median(floor):8.3f} s)")
        for label, value in (("", r), (" at -j 1", r1)):
            print(
                f"   ratio{label} {value / d:.1f}x (target within {TARGETS['fixed']:.0f}x: "
                f"{verdict(value / d, TARGETS['fixed'])}); the runner adds {value - d:.3f} s"
            )
        defaults = accumulate_requests(folder, "default")
        requests.write_bytes(b"".join(lines) + b"".join(line for _, line in defaults))
        cases = sum(vector["count"] for vector, _ in defaults)
        direct, ran = [], []
        for _ in range(arguments.repeats):
            direct.append(alone(requests))
            ran.append(through_fairvec(selection)[0])
        d, r = statistics.median(direct), statistics.median(ran)
        print(
            f"\n1b. the same with the default tier: {len(lines)} requests and {len(defaults)} "
            f"accumulate requests ({cases:,} cases)"
        )
        print(f"   adapter alone (requests piped from a file)  {d:8.3f} s")
        print(f"   fairvec run (default tier)                  {r:8.3f} s")
        print(f"   ratio {r / d:.1f}x; the runner adds {r - d:.3f} s")
        if not arguments.skip_full:
            vector, request = full_tier(folder, arguments.full)
            accumulate = work / "full.jsonl"
            accumulate.write_bytes(request)
            direct, ran = [], []
            answer = answers_of(accumulate)[-1].get("accumulated", {})
            digest_ok = answer.get("digest") == vector["expected"]["digest"]
            for _ in range(arguments.repeats):
                direct.append(alone(accumulate))
                run = ["--tier", "full", "--tag", "accumulated-full", "--algorithm", arguments.full]
                ran.append(through_fairvec(run)[0])
            d, r = statistics.median(direct), statistics.median(ran)
            print(f"\n2. full tier of {arguments.full}: {vector['count']:,} cases ({vector['id']})")
            shown = "matches" if digest_ok else "DIFFERS from"
            print(f"   adapter alone (one accumulate request)      {d:8.3f} s", end="")
            print(f" (its digest {shown} the vector's)")
            print(f"   fairvec run --tier full                     {r:8.3f} s")
            print(
                f"   ratio {r / d:.2f}x (target within {TARGETS['full']}x: "
                f"{verdict(r / d, TARGETS['full'])}); the runner adds {r - d:.3f} s"
            )
        print("\n3. fairvec run (the command of 1) to the adapter reading its first request")
        if firsts:
            first = statistics.median(firsts)
            shown = " ".join(f"{value:.3f}" for value in firsts)
            print(
                f"   {first:.3f} s, median of {len(firsts)} ({shown}); target under "
                f"{TARGETS['first']} s: {verdict(first, TARGETS['first'])}"
            )
        else:
            print("   not measured: the adapter wrote no time")
        whole, firsts = [], []
        for _ in range(arguments.repeats):
            seconds, first = through_fairvec(["--tier", "none"], mark)
            whole.append(seconds)
            if first is not None:
                firsts.append(first)
        if firsts:
            first = statistics.median(firsts)
            shown = " ".join(f"{value:.3f}" for value in firsts)
            print(
                f"3b. the same with the whole suite selected (fairvec run --tier none, the other "
                f"algorithms skipped): {first:.3f} s, median of {len(firsts)} ({shown}); "
                f"{verdict(first, TARGETS['first'])}; the run {statistics.median(whole):.3f} s wall"
            )
    print(f"\nload average after {load_average()}")


if __name__ == "__main__":
    main()
