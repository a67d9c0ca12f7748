"""The Tenhou wall as libraries give it: tenhou.hand_wall and tenhou.wall_tiles.

The view is proven against the real data, not only against itself: every tile each real
log shows of a hand's wall (the deal, every draw, every replacement draw after a kan, the
dora and ura indicators) is at the draw-order position spec/tenhou/wall_tiles.yaml defines.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support import REPO

from fairvec.reference import InvalidInput, compute
from fairvec.upstream_loaders import UpstreamDataError
from fairvec.upstream_loaders import tenhou as upstream

DATA = REPO
VALIDATION = DATA / "upstream" / "tenhou" / "validation"
RED_IDS = {4: {16, 52, 88}, 3: {24, 60}}

Port = Callable[[dict[str, Any], str | None], dict[str, Any]]


def vectors(name: str) -> list[dict[str, Any]]:
    path = REPO / "vectors" / "tenhou" / f"{name}.json"
    found: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))["vectors"]
    return found


def failing(name: str, port: Port) -> set[str]:
    """Ids of the vectors with an expected output on which ``port`` gives another output."""
    return {
        vector["id"]
        for vector in vectors(name)
        if "output" in vector["expected"]
        and port(vector["input"], vector["variant"]) != vector["expected"]["output"]
    }


def label(tile: int, players: int = 4, red: bool = True) -> str:
    """tenhou.tile's name, a red five written with 0."""
    named = compute("tenhou.tile", {"tile": tile, "players": players, "red": red})
    return f"0{named['name'][1]}" if named["red"] else str(named["name"])


# --- every real hand ------------------------------------------------------------------


def test_every_tile_every_real_log_shows_is_where_the_view_puts_it() -> None:
    """342 hands (the validation game's and the 33 logs' 341): the deal, every draw,
    replacement draw, dora and ura indicator, in both the ids and the names."""
    counts: Counter[str] = Counter()
    games = 0
    for _name, game_input, reveals in upstream.log_reveals(DATA):
        games += 1
        game = compute("tenhou.game", game_input)
        for hand, reveal in enumerate(reveals):
            hand_input = {"seed": game_input["seed"], "hand": hand, "players": 4}
            yama = compute("tenhou.hand_wall", hand_input)["yama"]
            assert yama == game["yama"][hand], (reveal.where, "the k-th wall of tenhou.game")
            tiles = compute("tenhou.wall_tiles", hand_input, "draw-order")
            for position, tile in reveal.items():
                assert yama[135 - position] == tile, (reveal.where, position)
                assert tiles["tiles"][position] == label(tile), (reveal.where, position)
            counts.update(reveal.counts)
    assert games == 34
    assert counts == {
        "haipai": 342 * 52,
        "draws": 15907,
        "rinshan": 33,
        "dora": 373,
        "ura": 128,
    }


def test_starting_hands_and_dora_read_off_the_list_as_a_library_does() -> None:
    """Slices of the draw-order list (as the public reproducer reads it: the dealer's
    blocks at 0:48:16, ..., its 13th tile at 48) are the logs' INIT hands and dora."""
    hands = 0
    for case in upstream.mjlog_games(DATA):
        for hand, dealer in enumerate(case["input"]["dealers"]):
            wall = compute(
                "tenhou.wall_tiles", {"seed": case["input"]["seed"], "hand": hand}, "draw-order"
            )["tiles"]
            for turn in range(4):
                seat = (dealer + turn) % 4
                dealt = [wall[4 * turn + 16 * block + i] for block in range(3) for i in range(4)]
                dealt.append(wall[48 + turn])
                stated = case["states"]["haipai"][hand][seat]
                assert dealt == [label(tile) for tile in stated], (case["name"], hand, seat)
            assert wall[130] == label(case["states"]["dora_indicators"][hand]), case["name"]
            hands += 1
    assert hands == 341


def test_validation_loaders_state_what_the_reference_computes() -> None:
    for loader, algorithm, variant in (
        (upstream.validation_hand_wall, "tenhou.hand_wall", None),
        (upstream.validation_wall_tiles, "tenhou.wall_tiles", "draw-order"),
        (upstream.validation_wall_tiles_yama_order, "tenhou.wall_tiles", "yama-order"),
    ):
        (case,) = loader(DATA)
        assert compute(algorithm, case["input"], variant) == case["states"], algorithm
    wall136 = upstream.rust_array(DATA, VALIDATION / f"{upstream.VALIDATION_GAME}.wall136", 136)
    (case,) = upstream.validation_wall_tiles_yama_order(DATA)
    assert case["states"]["tiles"] == [label(tile) for tile in wall136]


def test_the_loaders_naming_is_the_references() -> None:
    for tile in range(136):
        named = compute("tenhou.tile", {"tile": tile})
        assert upstream.tile_label(tile) == (label(tile), named["tenhou6"]), tile


# --- the two orders and the red fives -------------------------------------------------


def test_the_two_orders_are_each_others_reverse() -> None:
    by_input: dict[str, dict[str, Any]] = {}
    for vector in vectors("wall_tiles"):
        if "output" in vector["expected"]:
            key = json.dumps(vector["input"], sort_keys=True)
            by_input.setdefault(key, {})[vector["variant"]] = vector["expected"]["output"]
    pairs = [found for found in by_input.values() if len(found) == 2]
    assert len(pairs) >= 90  # cases, generated sets, the validation game, the logs
    for found in pairs:
        for field in ("tiles", "tenhou6"):
            assert found["yama-order"][field] == found["draw-order"][field][::-1]


