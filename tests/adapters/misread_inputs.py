"""A Stake and Tenhou port that is the reference except for one realistic misreading of an
input (first argument), to check that the vectors it fails name the cause in their tags:

- hand-from-one: numbers a game's hands from 1, as a player counts them: hand h is the
  0-based wall h - 1, and hand 0 is refused with hand-out-of-range
  (tenhou.hand_wall and tenhou.wall_tiles; quirk hand-is-zero-based)
- hex-server-seed: keys Stake's HMAC with the bytes the server seed spells when it is hex
  (it looks like hex: 64 lower-case digits), instead of its text (quirk server-seed-is-text)
"""

from __future__ import annotations

import hmac
import json
import re
import sys
from typing import Any

from fairvec.reference import InvalidInput, compute, stake, tenhou
from fairvec.reference._algorithm import registry

MISTAKE = sys.argv[1]
HEX = re.compile(r"(?:[0-9a-fA-F]{2})+")

if MISTAKE == "hand-from-one":
    right_skip = tenhou.skip_hands

    def skip_from_one(state: Any, hand: int) -> None:
        if hand == 0:
            raise InvalidInput("hand-out-of-range", "hands are numbered from 1")
        right_skip(state, hand - 1)

    tenhou.skip_hands = skip_from_one
    FAMILY = "tenhou."
elif MISTAKE == "hex-server-seed":

    def round_bytes_hex_key(server_seed: str, client_seed: str, nonce: int, round_: int) -> bytes:
        text_key = stake.utf8("server_seed", server_seed)
        key = bytes.fromhex(server_seed) if HEX.fullmatch(server_seed) else text_key
        message = stake.utf8("client_seed", stake.hmac_message(client_seed, nonce, round_))
        return hmac.new(key, message, "sha256").digest()

    stake.round_bytes = round_bytes_hex_key
    FAMILY = "stake."
else:
    raise SystemExit(f"unknown mistake {MISTAKE!r}")

algorithms = {
    algorithm_id: list(found.variants)
    for algorithm_id, found in registry().items()
    if algorithm_id.startswith(FAMILY)
}
hello = {"type": "hello", "protocol": 1, "name": f"misread-{MISTAKE}", "version": "0"}
print(json.dumps({**hello, "algorithms": algorithms}), flush=True)
for line in sys.stdin:
    request = json.loads(line)
    try:
        output = compute(request["algorithm"], request["input"], request.get("variant"))
        response: dict[str, Any] = {"id": request["id"], "output": output}
    except InvalidInput as error:
        response = {"id": request["id"], "error": {"code": error.code, "message": error.message}}
    print(json.dumps(response), flush=True)
