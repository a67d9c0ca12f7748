"""The boundary catalogue (fairvec/boundaries.py): every bound of every input schema, every
threshold, escape class and special string class a spec names, with a committed vector on
each side. The catalogue is derived from the specs, so a bound added to a schema is
checked without anyone listing it; the test fails naming each side no vector lies on.
"""

from __future__ import annotations

import copy
import json
import math
import re
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from support import REPO, run_port

from fairvec.boundaries import boundary_vectors, schema_boundaries, spec_boundaries, uncovered
from fairvec.errors import FairvecError
from fairvec.specs import load_specs

MARKED_PORT = Path(__file__).resolve().parent / "adapters" / "marked_port.py"


@cache
def catalogue() -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """(spec, its committed vectors) for every spec."""
    found = []
    for spec in load_specs(REPO / "spec"):
        path = REPO / "vectors" / spec.family / f"{spec.path.stem}.json"
        vectors = json.loads(path.read_text(encoding="utf-8"))["vectors"]
        found.append((spec.data, vectors))
    return found


@pytest.mark.heavy
def test_every_boundary_has_a_vector_on_each_side() -> None:
    missing = [line for spec, vectors in catalogue() for line in uncovered(spec, vectors)]
    assert not missing, "boundaries without a vector on a side:\n" + "\n".join(missing)


def test_the_catalogue_is_large_and_holds_each_kind() -> None:
    boundaries = [b for spec, _vectors in catalogue() for b in spec_boundaries(spec)]
    kinds = {boundary.kind for boundary in boundaries}
    assert kinds == {"value", "item", "length", "text", "pattern"}
    assert len(boundaries) > 300  # every schema bound, string class and listed threshold


def _without(name: str, algorithm: str) -> list[str]:
    spec, vectors = next((s, v) for s, v in catalogue() if s["id"] == algorithm)
    kept = [vector for vector in copy.deepcopy(vectors) if f"/{name}" not in vector["id"]]
    assert len(kept) < len(vectors), name  # the planted removal removed something
    return uncovered(spec, kept)


def test_a_missing_schema_bound_is_named() -> None:
    assert _without("boundary-nonce-maximum-past", "stake.dice") == [
        "stake.dice: nonce maximum 9007199254740991: no vector boundary-nonce-maximum-past"
    ]
    assert _without("boundary-players-enum-max-past", "tenhou.hand_wall") == [
        "tenhou.hand_wall: players enum-max 4: no vector boundary-players-enum-max-past"
    ]


def test_a_missing_era_boundary_is_named() -> None:
    """Game 10,000,000 (the first chain's last game): the vector issue 33 found missing."""
    assert _without("terminating-hash-as-game-10000000", "bustabit.chain_position") == [
        "bustabit.chain_position: game_number between 10000000 and 10000001: "
        "no vector game_number=10000000"
    ]


def test_a_missing_escape_class_is_named() -> None:
    """Every vector with '%' and two non-hex characters taken out (%zz, %GG, fullwidth
    digits): the class is named, and no other."""
    spec, vectors = next((s, v) for s, v in catalogue() if s["id"] == "tenhou.seat_order")
    two_non_hex = re.compile("%[^0-9A-Fa-f%][^0-9A-Fa-f]")
    kept = [
        vector
        for vector in vectors
        if not any(two_non_hex.search(name) for name in vector["input"].get("names") or []
                   if isinstance(name, str))
    ]  # fmt: skip
    assert len(kept) < len(vectors)
    missing = uncovered(spec, kept)
    assert len(missing) == 1 and "'%' and two characters that are not hex digits" in missing[0]


def test_a_missing_marked_string_class_is_named() -> None:
    assert _without("boundary-client-seed-nul", "stake.dice") == [
        "stake.dice: client_seed U+0000 inside: no vector boundary-client-seed-nul"
    ]


def test_a_boundaries_entry_naming_no_bound_is_refused() -> None:
    spec = copy.deepcopy(next(s for s, _v in catalogue() if s["id"] == "stake.dice"))
    spec["boundaries"] = [{"field": "nonce", "bound": "maxItems", "skip_at": "costly"}]
    with pytest.raises(FairvecError, match=r"boundaries/0: no maxItems of 'nonce'"):
        spec_boundaries(spec)
    spec["boundaries"] = [{"field": "round", "values": [1, 2], "text": "t"}]
    with pytest.raises(FairvecError, match=r"boundaries/0: no field 'round'"):
        spec_boundaries(spec)


