"""A vector file's quick check (fastjsonschema, fairvec.vectorfiles._quickly_valid) only
ever says yes where jsonschema says yes: a yes it gave alone would let a broken file
through unchecked. Every committed file, and thousands of broken ones drawn from them."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest

from fairvec import vectorfiles
from fairvec.errors import FairvecError

# The draws' palette: every JSON type, the edges of the schema's bounds and patterns.
REPLACEMENTS: list[Any] = [
    None, True, False, 0, 1, -1, 1.0, 1.5, 0.5, "", "x", "x\n", "0" * 64, "0" * 64 + "\n",
    "g" * 64, "A" * 64, "battle.move/fire", "battle.move/fire\n", "Battle.move/x",
    "battle.move/fire@v", "battle.move/-x", "bad code", "bad-code", [], [1], ["a", "a"],
    ["a", "b"], {}, {"error": "x"}, {"output": 1}, {"error": "x", "output": 1},
    "default", "full", "fairvec-vectors/1", "fairvec-accumulated/1",
]  # fmt: skip


def jsonschema_says_valid(data: Any) -> bool:
    return next(iter(JSONSCHEMA.iter_errors(data)), None) is None


JSONSCHEMA = jsonschema.Draft202012Validator(vectorfiles.vector_schema())


def small_files() -> Iterator[tuple[str, dict[str, Any]]]:
    """Committed files cut to a few vectors (and their one accumulated vector), so that a
    draw is checked in milliseconds; together every part of the schema is reached."""
    for name in ("battle/move.json", "bustabit/vx_game.json", "stake/dice.json"):
        data = json.loads((vectorfiles.default_vectors_root() / name).read_text("utf-8"))
        errors = [vector for vector in data["vectors"][4:] if "error" in vector["expected"]]
        data["vectors"] = data["vectors"][:4] + errors[:2]
        data["accumulated"] = data.get("accumulated", [])[:1]
        yield name, data


def places(data: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every path to a value inside ``data``."""
    yield path
    if isinstance(data, dict):
        for key, value in data.items():
            yield from places(value, (*path, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            yield from places(value, (*path, index))


def broken(data: dict[str, Any], draw: random.Random) -> dict[str, Any]:
    """``data`` with one to three changes: a value replaced, a key dropped or added, an
    array item doubled."""
    changed = copy.deepcopy(data)
    for _ in range(draw.randint(1, 3)):
        path = draw.choice(list(places(changed))[1:])
        parent = changed
        for part in path[:-1]:
            parent = parent[part]
        last = path[-1]
        how = draw.randrange(4)
        if how == 0 or (isinstance(parent, list) and how == 1):
            parent[last] = copy.deepcopy(draw.choice(REPLACEMENTS))
        elif how == 1:
            del parent[last]
        elif how == 2 and isinstance(parent, dict):
            parent[draw.choice(["extra", "id", "tags", "why", "input"])] = draw.choice(
                REPLACEMENTS
            )
        elif isinstance(parent, list):
            parent.append(copy.deepcopy(parent[last]))
    return changed


def test_every_committed_file_is_quickly_valid() -> None:
    for path in vectorfiles.vector_file_paths(vectorfiles.default_vectors_root()):
        assert vectorfiles._quickly_valid(json.loads(path.read_text("utf-8"))), path


@pytest.mark.parametrize("name_and_data", list(small_files()), ids=lambda pair: pair[0])
def test_no_quick_yes_where_jsonschema_says_no(name_and_data: tuple[str, Any]) -> None:
    name, data = name_and_data
    draw = random.Random(f"vector quick check/{name}")
    refused = 0
    for _ in range(400):
        drawn = broken(data, draw)
        valid = jsonschema_says_valid(drawn)
        if vectorfiles._quickly_valid(drawn):
            assert valid, drawn
        refused += not valid
    assert refused > 140  # the draws do break the files (not a test of nothing)


def test_a_newline_before_the_end_is_left_to_jsonschema() -> None:
    # fastjsonschema's "$" is the end of the text, Python's also matches before a final
    # newline: the quick check says no, jsonschema yes, and jsonschema's word is the verdict
    data = dict(next(small_files())[1])
    data["algorithm"] += "\n"
    assert not vectorfiles._quickly_valid(data)
    vectorfiles.validate_vector_file(data, "f.json")  # no error: as before the quick check


def test_a_quick_no_still_gets_jsonschema_s_message() -> None:
    data = dict(next(small_files())[1])
    data["format"] = "fairvec-vectors/2"
    with pytest.raises(FairvecError, match=r"^f\.json: format: 'fairvec-vectors/1' was expected"):
        vectorfiles.validate_vector_file(data, "f.json")
