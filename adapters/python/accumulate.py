"""The bundled Python adapter's accumulate request (docs/adapter-protocol.md, section 3a).

One request stands for a whole accumulated vector: its cases are drawn from the stream,
answered by the reference as ordinary requests would be, encoded as records and hashed,
with a progress line as each block ends and the digest and checkpoints at the end. The
stream, the records and the running digest are the ones ``fairvec generate`` computes the
expected values with (fairvec/accumulated_digest.py): the runner, spared 10,000 round trips
a stream, then compares one answer.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping
from itertools import islice
from typing import Any

from fairvec.accumulated_digest import ENCODING, cases, record
from fairvec.reference import InvalidInput, compute


class AccumulateUnsupported(Exception):
    """A request this adapter answers ``unsupported`` (the runner then streams its cases)."""


def case_answer(algorithm: str, inputs: Mapping[str, Any], variant: str | None) -> dict[str, Any]:
    """One case's answer as its record holds it: the output, or the error's code alone."""
    try:
        return {"output": compute(algorithm, inputs, variant)}
    except InvalidInput as error:
        return {"error": error.code}


def accumulate(request: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
    """The lines answering an accumulate request: a progress line per block, then the
    answer. Raises AccumulateUnsupported (before any line) for an encoding it does not
    write, and ImportError (an extra missing) from the first case."""
    asked = request["accumulate"]
    if asked.get("encoding") != ENCODING:
        raise AccumulateUnsupported(f"encoding {asked.get('encoding')!r}")
    vector_id, count, block = request["id"], asked["count"], asked["block"]
    stream = asked["stream"]
    inputs = islice(cases(stream["seed"], stream["input"]), count)
    running = hashlib.sha256()
    checkpoints: list[str] = []
    for done, case in enumerate(inputs, start=1):
        running.update(record(case_answer(request["algorithm"], case, request.get("variant"))))
        if done % block == 0 or done == count:  # a last, partial block has its checkpoint
            checkpoints.append(running.hexdigest())
            progress = {"block": len(checkpoints), "digest": checkpoints[-1]}
            yield {"id": vector_id, "checkpoint": progress}
    yield {
        "id": vector_id,
        "accumulated": {"count": count, "digest": checkpoints[-1], "checkpoints": checkpoints},
    }
