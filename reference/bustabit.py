"""bustabit's hash-chain Crash and its clones (facts: shared/research/hash-chain-and-stake.md).

The operator hashes a secret seed millions of times with SHA-256, publishes the last hash
(the terminating hash) and plays the chain backwards: game n's hash is SHA-256 of game
n + 1's. Each game's crash point comes from its hash alone (spec ids in brackets):

1. ``previous_hash`` [bustabit.previous_hash]: one step down the chain, under the chain
   rule of the variant: the 32 raw bytes (the current chain) or the 64-character hex text
   (the first chain, bustabit v1, Roobet, BC.Game).
2. ``walk_chain`` [bustabit.chain_check]: the number of steps from a game hash to the
   terminating hash, within a bound; the game number is the terminating hash's number
   plus the steps.
3. ``v2_hmac`` + ``v2_multiplier`` [bustabit.crash_v2, bustabit.crash_v2_outcome]:
   HMAC-SHA256(key = the salt's hex text, message = the game hash's raw bytes), the first
   52 bits r, X = r / 2^52, crash = max(1, floor(99 / (1 - X)) / 100).
4. ``v1_hmac`` + ``v1_multiplier`` [bustabit.crash_v1, bustabit.crash_v1_outcome]:
   HMAC-SHA256(key = the game hash's hex text, message = the salt's hex text); an instant
   crash when the whole HMAC is divisible by the modulus; otherwise
   floor((100 * 2^52 - r) / (2^52 - r)) / 100.
5. ``games`` [bustabit.games]: a game and the games before it, each with its v2 crash.

The sources are JavaScript: every multiplier is computed in IEEE-754 doubles in the
source's order of operations (Python floats are the same doubles), never exactly.
"""

from __future__ import annotations

import hashlib
import hmac as hmac_module
import math
import re
from decimal import ROUND_HALF_UP, Decimal

from fairvec.reference._algorithm import InvalidInput, Output, algorithm

# Chain rules: what SHA-256 receives at each step; the current chain's rule is the default.
CHAIN_RULES = ("raw-bytes", "hex-text")
# v2 readings: bustabit's verifier, and BC.Game's clone that rounds X with toPrecision(9).
V2_READINGS = ("bustabit", "bcgame")
# v1 readings: bustabit v1 (instant crash 0 when divisible by 101), Roobet (1 when by 33).
V1_READINGS = ("bustabit", "roobet")
V1_MODULUS = {"bustabit": 101, "roobet": 33}
V1_INSTANT_CRASH = {"bustabit": 0.0, "roobet": 1.0}

HASH = re.compile(r"[0-9a-f]{64}")
BITS = 52  # "the most significant 52 bits" of the HMAC, 13 hex digits
TWO_TO_BITS = 2**BITS
MAX_STEPS = 100_000_000  # ten of bustabit's 10-million-hash chains
MAX_GAME = 2**53 - 1  # a game number JavaScript holds exactly
MAX_GAMES = 10_000  # games listed by one bustabit.games request


# --- inputs ------------------------------------------------------------------------------


def parse_hash(field: str, text: str, code: str = "bad-hash") -> bytes:
    """A SHA-256 value as 64 lowercase hex digits (as Node's digest('hex') writes it).

    Upper case is refused rather than folded: under the hex-text chain rule the text
    itself is hashed, so "AB.." and "ab.." start different chains.
    """
    if not HASH.fullmatch(text):
        raise InvalidInput(code, f"{field} must be 64 lowercase hexadecimal digits")
    return bytes.fromhex(text)


def check_range(code: str, field: str, value: int, low: int, high: int) -> None:
    if not low <= value <= high:
        raise InvalidInput(code, f"{field} runs from {low} to {high}, got {value}")


# --- stage 1 and 2: the chain ---------------------------------------------------------------


def previous_hash(game_hash: bytes, rule: str) -> bytes:
    """Game n - 1's hash from game n's: SHA-256 of the raw bytes or of the hex text."""
    if rule == "hex-text":
        return hashlib.sha256(game_hash.hex().encode("ascii")).digest()
    return hashlib.sha256(game_hash).digest()


def walk_chain(game_hash: bytes, terminating_hash: bytes, max_steps: int, rule: str) -> int | None:
    """The steps (0 to max_steps) from game_hash to terminating_hash, or None.

    The loop is the hot path of the long vectors (millions of steps), so each rule keeps
    the value in the form SHA-256 takes next instead of calling previous_hash.
    """
    sha256 = hashlib.sha256
    if rule == "hex-text":
        text, target = game_hash.hex().encode("ascii"), terminating_hash.hex().encode("ascii")
        for steps in range(max_steps + 1):
            if text == target:
                return steps
            text = sha256(text).hexdigest().encode("ascii")
        return None
    value = game_hash
    for steps in range(max_steps + 1):
        if value == terminating_hash:
            return steps
        value = sha256(value).digest()
    return None


# --- stage 3: the v2 crash point ------------------------------------------------------------


def v2_hmac(game_hash: bytes, salt: str) -> str:
    """HMAC-SHA256 keyed with the salt's text (its ASCII hex digits, not the 32 bytes they
    spell) over the game hash's 32 raw bytes, as bustabit's verifier computes it."""
    return hmac_module.new(salt.encode("ascii"), game_hash, hashlib.sha256).hexdigest()


