"""Tenhou's own data under upstream/tenhou/, as vectors for the tenhou family.

The data is vendored unmodified in the repository (upstream/PROVENANCE.md, with the
licences); every loader takes the folder that holds ``upstream/``: the repository root.

- ``validation/2016022509gm-0009-0000-b327da61.*``: Tenhou's published validation data for
  one game (collected in the MIT-licensed tenhou-shuffle crate, summivox/riichi-rs,
  ``tenhou-shuffle/test_data/``): the seed, the 624 seed words, ``src`` (288 words),
  ``rnd`` (144 words), the shuffled wall, the mjlog XML and the tenhou.net/6 JSON log.
  The ``*_u32`` and ``wall136`` files are Rust array literals.
- ``mjlog/*.mjlog``: 33 real game logs (MIT-licensed mjx project, mjx-project/mjx,
  ``tests_py/resources/mjlog/``). Each has a SHUFFLE seed and, per hand, an INIT tag:
  ``seed="round,honba,riichi sticks,dice0,dice1,dora indicator"``, ``oya`` (the dealer)
  and ``hai0``..``hai3`` (the starting hands, in the order they were dealt).

Only the standard library is used (re, xml.etree); malformed data raises
:class:`UpstreamDataError` naming the file and the problem.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from fairvec.upstream_loaders import UpstreamCase, UpstreamDataError

SHUFFLE_PREFIX = "mt19937ar-sha512-n288-base64,"
VALIDATION_GAME = "2016022509gm-0009-0000-b327da61"
RUST_ELEMENT = re.compile(r"(0x[0-9A-Fa-f]+|[0-9]+)(u8|u32)?")
SANMA_FLAG = 0x10  # GO type bit for a three-player game


# --- reading the files ----------------------------------------------------------------


def _relative(data: Path, path: Path) -> str:
    return path.relative_to(data).as_posix()


def _read(data: Path, path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as error:
        raise UpstreamDataError(
            f"{_relative(data, path)}: cannot read: {error.strerror}"
        ) from None


def rust_array(data: Path, path: Path, length: int) -> list[int]:
    """``[0x85B04666u32,0xE7C12A95,...,]`` or ``[22u8,91,...,]``: a trailing comma is allowed."""
    text = _read(data, path).strip()
    where = _relative(data, path)
    if not (text.startswith("[") and text.endswith("]")):
        raise UpstreamDataError(f"{where}: not a Rust array literal [ ... ]")
    items = [item.strip() for item in text[1:-1].split(",")]
    if items and items[-1] == "":
        items.pop()
    values = []
    for index, item in enumerate(items):
        match = RUST_ELEMENT.fullmatch(item)
        if match is None:
            raise UpstreamDataError(f"{where}: element {index} {item[:20]!r} is not an integer")
        values.append(int(match.group(1), 0))
    if len(values) != length:
        raise UpstreamDataError(f"{where}: {len(values)} elements, expected {length}")
    return values


def _parse_xml(data: Path, path: Path) -> ET.Element:
    try:
        return ET.fromstring(_read(data, path))
    except ET.ParseError as error:
        raise UpstreamDataError(
            f"{_relative(data, path)}: not well-formed XML: {error}"
        ) from None


def _int_list(text: str, where: str) -> list[int]:
    if text == "":
        return []
    try:
        return [int(part) for part in text.split(",")]
    except ValueError:
        raise UpstreamDataError(f"{where}: {text[:40]!r} is not a list of integers") from None


def _attribute(element: ET.Element, name: str, where: str) -> str:
    value = element.get(name)
    if value is None:
        raise UpstreamDataError(f"{where}: <{element.tag}> has no {name} attribute")
    return value


def shuffle_seed(root: ET.Element, where: str) -> str:
    """The base64 seed of the game's SHUFFLE tag (the attribute without its method prefix)."""
    tag = root.find("SHUFFLE")
    if tag is None:
        raise UpstreamDataError(f"{where}: no <SHUFFLE> tag")
    value = _attribute(tag, "seed", where)
    if not value.startswith(SHUFFLE_PREFIX):
        raise UpstreamDataError(f"{where}: SHUFFLE seed does not start with {SHUFFLE_PREFIX!r}")
    return value[len(SHUFFLE_PREFIX) :]