def test_the_bounds_derived_from_a_schema() -> None:
    schema = {
        "type": "object",
        "properties": {
            "n": {"type": "integer", "minimum": 1, "maximum": 9, "error": "n-range"},
            "x": {"type": "number", "minimum": 0, "maximum": 1, "error": "x-range"},
            "k": {"enum": [3, 4], "type": "integer", "error": "k-bad"},
            "xs": {"type": "array", "minItems": 2, "maxItems": 3, "uniqueItems": True,
                   "error": {"minItems": "count", "maxItems": "count", "uniqueItems": "dup"},
                   "items": {"type": "integer", "minimum": 0, "maximum": 5, "error": "item"}},
            "seed": {"type": "string"},
            "hash": {"type": "string", "pattern": "^[0-9a-f]+$", "error": "bad-hash"},
        },
    }  # fmt: skip
    base = {"n": 5, "x": 0.5, "k": 3, "xs": [1, 2], "seed": "ab", "hash": "00"}
    planned = {p.name: p for p in boundary_vectors(schema_boundaries(schema), schema, base)}
    assert planned["boundary-n-maximum-past"].input["n"] == 10
    assert planned["boundary-n-maximum-past"].code == "n-range"
    assert planned["boundary-x-maximum-past"].input["x"] == math.nextafter(1.0, 2.0)
    assert planned["boundary-x-minimum-past"].input["x"] == -5e-324
    assert planned["boundary-k-enum-min-past"].input["k"] == 2
    assert planned["boundary-k-enum-max-past"].input["k"] == 5
    assert planned["boundary-xs-max-items-at"].input["xs"] == [1, 2, 0]  # unique: a new item
    assert planned["boundary-xs-max-items-past"].input["xs"] == [1, 2, 0, 3]
    assert planned["boundary-xs-min-items-past"].input["xs"] == [1]
    assert planned["boundary-xs-item-maximum-past"].input["xs"] == [6, 2]
    assert planned["boundary-seed-nul"].input["seed"] == "a\x00b"
    assert planned["boundary-seed-leading-mark"].input["seed"] == "\uffffab"
    assert planned["boundary-seed-inner-mark"].input["seed"] == "a\uffffb"
    assert planned["boundary-seed-pair"].input["seed"] == "ab\U0001f600"
    assert not [name for name in planned if "hash" in name]  # a pattern's text is no free text
    assert all(p.input.keys() == base.keys() for p in planned.values())


# A port of a strict language, in the marked encoding, that decodes only the strings with a
# lone surrogate (issue 33, gap 4): the boundary vectors holding U+0000 or beginning with
# U+FFFF catch it; the protocol's own three rows pass in the one that decodes all.
MARKED_ALGORITHMS = ["stake.dice", "casino.dice", "battle.move"]


def test_a_marked_port_decoding_only_lone_surrogates_fails_the_nul_and_mark_vectors() -> None:
    right = run_port([sys.executable, str(MARKED_PORT), *MARKED_ALGORITHMS], MARKED_ALGORITHMS)
    assert right.done.status == 0 and not right.failed, right.done.stdout + right.done.stderr
    wrong = run_port(
        [sys.executable, str(MARKED_PORT), *MARKED_ALGORITHMS, "--surrogates-only"],
        MARKED_ALGORITHMS,
    )
    assert wrong.done.status == 1
    assert wrong.failed and all(
        "-nul" in vector_id or "-leading-mark" in vector_id for vector_id in wrong.failed
    ), sorted(wrong.failed)
    for algorithm in MARKED_ALGORITHMS:  # each family's free-text seeds, both classes
        assert any(f"{algorithm}/boundary-" in v and "-nul" in v for v in wrong.failed)
        assert any(f"{algorithm}/boundary-" in v and "-leading-mark" in v for v in wrong.failed)


# -- gaps found from outside (issue 33): ports that passed every fixed vector before --------

CURRENT_TERMINATING = "567a98370fb7545137ddb53687723cf0b8a1f5e93b1f76f4a1da29416930fa59"


def _worker_reading(given: dict[str, Any]) -> dict[str, Any] | None:
    """bustabit's verifier worker at game 10,000,000 (gameNumber < PREV_CHAIN_LENGTH is
    false, so the current chain, 0 steps); None where it reads as the reference does."""
    if given.get("game_number") != 10_000_000:
        return None
    genuine = given["game_hash"] == CURRENT_TERMINATING
    return {"chain": "current", "steps": 0, "end_hash": given["game_hash"], "genuine": genuine}


def test_a_port_reading_the_bound_as_the_worker_does_fails_a_vector() -> None:
    _spec, vectors = next((s, v) for s, v in catalogue() if s["id"] == "bustabit.chain_position")
    differing = [
        vector["id"]
        for vector in vectors
        if (answer := _worker_reading(vector["input"])) is not None
        and vector["expected"] != {"output": answer}
    ]
    assert differing == ["bustabit.chain_position/terminating-hash-as-game-10000000"]


def _decoded_leniently(name: str) -> bytes:
    """Percent-decoding that reads a character that is no hex digit as 0 (and a short
    escape as far as it goes): the port fuzzing found."""
    out, index = bytearray(), 0
    while index < len(name):
        if name[index] == "%":
            digits = name[index + 1 : index + 3]
            value = sum(
                (int(c, 16) if c in "0123456789abcdefABCDEF" else 0) << (4 * (1 - place))
                for place, c in enumerate(digits)
            )
            out.append(value)
            index += 3
        else:
            out += name[index].encode("utf-8")
            index += 1
    return bytes(out)


def test_a_port_reading_a_non_hex_digit_as_0_fails_the_escape_vectors() -> None:
    _spec, vectors = next((s, v) for s, v in catalogue() if s["id"] == "tenhou.seat_order")
    caught = []
    for vector in vectors:
        names = vector["input"].get("names")
        if vector["expected"] != {"error": "bad-name"} or not isinstance(names, list):
            continue
        try:
            for name in names:
                _decoded_leniently(name).decode("utf-8")
        except (UnicodeDecodeError, AttributeError):
            continue  # this port refuses it too
        caught.append(vector["id"].split("/")[1])
    assert {"escape-two-non-hex", "escape-first-upper-g", "escape-second-lower-g"} <= set(caught)
