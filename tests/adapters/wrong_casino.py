"""A casino port that is the reference except for one realistic mistake (first argument):

- python-format: formats Crash/Overgo/Dice with Python's format(x, ".2f") (ties to even)
  instead of JavaScript's toFixed (ties up, on the exact binary value)
- exact-numbers: turns 8 bytes into a number with exact arithmetic, u64 / 2^64 rounded once,
  instead of the document's left-to-right double sum
- other-key: gives HMAC the other reading of SHA256(server_seed:salt) than the variant asks for
- trim-client-seed: strips whitespace from the client seed before using it (a form would)
- replace-surrogates: hashes a lone surrogate as U+FFFD, as Node's update(string) does,
  instead of rejecting it with not-unicode-text
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any

from fairvec.reference import InvalidInput, casino, compute
from fairvec.reference._algorithm import registry

MISTAKE = sys.argv[1]

if MISTAKE == "python-format":
    casino.to_fixed = lambda value, digits: format(value, f".{digits}f")
elif MISTAKE == "exact-numbers":
    casino.numbers_from_bytes = lambda data: [
        int.from_bytes(data[at : at + 8], "big") / 2**64 for at in range(0, len(data), 8)
    ]
elif MISTAKE == "other-key":
    right_key = casino.hmac_key
    casino.hmac_key = lambda server_seed, salt, reading: right_key(
        server_seed, salt, "raw-bytes" if reading == "hex-text" else "hex-text"
    )
elif MISTAKE not in ("trim-client-seed", "replace-surrogates"):
    raise SystemExit(f"unknown mistake {MISTAKE!r}")


def as_the_port_reads(inputs: dict[str, Any]) -> dict[str, Any]:
    """The input after the port's mistakes that happen before any computing."""
    if not isinstance(inputs, dict):
        return inputs
    if MISTAKE == "trim-client-seed" and isinstance(inputs.get("client_seed"), str):
        return {**inputs, "client_seed": inputs["client_seed"].strip()}
    if MISTAKE == "replace-surrogates":
        return {
            name: re.sub("[\ud800-\udfff]", "\ufffd", value) if isinstance(value, str) else value
            for name, value in inputs.items()
        }
    return inputs


algorithms = {
    algorithm_id: list(found.variants)
    for algorithm_id, found in registry().items()
    if algorithm_id.startswith("casino.")
}
hello = {"type": "hello", "protocol": 1, "name": f"wrong-{MISTAKE}", "version": "0"}
print(json.dumps({**hello, "algorithms": algorithms}), flush=True)
for line in sys.stdin:
    request = json.loads(line)
    try:
        inputs = as_the_port_reads(request["input"])
        output = compute(request["algorithm"], inputs, request.get("variant"))
        response: dict[str, Any] = {"id": request["id"], "output": output}
    except InvalidInput as error:
        response = {"id": request["id"], "error": {"code": error.code, "message": error.message}}
    print(json.dumps(response), flush=True)
