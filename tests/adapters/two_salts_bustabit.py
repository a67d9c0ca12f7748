"""bustabit.games as bustabit's own verifier computes it: each chain's salt hard-coded with
its chain rule (raw-bytes: the current salt; hex-text: the first chain's), so a request on
any other salt is unsupported.

    --pins   declare both salts in the hello, one per variant (bustabit.games@raw-bytes,
             bustabit.games@hex-text); else the user gives --fix ALGORITHM@VARIANT:salt=...
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import re
import sys

HEX64 = re.compile(r"[0-9a-f]{64}")

SALTS = {
    "raw-bytes": "00000000000000000001e08b7fd44f95e3e950ac65650a8031a6d5e1750e34be",
    "hex-text": "0000000000000000004d6ec16dafe9d8370958664c1dc422f452892264c59526",
}


def previous(game_hash: str, rule: str) -> str:
    data = bytes.fromhex(game_hash) if rule == "raw-bytes" else game_hash.encode()
    return hashlib.sha256(data).hexdigest()


def crash(game_hash: str, salt: str) -> float:
    digest = hmac.new(salt.encode(), bytes.fromhex(game_hash), hashlib.sha256).hexdigest()
    x = int(digest[:13], 16) / 2**52
    return max(1.0, math.floor(99 / (1 - x)) / 100)


def answer(inputs: dict[str, object], rule: str) -> dict[str, object]:
    """The valid inputs' answers, and the errors of the committed cases (the tests leave
    out the shape vectors, tagged invalid: this port is about the salts)."""
    if not HEX64.fullmatch(str(inputs.get("game_hash"))):
        return {"error": {"code": "bad-hash"}}
    if inputs.get("salt") != SALTS[rule]:
        return {"unsupported": True, "reason": "this verifier knows each chain's own salt only"}
    count = inputs["count"]
    if not isinstance(count, int) or not 1 <= count <= 10_000:
        return {"error": {"code": "count-out-of-range"}}
    hashes = [str(inputs["game_hash"])]
    while len(hashes) < count:
        hashes.append(previous(hashes[-1], rule))
    return {"output": {"hashes": hashes, "crashes": [crash(h, SALTS[rule]) for h in hashes]}}


def main(argv: list[str]) -> None:
    hello: dict[str, object] = {
        "type": "hello",
        "protocol": 1,
        "name": "two-salts-bustabit",
        "version": "1",
        "algorithms": {"bustabit.games": ["raw-bytes", "hex-text"]},
    }
    if "--pins" in argv:
        hello["pins"] = {f"bustabit.games@{rule}": {"salt": salt} for rule, salt in SALTS.items()}
    print(json.dumps(hello), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        response = answer(request["input"], request["variant"])
        print(json.dumps({"id": request["id"], **response}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
