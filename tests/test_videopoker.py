"""The video poker family: the document's worked example stage by stage, its quirks, the
error codes, and wrong ports that the generated vectors must catch.

Values typed here come from the document (004_358a9db53bf25e27.txt) or from poker
combinatorics; everything else is computed by the reference.
"""

from __future__ import annotations

import itertools
import json
import math
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from fairvec.reference import InvalidInput, compute
from fairvec.reference import videopoker as vp

ROOT = Path(__file__).resolve().parents[1]
VECTORS = ROOT / "vectors" / "videopoker"

# The worked example, as the document prints it ("Card Conversion Table", worked example).
SERVER_SEED = "2XMpPAbEw3qdH3HQla2K5zNwoNEFHOEYolkB969j"
CLIENT_SEED = "bc7v9bn70d7n07sn"
DOC_HASH = (
    "3a959bbaffd9b3928b28431c2ee688792c67a45f1933b9e11af3c7784a7bbda5"
    "674d2e768ac330a04982b9fa943c4c2cf49c952d9db956b1cd3b38c006c3a2d6"
)
DOC_NEXT_HASH_FIRST_COPY = "64e701539ecf4c03b90ecd957d6675b2f72c3fd84f04dc5eb63eed8b9a58b95b"
DOC_NEXT_HASH_SECOND_COPY = "727f9b7c5db0e378fe5fffe9c178ad836f6e00a3662b7c3f1ca1ab3cae3001ea"
# "Hash to Card Conversion": hex pair, Decimal Conversion, Right Two Digits, Playing Card.
DOC_TABLE = [
    ("3a", 58, 58, "o/r"), ("95", 49, 49, "J clubs"), ("9b", 155, 55, "o/r"),
    ("ba", 186, 86, "o/r"), ("ff", 55, 55, "o/r"), ("d9", 217, 17, "5 hearts"),
    ("b3", 179, 79, "o/r"), ("92", 146, 46, "8 clubs"), ("8b", 139, 39, "A clubs"),
    ("28", 40, 40, "2 clubs"), ("43", 67, 67, "o/r"), ("1c", 28, 28, "3 diamonds"),
    ("2e", 46, 46, "r/p/c"), ("e6", 230, 30, "5 diamonds"), ("88", 136, 36, "J diamonds"),
]
DOC_DEALT = ["J clubs", "5 hearts", "8 clubs", "A clubs", "2 clubs"]
DOC_DRAWN = ["3 diamonds", "5 diamonds", "J diamonds"]

# "Analysis": (event, Pays, Combinations, Return) of each table, as printed.
TOTAL_COMBINATIONS = 1_661_102_543_100
DOC_TABLES = {
    "jacks-or-better": [
        ("royal-flush", 500, 34_706_466, 0.010447),
        ("straight-flush", 75, 184_178_161, 0.008316),
        ("four-of-a-kind", 20, 3_924_486_891, 0.047252),
        ("full-house", 9, 19_115_939_799, 0.103572),
        ("flush", 6, 19_427_500_088, 0.070173),
        ("straight", 4, 18_354_238_557, 0.044198),
        ("three-of-a-kind", 3, 123_573_760_275, 0.223178),
        ("two-pair", 2, 214_462_314_819, 0.258217),
        ("jacks-or-better", 1, 356_047_418_052, 0.214344),
        ("all-other", 0, 905_977_999_992, 0.0),
    ],
    "tens-or-better": [
        ("royal-flush", 500, 38_106_048, 0.011470),
        ("straight-flush", 75, 187_838_625, 0.008481),
        ("four-of-a-kind", 22, 3_915_577_076, 0.051859),
        ("full-house", 6, 19_084_542_744, 0.068934),
        ("flush", 5, 18_600_477_537, 0.055988),
        ("straight", 4, 20_611_548_487, 0.049633),
        ("three-of-a-kind", 3, 123_201_590_075, 0.222506),
        ("two-pair", 2, 213_933_852_009, 0.257581),
        ("tens-or-better", 1, 420_598_763_532, 0.253205),
        ("all-other", 0, 840_930_246_967, 0.0),
    ],
    "bonus-poker": [
        ("royal-flush", 500, 35_737_262, 0.010757),
        ("straight-flush", 45, 172_191_438, 0.004665),
        ("four-aces", 70, 325_566_459, 0.013720),
        ("four-2s-3s-4s", 35, 875_937_305, 0.018456),
        ("four-5s-thru-ks", 25, 2_725_708_639, 0.041023),
        ("full-house", 8, 19_133_720_127, 0.092149),
        ("flush", 5, 18_714_893_725, 0.056333),
        ("straight", 4, 18_432_640_328, 0.044387),
        ("three-of-a-kind", 3, 123_733_729_692, 0.223467),
        ("two-pair", 2, 214_762_339_278, 0.258578),
        ("jacks-or-better", 1, 358_572_571_638, 0.215864),
        ("all-other", 0, 903_617_507_209, 0.0),
    ],
}
DOC_RETURNS = {"jacks-or-better": 0.979696, "tens-or-better": 0.979657, "bonus-poker": 0.979398}


