"""The battle game of ``001_ff93235b333a485f.txt``: moves, attack outcomes, damage.

Every outcome follows the same four steps (spec ids in brackets):

1. ``input_string`` [battle.input_string]: ``"<kind>:{server_seed}:{battle_id}:
   {player_address}:{round_num}:{player_number}"``.
2. ``sha256_hex`` [battle.hash]: SHA-256 of the UTF-8 string, lowercase hex.
3. ``ticket`` [battle.ticket]: the first 8 hex digits as an unsigned 32-bit integer.
4. the outcome: ``move`` (ticket % 3), ``attack`` (ticket % 100), ``damage``.
"""

from __future__ import annotations

import hashlib
import re

from fairvec.reference._algorithm import InvalidInput, Output, algorithm

MOVES = ("fire", "grass", "water")
KINDS = ("move", "attack_probability", "damage")
ATTACKS = ("Miss", "Super Active", "Hit")
HEX64 = re.compile(r"[0-9a-fA-F]{64}")


def check_round(round_num: int, player_number: int) -> None:
    if round_num < 1:
        raise InvalidInput("round-out-of-range", f"round_num counts from 1, got {round_num}")
    if player_number not in (1, 2):
        raise InvalidInput(
            "player-number-out-of-range",
            f"player_number is 1 (creator) or 2 (joiner), got {player_number}",
        )


def input_string(
    kind: str,
    server_seed: str,
    battle_id: str,
    player_address: str,
    round_num: int,
    player_number: int,
) -> str:
    """Fill the document's template; integers are plain decimal, text is verbatim."""
    if kind not in KINDS:
        raise InvalidInput("unknown-kind", f"kind is one of {', '.join(KINDS)}, got {kind!r}")
    check_round(round_num, player_number)
    return f"{kind}:{server_seed}:{battle_id}:{player_address}:{round_num}:{player_number}"


def sha256_hex(text: str) -> str:
    """``getHash`` of the document: SHA-256 of the UTF-8 bytes, lowercase hex."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def ticket(hash_hex: str) -> int:
    """``parseInt(hash.substring(0, 8), 16)``: the first four bytes, big-endian."""
    if not HEX64.fullmatch(hash_hex):
        raise InvalidInput("bad-hash", "a hash is 64 hexadecimal digits")
    return int(hash_hex[:8], 16)


def round_ticket(
    kind: str,
    server_seed: str,
    battle_id: str,
    player_address: str,
    round_num: int,
    player_number: int,
) -> int:
    """Steps 1 to 3 for one outcome kind."""
    text = input_string(kind, server_seed, battle_id, player_address, round_num, player_number)
    return ticket(sha256_hex(text))


def move_from_ticket(value: int) -> str:
    return MOVES[value % 3]


def attack_from_ticket(value: int) -> tuple[int, str]:
    """The document's table: 0-19 Miss, 20-51 Super Active, 52-99 Hit."""
    reduced = value % 100
    if reduced <= 19:
        return reduced, "Miss"
    if reduced <= 51:
        return reduced, "Super Active"
    return reduced, "Hit"


def damage_from_ticket(value: int, attack: str) -> int:
    if attack == "Miss":
        return 0
    if attack == "Hit":
        return value % 21 + 25
    return value % 15 + 46


@algorithm("battle.input_string")
def input_string_algorithm(
    kind: str,
    server_seed: str,
    battle_id: str,
    player_address: str,
    round_num: int,
    player_number: int,
) -> Output:
    text = input_string(kind, server_seed, battle_id, player_address, round_num, player_number)
    return {"input": text}


@algorithm("battle.hash")
def hash(input: str) -> Output:
    return {"hash": sha256_hex(input)}


@algorithm("battle.ticket")
def ticket_algorithm(hash: str) -> Output:
    return {"ticket": ticket(hash)}


@algorithm("battle.move")
def move(
    server_seed: str, battle_id: str, player_address: str, round_num: int, player_number: int
) -> Output:
    value = round_ticket("move", server_seed, battle_id, player_address, round_num, player_number)
    return {"ticket": value, "move": move_from_ticket(value)}


@algorithm("battle.attack")
def attack(
    server_seed: str, battle_id: str, player_address: str, round_num: int, player_number: int
) -> Output:
    value = round_ticket(
        "attack_probability", server_seed, battle_id, player_address, round_num, player_number
    )
    reduced, outcome = attack_from_ticket(value)
    return {"ticket": reduced, "attack": outcome}


@algorithm("battle.damage")
def damage(
    attack: str,
    server_seed: str,
    battle_id: str,
    player_address: str,
    round_num: int,
    player_number: int,
) -> Output:
    if attack not in ATTACKS:
        raise InvalidInput("unknown-attack", f"attack is one of {', '.join(ATTACKS)}")
    value = round_ticket("damage", server_seed, battle_id, player_address, round_num, player_number)
    return {"ticket": value, "damage": damage_from_ticket(value, attack)}


@algorithm("battle.commitment")
def commitment(server_seed: str, server_seed_hash: str) -> Output:
    """The hash shown before the battle must be SHA-256 of the revealed seed."""
    if not HEX64.fullmatch(server_seed_hash):
        raise InvalidInput("bad-hash", "server_seed_hash is 64 hexadecimal digits")
    computed = sha256_hex(server_seed)
    return {"hash": computed, "matches": computed == server_seed_hash.lower()}
