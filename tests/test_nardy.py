"""Nardy dice (003_c4a62d84289b5613.txt): the document's examples, the quirks, the errors,
and that the committed vectors catch deliberately wrong ports."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from fairvec.reference import nardy
from fairvec.reference._algorithm import InvalidInput, compute

VECTORS = Path(__file__).resolve().parent.parent / "vectors" / "nardy"
FRAGMENT = [1, 2, 3, 4, 5, 6, 6, 5, 4, 3, 2, 1]  # "Генерация бросков"
DOUBLES = ["11", "22", "33", "44", "55", "66"]


def place_fragment(start: int, filler: int = 2) -> str:
    """The document's fragment at 1-based ``start``, padded to an even count."""
    numbers = [filler] * (start - 1) + FRAGMENT
    return nardy.encode_sequence(numbers + [filler] * (len(numbers) % 2))


def error_code(algorithm_id: str, inputs: dict[str, Any]) -> str:
    with pytest.raises(InvalidInput) as caught:
        compute(algorithm_id, inputs)
    return caught.value.code


# --- the document, stage by stage ----------------------------------------------------


def test_encoding_table() -> None:
    # "паре 11 соответствует буква A, 12 - B и т.д, комбинации 66 соответствует цифра 9"
    assert compute("nardy.encode", {"numbers": [1, 1, 1, 2, 6, 6]}) == {"sequence": "AB9"}
    assert compute("nardy.decode", {"sequence": "AB9"}) == {"numbers": [1, 1, 1, 2, 6, 6]}


def test_encode_decode_round_trip() -> None:
    chooser = random.Random(3)
    for _ in range(200):
        numbers = [chooser.randint(1, 6) for _ in range(2 * chooser.randint(0, 30))]
        sequence = nardy.encode_sequence(numbers)
        assert len(sequence) == len(numbers) // 2
        assert nardy.decode_sequence(sequence) == numbers


def test_cuts_4_and_5() -> None:
    # "Стартовая позиция 4*5 = 20, первые 19 чисел ... отбрасываются", mask "100101"
    output = compute("nardy.cuts", {"cut1": 4, "cut2": 5})
    assert (output["start"], output["skipped"], output["mask"]) == (20, 19, "100101")


@pytest.mark.parametrize(
    ("cut", "bits"),
    [(1, "001"), (2, "010"), (3, "011"), (4, "100"), (5, "101"), (6, "110"), (7, "111")],
)
def test_binary_table(cut: int, bits: str) -> None:
    assert compute("nardy.cuts", {"cut1": cut, "cut2": 1})["cut1_bits"] == bits


def test_fragment_under_100101() -> None:
    output = compute("nardy.mask", {"numbers": FRAGMENT, "mask": "100101"})
    assert output == {"kept": [1, 4, 6, 6, 3, 1], "pairs": ["14", "66", "31"]}


def test_fragment_under_100111_has_a_fourth_roll() -> None:
    pairs = compute("nardy.mask", {"numbers": FRAGMENT, "mask": "100111"})["pairs"]
    assert pairs[:3] == ["14", "56", "63"]  # what the document prints
    assert pairs[3:] == [str(FRAGMENT[-2]) + str(FRAGMENT[-1])]  # its last two numbers, 2 and 1


@pytest.mark.parametrize(("cut2", "rolls"), [(5, ["14", "66", "31"]), (7, ["14", "56", "63"])])
def test_whole_game_reproduces_the_fragment(cut2: int, rolls: list[str]) -> None:
    output = compute(
        "nardy.rolls",
        {"sequence": place_fragment(4 * cut2), "cut1": 4, "cut2": cut2, "count": 3},
    )
    assert output["rolls"] == rolls
    assert output["positions"][0][0] == 4 * cut2


# --- quirks and decisions ------------------------------------------------------------


def test_player_order_changes_the_mask_not_the_start() -> None:
    sequence = place_fragment(20)
    first = compute("nardy.rolls", {"sequence": sequence, "cut1": 4, "cut2": 5})
    second = compute("nardy.rolls", {"sequence": sequence, "cut1": 5, "cut2": 4})
    assert first["start"] == second["start"] == 20
    assert first["mask"] != second["mask"]
    assert first["rolls"] != second["rolls"]


def test_timed_out_cut_is_seven() -> None:
    assert compute("nardy.cuts", {"cut1": None, "cut2": 3}) == compute(
        "nardy.cuts", {"cut1": 7, "cut2": 3}
    )


def rolls_of_every_cut(length: int) -> Iterator[tuple[tuple[int, int], list[tuple[int, int]]]]:
    for first in nardy.CUTS:
        for second in nardy.CUTS:
            pattern = nardy.mask_string(first, second)
            start = nardy.start_position(first, second)
            yield (first, second), nardy.pair_up(nardy.kept_positions(length, start, pattern))


