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
    own-block         each checkpoint the digest of its own block's records alone, not of
                      all the records so far (the running digest)
    error-as-answered an error case's record written as the protocol answers it,
                      {"error": {"code": CODE}}, not {"error": CODE}
    double-little-endian  the double generator reads its 8 bytes little-endian
    partial           claims only stake.dice's result (hello "outputs"): answers hold that
                      field alone, and an accumulate request's records the fields it names
    wrong-result:N    case N's result is -1 (a partial port's claimed field, wrong)
    no-accumulate     no "accumulate" in the hello: the runner streams the cases
    slow-blocks:S     S seconds' pause after each progress line (a port on a loaded machine)
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from typing import Any

from fairvec import accumulated_digest, input_draws
from fairvec.reference import InvalidInput, compute

MODES = sys.argv[1:]
WRONG_CASE = next((int(m.split(":")[1]) for m in MODES if m.startswith("wrong-case:")), None)
WRONG_RESULT = next((int(m.split(":")[1]) for m in MODES if m.startswith("wrong-result:")), None)
PARTIAL = ["result"]  # the stake.dice field the partial mode claims
PAUSE = next((float(m.split(":")[1]) for m in MODES if m.startswith("slow-blocks:")), 0.0)


def answer(algorithm: str, inputs: Any, variant: str | None, index: int | None) -> dict[str, Any]:
    try:
        output = compute(algorithm, inputs, variant)
    except InvalidInput as error:
        return {"error": error.code}
    if index is not None and index == WRONG_CASE:
        return {"output": {**output, "roll": -1}} if isinstance(output, dict) else {"output": None}
    if index is not None and index == WRONG_RESULT:
        output = {**output, "result": -1}
    if "partial" in MODES and algorithm == "stake.dice":
        output = {name: output[name] for name in PARTIAL}
    return {"output": output}


def record_of(given: dict[str, Any], fields: list[str] | None) -> dict[str, Any]:
    """The answer as an accumulate request's record holds it: its output cut to ``fields``
    when the request names some (a partial claim)."""
    if fields is None or "output" not in given:
        return given
    return {"output": {name: given["output"][name] for name in fields if name in given["output"]}}


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
        given = record_of(
            answer(request["algorithm"], next(inputs), request["variant"], index), job.get("fields")
        )
        if "error-as-answered" in MODES and "error" in given:
            given = {"error": {"code": given["error"]}}
        total.add(given)
        if "own-block" in MODES and total.count % job["block"] == 0:
            forget_earlier_blocks(total)
        if total.count % job["block"] == 0 and "quiet" not in MODES:
            progress = {"block": len(total.checkpoints), "digest": total.checkpoints[-1]}
            print(json.dumps({"id": request["id"], "checkpoint": progress}), flush=True)
            time.sleep(PAUSE)
    checkpoints = list(total.checkpoints)
    if total.count % job["block"]:
        checkpoints.append(total.digest)
    found: dict[str, Any] = {"count": job["count"], "digest": checkpoints[-1]}
    if "wrong-digest" in MODES:
        found["digest"] = checkpoints[-1] = "0" * 64
    if "no-checkpoints" not in MODES:
        found["checkpoints"] = checkpoints
    named = "someone-else" if "other-id" in MODES else request["id"]
    return {"id": named, "accumulated": found}


def forget_earlier_blocks(total: accumulated_digest.Accumulator) -> None:
    """The next checkpoint will hash the next block's records alone (own-block)."""
    total._hash = hashlib.sha256()


def little_endian_double(stream: input_draws.Stream, bounds: list[float]) -> float:
    step = (int.from_bytes(stream.take(8), "little") >> 11) / 2.0**53
    return float(bounds[0]) + (float(bounds[1]) - float(bounds[0])) * step


if "double-little-endian" in MODES:  # this process's stream only: a case sent alone is right
    input_draws.GENERATORS["double"] = little_endian_double


def main() -> None:
    hello = {"type": "hello", "protocol": 1, "name": "accumulating", "version": "1",
             "algorithms": {"stake.dice": ["truncate", "round"],
                            "stake.shuffle": ["pick-and-remove", "swap-from-end"]},
             "accumulate": "no-accumulate" not in MODES}  # fmt: skip
    if "partial" in MODES:
        hello["outputs"] = {"stake.dice": PARTIAL}
    print(json.dumps(hello), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        if "accumulate" in request:
            answered = accumulated(request)
            line = answered.get("raw") or json.dumps(answered)
            if "answer-twice" in MODES:  # the answer again, in the same write
                line += "\n" + line
            # one write, newline included (print writes the end apart: a loaded machine could
            # leave the second line unfinished when the runner took its last look)
            sys.stdout.write(line + "\n")
            sys.stdout.flush()
            if "answer-again-late" in MODES:  # again, once the next request is likely sent
                time.sleep(0.3)
                print(line, flush=True)
            continue
        index = int(request["id"].rsplit("#", 1)[1]) if "#" in request["id"] else None
        found = answer(request["algorithm"], request["input"], request["variant"], index)
        if "error" in found:
            found = {"error": {"code": found["error"]}}
        print(json.dumps({"id": request["id"], **found}), flush=True)


if __name__ == "__main__":
    main()
