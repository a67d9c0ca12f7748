"""A port that is the reference except for one input-handling mistake real engines make
(first argument), which the committed vectors do not catch and fuzzing does:

- lower-hex-server-seed: lower-cases a server seed written in hex digits before using it
  ("hex is case-insensitive"), though the seed is hashed as text
- trim-client-seed: strips whitespace around the client seed, as a web form does

Every other input goes to the reference unchanged.
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any

from fairvec.reference import InvalidInput, compute, registry

MISTAKE = sys.argv[1]
HEX = re.compile(r"[0-9a-fA-F]+")


def mistaken(inputs: dict[str, Any]) -> dict[str, Any]:
    changed = dict(inputs)
    server_seed, client_seed = inputs.get("server_seed"), inputs.get("client_seed")
    if MISTAKE == "lower-hex-server-seed" and isinstance(server_seed, str):
        if HEX.fullmatch(server_seed):
            changed["server_seed"] = server_seed.lower()
    elif MISTAKE == "trim-client-seed" and isinstance(client_seed, str):
        changed["client_seed"] = client_seed.strip()
    return changed


if MISTAKE not in ("lower-hex-server-seed", "trim-client-seed"):
    raise SystemExit(f"unknown mistake {MISTAKE!r}")
# The games, not the stages: casino.hmac_key and casino.bytes are where the committed
# vectors do test seed text (upper-case-seed, trailing-space-client-seed), and a port that
# implements them is caught there.
algorithms = {
    algorithm_id: list(found.variants)
    for algorithm_id, found in registry().items()
    if algorithm_id.startswith("casino.")
    and algorithm_id not in ("casino.hmac_key", "casino.bytes")
}
hello = {"type": "hello", "protocol": 1, "name": f"wrong-{MISTAKE}", "version": "0"}
print(json.dumps({**hello, "algorithms": algorithms}), flush=True)
for line in sys.stdin:
    request = json.loads(line)
    try:
        output = compute(request["algorithm"], mistaken(request["input"]), request["variant"])
        response: dict[str, Any] = {"id": request["id"], "output": output}
    except InvalidInput as error:
        response = {"id": request["id"], "error": {"code": error.code, "message": error.message}}
    print(json.dumps(response, ensure_ascii=False), flush=True)