def test_rolls_are_whole_characters_only_for_three_cut_pairs() -> None:
    # Character k holds positions 2k-1 and 2k (pairs-of-numbers-not-rolls).
    aligned = {
        cuts
        for cuts, pairs in rolls_of_every_cut(600)
        if all(low % 2 == 1 and high == low + 1 for low, high in pairs)
    }
    assert aligned == {(1, 7), (3, 6), (7, 7)}


def test_roll_supply_is_fixed_by_the_cuts() -> None:
    # exhaustion-is-not-chance: the document's 10000 numbers, every cut pair.
    counts = {cuts: len(pairs) for cuts, pairs in rolls_of_every_cut(10000)}
    assert min(counts.values()) == counts[(4, 4)] == 1664
    assert max(counts.values()) == counts[(7, 7)] == 4976
    chooser = random.Random(5)
    for _ in range(3):
        sequence = "".join(chooser.choice(nardy.ALPHABET) for _ in range(5000))
        output = compute("nardy.rolls", {"sequence": sequence, "cut1": 4, "cut2": 4})
        assert len(output["rolls"]) == 1664


def test_forbidden_pair_is_dropped_and_the_rule_holds_until_a_roll() -> None:
    numbers = [2] * 8 + [1, 5, 5, 2, 2, 2] + [3, 6, 1, 4, 3, 4]  # cuts 3 and 3: 55, 22, 61, 34
    sequence = nardy.encode_sequence(numbers)
    base = {"sequence": sequence, "cut1": 3, "cut2": 3}
    free = compute("nardy.rolls", base)
    assert free["rolls"] == ["55", "22", "61", "34"]
    ruled = compute("nardy.rolls", {**base, "forbidden": DOUBLES, "forbidden_rolls": 1})
    assert ruled["dropped"] == ["55", "22"]
    assert ruled["rolls"] == ["61", "34"]
    assert ruled["dropped_positions"] + ruled["positions"] == free["positions"]
    assert compute("nardy.rolls", {**base, "forbidden": DOUBLES, "forbidden_rolls": 0}) == free


def test_forbidden_entries_are_ordered() -> None:
    base = {"sequence": place_fragment(20), "cut1": 4, "cut2": 5, "forbidden_rolls": 3}
    assert compute("nardy.rolls", {**base, "forbidden": ["13"]})["dropped"] == []
    assert compute("nardy.rolls", {**base, "forbidden": ["31"]})["dropped"] == ["31"]


def test_short_last_window_keeps_its_numbers() -> None:
    numbers = [1, 2, 3, 4, 5, 6, 3, 1, 4, 1]
    assert compute("nardy.mask", {"numbers": numbers, "mask": "110011"})["kept"][-2:] == [3, 1]


def test_look_alike_characters_differ() -> None:
    assert nardy.decode_sequence("O") != nardy.decode_sequence("0")
    assert nardy.decode_sequence("I") != nardy.decode_sequence("1")


def test_exhaustion_is_an_error_only_when_count_asks_for_more() -> None:
    sequence = place_fragment(20)
    every = compute("nardy.rolls", {"sequence": sequence, "cut1": 4, "cut2": 5})
    enough = {"sequence": sequence, "cut1": 4, "cut2": 5, "count": len(every["rolls"])}
    assert compute("nardy.rolls", enough)["rolls"] == every["rolls"]
    with pytest.raises(InvalidInput) as caught:
        compute("nardy.rolls", {**enough, "count": len(every["rolls"]) + 1})
    assert caught.value.code == "sequence-exhausted"
    assert f"yields {len(every['rolls'])} of" in caught.value.message


@pytest.mark.parametrize(
    ("algorithm_id", "inputs", "code"),
    [
        ("nardy.encode", {"numbers": [1, 2, 3]}, "odd-count"),
        ("nardy.encode", {"numbers": [7]}, "number-out-of-range"),
        ("nardy.decode", {"sequence": "AbC"}, "bad-character"),
        ("nardy.decode", {"sequence": "B\u0410"}, "bad-character"),
        ("nardy.cuts", {"cut1": 0, "cut2": 1}, "cut-out-of-range"),
        ("nardy.cuts", {"cut1": 1, "cut2": 8}, "cut-out-of-range"),
        ("nardy.mask", {"numbers": [1, 2], "mask": "000111"}, "bad-mask"),
        # a schema fault (the cut) is reported before the algorithm's own (the character)
        ("nardy.rolls", {"sequence": "x", "cut1": 9, "cut2": 1}, "cut-out-of-range"),
        ("nardy.rolls", {"sequence": "x", "cut1": 7, "cut2": 1}, "bad-character"),
        ("nardy.rolls", {"sequence": "AB", "cut1": 1, "cut2": 1, "start": 0}, "bad-start"),
        ("nardy.rolls", {"sequence": "AB", "cut1": 1, "cut2": 1, "count": -1}, "bad-count"),
        ("nardy.rolls", {"sequence": "AB", "cut1": 1, "cut2": 1, "forbidden": ["1"]},
         "bad-forbidden"),
        ("nardy.rolls", {"sequence": "AB", "cut1": 1, "cut2": 1, "forbidden_rolls": -1},
         "bad-forbidden-rolls"),
        ("nardy.rolls", {"sequence": "AB", "cut1": 1, "cut2": 1, "count": 5},
         "sequence-exhausted"),
    ],
)
def test_error_codes(algorithm_id: str, inputs: dict[str, Any], code: str) -> None:
    assert error_code(algorithm_id, inputs) == code


