"""``python -m fairvec.adapters.python``: answers every request with the reference.

A model of how small an adapter is: a hello line, then one JSON line out per line in.
A line that is not a request (not JSON, not an object, no id, algorithm or input) gets
the protocol's ``bad-request`` error instead of ending the adapter. An accumulate request
(one line for a whole accumulated vector) is answered in accumulate.py: a progress line per
block, then the digest.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from typing import Any

from fairvec import __version__
from fairvec.adapters.python.accumulate import AccumulateUnsupported, accumulate
from fairvec.extras import ALGORITHMS_NEEDING
from fairvec.reference import InvalidInput, compute, registry


class BadRequest(Exception):
    """A request line the protocol does not allow; answered, never fatal."""


def parse(line: bytes) -> dict[str, Any]:
    try:
        request = json.loads(line.decode("utf-8"))
    except UnicodeDecodeError:
        raise BadRequest("the line is not UTF-8") from None
    except (ValueError, RecursionError):
        raise BadRequest("the line is not JSON") from None
    if not isinstance(request, dict):
        raise BadRequest("the request is not a JSON object")
    if not isinstance(request.get("id"), str):
        raise BadRequest("the request has no id (a string)")
    if not isinstance(request.get("algorithm"), str):
        raise BadRequest("the request has no algorithm (a string)")
    if "input" not in request and not isinstance(request.get("accumulate"), dict):
        raise BadRequest("the request has no input")
    if request.get("variant") is not None and not isinstance(request["variant"], str):
        raise BadRequest("the request's variant is neither null nor a string")
    return request


def answer(request: dict[str, Any]) -> dict[str, Any]:
    if request["algorithm"] not in registry():
        return {"id": request["id"], "unsupported": True}
    try:
        output = compute(request["algorithm"], request["input"], request.get("variant"))
    except InvalidInput as error:
        return {"id": request["id"], "error": {"code": error.code, "message": error.message}}
    except ImportError as missing:
        return _missing_extra(request, missing)
    return {"id": request["id"], "output": output}


def _missing_extra(request: dict[str, Any], missing: ImportError) -> dict[str, Any]:
    """Unsupported, naming the optional extra to install (NumPy, BLS12-381: fairvec/extras.py)."""
    extra = ALGORITHMS_NEEDING.get(request["algorithm"], ("analysis", ""))[0]
    reason = f"{missing}: pip install 'fairvec[{extra}]'"
    return {"id": request["id"], "unsupported": True, "reason": reason}


def answer_accumulate(request: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The lines answering an accumulate request; ``unsupported`` (the runner then sends the
    cases one by one, and each is answered as ever) for what it cannot compute."""
    if request["algorithm"] not in registry():
        yield {"id": request["id"], "unsupported": True}
        return
    try:
        yield from accumulate(request)
    except AccumulateUnsupported as reason:
        yield {"id": request["id"], "unsupported": True, "reason": str(reason)}
    except ImportError as missing:
        yield _missing_extra(request, missing)


def respond(line: bytes) -> dict[str, Any]:
    try:
        return answer(parse(line))
    except BadRequest as problem:
        return {"id": _id_of(line), "error": {"code": "bad-request", "message": str(problem)}}


def responses(line: bytes) -> Iterator[dict[str, Any]]:
    """The lines answering one request line: one, or an accumulate request's several."""
    try:
        request = parse(line)
    except BadRequest:
        yield respond(line)
        return
    if "input" in request:
        yield answer(request)
    else:
        yield from answer_accumulate(request)


def _id_of(line: bytes) -> str | None:
    """The id of a request that is an object with a string id, else null."""
    try:
        request = json.loads(line.decode("utf-8"))
    except (ValueError, RecursionError):
        return None
    found = request.get("id") if isinstance(request, dict) else None
    return found if isinstance(found, str) else None


def main() -> None:
    algorithms = {name: list(found.variants) for name, found in registry().items()}
    hello = {
        "type": "hello",
        "protocol": 1,
        "name": "fairvec-python-reference",
        "version": __version__,
        "algorithms": algorithms,
        "accumulate": True,  # it computes accumulated vectors itself (accumulate.py)
    }
    print(json.dumps(hello), flush=True)
    # bytes, not text: a line that is not UTF-8 is a bad request, not a crash
    for line in sys.stdin.buffer:  # one line in, one line out, whatever the line holds
        for response in responses(line):
            # ASCII-escaped, so any text (a lone surrogate in a message) can travel
            print(json.dumps(response), flush=True)


if __name__ == "__main__":
    main()
