"""An adapter that computes accumulated vectors itself (hello "accumulate": true), with
the reference behind it, and the ways such an adapter goes wrong:

    wrong-case:N      case N of every stream answered wrong, in the accumulate request
                      and when sent alone (a port's real bug: the report must name case N)
    wrong-stream      the accumulate request draws from another seed; cases sent alone
                      are right (the port's stream code is wrong, not its algorithm)
    wrong-digest      a digest of zeros; no-checkpoints: the answer lacks them
    hang, crash       on the accumulate request; unsupported: answered unsupported
    quiet             no progress lines (they are optional)
    bad-line          a line that is no JSON instead of the answer
    other-id          the answer names another vector
    loud              a 2 MB stderr line first (longer than the runner keeps), then the answer
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from fairvec import accumulated_digest
from fairvec.reference import InvalidInput, compute

MODES = sys.argv[1:]
WRONG_CASE = next((int(m.split(":")[1]) for m in MODES if m.startswith("wrong-case:")), None)


def answer(algorithm: str, inputs: Any, variant: str | None, index: int | None) -> dict[str, Any]:
    try:
        output = compute(algorithm, inputs, variant)
    except InvalidInput as error:
        return {"error": error.code}
    if index is not None and index == WRONG_CASE:
        return {"output": {**output, "roll": -1}} if isinstance(output, dict) else {"output": None}
    return {"output": output}


def accumulated(request: dict[str, Any]) -> dict[str, Any]:
    job = request["accumulate"]
    if "hang" in MODES:
        sys.stdin.read()  # never answers
    if "crash" in MODES:
        print("computing...", file=sys.stderr, flush=True)
        os._exit(3)
    if "bad-line" in MODES:
        return {"raw": "this is not { json"}
    if "loud" in MODES:
        print("x" * 2_000_000, file=sys.stderr, flush=True)
    if "unsupported" in MODES:
        return {"id": request["id"], "unsupported": True, "reason": "not this one"}
    seed = job["stream"]["seed"] + ("x" if "wrong-stream" in MODES else "")
    total = accumulated_digest.Accumulator(job["block"])
    inputs = accumulated_digest.cases(seed, job["stream"]["input"])
    for index in range(job["count"]):
        total.add(answer(request["algorithm"], next(inputs), request["variant"], index))
        if total.count % job["block"] == 0 and "quiet" not in MODES:
            progress = {"block": len(total.checkpoints), "digest": total.checkpoints[-1]}
            print(json.dumps({"id": request["id"], "checkpoint": progress}), flush=True)
    checkpoints = list(total.checkpoints)
    if total.count % job["block"]:
        checkpoints.append(total.digest)
    found: dict[str, Any] = {"count": job["count"], "digest": total.digest}
    if "wrong-digest" in MODES:
        found["digest"] = checkpoints[-1] = "0" * 64
    if "no-checkpoints" not in MODES:
        found["checkpoints"] = checkpoints
    named = "someone-else" if "other-id" in MODES else request["id"]
    return {"id": named, "accumulated": found}


def main() -> None:
    hello = {"type": "hello", "protocol": 1, "name": "accumulating", "version": "1",
             "algorithms": {"stake.dice": ["truncate", "round"]}, "accumulate": True}  # fmt: skip
    print(json.dumps(hello), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        if "accumulate" in request:
            answered = accumulated(request)
            print(answered.get("raw") or json.dumps(answered), flush=True)
            continue
        index = int(request["id"].rsplit("#", 1)[1]) if "#" in request["id"] else None
        found = answer(request["algorithm"], request["input"], request["variant"], index)
        if "error" in found:
            found = {"error": {"code": found["error"]}}
        print(json.dumps({"id": request["id"], **found}), flush=True)


if __name__ == "__main__":
    main()