# --- the vectors catch wrong ports ---------------------------------------------------


def load_vectors() -> list[dict[str, Any]]:
    vectors: list[dict[str, Any]] = []
    for path in sorted(VECTORS.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        vectors += [{**vector, "algorithm": data["algorithm"]} for vector in data["vectors"]]
    return vectors


def failing(vectors: list[dict[str, Any]]) -> Iterator[str]:
    """The ids of the vectors the (possibly patched) reference fails, lazily: a test of
    whether any vector catches a wrong port stops at the first."""
    for vector in vectors:
        try:
            got: dict[str, Any] = {"output": compute(vector["algorithm"], vector["input"])}
        except InvalidInput as error:
            got = {"error": error.code}
        if got != vector["expected"]:
            yield vector["id"]


def failures(vectors: list[dict[str, Any]]) -> list[str]:
    return list(failing(vectors))


@pytest.fixture(scope="module")
def vectors() -> list[dict[str, Any]]:
    return load_vectors()


@pytest.mark.heavy  # the family's 500-odd vectors
def test_reference_passes_its_vectors(vectors: list[dict[str, Any]]) -> None:
    assert len(vectors) > 500
    assert failures(vectors) == []


# The reference steps the wrong ports below build on, taken before any is patched.
KEPT_POSITIONS = nardy.kept_positions
DECODE_SEQUENCE = nardy.decode_sequence


def skip_product(first: int, second: int) -> int:
    return first * second + 1  # drops `product` numbers instead of product - 1


def sorted_mask(first: int, second: int) -> str:
    return nardy.cut_bits(min(first, second)) + nardy.cut_bits(max(first, second))


def whole_windows_only(length: int, start: int, mask: str) -> list[int]:
    return KEPT_POSITIONS(start - 1 + (length - start + 1) // 6 * 6, start, mask)


def characters_as_rolls(positions: list[int]) -> list[tuple[int, int]]:
    """Every archive character from the start on is a roll; the mask is ignored."""
    if not positions:
        return []
    first, last = (positions[0] + 1) // 2, positions[-1] // 2
    return [(2 * k - 1, 2 * k) for k in range(first, last + 1)]


def lenient_decode(sequence: str) -> list[int]:
    return DECODE_SEQUENCE("".join(c for c in sequence.upper() if c in nardy.ALPHABET))


def rule_counts_dropped(
    numbers: list[int],
    pairs: list[tuple[int, int]],
    count: int | None,
    forbidden: list[str],
    forbidden_rolls: int,
) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Counts a dropped pair as one of the rolls the rule holds for."""
    accepted: list[tuple[int, int]] = []
    dropped: list[tuple[int, int]] = []
    for pair in pairs:
        if count is not None and len(accepted) == count:
            break
        ruled = len(accepted) + len(dropped) < forbidden_rolls
        if ruled and nardy.roll_text(numbers, pair) in forbidden:
            dropped.append(pair)
        else:
            accepted.append(pair)
    if count is not None and len(accepted) < count:
        raise InvalidInput("sequence-exhausted", "short")
    return accepted, dropped


WRONG_PORTS: dict[str, tuple[str, Callable[..., Any] | str]] = {
    "start-skips-product": ("start_position", skip_product),
    "cuts-sorted": ("mask_string", sorted_mask),
    "short-window-dropped": ("kept_positions", whole_windows_only),
    "characters-are-rolls": ("pair_up", characters_as_rolls),
    "lenient-decoding": ("decode_sequence", lenient_decode),
    "digits-1-to-0": ("ALPHABET", "ABCDEFGHIJKLMNOPQRSTUVWXYZ1234567890"),
    "rule-counts-dropped": ("take_rolls", rule_counts_dropped),
}


@pytest.mark.heavy  # the family's 500-odd vectors a wrong port
@pytest.mark.parametrize("wrong", sorted(WRONG_PORTS))
def test_vectors_catch_a_wrong_port(
    wrong: str, vectors: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    name, replacement = WRONG_PORTS[wrong]
    monkeypatch.setattr(nardy, name, replacement)
    assert next(failing(vectors), None), f"no vector catches the wrong port {wrong!r}"


def test_wrong_ports_change_something_the_document_states(vectors: list[dict[str, Any]]) -> None:
    """The mask and start mistakes are caught by document examples alone, not only by volume."""
    stated = [v for v in vectors if "document-example" in v["tags"]]
    for name, replacement in (("start_position", skip_product), ("mask_string", sorted_mask)):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(nardy, name, replacement)
            assert next(failing(stated), None), name

