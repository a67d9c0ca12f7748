"""``python -m fairvec.adapters.python``: answers every request with the reference.

A model of how small an adapter is: a hello line, then one JSON line out per line in.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from fairvec import __version__
from fairvec.reference import InvalidInput, compute, registry


def answer(request: dict[str, Any]) -> dict[str, Any]:
    if request["algorithm"] not in registry():
        return {"id": request["id"], "unsupported": True}
    try:
        output = compute(request["algorithm"], request["input"], request["variant"])
    except InvalidInput as error:
        return {"id": request["id"], "error": {"code": error.code, "message": error.message}}
    return {"id": request["id"], "output": output}


def main() -> None:
    algorithms = {name: list(found.variants) for name, found in registry().items()}
    hello = {
        "type": "hello",
        "protocol": 1,
        "name": "fairvec-python-reference",
        "version": __version__,
        "algorithms": algorithms,
    }
    print(json.dumps(hello), flush=True)
    for line in sys.stdin:
        print(json.dumps(answer(json.loads(line)), ensure_ascii=False), flush=True)


if __name__ == "__main__":
    main()