def player_count(root: ET.Element, where: str) -> int:
    go = root.find("GO")
    if go is None:
        raise UpstreamDataError(f"{where}: no <GO> tag")
    try:
        game_type = int(_attribute(go, "type", where))
    except ValueError:
        raise UpstreamDataError(f"{where}: GO type is not an integer") from None
    return 3 if game_type & SANMA_FLAG else 4


def init_tag(init: ET.Element, place: str, players: int) -> dict[str, Any]:
    """One INIT tag as dice, dora indicator, dealer and the four hands."""
    fields = _int_list(_attribute(init, "seed", place), place)
    if len(fields) != 6:
        raise UpstreamDataError(f"{place}: seed has {len(fields)} fields, expected 6")
    haipai = [_int_list(init.get(f"hai{seat}", ""), place) for seat in range(4)]
    sizes = [len(hand) for hand in haipai]
    if sizes != [13] * players + [0] * (4 - players):
        raise UpstreamDataError(f"{place}: hands of {sizes} tiles")
    return {
        "dealer": int(_attribute(init, "oya", place)),
        "dice": fields[3:5],
        "dora_indicator": fields[5],
        "haipai": haipai,
    }


def init_tags(root: ET.Element, where: str, players: int) -> list[dict[str, Any]]:
    """Each INIT tag as dice, dora indicator, dealer and the four hands."""
    hands = [
        init_tag(init, f"{where}: INIT #{number}", players)
        for number, init in enumerate(root.iter("INIT"), start=1)
    ]
    if not hands:
        raise UpstreamDataError(f"{where}: no <INIT> tags")
    return hands


def game_case(data: Path, path: Path) -> UpstreamCase:
    where = _relative(data, path)
    root = _parse_xml(data, path)
    seed = shuffle_seed(root, where)
    players = player_count(root, where)
    hands = init_tags(root, where, players)
    return {
        "name": path.name.split(".")[0].lower(),
        "input": {
            "seed": seed,
            "dealers": [hand["dealer"] for hand in hands],
            "players": players,
        },
        "states": {
            "dice": [hand["dice"] for hand in hands],
            "dora_indicators": [hand["dora_indicator"] for hand in hands],
            "haipai": [hand["haipai"] for hand in hands],
        },
        "provenance": {
            "file": where,
            "where": f"SHUFFLE seed; INIT tags 1-{len(hands)} (seed dice, dora; oya; hai0-hai3)",
        },
    }


# --- the validation game, stage by stage ----------------------------------------------


def _validation(data: Path, suffix: str) -> Path:
    return data / "upstream" / "tenhou" / "validation" / f"{VALIDATION_GAME}.{suffix}"


def _validation_words(data: Path, suffix: str, length: int) -> list[int]:
    return rust_array(data, _validation(data, suffix), length)


def _validation_game(data: Path) -> UpstreamCase:
    return game_case(data, _validation(data, "xml"))


def _provenance(data: Path, *suffixes: str) -> dict[str, Any]:
    files = [_relative(data, _validation(data, suffix)) for suffix in suffixes]
    return {"file": files[0], "also": files[1:], "source": "summivox/riichi-rs tenhou-shuffle"}


def validation_seed(data: Path) -> Iterator[UpstreamCase]:
    """The SHUFFLE attribute of the validation log → the 624 seed words of ``seed_u32``."""
    seed = _validation_game(data)["input"]["seed"]
    stated = _read(data, _validation(data, "seed_str")).strip().strip('"')
    if stated != seed:
        raise UpstreamDataError(f"{VALIDATION_GAME}.seed_str differs from the xml's SHUFFLE seed")
    yield {
        "name": VALIDATION_GAME,
        "input": {"shuffle": SHUFFLE_PREFIX + seed},
        "states": {"words": _validation_words(data, "seed_u32", 624)},
        "provenance": _provenance(data, "xml", "seed_str", "seed_u32"),
    }


def validation_mt(data: Path) -> Iterator[UpstreamCase]:
    """init_by_array(seed words) → the first 288 outputs, ``src`` of the first hand."""
    yield {
        "name": VALIDATION_GAME,
        "input": {"key": _validation_words(data, "seed_u32", 624), "count": 288},
        "states": {"outputs": _validation_words(data, "src_u32", 288)},
        "provenance": _provenance(data, "seed_u32", "src_u32"),
    }


