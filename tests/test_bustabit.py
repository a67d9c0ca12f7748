"""bustabit's hash chain and crash points: the real games of the research file, the
definitions checked independently of the reference, the edge cases' claims, and wrong
ports that the vectors must catch.

Run as a script (``python tests/test_bustabit.py MISTAKE``) this file is itself an
adapter: the reference with one porting mistake, for the end-to-end test through the
runner.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from fairvec.jsonio import json_equal
from fairvec.reference import InvalidInput, bustabit, compute

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
RESEARCH = REPO.parent / "shared" / "research" / "hash-chain-and-stake.md"
E = 2**52
HASH = re.compile(r"\b[0-9a-f]{64}\b")


def vector_file(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(
        (REPO / "vectors" / "bustabit" / f"{name}.json").read_text(encoding="utf-8")
    )
    return data


def vectors(name: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = vector_file(name)["vectors"]
    return found


def quick(name: str) -> list[dict[str, Any]]:
    """The vectors a test can afford to recompute: all but the long chain walks."""
    return [v for v in vectors(name) if "slow" not in v["tags"]]


def output(vector: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = vector["expected"]["output"]
    return found


def named(name: str, case: str, variant: str) -> dict[str, Any]:
    return next(v for v in vectors(name) if v["id"] == f"bustabit.{name}/{case}@{variant}")


ALGORITHMS = [
    "previous_hash",
    "chain_check",
    "crash_v2_outcome",
    "crash_v2",
    "crash_v1_outcome",
    "crash_v1",
    "games",
]


# --- the real games --------------------------------------------------------------------------


def research_section() -> str:
    if not RESEARCH.is_file():
        pytest.skip(f"the research file is not at {RESEARCH}")
    text = RESEARCH.read_text(encoding="utf-8")
    return text[text.index("## bustabit") :]


def test_every_real_game_hash_of_the_research_file_is_a_worked_example() -> None:
    """Every full game hash in the bustabit section is the input of a vector carrying the
    values the research file states (salts and terminating hashes are not game hashes)."""
    section = research_section()
    named_constants = {
        "00000000000000000001e08b7fd44f95e3e950ac65650a8031a6d5e1750e34be",
        "567a98370fb7545137ddb53687723cf0b8a1f5e93b1f76f4a1da29416930fa59",
        "0000000000000000004d6ec16dafe9d8370958664c1dc422f452892264c59526",
        "86728f5fc3bd99db94d3cdaf105d67788194e9701bf95d049ad0e1ee3d004277",
        "0000000000000000000fa3b65e43e4240d71762a5bf397d5304b2596d116859c",
        "77b271fe12fca03c618f63dfb79d4105726ba9d4a25bb3f1964e435ccf9cb209",  # Roobet, no value
    }
    game_hashes = set(HASH.findall(section)) - named_constants
    assert len(game_hashes) == 4
    stated = [v for name in ALGORITHMS for v in vectors(name) if "document-example" in v["tags"]]
    for game_hash in game_hashes:
        carrying = {
            v["id"].split("/")[0] for v in stated if v["input"].get("game_hash") == game_hash
        }
        assert carrying == {"bustabit.chain_check", "bustabit.crash_v2", "bustabit.games"}, (
            game_hash
        )


def test_the_stated_values_are_the_expected_ones() -> None:
    stated = [v for name in ALGORITHMS for v in vectors(name) if "document_states" in v]
    assert len(stated) == 6 + 4 + 4  # chain checks, single crash points, game lists
    for vector in stated:
        for key, value in vector["document_states"].items():
            assert json_equal(output(vector)[key], value), vector["id"]


def test_the_research_files_bust_values_and_steps_are_the_vectors() -> None:
    section = " ".join(research_section().split())
    listed = re.search(r"bust at ([0-9., ]+?)\s*\(", section)
    steps = re.search(r"reaches the current terminating hash after ([0-9,]+) steps", section)
    assert listed is not None and steps is not None
    values = [float(value) for value in listed.group(1).rstrip(",").split(", ")]
    assert output(named("games", "real-games-12424169", "raw-bytes"))["crashes"] == values
    walk = output(named("chain_check", "real-game-12424169", "raw-bytes"))
    assert walk["steps"] == int(steps.group(1).replace(",", ""))


def test_roobets_chain_walks_start_from_the_researchs_prefixes() -> None:
    """The research file gives Roobet's two hashes by prefix with their step counts."""
    section = " ".join(research_section().split())
    stated = re.search(
        r"`([0-9a-f]{8})\.\.\.` and `([0-9a-f]{8})\.\.\.` reach the first game after "
        r"([0-9,]+) and ([0-9,]+) steps",
        section,
    )
    assert stated is not None
    first, second, steps_first, steps_second = stated.groups()
    for prefix, steps in ((first, steps_first), (second, steps_second)):
        count = int(steps.replace(",", ""))
        vector = named("chain_check", f"real-roobet-{count}", "hex-text")
        assert vector["input"]["game_hash"].startswith(prefix)
        assert output(vector)["steps"] == count


