"""The battle game (seed 001): the reference's rules, the vectors' coverage, and
realistic wrong ports that the vectors must catch."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from support import REPO, run_port

from fairvec.reference import InvalidInput, compute
from fairvec.reference.battle import attack_from_ticket, damage_from_ticket, input_string

WRONG_PORT = Path(__file__).resolve().parent / "adapters" / "wrong_battle.py"


def vectors(name: str) -> list[dict[str, Any]]:
    data = json.loads((REPO / "vectors" / "battle" / f"{name}.json").read_text(encoding="utf-8"))
    found: list[dict[str, Any]] = data["vectors"]
    return found


# The document's table: "0 - 19: Miss, 20 - 51: Super Active, 52 - 99: Regular" (code: "Hit").
@pytest.mark.parametrize(
    ("ticket", "outcome"),
    [
        (0, "Miss"),
        (19, "Miss"),
        (20, "Super Active"),
        (51, "Super Active"),
        (52, "Hit"),
        (99, "Hit"),
        (119, "Miss"),
        (4294967295, "Hit"),
    ],
)
def test_attack_table_bounds(ticket: int, outcome: str) -> None:
    assert attack_from_ticket(ticket) == (ticket % 100, outcome)


def test_damage_ranges_follow_the_document() -> None:
    # "between 25 and 45 inclusive" and "between 46 and 60 inclusive"
    assert {damage_from_ticket(t, "Hit") for t in range(1000)} == set(range(25, 46))
    assert {damage_from_ticket(t, "Super Active") for t in range(1000)} == set(range(46, 61))
    assert {damage_from_ticket(t, "Miss") for t in range(1000)} == {0}


def test_input_string_is_the_documents_template() -> None:
    text = input_string("move", "S", "B", "0xAbC", 12, 2)
    assert text == "move:S:B:0xAbC:12:2"


def test_the_reference_rejects_bad_rounds_with_the_specs_codes() -> None:
    base = {"server_seed": "s", "battle_id": "b", "player_address": "a", "player_number": 1}
    with pytest.raises(InvalidInput) as raised:
        compute("battle.move", {**base, "round_num": 0})
    assert raised.value.code == "round-out-of-range"
    with pytest.raises(InvalidInput) as raised:
        compute("battle.move", {**base, "round_num": "1"})
    assert raised.value.code == "wrong-type"


def test_attack_vectors_cover_every_boundary_ticket_and_outcome() -> None:
    outputs = [v["expected"].get("output", {}) for v in vectors("attack")]
    assert {19, 20, 51, 52, 0, 99} <= {o.get("ticket") for o in outputs}
    assert {o.get("attack") for o in outputs} >= {"Miss", "Super Active", "Hit"}


def test_move_and_damage_vectors_cover_every_outcome_and_bound() -> None:
    assert {
        v["expected"]["output"]["move"] for v in vectors("move") if "output" in v["expected"]
    } == {"fire", "grass", "water"}
    damages = {
        v["expected"]["output"]["damage"] for v in vectors("damage") if "output" in v["expected"]
    }
    assert {0, 25, 45, 46, 60} <= damages


def test_address_case_changes_the_input_string_vectors() -> None:
    by_name = {v["provenance"].get("case"): v for v in vectors("input_string")}
    mixed, lower = by_name["address-mixed-case"], by_name["address-lower-case"]
    assert mixed["input"]["player_address"].lower() == lower["input"]["player_address"]
    assert mixed["expected"] != lower["expected"]


@pytest.mark.parametrize(
    ("mistake", "caught_in"),
    [
        ("lower-address", "battle.move/random-"),
        ("regular", "battle.attack/hit"),
        ("four-hex", "battle.ticket/all-f"),
        ("signed", "battle.ticket/high-bit-set"),
        ("int32-round", "battle.move/round-max"),
        ("case-sensitive-commitment", "battle.commitment/upper-case-hash"),
    ],
)
def test_a_wrong_port_is_caught(mistake: str, caught_in: str) -> None:
    algorithms = ["battle.ticket", "battle.move", "battle.attack", "battle.commitment"]
    run = run_port([sys.executable, WRONG_PORT, mistake], algorithms)
    assert run.done.status == 1
    assert any(vector_id.startswith(caught_in) for vector_id in run.failed), run.failed
    assert "output differs at" in run.done.stdout or "got error" in run.done.stdout