def validation_rnd(data: Path) -> Iterator[UpstreamCase]:
    yield {
        "name": VALIDATION_GAME,
        "input": {"src": _validation_words(data, "src_u32", 288)},
        "states": {"rnd": _validation_words(data, "rnd_u32", 144)},
        "provenance": _provenance(data, "src_u32", "rnd_u32"),
    }


def validation_shuffle(data: Path) -> Iterator[UpstreamCase]:
    yield {
        "name": VALIDATION_GAME,
        "input": {"rnd": _validation_words(data, "rnd_u32", 144), "players": 4},
        "states": {"yama": _validation_words(data, "wall136", 136)},
        "provenance": _provenance(data, "rnd_u32", "wall136"),
    }


def validation_dice(data: Path) -> Iterator[UpstreamCase]:
    hand = _validation_game(data)["states"]
    yield {
        "name": VALIDATION_GAME,
        "input": {"rnd": _validation_words(data, "rnd_u32", 144)},
        "states": {"dice": hand["dice"][0]},
        "provenance": _provenance(data, "rnd_u32", "xml"),
    }


def validation_deal(data: Path) -> Iterator[UpstreamCase]:
    game = _validation_game(data)
    yield {
        "name": VALIDATION_GAME,
        "input": {
            "yama": _validation_words(data, "wall136", 136),
            "dealer": game["input"]["dealers"][0],
        },
        "states": {"haipai": game["states"]["haipai"][0]},
        "provenance": _provenance(data, "wall136", "xml"),
    }


def validation_game(data: Path) -> Iterator[UpstreamCase]:
    yield _validation_game(data)


def _json_log(data: Path) -> list[Any]:
    path = _validation(data, "json")
    try:
        document = json.loads(_read(data, path))
        hand: list[Any] = document["log"][0]
    except (json.JSONDecodeError, KeyError, IndexError, TypeError):
        raise UpstreamDataError(f"{_relative(data, path)}: not a tenhou.net/6 JSON log") from None
    if len(hand) < 17:
        raise UpstreamDataError(f"{_relative(data, path)}: the hand has {len(hand)} fields")
    return hand


def _tile_sort_key(code: int) -> float:
    """tenhou.net/6 sorts a red five (51-53) just before the other fives of its suit."""
    return (code - 50) * 10 + 4.5 if code > 50 else code


def validation_tiles(data: Path) -> Iterator[UpstreamCase]:
    """Tile ids of the mjlog against the codes of the same hand's tenhou.net/6 JSON log.

    Draws pair up exactly (the n-th draw of a seat in the XML is the n-th number in that
    seat's JSON draw list; calls appear there as strings and are skipped). The starting
    hands are sorted in the JSON, so they pair up by sorting both sides; the dora
    indicator pairs with the JSON's dora list.
    """
    root = _parse_xml(data, _validation(data, "xml"))
    where = _relative(data, _validation(data, "xml"))
    log = _json_log(data)
    init = init_tags(root, where, 4)[0]
    pairs: dict[int, tuple[int, str]] = {}

    def pair(tile: int, code: Any, place: str) -> None:
        if not isinstance(code, int):
            raise UpstreamDataError(f"{where}: {place}: JSON entry {code!r} is not a tile")
        if pairs.get(tile, (code, ""))[0] != code:
            raise UpstreamDataError(f"{where}: tile {tile} pairs with two codes")
        pairs.setdefault(tile, (code, place))

    pair(init["dora_indicator"], log[2][0], "dora indicator")
    for seat in range(4):
        xml_hand, json_hand = init["haipai"][seat], log[4 + 3 * seat]
        for tile, code in zip(sorted(xml_hand), sorted(json_hand, key=_tile_sort_key), strict=True):
            pair(tile, code, f"hai{seat}")
    draws: list[list[int]] = [[], [], [], []]
    for element in root:
        match = re.fullmatch(r"([TUVW])([0-9]+)", element.tag)
        if match:
            draws["TUVW".index(match.group(1))].append(int(match.group(2)))
    for seat in range(4):
        taken = [code for code in log[5 + 3 * seat] if isinstance(code, int)]
        for number, (tile, code) in enumerate(zip(draws[seat], taken, strict=True), start=1):
            pair(tile, code, f"draw {number} of seat {seat}")
    for tile, (code, place) in sorted(pairs.items()):
        yield {
            "name": f"tile-{tile}",
            "input": {"tile": tile, "players": 4, "red": True},
            "states": {"tenhou6": code},
            "provenance": {**_provenance(data, "xml", "json"), "where": place},
        }