def name(card: dict[str, Any]) -> str:
    return f"{card['rank']} {card['suit']}"


def crafted_hash(pairs: list[str]) -> str:
    """A 128-digit hash: the given pairs, then ff (out of range) to the end."""
    return "".join(pairs) + "ff" * (64 - len(pairs))


# --- the worked example, stage by stage ------------------------------------------------


def test_worked_example_hash() -> None:
    out = compute("videopoker.hash", {"server_seed": SERVER_SEED, "client_seed": CLIENT_SEED})
    assert out["combined_seed"] == SERVER_SEED + CLIENT_SEED
    assert out["hash"] == DOC_HASH


def test_worked_example_table_row_by_row() -> None:
    out = compute("videopoker.cards", {"hash": DOC_HASH, "count": 8})
    rows = out["rows"]
    assert [row["hex"] for row in rows] == [pair for pair, *_ in DOC_TABLE]
    for row, (pair, decimal, right_two, card) in zip(rows, DOC_TABLE, strict=True):
        assert row["value"] == right_two, pair
        status = {"o/r": "out-of-range", "r/p/c": "repeat"}.get(card, "card")
        assert row["status"] == status, pair
        if pair in ("95", "ff"):  # quirks table-95-as-49, table-ff-as-55
            assert (decimal, row["byte"]) in ((49, 149), (55, 255))
        else:
            assert row["byte"] == decimal, pair
    assert [name(card) for card in out["cards"]] == DOC_DEALT + DOC_DRAWN


def test_prose_1c_is_28_not_38() -> None:
    rows = compute("videopoker.cards", {"hash": DOC_HASH, "count": 8})["rows"]
    row = next(row for row in rows if row["hex"] == "1c")
    assert row["byte"] == 28  # the prose says 38
    assert name(vp.card(row["value"])) == "3 diamonds"  # the card the prose names
    assert name(vp.card(38)) == "K diamonds"  # what 38 would have dealt


def test_worked_example_game_every_stage() -> None:
    out = compute(
        "videopoker.game",
        {"server_seed": SERVER_SEED, "client_seed": CLIENT_SEED, "held": [1, 4],
         "paytable": "jacks-or-better"},
    )
    assert out["hash"] == DOC_HASH
    assert [name(c) for c in out["dealt"]] == DOC_DEALT
    assert [name(c) for c in out["drawn"]] == DOC_DRAWN
    # "I hold jack/ace ... in the first and fourth positions" and "improve to a pair of jacks"
    assert [name(c) for c in out["final"]][0::3] == ["J clubs", "A clubs"]
    assert (out["hand"], out["event"], out["pays"]) == ("pair", "jacks-or-better", 1)
    assert out["payout"] == 10  # the 10-credit bet returned
    # The ten cards continue past the document's eight with two it never shows.
    assert [name(c) for c in out["cards"][:8]] == DOC_DEALT + DOC_DRAWN
    assert len({c["number"] for c in out["cards"]}) == 10


def test_commitment_two_copies() -> None:
    first = compute(
        "videopoker.commitment",
        {"server_seed": SERVER_SEED, "server_seed_hash": DOC_NEXT_HASH_FIRST_COPY},
    )
    assert first == {"hash": DOC_NEXT_HASH_FIRST_COPY, "matches": True}
    second = compute(
        "videopoker.commitment",
        {"server_seed": SERVER_SEED, "server_seed_hash": DOC_NEXT_HASH_SECOND_COPY},
    )
    assert second["matches"] is False
    # 727f... is not the SHA-256 of anything else the example shows either.
    for text in (CLIENT_SEED, SERVER_SEED + CLIENT_SEED, DOC_HASH):
        assert vp.sha256_hex(text) != DOC_NEXT_HASH_SECOND_COPY


# --- quirks ----------------------------------------------------------------------------


def test_step_2_literal_reading_is_not_the_example() -> None:
    literal = vp.sha512_hex(SERVER_SEED + CLIENT_SEED + SERVER_SEED)
    assert literal != DOC_HASH
    assert vp.sha512_hex(vp.combine_seeds(SERVER_SEED, CLIENT_SEED)) == DOC_HASH


