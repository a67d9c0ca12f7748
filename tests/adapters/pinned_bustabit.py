"""A library-shaped port of bustabit.crash_v2, as real ones are: bustabit's current salt
hard-coded, and (with --crash-only) only the crash point returned.

    --hybrid N     the common clones' rule: an instant 1.00x crash when the 52-bit value
                   is divisible by N (33 or 101); a wrong port, for the tests to catch
    --crash-only   return {"crash": ...} alone, and claim only that field in the hello
    --pins         declare the salt in the hello (else the user gives --fix salt=...)
    --marked       ask for lone surrogates in the marked encoding
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import re
import sys

SALT = "00000000000000000001e08b7fd44f95e3e950ac65650a8031a6d5e1750e34be"
HEX64 = re.compile(r"[0-9a-f]{64}")
MARK = "\uffff"


def crash_point(game_hash: str, hybrid: int | None) -> dict[str, object]:
    digest = hmac.new(SALT.encode(), bytes.fromhex(game_hash), hashlib.sha256).hexdigest()
    r = int(digest[:13], 16)
    if hybrid and r % hybrid == 0:
        return {"hmac": digest, "r": r, "x": r / 2**52, "crash": 1}
    x = r / 2**52
    crash = max(1.0, math.floor(99 / (1 - x)) / 100)
    return {"hmac": digest, "r": r, "x": x, "crash": crash}


def lone_surrogate(text: str, marked: bool) -> bool:
    if marked:
        if not text.startswith(MARK):
            return False
        units = bytes.fromhex(text[1:])
        try:
            units.decode("utf-16-be")
            return False
        except UnicodeDecodeError:
            return True
    try:
        text.encode("utf-8")
        return False
    except UnicodeEncodeError:
        return True


def answer(inputs: object, hybrid: int | None, marked: bool) -> dict[str, object]:
    if not isinstance(inputs, dict):
        return {"error": {"code": "wrong-type"}}
    unknown = sorted(set(inputs) - {"game_hash", "salt"})
    if unknown:
        return {"error": {"code": "unknown-field"}}
    for name in ("game_hash", "salt"):
        if name not in inputs:
            return {"error": {"code": "missing-field"}}
    for name in ("game_hash", "salt"):
        if not isinstance(inputs[name], str):
            return {"error": {"code": "wrong-type"}}
    for name in ("game_hash", "salt"):
        if lone_surrogate(inputs[name], marked):
            return {"error": {"code": "not-unicode-text"}}
    if not HEX64.fullmatch(inputs["game_hash"]):
        return {"error": {"code": "bad-hash"}}
    if inputs["salt"] != SALT:
        return {"unsupported": True, "reason": "this library knows bustabit's salt only"}
    return {"output": crash_point(inputs["game_hash"], hybrid)}


def main(argv: list[str]) -> None:
    hybrid = int(argv[argv.index("--hybrid") + 1]) if "--hybrid" in argv else None
    crash_only, marked = "--crash-only" in argv, "--marked" in argv
    hello: dict[str, object] = {
        "type": "hello",
        "protocol": 1,
        "name": "pinned-bustabit",
        "version": "1",
        "algorithms": {"bustabit.crash_v2": ["bustabit"]},
    }
    if "--pins" in argv:
        hello["pins"] = {"bustabit.crash_v2": {"salt": SALT}}
    if crash_only:
        hello["outputs"] = {"bustabit.crash_v2": ["crash"]}
    if marked:
        hello["lone_surrogates"] = "marked"
    print(json.dumps(hello), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        response = answer(request["input"], hybrid, marked)
        output = response.get("output")
        if crash_only and isinstance(output, dict):
            response["output"] = {"crash": output["crash"]}
        print(json.dumps({"id": request["id"], **response}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