# --- the 34 real games ----------------------------------------------------------------


def mjlog_games(data: Path) -> Iterator[UpstreamCase]:
    """Every game log: the seed, each hand's dealer, and what each INIT tag states."""
    folder = data / "upstream" / "tenhou" / "mjlog"
    paths = sorted(folder.glob("*.mjlog"))
    if not paths:
        raise UpstreamDataError(f"{_relative(data, folder)}: no .mjlog files")
    for path in paths:
        yield game_case(data, path)


def mjlog_names(data: Path) -> Iterator[UpstreamCase]:
    """Each game's UN tag n0..n3 as the log writes them (the logs state no seat order)."""
    folder = data / "upstream" / "tenhou" / "mjlog"
    for path in sorted(folder.glob("*.mjlog")):
        where = _relative(data, path)
        un = _parse_xml(data, path).find("UN")
        if un is None:
            raise UpstreamDataError(f"{where}: no <UN> tag")
        yield {
            "name": path.name.split(".")[0].lower(),
            "input": {"names": [_attribute(un, f"n{seat}", where) for seat in range(4)]},
            "states": {},
            "provenance": {"file": where, "where": "UN tag n0-n3"},
        }


# --- the wall as libraries give it: one hand's wall, its tiles in draw order ----------
#
# tenhou.hand_wall and tenhou.wall_tiles take a game's seed and a hand index. What a log
# shows of a hand's wall is read here into *draw-order positions* (position p is the
# p-th tile to leave the wall, yama[N-1-p]; spec/tenhou/wall_tiles.yaml), from the log
# alone: the deal (INIT hai0..hai3 in deal order, blocks 4, 4, 4, 1 from the dealer), the
# ordinary draws (T/U/V/W tags), the replacement draw after a kan, the dora indicators
# (INIT seed, DORA tags, AGARI doraHai) and the ura indicators (AGARI doraHaiUra). Two
# tiles at one position, or one tile at two, is an error: the reading is checked against
# every log as it is built. The validation game's whole wall (wall136) must agree with
# every position its log shows; tests/test_tenhou_views.py checks the reference's views
# against every position of every hand of the 33 logs.

HAND_TILES = 13
DEAL_BLOCKS = (4, 4, 4, 1)
DEAD_WALL = 14
RINSHAN_POSITIONS = (2, 1, 4, 3)  # N - these: yama[1], yama[0], yama[3], yama[2]
DRAW_TAG = re.compile(r"([TUVW])([0-9]+)")
DISCARD_TAG = re.compile(r"[DEFG][0-9]+")
FIVES = (4, 13, 22)  # kinds of 5m, 5p, 5s


def deal_positions(dealer: int, players: int) -> list[list[int]]:
    """Per seat, the draw-order positions its 13 starting tiles come from, in deal order."""
    positions: list[list[int]] = [[] for _ in range(4)]
    position = 0
    for block in DEAL_BLOCKS:
        for turn in range(players):
            seat = (dealer + turn) % players
            positions[seat].extend(range(position, position + block))
            position += block
    return positions


class HandReveal(dict[int, int]):
    """Draw-order position → tile id, for every tile a log shows of one hand's wall."""

    def __init__(self, where: str, size: int) -> None:
        super().__init__()
        self.where = where
        self.size = size
        self.counts = dict.fromkeys(("haipai", "draws", "rinshan", "dora", "ura"), 0)

    def show(self, position: int, tile: int, what: str) -> None:
        if not 0 <= position < self.size:
            raise UpstreamDataError(f"{self.where}: {what}: position {position} is off the wall")
        if self.get(position, tile) != tile:
            raise UpstreamDataError(
                f"{self.where}: {what}: position {position} holds {self[position]} and {tile}"
            )
        if tile in self.values() and self.get(position) != tile:
            raise UpstreamDataError(f"{self.where}: {what}: tile {tile} at two positions")
        if position not in self:
            self.counts[what] += 1
        self[position] = tile


