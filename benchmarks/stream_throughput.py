"""``fairvec stream``'s throughput next to ``openssl rand``'s, side by side in one run
(issue 19); prints, never asserts.

    python benchmarks/stream_throughput.py [--megabytes 64] [--repeats 3]

Each row writes the same number of bytes to /dev/null (the dieharder text row: the same
number of 32-bit values, as text) and reports the best of the repeats.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import time
from pathlib import Path

FAIRVEC = [sys.executable, "-m", "fairvec"]


def best_seconds(command: list[str], repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        subprocess.run(command, stdout=subprocess.DEVNULL, check=True)
        best = min(best, time.perf_counter() - started)
    return best


def rows(megabytes: int) -> list[tuple[str, list[str], int]]:
    size = megabytes * 2**20
    words = str(size // 4)
    stream = [*FAIRVEC, "stream"]
    return [
        ("openssl rand", ["openssl", "rand", str(size)], size),
        ("casino.bytes raw", [*stream, "casino.bytes", "--count", words], size),
        ("stake.bytes raw", [*stream, "stake.bytes", "--count", words], size),
        ("tenhou.rnd raw", [*stream, "tenhou.rnd", "--count", words], size),
        ("tenhou.mt19937 raw", [*stream, "tenhou.mt19937", "--count", words], size),
        (
            "casino.bytes numbers, dieharder text",
            [
                *stream,
                "casino.bytes",
                "--unit",
                "numbers",
                "--format",
                "dieharder",
                "--count",
                words,
            ],
            size,
        ),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=3)
    arguments = parser.parse_args()
    if shutil.which("openssl") is None:
        sys.exit("openssl is not on PATH: the comparison needs it")
    load = Path("/proc/loadavg").read_text().split()[0]
    print(
        f"{arguments.megabytes} MiB of output (32-bit values: the same count), best of "
        f"{arguments.repeats}; python {sys.version.split()[0]}; load {load}"
    )
    baseline = None
    for name, command, size in rows(arguments.megabytes):
        seconds = best_seconds(command, arguments.repeats)
        rate = size / seconds / 2**20
        baseline = baseline or rate
        ratio = baseline / rate
        print(f"  {name:40s} {seconds:8.2f} s {rate:9.1f} MiB/s  openssl / this: {ratio:7.1f}x")


if __name__ == "__main__":
    main()
