"""The trivial adapter of the runner-capacity benchmark: it answers from a precomputed table.

    python benchmarks/table_adapter.py TABLE.json

TABLE.json is {"hello": {...}, "answers": {vector id: response line}} (runner_throughput.py
writes it from the vectors' expected values). It reads stdin in large chunks and writes
every answer of a chunk in one write, so it costs next to nothing a vector: whatever time a
run takes is the runner's own. Not a model adapter (it computes nothing).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from typing import Any

fast_loads: Callable[[bytes], Any]
try:
    from orjson import loads as fast_loads
except ImportError:  # the fast extra is optional; json is only slower
    fast_loads = json.loads

CHUNK = 1 << 20


def vector_id(line: bytes) -> str:
    try:
        found: str = fast_loads(line)["id"]
    except ValueError:  # orjson refuses a lone surrogate escape, which json reads
        found = json.loads(line)["id"]
    return found


def main(table_path: str) -> None:
    with open(table_path, "rb") as stream:
        table = json.load(stream)
    answers = {key: (line + "\n").encode("ascii") for key, line in table["answers"].items()}
    out = sys.stdout.fileno()
    os.write(out, (json.dumps(table["hello"]) + "\n").encode())
    rest = b""
    while chunk := os.read(sys.stdin.fileno(), CHUNK):
        lines = (rest + chunk).split(b"\n")
        rest = lines.pop()
        reply = b"".join(answers[vector_id(line)] for line in lines)
        while reply:
            reply = reply[os.write(out, reply) :]


if __name__ == "__main__":
    main(sys.argv[1])