def _tile_list(element: ET.Element, name: str, where: str) -> list[int]:
    return _int_list(element.get(name, ""), where)


def hand_reveals(root: ET.Element, where: str, players: int) -> list[HandReveal]:
    """Every hand of one log as the positions of its wall the log shows."""
    size = 136 if players == 4 else 108
    hands: list[HandReveal] = []
    reveal: HandReveal | None = None
    draws = kans = doras = 0
    pending: int | None = None
    for element in root:
        tag = element.tag
        if tag == "INIT":
            place = f"{where}: INIT #{len(hands) + 1}"
            init = init_tag(element, place, players)
            reveal = HandReveal(place, size)
            hands.append(reveal)
            draws = kans = 0
            doras = 1
            pending = None
            for seat, positions in enumerate(deal_positions(init["dealer"], players)):
                for position, tile in zip(positions, init["haipai"][seat], strict=True):
                    reveal.show(position, tile, "haipai")
            reveal.show(size - 6, init["dora_indicator"], "dora")
            continue
        if reveal is None:
            continue
        draw = DRAW_TAG.fullmatch(tag)
        if draw:
            tile, who = int(draw.group(2)), "TUVW".index(draw.group(1))
            if pending == who:  # the draw after a kan comes from the dead wall
                if kans >= len(RINSHAN_POSITIONS):
                    raise UpstreamDataError(f"{reveal.where}: a fifth kan")
                reveal.show(size - RINSHAN_POSITIONS[kans], tile, "rinshan")
                kans, pending = kans + 1, None
            else:
                reveal.show(HAND_TILES * players + draws, tile, "draws")
                draws += 1
        elif tag == "N":
            pending = int(_attribute(element, "who", reveal.where))
        elif DISCARD_TAG.fullmatch(tag):
            pending = None
        elif tag == "DORA":
            reveal.show(size - 6 - 2 * doras, int(_attribute(element, "hai", reveal.where)), "dora")
            doras += 1
        elif tag == "AGARI":
            for number, tile in enumerate(_tile_list(element, "doraHai", reveal.where)):
                reveal.show(size - 6 - 2 * number, tile, "dora")
            for number, tile in enumerate(_tile_list(element, "doraHaiUra", reveal.where)):
                reveal.show(size - 5 - 2 * number, tile, "ura")
    if not hands:
        raise UpstreamDataError(f"{where}: no <INIT> tags")
    return hands


def _mjlog_paths(data: Path) -> list[Path]:
    folder = data / "upstream" / "tenhou" / "mjlog"
    paths = sorted(folder.glob("*.mjlog"))
    if not paths:
        raise UpstreamDataError(f"{_relative(data, folder)}: no .mjlog files")
    return paths


def log_reveals(data: Path) -> Iterator[tuple[str, dict[str, Any], list[HandReveal]]]:
    """Each log (the validation game's first, then the 33 mjlog files): its name, the
    tenhou.game input (seed, dealers, players) and what it shows of each hand's wall."""
    for path in [_validation(data, "xml"), *_mjlog_paths(data)]:
        game, reveals = _game_hands(data, path)
        yield game["name"], game["input"], reveals


def _game_hands(data: Path, path: Path) -> tuple[UpstreamCase, list[HandReveal]]:
    game = game_case(data, path)
    players = game["input"]["players"]
    return game, hand_reveals(_parse_xml(data, path), game["provenance"]["file"], players)


def _hand_input(game: UpstreamCase, hand: int) -> dict[str, Any]:
    return {"seed": game["input"]["seed"], "hand": hand, "players": game["input"]["players"]}


def _hand_name(game: str, hand: int) -> str:
    return f"{game}-hand-{hand:02d}"


def _hand_provenance(data: Path, path: Path, hand: int, reveal: HandReveal) -> dict[str, Any]:
    shown = ", ".join(f"{count} {what}" for what, count in reveal.counts.items())
    return {
        "file": _relative(data, path),
        "where": f"SHUFFLE seed; INIT tag {hand + 1} (hand {hand}); the log shows {shown}",
    }