@pytest.mark.parametrize(
    ("players", "red", "hand"),
    [(4, True, 0), (4, True, 7), (4, False, 2), (3, True, 1), (3, False, 5)],
)
def test_red_fives_are_marked_where_the_ids_say(players: int, red: bool, hand: int) -> None:
    (case,) = upstream.validation_hand_wall(DATA)
    given = {"seed": case["input"]["seed"], "hand": hand, "players": players}
    yama = compute("tenhou.hand_wall", given)["yama"]
    out = compute("tenhou.wall_tiles", {**given, "red": red}, "yama-order")
    reds = RED_IDS[players] if red else set()
    marked = {yama[i] for i, name in enumerate(out["tiles"]) if name.startswith("0")}
    assert marked == reds
    assert {yama[i] for i, code in enumerate(out["tenhou6"]) if code > 50} == reds
    assert len(out["tiles"]) == (136 if players == 4 else 108)
    if players == 3:  # no 2m-8m in a three-player wall
        assert not {name for name in out["tiles"] if name[1] == "m"} - {"1m", "9m"}


# --- wrong ports ----------------------------------------------------------------------


def _right(given: dict[str, Any], variant: str | None) -> dict[str, Any]:
    return compute("tenhou.wall_tiles", given, variant)


def test_a_wrong_order_port_fails_every_vector_of_the_other_variant() -> None:
    def draw_order_always(given: dict[str, Any], variant: str | None) -> dict[str, Any]:
        return _right(given, "draw-order")

    def yama_order_always(given: dict[str, Any], variant: str | None) -> dict[str, Any]:
        return _right(given, "yama-order")

    with_output = [v for v in vectors("wall_tiles") if "output" in v["expected"]]
    of = {variant: {v["id"] for v in with_output if v["variant"] == variant}
          for variant in ("draw-order", "yama-order")}  # fmt: skip
    assert failing("wall_tiles", _right) == set()
    assert failing("wall_tiles", draw_order_always) == of["yama-order"]
    assert failing("wall_tiles", yama_order_always) == of["draw-order"]
    real = {i for i in of["yama-order"] if "/mjlog-" in i or "/validation" in i}
    assert len(real) == 34  # the validation game and the 33 logs


def test_hand_index_mistakes_fail_the_real_hands() -> None:
    def one_based(given: dict[str, Any], variant: str | None) -> dict[str, Any]:
        return compute("tenhou.hand_wall", {**given, "hand": min(given["hand"] + 1, 99)})

    def reseeding(given: dict[str, Any], variant: str | None) -> dict[str, Any]:
        return compute("tenhou.hand_wall", {**given, "hand": 0})

    real = [v for v in vectors("hand_wall") if "/mjlog-" in v["id"]]
    assert len(real) == 341
    wrong_index = failing("hand_wall", one_based)
    assert {v["id"] for v in real} <= wrong_index
    caught = failing("hand_wall", reseeding)
    later = {v["id"] for v in real if v["input"]["hand"] > 0}
    assert len(later) == 308 and later <= caught
    assert not {v["id"] for v in real if v["input"]["hand"] == 0} & caught


# --- bad input and bad data -----------------------------------------------------------


@pytest.mark.parametrize("algorithm", ["tenhou.hand_wall", "tenhou.wall_tiles"])
def test_bad_input_errors_are_one_line(algorithm: str) -> None:
    errors = [v for v in vectors(algorithm.split(".")[1]) if "error" in v["expected"]]
    assert len(errors) >= 10
    for vector in errors:
        with pytest.raises(InvalidInput) as raised:
            compute(algorithm, vector["input"], vector["variant"])
        assert raised.value.code == vector["expected"]["error"], vector["id"]
        assert "\n" not in str(raised.value), vector["id"]


def _validation_copy(tmp_path: Path) -> Path:
    target = tmp_path / "upstream" / "tenhou" / "validation"
    shutil.copytree(VALIDATION, target)
    return target


def test_a_wall_that_disagrees_with_its_log_is_reported(tmp_path: Path) -> None:
    target = _validation_copy(tmp_path)
    path = target / f"{upstream.VALIDATION_GAME}.wall136"
    wall = upstream.rust_array(DATA, VALIDATION / path.name, 136)
    wall[135], wall[0] = wall[0], wall[135]  # the dealer's first tile, into the dead wall
    path.write_text("[" + ",".join(f"{t}u8" for t in wall) + ",]", encoding="utf-8")
    with pytest.raises(UpstreamDataError) as raised:
        list(upstream.validation_hand_wall(tmp_path))
    message = str(raised.value)
    assert "draw-order position 0 shows" in message and "\n" not in message


def test_a_log_that_shows_one_tile_twice_is_reported(tmp_path: Path) -> None:
    target = _validation_copy(tmp_path)
    path = target / f"{upstream.VALIDATION_GAME}.xml"
    text = path.read_text(encoding="utf-8")
    # the dealer's first draw (T33) replaced by the dealer's first dealt tile (127)
    assert text.count("<T33/>") == 1
    path.write_text(text.replace("<T33/>", "<T127/>"), encoding="utf-8")
    with pytest.raises(UpstreamDataError, match=r"INIT #1: draws: tile 127 at two positions"):
        list(upstream.validation_hand_wall(tmp_path))
