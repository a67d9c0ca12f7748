"""A test adapter that answers with the reference, except where told to misbehave.

Usage: misbehaving.py MODE:VECTOR_ID [MODE:VECTOR_ID ...] or a start-up MODE alone.
Per-vector modes: crash, hang, garbage, wrong-id, skip, stderr, wrong-output, wrong-error.
Start-up modes: no-hello, bad-hello, exit-before-hello, crash-after-restart (crashes on
every start after the first, via a marker file given as the second word).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from fairvec.reference import InvalidInput, compute, registry


def reference_answer(request: dict[str, Any]) -> dict[str, Any]:
    try:
        output = compute(request["algorithm"], request["input"], request["variant"])
        return {"id": request["id"], "output": output}
    except InvalidInput as error:
        return {"id": request["id"], "error": {"code": error.code}}


def emit(message: object, stream: Any = sys.stdout) -> None:
    stream.write((message if isinstance(message, str) else json.dumps(message)) + "\n")
    stream.flush()


def main(arguments: list[str]) -> None:
    startup = arguments[0] if arguments else ""
    if startup == "exit-before-hello":
        print("cannot start: missing runtime", file=sys.stderr)
        sys.exit(4)
    if startup == "no-hello":
        time.sleep(60)
    if startup == "bad-hello":
        emit({"type": "hi"})
        time.sleep(60)
    if startup == "crash-after-restart":
        marker = Path(arguments[1])
        if marker.exists():
            sys.exit(5)
        marker.write_text("started once")
    modes = {vector: mode for mode, vector in (a.split(":", 1) for a in arguments if ":" in a)}
    emit(
        {
            "type": "hello",
            "protocol": 1,
            "name": "misbehaving",
            "version": "0",
            "algorithms": {name: list(a.variants) for name, a in registry().items()},
        }
    )
    for line in sys.stdin:
        request = json.loads(line)
        mode = modes.get(request["id"])
        answer = reference_answer(request)
        if mode == "crash":
            os._exit(3)
        if mode == "hang":
            time.sleep(60)
        elif mode == "garbage":
            emit("this is not JSON")
        elif mode == "wrong-id":
            emit({**answer, "id": "no-such-vector"})
        elif mode == "skip":
            continue
        elif mode == "stderr":
            emit(answer, sys.stderr)
        elif mode == "wrong-output":
            emit({"id": request["id"], "output": {"ticket": -1, "move": "stone"}})
        elif mode == "wrong-error":
            emit({"id": request["id"], "error": {"code": "something-else", "message": "nope"}})
        else:
            emit(answer)


if __name__ == "__main__":
    main(sys.argv[1:])
