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


def init_tags(root: ET.Element, where: str, players: int) -> list[dict[str, Any]]:
    """Each INIT tag as dice, dora indicator, dealer and the four hands."""
    hands = []
    for number, init in enumerate(root.iter("INIT"), start=1):
        place = f"{where}: INIT #{number}"
        fields = _int_list(_attribute(init, "seed", place), place)
        if len(fields) != 6:
            raise UpstreamDataError(f"{place}: seed has {len(fields)} fields, expected 6")
        haipai = [_int_list(init.get(f"hai{seat}", ""), place) for seat in range(4)]
        sizes = [len(hand) for hand in haipai]
        if sizes != [13] * players + [0] * (4 - players):
            raise UpstreamDataError(f"{place}: hands of {sizes} tiles")
        hands.append(
            {
                "dealer": int(_attribute(init, "oya", place)),
                "dice": fields[3:5],
                "dora_indicator": fields[5],
                "haipai": haipai,
            }
        )
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