def test_each_card_has_exactly_three_bytes() -> None:
    """Quirk each-card-1-in-52: the reference's own reading of every byte, counted."""
    preimages: Counter[int] = Counter()
    for byte in range(256):
        rows, _ = vp.scan_hash(crafted_hash([f"{byte:02x}", "00", "01"]), 1)
        first = rows[0]
        assert first["byte"] == byte
        if first["status"] == "card":
            preimages[first["value"]] += 1
    assert sorted(preimages) == list(range(52))
    assert set(preimages.values()) == {3}


def test_card_comes_from_value_not_byte() -> None:
    rows, cards = vp.scan_hash(crafted_hash(["95"]), 1)
    assert rows[0]["byte"] == 149 and cards == [49]
    assert name(vp.card(cards[0])) == "J clubs"
    with pytest.raises(InvalidInput):  # the literal step 11 reading has no suit 11
        vp.card(149)


def test_tenth_card_at_last_pair_is_not_exhausted() -> None:
    digest = crafted_hash([f"{n:02x}" for n in range(9)])[:-2] + "09"
    rows, cards = vp.scan_hash(digest, 10)
    assert cards == list(range(10)) and len(rows) == 64


def test_exhausted_reports_cards_found() -> None:
    with pytest.raises(InvalidInput) as caught:
        vp.scan_hash(crafted_hash([f"{n:02x}" for n in range(9)]), 10)
    assert caught.value.code == "hash-exhausted"
    assert "only 9 of the 10" in caught.value.message


def test_discard_positions_do_not_change_which_cards_come() -> None:
    ten = [49, 17, 46, 39, 40, 28, 30, 36, 21, 44]
    for k in range(6):
        draws = {
            tuple(vp.deal_and_draw(ten, [p for p in range(1, 6) if p not in discarded])[1])
            for discarded in itertools.combinations(range(1, 6), k)
        }
        assert draws == {tuple(ten[5 : 5 + k])}


def test_bonus_poker_pays_70_not_the_titles_75() -> None:
    out = compute("videopoker.evaluate", {"cards": [0, 13, 26, 39, 1], "paytable": "bonus-poker"})
    assert (out["event"], out["pays"]) == ("four-aces", 70)


@pytest.mark.parametrize("table", sorted(DOC_TABLES))
def test_pay_tables_reproduce_the_return_column(table: str) -> None:
    """Each row's Return is Pays x Combinations / Total, and the rows add to the total."""
    rows = DOC_TABLES[table]
    assert [event for event, *_ in rows] == list(vp.PAY_TABLES[table].pays)
    assert sum(combinations for _, _, combinations, _ in rows) == TOTAL_COMBINATIONS
    total = 0.0
    for event, pays, combinations, returned in rows:
        assert vp.PAY_TABLES[table].pays[event] == pays
        share = vp.PAY_TABLES[table].pays[event] * combinations / TOTAL_COMBINATIONS
        assert share == pytest.approx(returned, abs=5e-7), event
        total += share
    assert total == pytest.approx(DOC_RETURNS[table], abs=5e-7)
    if table == "bonus-poker":  # the title's 75 would not add up
        assert abs(75 * 325_566_459 / TOTAL_COMBINATIONS - 0.013720) > 5e-4


def test_hand_counts_over_all_2598960_hands() -> None:
    """Every rank pattern once, weighted by its suit assignments: the textbook counts."""
    counts: Counter[str] = Counter()
    for ranks in itertools.combinations_with_replacement(range(13), 5):
        multiplicity = Counter(ranks)
        if max(multiplicity.values()) > 4:
            continue
        if len(multiplicity) == 5:
            suited = [13 * 0 + r for r in ranks]  # all spades
            mixed = [13 * (i % 2) + r for i, r in enumerate(ranks)]  # two suits
            counts[vp.hand_category(suited)[0]] += 4
            counts[vp.hand_category(mixed)[0]] += 4**5 - 4
            continue
        cards = [13 * i + rank for rank, m in multiplicity.items() for i in range(m)]
        ways = math.prod(math.comb(4, m) for m in multiplicity.values())
        counts[vp.hand_category(cards)[0]] += ways
    assert sum(counts.values()) == math.comb(52, 5)
    assert counts == {
        "royal-flush": 4, "straight-flush": 36, "four-of-a-kind": 624, "full-house": 3744,
        "flush": 5108, "straight": 10200, "three-of-a-kind": 54912, "two-pair": 123552,
        "pair": 1098240, "high-card": 1302540,
    }