def first_52_bits(hmac_hex: str) -> int:
    """``parseInt(hash.slice(0, 52 / 4), 16)``: the first 13 hex digits."""
    return int(hmac_hex[: BITS // 4], 16)


def to_precision_9(x: float) -> float:
    """``parseFloat(x.toPrecision(9))``: nine significant digits of the exact binary
    value, a tie going to the larger digits, read back as the nearest double."""
    if x == 0:
        return 0.0
    exact = Decimal(x)
    quantum = Decimal(1).scaleb(exact.adjusted() - 8)
    return float(exact.quantize(quantum, rounding=ROUND_HALF_UP))


def v2_multiplier(r: int, reading: str) -> tuple[float, float]:
    """X and the crash point: ``X = r / 2^52; X = 99 / (1 - X); max(1, floor(X) / 100)``,
    each operation a double; BC.Game rounds X with toPrecision(9) before the division."""
    x = r / TWO_TO_BITS  # exact: r has at most 52 bits
    if reading == "bcgame":
        x = to_precision_9(x)
    if x == 1.0:  # toPrecision(9) rounded X up to 1: JavaScript divides by zero
        return x, math.inf
    scaled = math.floor(99 / (1 - x))
    return x, max(1.0, float(scaled) / 100)


def v2_output(hmac_hex: str, reading: str) -> Output:
    r = first_52_bits(hmac_hex)
    x, crash = v2_multiplier(r, reading)
    # JSON has no infinity: the JavaScript value Infinity travels as the text "Infinity"
    return {"r": r, "x": x, "crash": "Infinity" if math.isinf(crash) else crash}


# --- stage 4: the v1 crash point ------------------------------------------------------------


def v1_hmac(game_hash: str, salt: str) -> str:
    """``createHmac('sha256', gameHash).update(salt)`` with both as text: the key is the
    game hash's 64 ASCII hex digits, the message the salt's."""
    return hmac_module.new(
        game_hash.encode("ascii"), salt.encode("ascii"), hashlib.sha256
    ).hexdigest()


def divisible(hmac_hex: str, modulus: int) -> bool:
    """The whole 256-bit HMAC is a multiple of the modulus. The source reduces 16 bits at a
    time in 32-bit integers, which is exact; parseInt of all 64 digits would not be."""
    return int(hmac_hex, 16) % modulus == 0


def v1_multiplier(r: int) -> float:
    """``Math.floor((100 * e - h) / (e - h)) / 100`` in doubles: 100 * 2^52 - r is above
    2^53 and is rounded before the division, as JavaScript does it."""
    e = float(TWO_TO_BITS)
    return float(math.floor((100 * e - float(r)) / (e - float(r)))) / 100


def v1_output(hmac_hex: str, reading: str) -> Output:
    r = first_52_bits(hmac_hex)
    if divisible(hmac_hex, V1_MODULUS[reading]):
        return {"instant": True, "r": r, "crash": V1_INSTANT_CRASH[reading]}
    return {"instant": False, "r": r, "crash": v1_multiplier(r)}


# --- registered algorithms ---------------------------------------------------------------------


@algorithm("bustabit.previous_hash", variants=CHAIN_RULES)
def previous_hash_algorithm(game_hash: str, variant: str) -> Output:
    return {"previous_hash": previous_hash(parse_hash("game_hash", game_hash), variant).hex()}


@algorithm("bustabit.chain_check", variants=CHAIN_RULES)
def chain_check(
    game_hash: str, terminating_hash: str, terminating_game: int, max_steps: int, variant: str
) -> Output:
    start = parse_hash("game_hash", game_hash)
    target = parse_hash("terminating_hash", terminating_hash)
    check_range("max-steps-out-of-range", "max_steps", max_steps, 0, MAX_STEPS)
    check_range(
        "terminating-game-out-of-range",
        "terminating_game",
        terminating_game,
        0,
        MAX_GAME - MAX_STEPS,
    )
    steps = walk_chain(start, target, max_steps, variant)
    if steps is None:
        return {"reached": False, "steps": None, "game_number": None}
    return {"reached": True, "steps": steps, "game_number": terminating_game + steps}


@algorithm("bustabit.crash_v2_outcome", variants=V2_READINGS)
def crash_v2_outcome(hmac: str, variant: str) -> Output:
    parse_hash("hmac", hmac, "bad-hmac")
    return v2_output(hmac, variant)


@algorithm("bustabit.crash_v2", variants=V2_READINGS)
def crash_v2(game_hash: str, salt: str, variant: str) -> Output:
    raw = parse_hash("game_hash", game_hash)
    parse_hash("salt", salt, "bad-salt")
    hmac_hex = v2_hmac(raw, salt)
    return {"hmac": hmac_hex, **v2_output(hmac_hex, variant)}


@algorithm("bustabit.crash_v1_outcome", variants=V1_READINGS)
def crash_v1_outcome(hmac: str, variant: str) -> Output:
    parse_hash("hmac", hmac, "bad-hmac")
    return v1_output(hmac, variant)


@algorithm("bustabit.crash_v1", variants=V1_READINGS)
def crash_v1(game_hash: str, salt: str, variant: str) -> Output:
    parse_hash("game_hash", game_hash)
    parse_hash("salt", salt, "bad-salt")
    hmac_hex = v1_hmac(game_hash, salt)
    return {"hmac": hmac_hex, **v1_output(hmac_hex, variant)}


@algorithm("bustabit.games", variants=CHAIN_RULES)
def games(game_hash: str, salt: str, count: int, variant: str) -> Output:
    """The game of ``game_hash`` and the ``count - 1`` games before it, newest first, each
    with its v2 crash point (bustabit's reading)."""
    value = parse_hash("game_hash", game_hash)
    parse_hash("salt", salt, "bad-salt")
    check_range("count-out-of-range", "count", count, 1, MAX_GAMES)
    hashes, crashes = [], []
    for _ in range(count):
        hashes.append(value.hex())
        crashes.append(v2_output(v2_hmac(value, salt), "bustabit")["crash"])
        value = previous_hash(value, variant)
    return {"hashes": hashes, "crashes": crashes}
