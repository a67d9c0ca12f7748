"""The casino generator (seed 000): the document's worked example stage by stage, each
quirk, the variants, the error codes, and wrong ports that the vectors must catch."""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import sys
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from support import REPO, run_port

from fairvec.input_draws import Stream, draw
from fairvec.reference import InvalidInput, compute
from fairvec.reference.casino import (
    dice_outcome,
    mines_shuffling,
    multiplier_outcome,
    numbers_from_bytes,
    seeds_to_bytes,
    to_fixed,
    tower_shuffling,
)

WRONG_PORT = Path(__file__).resolve().parent / "adapters" / "wrong_casino.py"
DOCUMENT = REPO.parent / "shared" / "seeds" / "000_162a66a6a1bf86ea.txt"
SEEDS = {
    "server_seed": "d1c4e5f6a7b8c9d0e1f2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8",
    "salt": "5a9e0c3b7d1f4a2e6c8b0d9f3e1a7c5b2d4f6e8a0c1b3d5f7e9a2c4b6d8f0e1a",
    "client_seed": "player-42",
}


def document() -> str:
    if not DOCUMENT.is_file():
        pytest.skip(f"the source document is not at {DOCUMENT}")
    return DOCUMENT.read_text(encoding="utf-8")


def document_bytes() -> list[bytes]:
    """The three 64-byte rows the document prints, checked hex against decimal."""
    lines = document().splitlines()
    rows = []
    for at, line in enumerate(lines):
        if line.startswith("HMAC_SHA512(SHA256(server_seed:salt), client_seed:"):
            as_hex = bytes.fromhex(lines[at + 1].replace(" ", ""))
            as_decimal = bytes(int(value) for value in lines[at + 2].split())
            assert as_hex == as_decimal
            rows.append(as_hex)
    assert [len(row) for row in rows] == [64, 64, 64]
    return rows


def js_fixed_18(value: float) -> str:
    return to_fixed(value, 18)


def vectors(name: str) -> list[dict[str, Any]]:
    data = json.loads((REPO / "vectors" / "casino" / f"{name}.json").read_text(encoding="utf-8"))
    found: list[dict[str, Any]] = data["vectors"]
    return found


# --- the worked example, stage by stage ----------------------------------------------------


def test_the_documents_numbers_are_its_own_doubles_printed_with_18_decimals() -> None:
    text = document()
    printed = re.findall(r"^= (0\.\d{18}) \(\* (\d+)\)$", text, re.MULTILINE)
    products = re.findall(r"^= (\d+)\. (\d{18})$", text, re.MULTILINE)
    numbers = [n for row in document_bytes() for n in numbers_from_bytes(row)]
    assert len(printed) == len(products) == len(numbers) == 24
    for step, (number, (shown, length), (whole, decimals)) in enumerate(
        zip(numbers, printed, products, strict=True)
    ):
        assert int(length) == 25 - step  # "(* 25)", "(* 24)", ...
        assert js_fixed_18(number) == shown  # every printed digit, not just the nearest double
        assert js_fixed_18(number * int(length)) == f"{whole}.{decimals}"


def test_two_printed_numbers_rule_out_exact_arithmetic() -> None:
    rows = document_bytes()
    for cursor, block, shown in ((1, 6, "0.419037558469941396"), (2, 5, "0.302282003467408966")):
        chunk = rows[cursor][block * 8 : block * 8 + 8]
        exact_once = int.from_bytes(chunk, "big") / 2**64
        assert js_fixed_18(numbers_from_bytes(chunk)[0]) == shown
        assert js_fixed_18(exact_once) != shown


def test_the_printed_terms_round_half_up_like_to_fixed() -> None:
    # "+ 0.000009536743164063 (160 / (256 ^ 3))": 160 / 256^3 is exactly ...1640625
    assert 160 / 256**3 == 0.0000095367431640625
    assert "+ 0.000009536743164063 (160 / (256 ^ 3))" in document()
    assert to_fixed(160 / 256**3, 18) == "0.000009536743164063"
    assert format(160 / 256**3, ".18f") == "0.000009536743164062"


