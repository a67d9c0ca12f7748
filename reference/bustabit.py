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
6. ``walk_exactly`` [bustabit.chain_position]: bustabit's verifier's own question: is this
   hash game number n? The chain follows from n (the first chain up to 10,000,000, the
   current one above), and exactly n - (the terminating hash's number) steps must end on
   that chain's terminating hash.
7. ``vx_message`` + ``vx_sign`` + ``vx_hmac`` [bustabit.vx_signature, bustabit.vx_crash,
   bustabit.vx_verify, bustabit.vx_game]: games 10,000,001 to 12,279,450 (the Vx era) key
   v2's HMAC with a BLS12-381 signature (G2, 96 bytes) of SHA-256(game hash) + the Vx salt's
   text, by the private key bustabit published; signing and verifying need the ``vx`` extra
   (py-arkworks-bls12381), imported only when called.

The sources are JavaScript: every multiplier is computed in IEEE-754 doubles in the
source's order of operations (Python floats are the same doubles), never exactly.
"""

from __future__ import annotations

import hashlib
import hmac as hmac_module
import math
import re
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

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
# bustabit's chains each hold 10,000,000 hashes (research/hash-chain-and-stake.md: the seed
# is hashed 10 million times): no walk within a chain is longer (issue 34: the bound was ten
# chains, 10^8 steps, minutes a vector)
CHAIN_LENGTH = 10_000_000
MAX_STEPS = CHAIN_LENGTH
MAX_GAME = 2**53 - 1  # a game number JavaScript holds exactly
# terminating_game's bound, unchanged when max_steps's fell from 10^8 (every game number
# is still a safe integer; moving it would change vectors for no port's sake)
MAX_TERMINATING_GAME = MAX_GAME - 100_000_000
MAX_GAMES = 10_000  # games listed by one bustabit.games request

# bustabit's two chains as its verifier numbers them (src/constants.ts): the chain rule, the
# terminating hash, and the number it stands for (game origin + 1 hashes to it).
FIRST_CHAIN_LENGTH = CHAIN_LENGTH  # PREV_CHAIN_LENGTH: games 1 to 10,000,000
CHAINS: dict[str, tuple[str, bytes, int]] = {
    "first": (
        "hex-text",
        bytes.fromhex("86728f5fc3bd99db94d3cdaf105d67788194e9701bf95d049ad0e1ee3d004277"),
        0,
    ),
    "current": (
        "raw-bytes",
        bytes.fromhex("567a98370fb7545137ddb53687723cf0b8a1f5e93b1f76f4a1da29416930fa59"),
        FIRST_CHAIN_LENGTH,
    ),
}
MAX_GAME_NUMBER = FIRST_CHAIN_LENGTH + CHAIN_LENGTH  # the current chain's last game

# The Vx era (src/constants.ts: VX_GAME_SALT, VX_PUB_KEY, VX_PRIV_KEY, VX_LAST_GAME).
VX_FIRST_GAME, VX_LAST_GAME = 10_000_001, 12_279_450
VX_SALT = "000000000000000000011f6e135efe67d7463dfe7bb955663ef88b1243b2deea"
VX_PUBLIC_KEY = bytes.fromhex(
    "b40c94495f6e6e73619aeb54ec2fc84c5333f7a88ace82923946fc5b6c8635b08f9130888dd96e1749a1d5aab00020e4"
)
VX_PRIVATE_KEY = int("1f0373e57723f4b862f2b9bd1279c9c6dcea73469fce6dcab9524b609c9c60f4", 16)
SIGNATURE = re.compile(r"[0-9a-f]{192}")  # a compressed G2 point: 96 bytes
# the basic scheme's domain separation tag (draft-irtf-cfrg-bls-signature, section 4.2.1)
VX_DST = b"BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_NUL_"


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
    """The steps (0 to max_steps) from game_hash to terminating_hash, or None: the first
    step count at which the walk meets the terminating hash (see _walk, and the memo)."""
    target = _walk_form(terminating_hash, rule)
    end, steps = _walk(_walk_form(game_hash, rule), max_steps, rule, target)
    return steps if end == target else None


def walk_exactly(game_hash: bytes, steps: int, rule: str) -> bytes:
    """The hash ``steps`` games below ``game_hash`` (see _walk, and the memo)."""
    end, _steps = _walk(_walk_form(game_hash, rule), steps, rule, None)
    return _hash_of(end, rule)


# --- the chain walks' memo ----------------------------------------------------------------
#
# The long vectors walk the same two real chains over and over (issue 35): chain_position's
# 133 vectors sum to 32 M SHA-256 steps, of which 16 M are distinct, and chain_check's walk
# the same chains again. So the walks share a process-wide memo of the segments walked,
# between LANDMARKS: the hashes whose first 12 bits are zero (one in 4,096). Whether a hash
# is a landmark depends on the hash alone, so every walk through a hash agrees on where the
# segments around it begin and end (a table keyed on "every K-th hash of a walk" would
# depend on where each walk started), and telling a landmark costs one bytes comparison a
# step (about as much as a dict lookup: 3 to 6% of a step's 0.45 to 0.6 us, measured; a
# walk over hashes not remembered costs 4 to 10% more than the plain loop did).
# A walk that stands on a remembered landmark jumps to the next landmark (4,096 steps on
# average) in one lookup; a walk joining a remembered stretch walks at most to its next
# landmark first. Each chain rule has its own table (a hash's successor depends on it).
#
# Exact: a segment is remembered only as walked step by step from one landmark to the very
# next (so no landmark lies strictly inside it), and a walk jumps only when it may land on
# the segment's end: walk_exactly when the end is within its steps; walk_chain also only
# when the terminating hash T cannot be inside, at steps 1 to d of a segment of length d.
# Were T there, at step p, then walking on from T meets no landmark before the segment's
# end (steps p + 1 to d - 1 are none) and T's first landmark at or after it (T's landmark)
# IS the segment's end; so a segment whose end is not T's landmark does not hold T, and
# the walk steps through the one that does (where it meets T first, as ever). T's landmark
# is sought at most MAX_SEGMENT - 1 steps on (d - p < d <= MAX_SEGMENT), only once the
# walk is about to jump; none found there means T lies in no remembered segment.
#
# Bounded: at most MEMO_SEGMENTS segments in all (217 bytes each, measured: the key, its
# end shared with the next key, a tuple, an int and the dict's slot; 3.5 MB when full, 0.9
# MB for the 4,124 segments of the bustabit vectors' 43 M steps: benchmarks/chain_walks.py),
# and a segment longer than MAX_SEGMENT steps (16 times the mean: e^-16 of them) is not
# remembered. A full memo keeps what it holds and remembers no more (the walks stay exact,
# only slower). The memo never changes an answer: without it (MEMO_SEGMENTS = 0) every walk
# is the plain step-by-step walk. It lives as long as the process (an adapter process, a
# generate worker, a test worker) and is shared by nothing else; a walk no other vector
# shares (chain_position's 10 M hex-text steps from the current chain's terminating hash)
# gains nothing from it.

# the walk form's value below which a hash is a landmark: its first 12 bits are zero, 32
# raw bytes below 00 10 .., or 64 hex digits below "001" (beginning "000")
LANDMARK_BELOW = {"raw-bytes": b"\x00\x10", "hex-text": b"001"}
MAX_SEGMENT = 1 << 16
MEMO_SEGMENTS = 1 << 14
# per chain rule: a landmark (in walk form) -> (the next landmark, the steps to it)
_segments: dict[str, dict[bytes, tuple[bytes, int]]] = {rule: {} for rule in CHAIN_RULES}


def forget_walks() -> None:
    """Empty the memo (for tests and benchmarks: the walks' answers never depend on it)."""
    for table in _segments.values():
        table.clear()


def remembered_segments() -> int:
    return sum(map(len, _segments.values()))


def _walk_form(game_hash: bytes, rule: str) -> bytes:
    """The value as SHA-256 takes it under the rule: the walks' hot loops keep it so."""
    return game_hash.hex().encode("ascii") if rule == "hex-text" else game_hash


def _hash_of(value: bytes, rule: str) -> bytes:
    return bytes.fromhex(value.decode("ascii")) if rule == "hex-text" else value


def _is_landmark(value: bytes, rule: str) -> bool:
    return value < LANDMARK_BELOW[rule]


def _walk(value: bytes, limit: int, rule: str, target: bytes | None) -> tuple[bytes, int]:
    """Up to ``limit`` steps down from ``value`` (walk form), stopping on ``target`` if
    given: the value reached and the steps taken (fewer than ``limit`` only on the target),
    jumping remembered segments where that is exact, remembering the segments walked."""
    table = _segments[rule]
    target_landmark: bytes | None = None
    target_landmark_sought = target is None  # walk_exactly: no target to keep clear of
    landmark, landmark_at = (value, 0) if _is_landmark(value, rule) else (None, 0)
    taken = 0
    while taken < limit and value != target:
        segment = table.get(value) if value is landmark else None
        if segment is not None and taken + segment[1] <= limit:
            if not target_landmark_sought:
                assert target is not None
                target_landmark, target_landmark_sought = _landmark_of(target, rule), True
            if segment[0] != target_landmark:
                value, landmark = segment[0], segment[0]
                taken += segment[1]
                landmark_at = taken
                continue
        value, steps = _steps(value, limit - taken, rule, target)
        taken += steps
        if _is_landmark(value, rule):
            if landmark is not None:
                _remember(table, landmark, value, taken - landmark_at)
            landmark, landmark_at = value, taken
    return value, taken


def _remember(table: dict[bytes, tuple[bytes, int]], start: bytes, end: bytes, steps: int) -> None:
    if steps <= MAX_SEGMENT and remembered_segments() < MEMO_SEGMENTS:
        table[start] = (end, steps)


def _landmark_of(target: bytes, rule: str) -> bytes | None:
    """The target's first landmark at or after it, fewer than MAX_SEGMENT steps on, or None."""
    if _is_landmark(target, rule):
        return target
    value, _taken = _steps(target, MAX_SEGMENT - 1, rule, None)
    return value if _is_landmark(value, rule) else None


def _steps(value: bytes, limit: int, rule: str, target: bytes | None) -> tuple[bytes, int]:
    """The hot loop: up to ``limit`` SHA-256 steps, stopping after the first that lands on
    a landmark or on ``target``: the value and the steps taken. Each rule keeps the value
    in the form SHA-256 takes next instead of calling previous_hash."""
    sha256 = hashlib.sha256
    below, stop = LANDMARK_BELOW[rule], b"" if target is None else target  # b"": no hash
    if rule == "hex-text":
        for steps in range(1, limit + 1):
            value = sha256(value).hexdigest().encode("ascii")
            if value < below or value == stop:
                return value, steps
        return value, limit
    for steps in range(1, limit + 1):
        value = sha256(value).digest()
        if value < below or value == stop:
            return value, steps
    return value, limit


def chain_of(game_number: int) -> str:
    """The chain bustabit's verifier checks a game number against: the first chain up to
    PREV_CHAIN_LENGTH (10,000,000), the current chain above it."""
    return "first" if game_number <= FIRST_CHAIN_LENGTH else "current"


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


# --- stage 7: the Vx era ----------------------------------------------------------------------


def parse_signature(text: str) -> bytes:
    if not SIGNATURE.fullmatch(text):
        raise InvalidInput(
            "bad-signature", "signature must be 192 lowercase hex digits (96 bytes, a G2 point)"
        )
    return bytes.fromhex(text)


def _bls() -> Any:
    """The BLS12-381 curve (py-arkworks-bls12381: arkworks, in Rust), from the vx extra;
    imported here so that the rest of the family needs nothing but the standard library
    (fairvec/extras.py names the algorithms that call this). Chosen for speed: a signature
    in about 2 ms, not py_ecc's 130 ms (docs/benchmarks.md, "BLS12-381");
    tests/test_bustabit_vx.py recomputes every Vx vector with py_ecc, independently."""
    import py_arkworks_bls12381

    return py_arkworks_bls12381


def vx_message(game_hash: bytes) -> bytes:
    """What Vx signed for a game: SHA-256 of the game hash's 32 bytes, then the Vx salt's
    64 hex digits as text (96 bytes)."""
    return hashlib.sha256(game_hash).digest() + VX_SALT.encode("ascii")


def hash_to_g2(message: bytes) -> Any:
    """The message hashed to G2 (RFC 9380's hash_to_curve, BLS12381G2_XMD:SHA-256_SSWU_RO_)
    with the basic scheme's tag: the point every Vx signature is a multiple of."""
    return _bls().G2Point.hash_to_curve(message, VX_DST)


def vx_sign(message: bytes) -> bytes:
    """The BLS signature with the published private key: deterministic (the message hashed
    to G2, times the key), so anyone re-creates every Vx signature."""
    key = _bls().Scalar.from_be_bytes(VX_PRIVATE_KEY.to_bytes(32, "big"))
    return bytes((hash_to_g2(message) * key).to_compressed_bytes())


def decode_signature(signature: bytes) -> Any | None:
    """The G2 subgroup point the 96 bytes encode, or None when they are no canonical
    encoding of one (bustabit.vx_verify's decision canonical-encoding). arkworks refuses a
    coordinate at or above p, a point off the curve or outside the subgroup, but reads any
    value with the infinity flag as the identity: so the bytes must also be exactly what
    encoding the point writes back (serialization's octets_to_point is INVALID for anything
    point_to_octets does not write). The bytes are never reduced mod p."""
    try:
        point = _bls().G2Point.from_compressed_bytes(signature)
    except ValueError:  # "Err From Rust: serialised data seems to be invalid", or a flag
        return None
    return point if bytes(point.to_compressed_bytes()) == signature else None


def vx_verify_signature(message: bytes, signature: bytes) -> bool:
    """(1) and (2): the bytes canonically encode a point of G2's subgroup; (3) e(g1,
    signature) = e(public key, H(message)). A value failing any of them is not valid."""
    point = decode_signature(signature)
    if point is None:
        return False
    bls = _bls()
    public_key = bls.G1Point.from_compressed_bytes(VX_PUBLIC_KEY)
    valid: bool = bls.GT.pairing(bls.G1Point(), point) == bls.GT.pairing(
        public_key, hash_to_g2(message)
    )
    return valid


def vx_hmac(signature: bytes, game_hash: bytes) -> str:
    """v2's HMAC with the 96 signature bytes as the key, over the game hash's 32 bytes."""
    return hmac_module.new(signature, game_hash, hashlib.sha256).hexdigest()


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
        MAX_TERMINATING_GAME,
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


@algorithm("bustabit.chain_position")
def chain_position(game_hash: str, game_number: int) -> Output:
    """Is ``game_hash`` game number ``game_number``? Exactly game_number - origin steps down
    its chain must end on the chain's terminating hash; any other end is not genuine."""
    start = parse_hash("game_hash", game_hash)
    check_range("game-number-out-of-range", "game_number", game_number, 1, MAX_GAME_NUMBER)
    chain = chain_of(game_number)
    rule, terminating_hash, origin = CHAINS[chain]
    steps = game_number - origin
    end = walk_exactly(start, steps, rule)
    return {
        "chain": chain,
        "steps": steps,
        "end_hash": end.hex(),
        "genuine": end == terminating_hash,
    }


@algorithm("bustabit.vx_signature")
def vx_signature(game_hash: str) -> Output:
    message = vx_message(parse_hash("game_hash", game_hash))
    return {"message": message.hex(), "signature": vx_sign(message).hex()}


@algorithm("bustabit.vx_crash")
def vx_crash(game_hash: str, signature: str) -> Output:
    raw = parse_hash("game_hash", game_hash)
    hmac_hex = vx_hmac(parse_signature(signature), raw)
    return {"hmac": hmac_hex, **v2_output(hmac_hex, "bustabit")}


@algorithm("bustabit.vx_verify")
def vx_verify(game_hash: str, signature: str) -> Output:
    message = vx_message(parse_hash("game_hash", game_hash))
    return {"valid": vx_verify_signature(message, parse_signature(signature))}


@algorithm("bustabit.vx_game")
def vx_game(game_hash: str) -> Output:
    raw = parse_hash("game_hash", game_hash)
    signature = vx_sign(vx_message(raw))
    hmac_hex = vx_hmac(signature, raw)
    return {"signature": signature.hex(), "hmac": hmac_hex, **v2_output(hmac_hex, "bustabit")}
