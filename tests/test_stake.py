"""The stake family: every real seed -> outcome pair is a reproduced vector, the stages
behave as the spec says, and wrong ports that copy a real verifier's mistake are caught.

Run as a program (``python tests/test_stake.py MISTAKE``), this file is itself the wrong
port: the reference with one realistic mistake, speaking the adapter protocol.

Values typed here are published ones (the research file's and its sources'); everything
else is computed by the reference.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support import REPO, fairvec, misbehaving

from fairvec.input_draws import Stream
from fairvec.reference import InvalidInput, compute, stake
from fairvec.reference._algorithm import Algorithm, registry

RESEARCH = REPO.parent / "shared" / "research" / "hash-chain-and-stake.md"
BLOCK_HASH = "0000000000000000001b34dc6a1e86083f95500b096231436e9b25cbdd0075c4"
# Real pairs per algorithm: the research file's (dice 20, limbo 10, crash 4, mines 1, video
# poker 1) plus the rest of the same recorded files (mines 23 more, keno, roulette, wheel).
REAL_PAIRS = {
    "dice": 20,
    "limbo": 10,
    "crash": 4,
    "mines": 24,
    "keno": 10,
    "roulette": 10,
    "wheel": 15,
    "video_poker": 1,
}


def vectors(name: str) -> list[dict[str, Any]]:
    path = REPO / "vectors" / "stake" / f"{name}.json"
    found: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))["vectors"]
    return found


def real(name: str) -> list[dict[str, Any]]:
    return [v for v in vectors(name) if "document_states" in v]


# --- the real data -------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "count"), REAL_PAIRS.items())
def test_every_real_pair_is_a_vector_and_reproduced(name: str, count: int) -> None:
    found = real(name)
    assert len(found) == count
    for vector in found:
        assert "document-example" in vector["tags"]
        assert "provenance" in vector and vector["provenance"]["section"]
        for key, value in vector["document_states"].items():
            assert vector["expected"]["output"][key] == value, vector["id"]


def research_text() -> str:
    if not RESEARCH.is_file():
        pytest.skip(f"the research file is not at {RESEARCH}")
    return RESEARCH.read_text(encoding="utf-8")


def test_the_research_files_seed_lists_are_all_vectors() -> None:
    """Parse each 'server X, client Y, nonces 0..9: v0, ..., v9' of the research file."""
    text = " ".join(research_text().split())
    pattern = r"server `(\w+)`, client `(\w+)`, nonces 0\.\.9: ((?:[\d.]+, ){9}[\d.]+)"
    lists = re.findall(pattern, text)
    assert len(lists) == 3  # dice, dice (primedice option), limbo
    stated = {
        (v["input"]["server_seed"], v["input"]["nonce"]): v["document_states"]
        for name in ("dice", "limbo")
        for v in real(name)
    }
    for server, _client, values in lists:
        numbers = [float(value) for value in values.split(", ")]
        assert len(numbers) == 10
        for nonce, number in enumerate(numbers):
            assert list(stated[(server, nonce)].values()) == [number]


def test_the_research_files_single_pairs_are_vectors() -> None:
    text = " ".join(research_text().split())
    assert "nonce 9, 10 mines: cells (0-based, sorted) 2, 3, 4, 10, 13, 15, 16, 21, 22, 23" in text
    mines = {v["input"]["nonce"]: v for v in real("mines")}
    assert mines[9]["document_states"] == {"cells": [2, 3, 4, 10, 13, 15, 16, 21, 22, 23]}
    hand = "5♠ A♠ J♠ Q♠ J♥ 8♦ 5♥ J♦ K♠ 8♥"
    assert hand in text
    assert real("video_poker")[0]["document_states"] == {"cards": hand.split()}
    crash = {v["input"]["game_hash"]: v["document_states"]["crash_point"] for v in real("crash")}
    for game_hash, point in re.findall(r"`([0-9a-f]{64})` → ([\d.]+)", text):
        assert crash[game_hash] == float(point)
    assert "message `23eb7069c6fc5b1369b92f5321af9f63`: 7.74" in text


# --- stages --------------------------------------------------------------------------------


def test_bytes_are_hmac_sha256_keyed_with_the_seed_text() -> None:
    output = compute(
        "stake.bytes", {"server_seed": "ab" * 16, "client_seed": "é", "nonce": 5, "round": 2}
    )
    expected = hmac.new(b"ab" * 16, "é:5:2".encode(), hashlib.sha256).hexdigest()
    assert output == {"message": "é:5:2", "bytes": expected}


def test_floats_are_exact_32_bit_fractions() -> None:
    stream = Stream("stake-test/floats")
    for _ in range(2000):
        chunk = stream.take(4)
        assert stake.float_from_bytes(chunk) == int.from_bytes(chunk, "big") / 2**32


def test_floats_cross_rounds_at_any_byte_cursor() -> None:
    seeds = {"server_seed": "s", "client_seed": "c", "nonce": 3}
    data = b"".join(stake.round_bytes("s", "c", 3, r) for r in range(3))
    for cursor in (0, 5, 28, 30, 33):
        floats = compute("stake.floats", {**seeds, "cursor": cursor, "count": 9})["floats"]
        chunks = [data[cursor + 4 * i : cursor + 4 * i + 4] for i in range(9)]
        assert floats == [int.from_bytes(c, "big") / 2**32 for c in chunks]


def test_the_two_shuffles_agree_on_the_first_pick_only() -> None:
    floats = [0.3, 0.6, 0.9, 0.1]
    splice = compute("stake.shuffle", {"floats": floats, "size": 25}, "pick-and-remove")
    swap = compute("stake.shuffle", {"floats": floats, "size": 25}, "swap-from-end")
    assert splice["indices"] == swap["indices"]
    assert splice["picks"][0] == swap["picks"][0]
    assert splice["picks"] != swap["picks"]
    for picks in (splice["picks"], swap["picks"]):
        assert len(set(picks)) == len(picks)


@pytest.mark.parametrize("name", ["mines", "keno", "video_poker"])
def test_real_boards_reproduce_only_with_pick_and_remove(name: str) -> None:
    disagreeing = 0
    for vector in real(name):
        other = compute(f"stake.{name}", vector["input"], "swap-from-end")
        disagreeing += any(other[k] != v for k, v in vector["document_states"].items())
    # one mine cannot tell the readings apart, and one 3-mine board happens to agree
    assert disagreeing == len(real(name)) - (2 if name == "mines" else 0)


@pytest.mark.parametrize(("name", "key"), [("dice", "result"), ("limbo", "multiplier")])
def test_rounding_disagrees_with_the_real_values(name: str, key: str) -> None:
    rounded = [compute(f"stake.{name}", v["input"], "round")[key] for v in real(name)]
    stated = [v["document_states"][key] for v in real(name)]
    assert sum(r != s for r, s in zip(rounded, stated, strict=True)) >= 5


def test_the_primedice_pairs_are_not_the_old_sha512_scheme() -> None:
    """The decision primedice-sha512: the one-line description of the older scheme
    (HMAC-SHA512(server, client-nonce), 5-hex chunks below 10^6, % 10^4 / 100) does not
    give the recorded 'primedice' rolls; the Stake scheme does (the vectors)."""

    def old_scheme(server: str, client: str, nonce: int) -> float | None:
        digest = hmac.new(server.encode(), f"{client}-{nonce}".encode(), hashlib.sha512)
        text = digest.hexdigest()
        for at in range(0, 125, 5):
            if int(text[at : at + 5], 16) < 10**6:
                return int(text[at : at + 5], 16) % 10**4 / 100
        return None

    primedice = [v for v in real("dice") if v["id"].startswith("stake.dice/primedice")]
    assert len(primedice) == 10
    matches = sum(
        old_scheme(v["input"]["server_seed"], v["input"]["client_seed"], v["input"]["nonce"])
        == v["document_states"]["result"]
        for v in primedice
    )
    assert matches == 0


def test_the_printed_1e8_limbo_formula_differs_on_the_marked_bets() -> None:
    marked = [v for v in vectors("limbo") if "/differs-from-1e8-" in v["id"]]
    assert len(marked) == 6  # three bets, two variants
    for vector in marked:
        if vector["variant"] != "truncate":
            continue
        value = vector["expected"]["output"]["float"]
        printed = max(1, math.floor(1e8 / (value * 1e8) * 0.99 * 100) / 100)
        assert printed != vector["expected"]["output"]["multiplier"]


def test_wheel_tables_have_one_payout_per_segment_and_a_1_percent_edge() -> None:
    for segments in (10, 20, 30, 40, 50):
        for risk in stake.WHEEL_RISKS:
            table = stake.wheel_payouts(segments, risk)
            assert len(table) == segments
            assert sum(table) / segments == pytest.approx(0.99, abs=0.011)


def test_card_names_follow_the_rank_major_deck() -> None:
    names = [stake.card_name(index) for index in range(52)]
    assert names[:5] == ["2♦", "2♥", "2♠", "2♣", "3♦"]
    assert names[-1] == "A♣"
    assert len(set(names)) == 52


@pytest.mark.parametrize(
    ("algorithm", "inputs", "code"),
    [
        ("stake.bytes", {"server_seed": "s", "client_seed": "c", "nonce": -1, "round": 0},
         "nonce-out-of-range"),
        ("stake.floats", {"server_seed": "s", "client_seed": "c", "nonce": 0, "cursor": 0,
                          "count": 257}, "count-out-of-range"),
        ("stake.shuffle", {"floats": [0.5, 0.5], "size": 1}, "too-many-floats"),
        ("stake.shuffle", {"floats": [1.0], "size": 5}, "float-out-of-range"),
        ("stake.mines", {"server_seed": "s", "client_seed": "c", "nonce": 0, "mines_count": 25},
         "mines-count-out-of-range"),
        ("stake.plinko", {"server_seed": "s", "client_seed": "c", "nonce": 0, "rows": 17},
         "rows-out-of-range"),
        ("stake.wheel", {"server_seed": "s", "client_seed": "c", "nonce": 0, "segments": 25,
                         "risk": "low"}, "segments-out-of-range"),
        ("stake.wheel", {"server_seed": "s", "client_seed": "c", "nonce": 0, "segments": 10,
                         "risk": "wild"}, "unknown-risk"),
        ("stake.crash", {"game_hash": "AB" * 32, "salt": BLOCK_HASH}, "bad-game-hash"),
        ("stake.cards", {"server_seed": "s", "client_seed": "c", "nonce": 0, "count": 0},
         "count-out-of-range"),
        ("stake.dice", {"server_seed": "s", "client_seed": "\ud800", "nonce": 0},
         "not-unicode-text"),
    ],
)  # fmt: skip
def test_errors_carry_the_specs_codes(algorithm: str, inputs: dict[str, Any], code: str) -> None:
    with pytest.raises(InvalidInput) as raised:
        compute(algorithm, inputs)
    assert raised.value.code == code


# --- the vectors catch wrong ports -----------------------------------------------------------

# mistake -> (the algorithms to run, vector ids that must fail)
WRONG_PORTS: dict[str, tuple[list[str], set[str]]] = {
    # rounding to the cent instead of flooring (RGBKey/stake-verifier issue 1)
    "round": (
        ["stake.dice", "stake.limbo", "stake.crash"],
        {
            "stake.dice/stake-page-nonce-3@truncate",
            "stake.limbo/stake-page-nonce-1@truncate",
            "stake.crash/block-hash-1-18@truncate",
        },
    ),
    # the textbook Fisher-Yates where Stake splices
    "swap": (
        ["stake.mines", "stake.video_poker", "stake.shuffle"],
        {
            "stake.mines/stake-page-nonce-9@pick-and-remove",
            "stake.video_poker/stake-page-nonce-0@pick-and-remove",
            "stake.shuffle/deck-ten@pick-and-remove",
        },
    ),
    # the server seed looks like hex, so the port decodes it
    "hex-key": (
        ["stake.bytes", "stake.dice"],
        {"stake.bytes/round-0", "stake.dice/stake-page-nonce-0@truncate"},
    ),
    # Crash keyed with the 32 bytes of the game hash
    "raw-hash-key": (["stake.crash"], {"stake.crash/block-hash-32-85@truncate"}),
    # the 4 bytes read as a little-endian integer
    "little-endian": (
        ["stake.floats", "stake.roulette"],
        {"stake.floats/round-0", "stake.roulette/stake-page-nonce-0"},
    ),
    # every float from round 0 (the 32 bytes again and again)
    "one-round": (
        ["stake.floats", "stake.mines", "stake.cards"],
        {
            "stake.floats/nine-floats",
            "stake.mines/stake-page-nonce-23@pick-and-remove",
            "stake.cards/hilo-52",
        },
    ),
    # the older two-part message client_seed:nonce
    "two-part-message": (
        ["stake.bytes", "stake.keno"],
        {"stake.bytes/round-0", "stake.keno/stake-page-nonce-0@pick-and-remove"},
    ),
    # keno squares reported from 0
    "keno-from-zero": (["stake.keno"], {"stake.keno/stake-page-nonce-0@pick-and-remove"}),
    # the usual suit-major deck
    "suit-major": (
        ["stake.video_poker", "stake.cards"],
        {"stake.video_poker/stake-page-nonce-0@pick-and-remove", "stake.cards/baccarat-6"},
    ),
    # the 1e8 formula the game-events page has printed for Limbo
    "limbo-1e8": (
        ["stake.limbo"],
        {"stake.limbo/differs-from-1e8-101@truncate", "stake.limbo/differs-from-1e8-225@truncate"},
    ),
    # dealt cards removed in Blackjack / Hilo / Baccarat too
    "cards-removed": (["stake.cards"], {"stake.cards/hilo-52", "stake.cards/repeated-card"}),
    # the client seed trimmed
    "trimmed-client-seed": (["stake.bytes"], {"stake.bytes/trailing-space-client-seed"}),
}


@pytest.mark.parametrize("mistake", WRONG_PORTS)
def test_a_wrong_port_is_caught(mistake: str, tmp_path: Path) -> None:
    """Only the vectors named run (``-k``): each run costs a second of start-up, not of
    vectors; the right port passes the same vectors (the bundled-adapter runs)."""
    algorithms, caught = WRONG_PORTS[mistake]
    selection = [part for algorithm in algorithms for part in ("--algorithm", algorithm)]
    chosen = [part for vector_id in sorted(caught) for part in ("-k", vector_id)]
    report = tmp_path / "report.json"
    port = misbehaving("--mistakes", __file__, "--mistake", mistake)
    done = fairvec("run", *selection, *chosen, "--json", report, *port)
    results = done.report(report)["results"]
    assert done.status == 1, done.stderr[-500:]
    assert {r["id"] for r in results if r["status"] == "fail"} == caught


# --- the wrong port itself -------------------------------------------------------------------


def _wrap(algorithm_id: str, change: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
    """Replace a registered algorithm with one whose output ``change`` rewrites."""
    found = registry()[algorithm_id]

    @functools.wraps(found.function)  # keeps the signature the input check compares
    def wrong(**arguments: Any) -> dict[str, Any]:
        return change(found.function(**arguments))

    registry()[algorithm_id] = Algorithm(found.id, wrong, found.variants)


def _break(mistake: str) -> None:
    right_roll, right_limbo, right_crash = (
        stake.dice_roll,
        stake.limbo_multiplier,
        stake.crash_point,
    )
    right_picks, right_bytes = stake.shuffle_picks, stake.round_bytes
    if mistake == "round":
        stake.dice_roll = lambda value, reading: right_roll(value, "round")
        stake.limbo_multiplier = lambda value, reading: right_limbo(value, "round")
        stake.crash_point = lambda digest, reading: right_crash(digest, "round")
    elif mistake == "swap":
        other = {"pick-and-remove": "swap-from-end", "swap-from-end": "pick-and-remove"}
        stake.shuffle_picks = lambda floats, size, reading: right_picks(
            floats, size, other[reading]
        )
    elif mistake == "hex-key":

        def hex_key(server_seed: str, client_seed: str, nonce: int, round_: int) -> bytes:
            key = (
                bytes.fromhex(server_seed)
                if re.fullmatch(r"([0-9a-fA-F]{2})*", server_seed)
                else server_seed.encode()
            )
            message = f"{client_seed}:{nonce}:{round_}".encode()
            return hmac.new(key, message, hashlib.sha256).digest()

        stake.round_bytes = hex_key
    elif mistake == "raw-hash-key":

        def raw_key(game_hash: str, salt: str) -> str:
            return hmac.new(bytes.fromhex(game_hash), salt.encode(), hashlib.sha256).hexdigest()

        stake.crash_hmac = raw_key
    elif mistake == "little-endian":
        stake.float_from_bytes = lambda chunk: int.from_bytes(chunk, "little") / 2**32
    elif mistake == "one-round":

        def one_round(server_seed: str, client_seed: str, nonce: int, cursor: int) -> Any:
            data = right_bytes(server_seed, client_seed, nonce, 0)
            position = cursor % 32
            while True:
                yield data[position]
                position = (position + 1) % 32

        stake.byte_generator = one_round
    elif mistake == "two-part-message":
        stake.hmac_message = lambda client_seed, nonce, round_: f"{client_seed}:{nonce}"
    elif mistake == "keno-from-zero":
        _wrap(
            "stake.keno",
            lambda out: {
                **out,
                "hits": [h - 1 for h in out["hits"]],
                "squares": [s - 1 for s in out["squares"]],
            },
        )
    elif mistake == "suit-major":
        stake.card_name = lambda index: stake.RANKS[index % 13] + stake.SUITS[index // 13]
    elif mistake == "limbo-1e8":

        def printed(value: float, reading: str) -> tuple[int, float, str]:
            result = max(1.0, math.floor(1e8 / (value * 1e8) * 0.99 * 100) / 100)
            return math.floor(value * 16777216), result, stake.to_fixed(result, 2)

        stake.limbo_multiplier = printed
    elif mistake == "cards-removed":
        _wrap(
            "stake.cards",
            lambda out: {
                **out,
                "indices": (picks := stake.pick_and_remove(out["floats"], 52)[1]),
                "cards": [stake.card_name(i) for i in picks],
            },
        )
    elif mistake == "trimmed-client-seed":
        stake.round_bytes = lambda server_seed, client_seed, nonce, round_: right_bytes(
            server_seed, client_seed.strip(), nonce, round_
        )
    else:
        raise SystemExit(f"unknown mistake {mistake!r}")


def make_mistake(mistake: str) -> None:
    """The wrong port: tests/adapters/misbehaving.py answers with the reference so broken."""
    _break(mistake)