def _checked_validation_wall(data: Path) -> list[int]:
    """wall136, checked against every position of the wall the validation log shows."""
    yama = _validation_words(data, "wall136", 136)
    where = _relative(data, _validation(data, "xml"))
    (reveal,) = hand_reveals(_parse_xml(data, _validation(data, "xml")), where, 4)
    for position, tile in sorted(reveal.items()):
        if yama[len(yama) - 1 - position] != tile:
            raise UpstreamDataError(
                f"{where}: draw-order position {position} shows {tile}; wall136 has "
                f"{yama[len(yama) - 1 - position]} there"
            )
    return yama


def validation_hand_wall(data: Path) -> Iterator[UpstreamCase]:
    """The validation seed, hand 0 → wall136, after wall136 agrees with the log's wall."""
    game = _validation_game(data)
    yield {
        "name": VALIDATION_GAME,
        "input": {"seed": game["input"]["seed"], "hand": 0, "players": 4},
        "states": {"yama": _checked_validation_wall(data)},
        "provenance": _provenance(data, "xml", "wall136"),
    }


def mjlog_hand_walls(data: Path) -> Iterator[UpstreamCase]:
    """Every hand of the 33 logs: its seed and index; its shown positions are checked here
    for consistency and by tests/test_tenhou_views.py against the reference's wall."""
    for path in _mjlog_paths(data):
        game, reveals = _game_hands(data, path)
        for hand, reveal in enumerate(reveals):
            yield {
                "name": _hand_name(game["name"], hand),
                "input": _hand_input(game, hand),
                "states": {},
                "provenance": _hand_provenance(data, path, hand, reveal),
            }


def tile_label(tile: int) -> tuple[str, int]:
    """A four-player tile id as its name (red five 0m/0p/0s) and tenhou.net/6 code: the
    loader's own reading, checked against the validation game's JSON log before use."""
    kind = tile // 4
    suited = kind < 27
    number = kind % 9 + 1 if suited else kind - 26
    suit = "mps"[kind // 9] if suited else "z"
    if kind in FIVES and tile % 4 == 0:
        return f"0{suit}", 51 + kind // 9
    return f"{number}{suit}", (kind // 9 + 1) * 10 + number if suited else 40 + number


def _validation_labels(data: Path) -> list[tuple[str, int]]:
    """wall136 in draw order as labels; every tile the JSON log codes must agree."""
    for case in validation_tiles(data):
        tile, code = case["input"]["tile"], case["states"]["tenhou6"]
        if tile_label(tile)[1] != code:
            raise UpstreamDataError(f"{VALIDATION_GAME}.json codes tile {tile} as {code}")
    return [tile_label(tile) for tile in reversed(_checked_validation_wall(data))]


def _validation_tiles_case(data: Path, labels: list[tuple[str, int]]) -> UpstreamCase:
    return {
        "name": VALIDATION_GAME,
        "input": {"seed": _validation_game(data)["input"]["seed"], "hand": 0},
        "states": {"tiles": [name for name, _ in labels], "tenhou6": [code for _, code in labels]},
        "provenance": _provenance(data, "xml", "wall136", "json"),
    }


def validation_wall_tiles(data: Path) -> Iterator[UpstreamCase]:
    """wall136 read from its last item (the first tile dealt) to its first."""
    yield _validation_tiles_case(data, _validation_labels(data))


def validation_wall_tiles_yama_order(data: Path) -> Iterator[UpstreamCase]:
    """wall136 as it stands: its last item is the first tile dealt."""
    yield _validation_tiles_case(data, _validation_labels(data)[::-1])


def mjlog_last_hand_tiles(data: Path) -> Iterator[UpstreamCase]:
    """The last hand of each of the 33 logs (the furthest into its generator)."""
    for path in _mjlog_paths(data):
        game, reveals = _game_hands(data, path)
        hand = len(reveals) - 1
        yield {
            "name": _hand_name(game["name"], hand),
            "input": _hand_input(game, hand),
            "states": {},
            "provenance": _hand_provenance(data, path, hand, reveals[hand]),
        }