def test_the_hex_text_message_gives_the_researchs_other_value() -> None:
    """The research file: HMAC over the hex text gives 3.46 for game 1,398,378."""
    vector = named("crash_v2", "real-game-1398378", "bustabit")
    game_hash, salt = vector["input"]["game_hash"], vector["input"]["salt"]
    wrong = hmac.new(salt.encode(), game_hash.encode(), hashlib.sha256).hexdigest()
    assert bustabit.v2_output(wrong, "bustabit")["crash"] == 3.46
    assert output(vector)["crash"] == 2055.9


# --- the definitions, independently of the reference -------------------------------------------


def test_previous_hash_is_sha256_of_the_bytes_or_the_text() -> None:
    for vector in quick("previous_hash"):
        if "expected" in vector and "output" in vector["expected"]:
            game_hash = vector["input"]["game_hash"]
            data = (
                bytes.fromhex(game_hash) if vector["variant"] == "raw-bytes" else game_hash.encode()
            )
            assert output(vector)["previous_hash"] == hashlib.sha256(data).hexdigest()


def test_the_short_chain_cases_are_real_chains() -> None:
    for vector in quick("chain_check"):
        inputs = vector["input"]
        if "output" not in vector["expected"] or not output(vector)["reached"]:
            continue
        value = inputs["game_hash"]
        for _ in range(output(vector)["steps"]):
            data = bytes.fromhex(value) if vector["variant"] == "raw-bytes" else value.encode()
            value = hashlib.sha256(data).hexdigest()
        assert value == inputs["terminating_hash"], vector["id"]
        assert output(vector)["game_number"] == inputs["terminating_game"] + output(vector)["steps"]


def test_hmacs_key_and_message() -> None:
    for vector in quick("crash_v2"):
        if "output" in vector["expected"]:
            game_hash, salt = vector["input"]["game_hash"], vector["input"]["salt"]
            expected = hmac.new(salt.encode(), bytes.fromhex(game_hash), hashlib.sha256)
            assert output(vector)["hmac"] == expected.hexdigest()
    for vector in quick("crash_v1"):
        if "output" in vector["expected"]:
            game_hash, salt = vector["input"]["game_hash"], vector["input"]["salt"]
            expected = hmac.new(game_hash.encode(), salt.encode(), hashlib.sha256)
            assert output(vector)["hmac"] == expected.hexdigest()


