"""An adapter that computes nothing of an accumulated vector (issue 34, item 1): its hello
says "accumulate": true, and it answers each accumulate request by copying the expected
checkpoints out of the installed vector files; a stream no file holds (a fresh one) gets
the checkpoints of the committed stream of its algorithm and variant, the best a copier
can do. Ordinary requests are answered by the reference, so the fixed vectors pass.

    count:N    the answer's count is N (the checkpoints still copied: a lying count)
"""

from __future__ import annotations

import json
import sys
from importlib import resources
from pathlib import Path
from typing import Any

from fairvec.reference import InvalidInput, compute

MODES = sys.argv[1:]
COUNT = next((int(m.split(":", 1)[1]) for m in MODES if m.startswith("count:")), None)
ALGORITHMS = {"stake.dice": ["truncate", "round"], "stake.limbo": ["truncate", "round"]}


def committed(algorithm: str) -> list[dict[str, Any]]:
    family, _, name = algorithm.partition(".")
    root = Path(str(resources.files("fairvec").joinpath("vectors")))
    data = json.loads((root / family / f"{name}.json").read_text(encoding="utf-8"))
    return list(data.get("accumulated", []))


def copied(request: dict[str, Any]) -> dict[str, Any]:
    entries = committed(request["algorithm"])
    entry = next((e for e in entries if e["id"] == request["id"]), None)
    if entry is None:  # a stream no file holds: the committed one's digests
        entry = next(e for e in entries if e["variant"] == request["variant"])
    expected = entry["expected"]
    count = request["accumulate"]["count"] if COUNT is None else COUNT
    found = {"count": count, "digest": expected["digest"], "checkpoints": expected["checkpoints"]}
    return {"id": request["id"], "accumulated": found}


def answered(request: dict[str, Any]) -> dict[str, Any]:
    try:
        output = compute(request["algorithm"], request["input"], request["variant"])
    except InvalidInput as error:
        return {"id": request["id"], "error": {"code": error.code}}
    return {"id": request["id"], "output": output}


def main() -> None:
    hello = {"type": "hello", "protocol": 1, "name": "copying", "version": "1",
             "algorithms": ALGORITHMS, "accumulate": True}  # fmt: skip
    print(json.dumps(hello), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        reply = copied(request) if "accumulate" in request else answered(request)
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