def test_the_worked_mines_example_from_the_printed_bytes() -> None:
    numbers = [n for row in document_bytes() for n in numbers_from_bytes(row)]
    indices, remaining, permutation = mines_shuffling(numbers)
    assert indices[:5] == [11, 8, 16, 14, 20]
    assert indices == [
        11,
        8,
        16,
        14,
        20,
        14,
        14,
        1,
        9,
        4,
        1,
        13,
        4,
        8,
        4,
        3,
        8,
        5,
        3,
        1,
        3,
        1,
        0,
        1,
    ]
    assert permutation == [
        11,
        8,
        18,
        16,
        24,
        17,
        19,
        1,
        12,
        5,
        2,
        23,
        7,
        15,
        9,
        6,
        22,
        14,
        10,
        3,
        20,
        4,
        0,
        21,
    ]
    assert remaining[0] == list(range(25))
    assert remaining[-1] == [13, 21]  # the table's last row: "24 1 [13, 21]"
    output = compute("casino.mines_shuffling", {"numbers": numbers, "mines_count": 3})
    assert output["mines"] == [11, 8, 18]


def test_the_document_example_vectors_carry_the_documents_values() -> None:
    for name, count in (("numbers", 3), ("mines_shuffling", 1)):
        stated = [v for v in vectors(name) if "document-example" in v["tags"]]
        assert len(stated) == count
        for vector in stated:
            for key, value in vector["document_states"].items():
                assert vector["expected"]["output"][key] == value


# --- the key reading, the message, the bytes ------------------------------------------------


def test_the_key_readings_follow_their_definitions() -> None:
    digest = hashlib.sha256(b"S:T").hexdigest()
    text_key = compute("casino.hmac_key", {"server_seed": "S", "salt": "T"}, "hex-text")
    raw_key = compute("casino.hmac_key", {"server_seed": "S", "salt": "T"}, "raw-bytes")
    assert text_key == {"digest": digest, "key": digest.encode("ascii").hex()}
    assert raw_key == {"digest": digest, "key": digest}


def test_bytes_are_hmac_sha512_of_the_utf8_message() -> None:
    seed = "Игрок 🎲"
    for reading in ("hex-text", "raw-bytes"):
        key = bytes.fromhex(
            compute("casino.hmac_key", {"server_seed": "S", "salt": "T"}, reading)["key"]
        )
        expected = hmac.new(key, f"{seed}:10".encode(), hashlib.sha512).hexdigest()
        output = compute(
            "casino.bytes",
            {"server_seed": "S", "salt": "T", "client_seed": seed, "cursor": 10},
            reading,
        )
        assert output == {"message": f"{seed}:10", "bytes": expected}
    assert seeds_to_bytes("S", "T", seed, 0, "hex-text") != seeds_to_bytes(
        "S", "T", seed, 0, "raw-bytes"
    )


def test_server_seed_is_hashed_as_text_not_decoded() -> None:
    lower = compute("casino.hmac_key", {"server_seed": "ab" * 32, "salt": ""}, "raw-bytes")
    upper = compute("casino.hmac_key", {"server_seed": "AB" * 32, "salt": ""}, "raw-bytes")
    assert lower["digest"] != upper["digest"]
    assert lower["digest"] == hashlib.sha256(("ab" * 32 + ":").encode()).hexdigest()


def test_a_lone_surrogate_is_rejected() -> None:
    with pytest.raises(InvalidInput) as raised:
        compute(
            "casino.bytes", {"server_seed": "s", "salt": "t", "client_seed": "\ud800", "cursor": 0}
        )
    assert raised.value.code == "not-unicode-text"


# --- numbers -----------------------------------------------------------------------------


def test_the_sum_reaches_one_from_54_leading_one_bits() -> None:
    below = bytes.fromhex("fffffffffffffbff")
    assert numbers_from_bytes(bytes.fromhex("fffffffffffffc00")) == [1.0]
    assert numbers_from_bytes(below) == [1 - 2**-53]
    assert numbers_from_bytes(b"\xff" * 8) == [1.0]
    assert numbers_from_bytes(bytes.fromhex("7fffffffffffffff")) == [0.5]
    assert Fraction(int.from_bytes(below, "big"), 2**64) < 1


def test_double_summation_differs_from_exact_arithmetic_often() -> None:
    stream = Stream("casino-test/exact")
    blocks = [stream.take(8) for _ in range(2000)]
    differ = sum(numbers_from_bytes(b)[0] != int.from_bytes(b, "big") / 2**64 for b in blocks)
    assert 100 < differ < 400  # about 9%


# --- outcomes ----------------------------------------------------------------------------