def test_v2_crash_points_match_exact_arithmetic_below_a_billion() -> None:
    """Exact integers agree with the doubles wherever the crash point is below 10^9."""
    checked = 0
    for vector in quick("crash_v2_outcome"):
        if "output" not in vector["expected"] or vector["variant"] != "bustabit":
            continue
        r = int(vector["input"]["hmac"][:13], 16)
        assert output(vector)["r"] == r and output(vector)["x"] == r / E
        exact = max(100, 99 * E // (E - r))
        if exact < 10**11:
            assert output(vector)["crash"] == exact / 100, vector["id"]
            checked += 1
    assert checked > 300


def test_v1_crash_points_match_exact_arithmetic_below_a_billion() -> None:
    moduli = {"bustabit": (101, 0), "roobet": (33, 1)}
    checked = 0
    for vector in quick("crash_v1_outcome"):
        if "output" not in vector["expected"]:
            continue
        text = vector["input"]["hmac"]
        modulus, instant_crash = moduli[vector["variant"]]
        instant = int(text, 16) % modulus == 0
        assert output(vector)["instant"] is instant
        r = int(text[:13], 16)
        exact = (100 * E - r) // (E - r)
        if instant:
            assert output(vector)["crash"] == instant_crash
        elif exact < 10**11:
            assert output(vector)["crash"] == exact / 100, vector["id"]
            checked += 1
    assert checked > 500


def test_games_are_the_chain_with_each_crash_point() -> None:
    for vector in quick("games"):
        if "output" not in vector["expected"]:
            continue
        hashes, crashes = output(vector)["hashes"], output(vector)["crashes"]
        assert hashes[0] == vector["input"]["game_hash"]
        assert len(hashes) == len(crashes) == vector["input"]["count"]
        for newer, older in itertools.pairwise(hashes):
            data = bytes.fromhex(newer) if vector["variant"] == "raw-bytes" else newer.encode()
            assert hashlib.sha256(data).hexdigest() == older
        for game_hash, crash in zip(hashes, crashes, strict=True):
            inputs = {"game_hash": game_hash, "salt": vector["input"]["salt"]}
            assert compute("bustabit.crash_v2", inputs, "bustabit")["crash"] == crash


# --- the edge cases say what they are ------------------------------------------------------------


def r_of(case: str, name: str = "crash_v2_outcome") -> int:
    return int(named(name, case, "bustabit")["input"]["hmac"][:13], 16)


def v2(r: int, reading: str = "bustabit") -> Any:
    return bustabit.v2_multiplier(r, reading)[1]


def test_v2_edges() -> None:
    last, first = r_of("last-crash-at-one"), r_of("first-crash-above-one")
    assert first == last + 1 and v2(last) == 1 and v2(first) == 1.01
    assert 99 / (1 - r_of("exactly-100") / E) == 100.0
    assert r_of("r-max") == E - 1 and r_of("r-zero") == 0
    r = r_of("times-0-01-differs")
    assert math.floor(99 / (1 - r / E)) == 163 and 163 * 0.01 != 163 / 100
    r = r_of("precision-changes-result")
    assert v2(r) != v2(r, "bcgame")
    assert v2(r_of("precision-reaches-one"), "bcgame") == math.inf
    r = r_of("exact-arithmetic-differs")
    assert math.floor(99 / (1 - r / E)) != 99 * E // (E - r)
    x = r_of("precision-tie") / E
    assert x == 2**-13 and float(f"{x:.9g}") != bustabit.to_precision_9(x)


def test_v1_edges() -> None:
    def whole(case: str) -> int:
        return int(named("crash_v1_outcome", case, "bustabit")["input"]["hmac"], 16)

    assert whole("instant-at-101") % 101 == 0 and whole("instant-at-101") % 33 != 0
    assert whole("instant-at-33") % 33 == 0 and whole("instant-at-33") % 101 != 0
    assert whole("instant-at-both") % 3333 == 0
    first_bits = r_of("first-bits-divisible", "crash_v1_outcome")
    assert first_bits % 101 == 0 and whole("first-bits-divisible") % 101 != 0
    last, first = (
        r_of("last-crash-at-one", "crash_v1_outcome"),
        r_of("first-crash-above-one", "crash_v1_outcome"),
    )
    assert first == last + 1
    assert bustabit.v1_multiplier(last) == 1 and bustabit.v1_multiplier(first) == 1.01
    r = r_of("exact-arithmetic-differs", "crash_v1_outcome")
    assert bustabit.v1_multiplier(r) != (100 * E - r) // (E - r) / 100


def test_to_precision_9_rounds_the_exact_value_ties_up() -> None:
    assert bustabit.to_precision_9(2**-13) == 0.000122070313
    assert bustabit.to_precision_9(0.0) == 0.0
    assert bustabit.to_precision_9(1 - 2**-52) == 1.0
    assert bustabit.to_precision_9(1e-7 + 1e-20) == 1e-7  # exponent form in JavaScript


def test_errors_have_their_codes() -> None:
    game = "4488d92d89d0ed7fbb2ea23b219d569f63207e32fc44b957858838835c1719f1"
    salt = "00000000000000000001e08b7fd44f95e3e950ac65650a8031a6d5e1750e34be"
    wrong = {
        ("bustabit.previous_hash", "bad-hash"): {"game_hash": game.upper()},
        ("bustabit.crash_v2", "bad-salt"): {"game_hash": game, "salt": salt[:-1]},
        ("bustabit.crash_v1_outcome", "bad-hmac"): {"hmac": "0x" + game[2:]},
        ("bustabit.games", "count-out-of-range"): {"game_hash": game, "salt": salt, "count": 0},
    }
    for (algorithm_id, code), inputs in wrong.items():
        with pytest.raises(InvalidInput) as raised:
            compute(algorithm_id, inputs)
        assert raised.value.code == code


# --- wrong ports the vectors catch ---------------------------------------------------------------


def failing(name: str) -> set[str]:
    """Ids of the quick vectors of ``bustabit.<name>`` the (patched) reference gets wrong."""
    failed = set()
    for vector in quick(name):
        try:
            got: dict[str, Any] = {
                "output": compute(f"bustabit.{name}", vector["input"], vector["variant"])
            }
        except InvalidInput as error:
            got = {"error": error.code}
        if not json_equal(got, vector["expected"]):
            failed.add(vector["id"].split("/", 1)[1])
    return failed


def _exact_v2(r: int, reading: str) -> tuple[float, float]:
    x = r / E
    return x, max(1.0, (99 * E // (E - r)) / 100)


def _times_0_01(r: int, reading: str) -> tuple[float, float]:
    x = r / E if reading == "bustabit" else bustabit.to_precision_9(r / E)
    return x, max(1.0, math.floor(99 / (1 - x)) * 0.01) if x < 1 else math.inf


def _swapped(rule: str) -> str:
    return "hex-text" if rule == "raw-bytes" else "raw-bytes"


RIGHT_PREVIOUS, RIGHT_WALK = bustabit.previous_hash, bustabit.walk_chain

MISTAKES: dict[str, tuple[Callable[[Any], None], str, set[str]]] = {
    # name: (patch, algorithm, vectors that must be among those caught)
    "hmac-over-hex-text": (
        lambda m: m.setattr(
            bustabit,
            "v2_hmac",
            lambda h, s: hmac.new(s.encode(), h.hex().encode(), hashlib.sha256).hexdigest(),
        ),
        "crash_v2",
        {"real-game-1398378@bustabit", "real-game-12424169@bustabit"},
    ),
    "salt-hex-decoded": (
        lambda m: m.setattr(
            bustabit,
            "v2_hmac",
            lambda h, s: hmac.new(bytes.fromhex(s), h, hashlib.sha256).hexdigest(),
        ),
        "crash_v2",
        {"real-game-1398378@bustabit", "real-game-3760795@bustabit"},
    ),
    "games-hmac-over-hex-text": (
        lambda m: m.setattr(
            bustabit,
            "v2_hmac",
            lambda h, s: hmac.new(s.encode(), h.hex().encode(), hashlib.sha256).hexdigest(),
        ),
        "games",
        {"real-games-1394728@hex-text", "real-games-12424169@raw-bytes"},
    ),
    "times-0-01": (
        lambda m: m.setattr(bustabit, "v2_multiplier", _times_0_01),
        "crash_v2_outcome",
        {"times-0-01-differs@bustabit"},
    ),
    "exact-integers-v2": (
        lambda m: m.setattr(bustabit, "v2_multiplier", _exact_v2),
        "crash_v2_outcome",
        {"exact-arithmetic-differs@bustabit"},
    ),
    "exact-integers-v1": (
        lambda m: m.setattr(bustabit, "v1_multiplier", lambda r: (100 * E - r) // (E - r) / 100),
        "crash_v1_outcome",
        {"exact-arithmetic-differs@bustabit", "exact-arithmetic-differs@roobet"},
    ),
    "printf-precision": (
        lambda m: m.setattr(bustabit, "to_precision_9", lambda x: float(f"{x:.9g}")),
        "crash_v2_outcome",
        {"precision-tie@bcgame"},
    ),
    "bcgame-without-precision": (
        lambda m: m.setattr(bustabit, "to_precision_9", lambda x: x),
        "crash_v2_outcome",
        {"precision-changes-result@bcgame", "precision-reaches-one@bcgame"},
    ),
    "divisible-first-bits": (
        lambda m: m.setattr(bustabit, "divisible", lambda h, mod: int(h[:13], 16) % mod == 0),
        "crash_v1_outcome",
        {"first-bits-divisible@bustabit", "r-zero@bustabit", "instant-at-101@bustabit"},
    ),
    "divisible-parse-int": (
        lambda m: m.setattr(bustabit, "divisible", lambda h, mod: float(int(h, 16)) % mod == 0),
        "crash_v1_outcome",
        {"instant-at-101@bustabit", "instant-at-33@roobet"},
    ),
    "roobet-instant-zero": (
        lambda m: m.setattr(bustabit, "V1_INSTANT_CRASH", {"bustabit": 0.0, "roobet": 0.0}),
        "crash_v1_outcome",
        {"instant-at-33@roobet", "instant-at-both@roobet"},
    ),
    "v1-key-and-message-swapped": (
        lambda m: m.setattr(
            bustabit,
            "v1_hmac",
            lambda g, s: hmac.new(s.encode(), g.encode(), hashlib.sha256).hexdigest(),
        ),
        "crash_v1",
        {"roobet-first-game@roobet", "bustabit-v1-salt@bustabit"},
    ),
    "chain-rule-swapped": (
        lambda m: m.setattr(
            bustabit, "previous_hash", lambda h, rule: RIGHT_PREVIOUS(h, _swapped(rule))
        ),
        "previous_hash",
        {"real-game-12424169@raw-bytes", "real-game-1398378@hex-text"},
    ),
    "walk-with-the-other-rule": (
        lambda m: m.setattr(
            bustabit, "walk_chain", lambda g, t, n, rule: RIGHT_WALK(g, t, n, _swapped(rule))
        ),
        "chain_check",
        {"nine-games-down@raw-bytes", "three-games-down@hex-text"},
    ),
    "bound-one-short": (
        lambda m: m.setattr(
            bustabit, "walk_chain", lambda g, t, n, rule: RIGHT_WALK(g, t, max(n - 1, 0), rule)
        ),
        "chain_check",
        {"nine-games-down@raw-bytes", "three-games-down@hex-text"},
    ),
}


@pytest.mark.parametrize("mistake", sorted(MISTAKES))
def test_a_wrong_port_is_caught(mistake: str, monkeypatch: pytest.MonkeyPatch) -> None:
    patch, name, must_catch = MISTAKES[mistake]
    assert not failing(name)  # the right port passes
    patch(monkeypatch)
    assert must_catch <= failing(name)


def test_a_wrong_port_is_caught_through_the_runner() -> None:
    from support import misbehaving, run_port

    port = misbehaving("--mistakes", __file__, "--mistake", "times-0-01")[1:]
    run = run_port(port, ["bustabit.crash_v2_outcome"])
    assert run.done.status == 1, run.done.stderr
    assert "bustabit.crash_v2_outcome/times-0-01-differs@bustabit" in run.failed
    assert run.total == len([v for v in vectors("crash_v2_outcome") if "shape" not in v["tags"]])


# --- as a script: the reference with one mistake, as an adapter ---------------------------------


class _Patcher:
    """monkeypatch.setattr for a script run: patches for the life of the process."""

    def setattr(self, target: Any, name: str, value: Any) -> None:
        setattr(target, name, value)


def make_mistake(mistake: str) -> None:
    """The wrong port: tests/adapters/misbehaving.py answers with the reference so broken."""
    MISTAKES[mistake][0](_Patcher())
