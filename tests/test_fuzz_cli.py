"""``fairvec fuzz``: the bundled adapters agree with the reference on random inputs, a
wrong port the committed vectors miss is caught, runs replay, mismatches shrink, and the
input space covers what the spec and spec/fuzz.yaml promise."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from support import HANG, REPO, fairvec

from fairvec.fuzz.plan import AlgorithmPlan, Drawn
from fairvec.fuzz.report import dump_yaml
from fairvec.fuzz.space import load_space
from fairvec.reference import InvalidInput, compute
from fairvec.specs import load_spec, spec_schema

WRONG_PORT = Path(__file__).resolve().parent / "adapters" / "fuzz_wrong_port.py"
SPEC_ROOT = REPO / "spec"
# A small run over every algorithm: each gets a few inputs of every start (generated set,
# case, schema, event), valid and invalid.
EVERY_ALGORITHM = ["--seed", "20240601", "--count", "3"]


def wrong_port(mistake: str) -> list[str]:
    return ["--", sys.executable, str(WRONG_PORT), mistake]


def documents(stdout: str) -> list[dict[str, Any]]:
    """The YAML documents a run prints (the summary after them is not YAML)."""
    body = stdout.split("\nalgorithm ", 1)[0]
    return [doc for doc in yaml.safe_load_all(body.split("\n", 1)[1]) if doc]


def plan(algorithm: str) -> AlgorithmPlan:
    family, name = algorithm.split(".", 1)
    spec = load_spec(SPEC_ROOT / family / f"{name}.yaml", SPEC_ROOT)
    return AlgorithmPlan(spec, load_space().for_algorithm(algorithm), spec.variants)


def draws(algorithm: str, count: int, seed: str = "7") -> list[Drawn]:
    chosen = plan(algorithm)
    return [chosen.draw(seed, index) for index in range(count)]


def answer(drawn: Drawn) -> dict[str, Any]:
    try:
        return {"output": compute(drawn.algorithm, drawn.input, drawn.variant)}
    except InvalidInput as error:
        return {"error": error.code}


# ----- the command against adapters -----


@pytest.mark.heavy
def test_the_bundled_python_adapter_has_no_mismatch() -> None:
    done = fairvec("fuzz", "--bundled", "python", *EVERY_ALGORITHM)
    assert done.status == 0, done.stdout[-3000:] + done.stderr
    assert "; 0 mismatch(es)" in done.stdout
    assert "seed 20240601" in done.stdout.splitlines()[0]


# The bundled Node adapter: tests/test_cross_port.py (a larger fixed-seed run, every
# disagreement a failure).


@pytest.mark.parametrize("mistake", ["lower-hex-server-seed", "trim-client-seed"])
def test_a_wrong_port_the_committed_vectors_pass_is_caught(mistake: str) -> None:
    committed = fairvec("run", "--algorithm", "casino.crash", *wrong_port(mistake))
    assert committed.status == 0, committed.stdout[-2000:]
    done = fairvec(
        "fuzz",
        "--algorithm",
        "casino.crash",
        "--seed",
        "11",
        "--count",
        "150",
        *wrong_port(mistake),
    )
    assert done.status == 1, done.stdout[-2000:] + done.stderr
    found = documents(done.stdout)
    assert found, done.stdout[-2000:]
    case_schema = {"$defs": spec_schema()["$defs"], "$ref": "#/$defs/case"}
    for document in found:
        assert document["algorithm"] == "casino.crash"
        jsonschema.validate(document["case"], case_schema)  # pastes into a spec as it is
        case = document["case"]
        variant = case.get("variants", [None])[0]
        wanted = {"output": compute("casino.crash", case["input"], variant)}
        assert document["expected"] == wanted  # the reference's value, computed again here
        assert document["got"] != wanted


def test_the_same_seed_replays_the_same_run() -> None:
    arguments = ["fuzz", "--algorithm", "casino.crash", "--count", "60", "--max-details", "50"]
    runs = [fairvec(*arguments, "--seed", seed, *wrong_port("trim-client-seed")) for seed in "112"]
    first, again, other = (documents(run.stdout) for run in runs)
    assert first and first == again
    assert first != other
    assert all(run.status == 1 for run in runs)


def test_shrink_gives_a_smaller_input_that_still_disagrees() -> None:
    done = fairvec(
        "fuzz",
        "--algorithm",
        "casino.crash",
        "--seed",
        "11",
        "--count",
        "150",
        "--shrink",
        "--max-details",
        "1",
        *wrong_port("lower-hex-server-seed"),
    )
    (document,) = documents(done.stdout)
    replay = next(line for line in done.stdout.splitlines() if line.startswith("replay: "))
    assert "--shrink --shrink-attempts 300 --max-details 1" in replay  # the same report again
    shrunk, original = document["case"]["input"], document["original_input"]
    assert len(json.dumps(shrunk)) < len(json.dumps(original))
    variant = document["case"].get("variants", [None])[0]
    assert document["expected"] == {"output": compute("casino.crash", shrunk, variant)}
    assert document["got"] != document["expected"]
    assert "shrunk" in document["found"]


def test_a_bad_input_space_is_one_line_naming_the_place(tmp_path: Path) -> None:
    space = yaml.safe_load((SPEC_ROOT / "fuzz.yaml").read_text(encoding="utf-8"))
    space["algorithms"]["casino.numbers"]["events"][0]["weight"] = "often"
    bad = tmp_path / "fuzz.yaml"
    bad.write_text(yaml.safe_dump(space), encoding="utf-8")
    done = fairvec("fuzz", "--space", bad, "--bundled", "python")
    assert done.status == 2
    assert done.stderr.count("\n") == 1, done.stderr
    assert "algorithms/casino.numbers/events/0/weight" in done.stderr


def test_a_length_drawn_beyond_a_million_characters_is_refused(tmp_path: Path) -> None:
    """A typo (a hundred million) ran for as long as --seconds allowed: a hang, to a user."""
    space = yaml.safe_load((SPEC_ROOT / "fuzz.yaml").read_text(encoding="utf-8"))
    space["strings"]["length"] = [0, 100_000_000]
    bad = tmp_path / "fuzz.yaml"
    bad.write_text(yaml.safe_dump(space), encoding="utf-8")
    done = fairvec("fuzz", "--space", bad, "--count", "5", "--bundled", "python", timeout=HANG)
    assert done.status == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "strings/length/1: 100000000 is greater than the maximum of 1000000" in done.stderr


def test_an_unknown_algorithm_in_the_space_is_named(tmp_path: Path) -> None:
    space = yaml.safe_load((SPEC_ROOT / "fuzz.yaml").read_text(encoding="utf-8"))
    space["algorithms"]["casino.nope"] = {"invalid": 0.5}
    bad = tmp_path / "fuzz.yaml"
    bad.write_text(yaml.safe_dump(space), encoding="utf-8")
    done = fairvec("fuzz", "--space", bad, "--bundled", "python")
    assert done.status == 2
    assert "algorithms/casino.nope: no spec has this id" in done.stderr


# ----- the input space -----


def test_draws_depend_only_on_seed_algorithm_and_index() -> None:
    chosen = plan("videopoker.game")
    assert chosen.draw("1", 5) == chosen.draw("1", 5)
    assert chosen.draw("1", 5) != chosen.draw("2", 5)
    assert chosen.draw("1", 5).input != chosen.draw("1", 6).input


@pytest.mark.heavy  # 1,500 draws
def test_text_fields_get_the_kinds_real_engines_send() -> None:
    seeds = [d.input.get("client_seed") for d in draws("casino.crash", 1500)]
    texts = [s for s in seeds if isinstance(s, str)]
    checks = {
        "empty": lambda s: s == "",
        "leading or trailing space": lambda s: s != "" and s != s.strip(),
        "20,000 characters": lambda s: len(s) >= 20_000,
        "Cyrillic": lambda s: any("\u0400" <= c <= "\u04ff" for c in s),
        "CJK": lambda s: any("\u4e00" <= c <= "\u9fff" for c in s),
        "emoji": lambda s: any("\U0001f300" <= c <= "\U0001f9ff" for c in s),
        "combining mark": lambda s: any("\u0300" <= c <= "\u036f" for c in s),
        "astral plane 14 or above": lambda s: any(ord(c) >= 0xE0000 for c in s),
        "upper-case hex": lambda s: len(s) > 1 and all(c in "0123456789ABCDEF" for c in s),
    }
    missing = [name for name, check in checks.items() if not any(map(check, texts))]
    assert not missing
    assert any(not isinstance(s, str) for s in seeds)  # and some of the wrong type


@pytest.mark.heavy  # 1,500 draws
def test_integers_reach_every_boundary_of_their_range() -> None:
    drawn = [d.input.get("cursor") for d in draws("casino.bytes", 1500)]
    cursors = {value for value in drawn if type(value) is int}  # True == 1 in Python
    for boundary in (0, 2**31 - 1, 2**31, 2**32, 2**53 - 1):
        assert boundary in cursors, boundary
    assert -1 in cursors and 2**53 in cursors  # the neighbours outside, invalid


def test_the_rare_numeric_events_happen() -> None:
    numbers = [answer(d) for d in draws("casino.numbers", 300)]
    assert any(1.0 in a.get("output", {}).get("numbers", []) for a in numbers)
    cards = [answer(d) for d in draws("videopoker.cards", 300)]
    assert {"error": "hash-exhausted"} in cards
    ties = {compute("casino.crash_outcome", c["input"])["scaled"] for c in _tie_cases()}
    outcomes = [answer(d) for d in draws("casino.crash_outcome", 600)]
    drawn_ties = {a["output"]["scaled"] for a in outcomes if "output" in a} & ties
    assert len(drawn_ties) >= 2


def _tie_cases() -> list[dict[str, Any]]:
    spec = load_spec(SPEC_ROOT / "casino" / "crash_outcome.yaml", SPEC_ROOT)
    quirk = next(q for q in spec.data["quirks"] if "tie-127" in q["exercised_by"])
    return [c for c in spec.data["cases"] if c["name"] in quirk["exercised_by"]]


@pytest.mark.heavy  # draws for every algorithm
@pytest.mark.parametrize("algorithm", ["battle.move", "nardy.rolls", "tenhou.game", "casino.mines"])
def test_every_algorithm_gets_valid_and_invalid_inputs(algorithm: str) -> None:
    answers = [answer(d) for d in draws(algorithm, 300)]
    codes = {a["error"] for a in answers if "error" in a}
    outputs = sum("output" in a for a in answers)
    assert outputs >= len(answers) / 3  # valid inputs, deep in the algorithm, stay common
    assert len(codes) >= 3, codes


@pytest.mark.heavy  # draws for every algorithm
def test_every_drawn_input_survives_the_yaml_it_is_reported_in() -> None:
    for algorithm in ("casino.crash", "tenhou.seat_order", "videopoker.hash", "nardy.rolls"):
        for drawn in draws(algorithm, 150):
            assert yaml.safe_load(dump_yaml({"input": drawn.input})) == {"input": drawn.input}