def test_splice_past_the_end_yields_null_and_removes_nothing() -> None:
    numbers = [1.0] + [0.0] * 23
    _, remaining, permutation = mines_shuffling(numbers)
    assert permutation[0] is None
    assert remaining[1] == list(range(25))  # nothing was removed
    assert permutation[1:] == list(range(23))


def test_the_literal_tower_never_changes_and_the_scaled_one_does() -> None:
    stream = Stream("casino-test/tower")
    numbers = [draw(stream, {"double": [0, 1]}) for _ in range(40)]
    assert tower_shuffling(numbers, "literal") == [[0, 1, 2, 3]] * 10
    scaled = tower_shuffling(numbers, "scaled")
    assert scaled != [[0, 1, 2, 3]] * 10
    assert all(len(set(row)) == 4 and set(row) <= set(range(5)) for row in scaled)
    # literal splice truncates 1.0 to 1: the second remaining cell
    assert tower_shuffling([1.0] * 40, "literal")[0] == [1, 2, 3, 4]


def test_plinko_takes_exactly_one_half_to_the_right() -> None:
    output = compute("casino.plinko_bucket", {"numbers": [0.5] * 8})
    assert output == {"directions": [1] * 8, "bucket": 8}
    below = compute("casino.plinko_bucket", {"numbers": [0.49999999999999994] * 8})
    assert below["bucket"] == 0


def test_dice_text_is_the_roll_with_two_decimals_for_every_roll() -> None:
    for roll in range(10002):
        result = roll / 100
        assert to_fixed(result, 2) == f"{roll // 100}.{roll % 100:02d}"
    assert dice_outcome(1.0) == (10001, 100.01)
    assert dice_outcome(1 - 2**-53) == (10000, 100.0)


@pytest.mark.parametrize(
    ("scaled", "edge", "javascript", "python"),
    [
        (2431, 0.05, "390.63", "390.62"),
        (12159, 0.05, "78.13", "78.12"),
        (127, 0.03, "7578.13", "7578.12"),
    ],
)
def test_to_fixed_rounds_ties_up(scaled: int, edge: float, javascript: str, python: str) -> None:
    _, value, text = multiplier_outcome((scaled + 0.5) / 1e6, edge)
    assert Decimal(value) * 100 % 1 == Decimal("0.5")  # an exact tie
    assert text == javascript
    assert format(value, ".2f") == python


def test_the_order_of_operations_matters() -> None:
    number = 60799.5 / 1e6
    text = multiplier_outcome(number, 0.05)[2]
    assert text == "15.62"
    assert to_fixed(950000 / 60800, 2) == "15.63"  # a precomputed numerator


def test_x50_and_double_are_different_games() -> None:
    assert compute("casino.x50_outcome", {"number": 0.5}) == {"sector": 27}
    assert compute("casino.double_outcome", {"number": 0.5}) == {"sector": 7}
    assert compute("casino.double_outcome", {"number": 1.0}) == {"sector": 15}


def test_rounds_take_their_cursors_as_decided() -> None:
    slot = compute("casino.slot", {**SEEDS, "spins": 3})["spins"]
    for spin, positions in enumerate(slot):
        numbers = numbers_from_bytes(seeds_to_bytes(*SEEDS.values(), spin, "hex-text"))
        assert positions == compute("casino.slot_spin", {"numbers": numbers})["positions"]
    plinko = compute("casino.plinko", {**SEEDS, "pins": 8, "balls": 2})["buckets"]
    third_and_fourth = [
        n
        for cursor in (2, 3)
        for n in numbers_from_bytes(seeds_to_bytes(*SEEDS.values(), cursor, "hex-text"))
    ]
    assert plinko[1] == compute("casino.plinko_bucket", {"numbers": third_and_fourth[:8]})["bucket"]


def test_tower_round_variants_combine_both_readings() -> None:
    literal = compute("casino.tower", SEEDS, "raw-bytes-literal")
    scaled = compute("casino.tower", SEEDS, "raw-bytes")
    assert literal["numbers"] == scaled["numbers"]
    assert literal["field"] == [[0, 1, 2, 3]] * 10 != scaled["field"]
    assert compute("casino.tower", SEEDS)["numbers"] != scaled["numbers"]


