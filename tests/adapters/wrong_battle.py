"""A battle port with one realistic mistake, chosen by the first argument:

- lower-address: lower-cases the player address before hashing (as EIP-55-unaware code does)
- regular: names the 52-99 outcome "Regular", as the document's table does
- four-hex: reads "the first 4 bytes of the hex string" literally, as 4 hex characters
- signed: reads the ticket as a signed 32-bit integer, as Java's int would
- int32-round: holds round_num in a 32-bit int, rejecting larger rounds as out of range
- case-sensitive-commitment: compares the shown hash with getHash's lowercase text as is
"""

from __future__ import annotations

import hashlib
import json
import sys
from typing import Any

MISTAKE = sys.argv[1]


def ticket_of(hash_hex: str) -> int:
    value = int(hash_hex[:4] if MISTAKE == "four-hex" else hash_hex[:8], 16)
    if MISTAKE == "signed" and value >= 2**31:
        value -= 2**32
    return value


def round_ticket(kind: str, i: dict[str, Any]) -> int:
    address = i["player_address"].lower() if MISTAKE == "lower-address" else i["player_address"]
    fields = (kind, i["server_seed"], i["battle_id"], address, i["round_num"], i["player_number"])
    text = ":".join(map(str, fields))
    return ticket_of(hashlib.sha256(text.encode()).hexdigest())


def answer(algorithm: str, i: dict[str, Any]) -> dict[str, Any]:
    if algorithm == "battle.commitment":
        digest = hashlib.sha256(i["server_seed"].encode()).hexdigest()
        shown = i["server_seed_hash"]
        matches = digest == (shown if MISTAKE == "case-sensitive-commitment" else shown.lower())
        return {"hash": digest, "matches": matches}
    if algorithm == "battle.ticket":
        return {"ticket": ticket_of(i["hash"])}
    if algorithm == "battle.move":
        value = round_ticket("move", i)
        return {"ticket": value, "move": ["fire", "grass", "water"][value % 3]}
    value = round_ticket("attack_probability", i) % 100
    hit = "Regular" if MISTAKE == "regular" else "Hit"
    return {
        "ticket": value,
        "attack": "Miss" if value <= 19 else "Super Active" if value <= 51 else hit,
    }


print(
    json.dumps(
        {
            "type": "hello",
            "protocol": 1,
            "name": f"wrong-{MISTAKE}",
            "version": "0",
            "algorithms": {
                "battle.ticket": [],
                "battle.move": [],
                "battle.attack": [],
                "battle.commitment": [],
            },
        }
    ),
    flush=True,
)
LARGEST_ROUND = 2**31 - 1 if MISTAKE == "int32-round" else 2**53 - 1
for line in sys.stdin:
    request = json.loads(line)
    if "round_num" in request["input"] and not 1 <= request["input"]["round_num"] <= LARGEST_ROUND:
        response: dict[str, Any] = {"id": request["id"], "error": {"code": "round-out-of-range"}}
    elif request["input"].get("player_number") not in (None, 1, 2):
        response = {"id": request["id"], "error": {"code": "player-number-out-of-range"}}
    elif any(
        len(request["input"].get(field, "x" * 64)) != 64 or "z" in request["input"].get(field, "")
        for field in ("hash", "server_seed_hash")
    ):
        response = {"id": request["id"], "error": {"code": "bad-hash"}}
    else:
        response = {"id": request["id"], "output": answer(request["algorithm"], request["input"])}
    print(json.dumps(response), flush=True)