def test_straight_edges() -> None:
    def hand(cards: list[int]) -> str:
        return vp.hand_category(cards)[0]

    assert hand([0, 14, 28, 42, 4]) == "straight"  # A-2-3-4-5
    assert hand([9, 23, 37, 51, 0]) == "straight"  # 10-J-Q-K-A
    assert hand([11, 25, 39, 1, 15]) == "high-card"  # Q-K-A-2-3 does not wrap
    assert hand([0, 1, 2, 3, 4]) == "straight-flush"
    assert hand([21, 22, 23, 24, 25]) == "straight-flush"  # 9-K, not royal


# --- errors ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("algorithm", "inputs", "code"),
    [
        ("videopoker.cards", {"hash": "ab"}, "bad-hash"),
        ("videopoker.cards", {"hash": DOC_HASH, "count": 0}, "bad-count"),
        ("videopoker.cards", {"hash": "ff" * 64}, "hash-exhausted"),
        ("videopoker.card", {"number": 52}, "card-out-of-range"),
        ("videopoker.draw", {"cards": list(range(9)), "held": []}, "wrong-card-count"),
        ("videopoker.draw", {"cards": [*range(9), 0], "held": []}, "duplicate-card"),
        ("videopoker.draw", {"cards": list(range(10)), "held": [6]}, "held-position-out-of-range"),
        ("videopoker.draw", {"cards": list(range(10)), "held": [2, 2]}, "duplicate-held-position"),
        ("videopoker.evaluate", {"cards": [0, 1, 2, 3, 52], "paytable": "bonus-poker"},
         "card-out-of-range"),
        ("videopoker.evaluate", {"cards": [0, 1, 2, 3, 4], "paytable": "deuces"},
         "unknown-paytable"),
        ("videopoker.commitment", {"server_seed": "s", "server_seed_hash": "0e"}, "bad-hash"),
    ],
)
def test_error_codes(algorithm: str, inputs: dict[str, Any], code: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        compute(algorithm, inputs)
    assert caught.value.code == code


# --- wrong ports are caught by the vectors -----------------------------------------------


def vectors(algorithm: str) -> Iterator[dict[str, Any]]:
    data = json.loads((VECTORS / f"{algorithm}.json").read_text(encoding="utf-8"))
    yield from data["vectors"]


def failures(algorithm: str) -> int:
    """How many vectors of ``algorithm`` the (patched) reference now gets wrong."""
    failed = 0
    for vector in vectors(algorithm):
        try:
            got: dict[str, Any] = {"output": compute(f"videopoker.{algorithm}", vector["input"])}
        except InvalidInput as error:
            got = {"error": error.code}
        failed += got != vector["expected"]
    return failed


def test_vectors_pass_unpatched() -> None:
    for algorithm in ("hash", "cards", "card", "draw", "evaluate", "commitment", "game"):
        assert failures(algorithm) == 0, algorithm


def _server_client_server(server_seed: str, client_seed: str) -> str:
    return server_seed + client_seed + server_seed


def _byte_not_modulo(hash_hex: str, count: int) -> tuple[list[dict[str, Any]], list[int]]:
    """Checks "byte <= 51" (the table's 95 -> 49 misread the other way)."""
    vp.check_hash(hash_hex)
    cards: list[int] = []
    rows: list[dict[str, Any]] = []
    for position in range(0, 128, 2):
        byte = int(hash_hex[position : position + 2], 16)
        status = "out-of-range" if byte > 51 else ("repeat" if byte in cards else "card")
        if status == "card":
            cards.append(byte)
        rows.append({"hex": hash_hex[position : position + 2], "byte": byte, "value": byte % 100,
                     "status": status})
        if len(cards) == count:
            return rows, cards
    raise InvalidInput("hash-exhausted", "")


def _modulo_52(hash_hex: str, count: int) -> tuple[list[dict[str, Any]], list[int]]:
    """"Fixes" the modulo: byte % 52, no rejection."""
    vp.check_hash(hash_hex)
    cards: list[int] = []
    for position in range(0, 128, 2):
        value = int(hash_hex[position : position + 2], 16) % 52
        if value not in cards:
            cards.append(value)
        if len(cards) == count:
            return [], cards
    raise InvalidInput("hash-exhausted", "")


def _php_false_exhausted(hash_hex: str, count: int) -> tuple[list[dict[str, Any]], list[int]]:
    rows, cards = ORIGINAL_SCAN(hash_hex, count)
    if 2 * len(rows) == len(hash_hex):  # the script's check after the last pair
        raise InvalidInput("hash-exhausted", "No more space in hash.")
    return rows, cards


def _draw_by_label(cards: list[int], held: list[int]) -> tuple[list[int], list[int], list[int]]:
    """"Draw card n" read as hand position n."""
    vp.check_cards(cards, 10)
    vp.check_held(held)
    final = [cards[p - 1] if p in held else cards[4 + p] for p in range(1, 6)]
    drawn = [cards[4 + p] for p in range(1, 6) if p not in held]
    return cards[:5], drawn, final


def _no_ace_low(cards: list[int]) -> tuple[str, list[int]]:
    hand, by_count = ORIGINAL_CATEGORY(cards)
    if hand in ("straight", "straight-flush") and sorted(n % 13 for n in cards) == [0, 1, 2, 3, 4]:
        return ("flush" if hand == "straight-flush" else "high-card"), by_count
    return hand, by_count


ORIGINAL_SCAN = vp.scan_hash
ORIGINAL_CATEGORY = vp.hand_category
BONUS_WITH_TITLE = vp.PayTable(
    lowest_pair=10, pair_event="jacks-or-better",
    pays={**vp.PAY_TABLES["bonus-poker"].pays, "four-aces": 75},
)
BONUS_AS_HEADED = vp.PayTable(
    lowest_pair=9, pair_event="jacks-or-better", pays=vp.PAY_TABLES["bonus-poker"].pays
)
WRONG_PORTS: list[tuple[str, str, Callable[[pytest.MonkeyPatch], None], list[str]]] = [
    ("step-2-literal", "hash", lambda mp: mp.setattr(vp, "combine_seeds", _server_client_server),
     ["hash", "game"]),
    ("byte-not-modulo", "cards", lambda mp: mp.setattr(vp, "scan_hash", _byte_not_modulo),
     ["cards", "game"]),
    ("modulo-52", "cards", lambda mp: mp.setattr(vp, "scan_hash", _modulo_52), ["game"]),
    ("php-false-exhausted", "cards",
     lambda mp: mp.setattr(vp, "scan_hash", _php_false_exhausted), ["cards"]),
    ("draw-by-label", "draw", lambda mp: mp.setattr(vp, "deal_and_draw", _draw_by_label),
     ["draw", "game"]),
    ("no-ace-low-straight", "evaluate",
     lambda mp: mp.setattr(vp, "hand_category", _no_ace_low), ["evaluate"]),
    ("bonus-title-75", "evaluate",
     lambda mp: mp.setitem(vp.PAY_TABLES, "bonus-poker", BONUS_WITH_TITLE), ["evaluate"]),
    ("bonus-as-tens", "evaluate",
     lambda mp: mp.setitem(vp.PAY_TABLES, "bonus-poker", BONUS_AS_HEADED), ["evaluate"]),
    ("ace-as-high-card-index", "card",
     lambda mp: mp.setattr(vp, "RANKS", (*vp.RANKS[1:], "A")), ["card", "cards", "draw"]),
    ("trimmed-seeds", "hash",
     lambda mp: mp.setattr(vp, "combine_seeds", lambda s, c: s.strip() + c.strip()),
     ["hash", "game"]),
    ("case-sensitive-commitment", "commitment",
     lambda mp: mp.setattr(vp, "HEX64", __import__("re").compile(r"[0-9a-f]{64}")),
     ["commitment"]),
]


@pytest.mark.parametrize(
    ("wrong", "stage", "patch", "caught_by"), WRONG_PORTS, ids=[w[0] for w in WRONG_PORTS]
)
def test_wrong_port_is_caught(
    monkeypatch: pytest.MonkeyPatch,
    wrong: str,
    stage: str,
    patch: Callable[[pytest.MonkeyPatch], None],
    caught_by: list[str],
) -> None:
    patch(monkeypatch)
    for algorithm in caught_by:
        assert failures(algorithm) > 0, f"{wrong} ({stage}) passes every {algorithm} vector"


def test_the_spec_states_every_pay_table_as_the_reference_pays_it() -> None:
    spec = yaml.safe_load((ROOT / "spec" / "videopoker" / "evaluate.yaml").read_text("utf-8"))
    text = next(step["text"] for step in spec["steps"] if step["name"] == "evaluate_hand")
    for name, table in vp.PAY_TABLES.items():
        rows = ", ".join(f"{event} {pays}" for event, pays in table.pays.items())
        assert f"{name}: {rows}." in text