@pytest.mark.parametrize(
    ("algorithm", "inputs", "code"),
    [
        (
            "casino.bytes",
            {"server_seed": "s", "salt": "t", "client_seed": "c", "cursor": -1},
            "cursor-out-of-range",
        ),
        ("casino.numbers", {"bytes": "00"}, "bad-bytes"),
        (
            "casino.mines_shuffling",
            {"numbers": [0.5] * 24, "mines_count": 25},
            "mines-count-out-of-range",
        ),
        ("casino.mines_shuffling", {"numbers": [0.5] * 23, "mines_count": 3}, "wrong-number-count"),
        ("casino.dice_outcome", {"number": 1.0000000000000002}, "number-out-of-range"),
        ("casino.plinko_bucket", {"numbers": [0.5] * 17}, "pins-out-of-range"),
        ("casino.jackpot_outcome", {"number": 0.5, "tickets": 0}, "tickets-out-of-range"),
        ("casino.slot", {**SEEDS, "spins": 181}, "spins-out-of-range"),
        ("casino.plinko", {**SEEDS, "pins": 8, "balls": 0}, "balls-out-of-range"),
        ("casino.round_numbers", {**SEEDS, "cursors": 201}, "cursors-out-of-range"),
    ],
)
def test_errors_carry_the_specs_codes(algorithm: str, inputs: dict[str, Any], code: str) -> None:
    with pytest.raises(InvalidInput) as raised:
        compute(algorithm, inputs)
    assert raised.value.code == code


def test_the_double_field_generator_is_on_the_2_to_53_grid() -> None:
    first = [draw(Stream("casino-test/double"), {"double": [0, 1]}) for _ in range(3)]
    assert first[0] == first[1] == first[2]  # deterministic from the seed
    stream = Stream("casino-test/double")
    values = [draw(stream, {"double": [0, 1]}) for _ in range(1000)]
    assert all(0 <= v < 1 and (v * 2**53).is_integer() for v in values)
    assert len(set(values)) == 1000
    assert all(2 <= draw(stream, {"double": [2, 3]}) < 3 for _ in range(100))


# --- the vectors catch wrong ports -------------------------------------------------------


@pytest.mark.parametrize(
    ("mistake", "algorithms", "caught"),
    [
        # Python's own float formatting: caught exactly at the ties where half-to-even differs
        (
            "python-format",
            ["casino.crash_outcome", "casino.overgo_outcome", "casino.dice_outcome"],
            {
                "casino.crash_outcome/tie-2431",
                "casino.crash_outcome/tie-12159",
                *(
                    f"casino.overgo_outcome/tie-{k}"
                    for k in (127, 639, 3199, 12415, 15999, 79999, 310399)
                ),
            },
        ),
        # exact integer arithmetic: caught by the document's own numbers and the random blocks
        (
            "exact-numbers",
            ["casino.numbers"],
            {
                "casino.numbers/document-cursor-1",
                "casino.numbers/document-cursor-2",
                "casino.numbers/exact-differs",
            },
        ),
        # the other HMAC key reading: caught on every seed-level vector
        (
            "other-key",
            ["casino.bytes"],
            {"casino.bytes/cursor-0@hex-text", "casino.bytes/cursor-0@raw-bytes"},
        ),
        # a port that trims the client seed: caught by the seeds with spaces around them
        (
            "trim-client-seed",
            ["casino.bytes"],
            {
                "casino.bytes/trailing-space-client-seed@hex-text",
                "casino.bytes/surrounding-whitespace-client-seed@raw-bytes",
            },
        ),
        # a port that hashes U+FFFD for a lone surrogate instead of rejecting it
        (
            "replace-surrogates",
            ["casino.bytes"],
            {
                "casino.bytes/lone-surrogate-client-seed@hex-text",
                "casino.bytes/lone-surrogate-client-seed@raw-bytes",
            },
        ),
    ],
)
def test_a_wrong_port_is_caught(mistake: str, algorithms: list[str], caught: set[str]) -> None:
    run = run_port([sys.executable, WRONG_PORT, mistake], algorithms)
    failed = run.failed
    assert run.done.status == 1
    assert caught <= failed, sorted(failed)[:20]
    if mistake == "python-format":
        assert failed == caught  # and nothing else: the dice text is never a tie
    if mistake == "exact-numbers":
        assert any("/random-" in vector_id for vector_id in failed)
    if mistake == "other-key":
        assert len(failed) >= 0.9 * run.total
