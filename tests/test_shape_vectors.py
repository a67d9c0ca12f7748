"""Shape vectors (fairvec/shapes.py): the shared codes as fixed vectors, derived from each
spec's input schema. The rules are checked on a schema of every kind of field; the
committed vectors change their base input in exactly one place; and a lenient port (one
that forgives what the schema forbids, as ports often do) is caught by exactly the rule
aimed at its mistake.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from support import REPO, fairvec

from fairvec.reference import InvalidInput, compute
from fairvec.shapes import LONE_SURROGATE, UNKNOWN_FIELD, shapes

SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["seed", "round", "cards", "flag"],
    "properties": {
        "seed": {"type": "string"},
        "round": {"type": "integer", "minimum": 1, "maximum": 9},
        "cards": {"type": "array", "items": {"type": "integer"}},
        "flag": {"type": "boolean"},
        "nonce": {"type": ["integer", "null"]},
        "ratio": {"type": "number"},
    },
}
RULE_CODES = {
    "unknown": "unknown-field", "missing": "missing-field", "null": "wrong-type",
    "mistyped": "wrong-type", "fraction": "wrong-type", "mistyped-item": "wrong-type",
    "surrogate": "not-unicode-text",
}  # fmt: skip
BASE = {"seed": "ab", "round": 3, "cards": [4, 5], "flag": True, "ratio": 0.25}


def test_each_rule_changes_one_field_as_documented() -> None:
    found = {shape.name: shape for shape in shapes(SCHEMA, BASE)}
    assert found["shape-unknown-field"].input == {**BASE, UNKNOWN_FIELD: 1}
    # only the required fields can be missing
    assert {name for name in found if name.startswith("shape-missing-")} == {
        "shape-missing-seed", "shape-missing-round", "shape-missing-cards", "shape-missing-flag",
    }  # fmt: skip
    assert found["shape-missing-round"].input == {k: v for k, v in BASE.items() if k != "round"}
    assert "shape-null-nonce" not in found  # its schema admits null
    assert found["shape-null-seed"].input["seed"] is None
    assert found["shape-mistyped-round"].input["round"] == "3"  # the number's text
    assert found["shape-mistyped-seed"].input["seed"] == 1
    assert found["shape-mistyped-cards"].input["cards"] == "[4, 5]"
    assert found["shape-mistyped-flag"].input["flag"] == 1
    assert found["shape-mistyped-ratio"].input["ratio"] == "0.25"
    assert found["shape-fraction-round"].input["round"] == 3.5
    assert "shape-fraction-ratio" not in found  # a number may have a fraction
    assert found["shape-mistyped-item-cards"].input["cards"] == ["4", 5]
    assert found["shape-surrogate-seed"].input["seed"] == "ab" + LONE_SURROGATE
    # an optional field the base leaves out is added, with a wrong value
    assert found["shape-fraction-nonce"].input == {**BASE, "nonce": 0.5}
    codes = {shape.code for shape in found.values()}
    assert codes == {"unknown-field", "missing-field", "wrong-type", "not-unicode-text"}


def test_a_fraction_is_kept_where_a_double_can_hold_it() -> None:
    big = {**BASE, "round": 2**53 - 1}
    found = {shape.name: shape for shape in shapes(SCHEMA, big)}
    assert found["shape-fraction-round"].input["round"] == 0.5  # 2^53 - 0.5 is no double


def committed_shapes() -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    """(algorithm, shape vector, the vector it was derived from) for every committed one."""
    found = []
    for path in sorted((REPO / "vectors").glob("*/*.json")):
        if path.name.endswith(".schema.json"):
            continue
        data = json.loads(path.read_text(encoding="utf-8"))
        by_id = {vector["id"]: vector for vector in data["vectors"]}
        for vector in data["vectors"]:
            if "shape" in vector["tags"]:
                found.append((data["algorithm"], vector, by_id[vector["provenance"]["from"]]))
    return found


@pytest.mark.heavy  # every algorithm's shape vectors
def test_every_algorithm_has_shape_vectors_each_one_change_from_a_valid_input() -> None:
    found = committed_shapes()
    algorithms = {f"{path.parent.name}.{path.stem}" for path in REPO.glob("vectors/*/*.json")}
    assert {algorithm for algorithm, _shape, _base in found} == algorithms
    for algorithm, shape, base in found:
        assert "output" in base["expected"], shape["id"]
        changed = {
            key
            for key in set(shape["input"]) | set(base["input"])
            if shape["input"].get(key, KeyError) != base["input"].get(key, KeyError)
        }
        field = shape["provenance"].get("field", UNKNOWN_FIELD)
        assert changed == {field}, (algorithm, shape["id"], changed)


@pytest.mark.heavy  # every committed shape vector
def test_the_expected_code_is_the_references_and_the_rules() -> None:
    for algorithm, shape, _base in committed_shapes():
        with pytest.raises(InvalidInput) as raised:
            compute(algorithm, shape["input"], shape["variant"])
        assert shape["expected"] == {"error": raised.value.code}
        assert raised.value.code == RULE_CODES[shape["provenance"]["shape"]], shape["id"]


# A port answering with the reference, but lenient in one way, as ports often are.
LENIENT_PORT = r"""
import json, sys
from fairvec.reference import InvalidInput, compute, registry

MISTAKE = sys.argv[1]

def forgiven(value):
    if MISTAKE == "drops-unknown-fields":
        value.pop("unknown", None)
    if MISTAKE == "null-is-absent":
        for key in [key for key, item in value.items() if item is None]:
            del value[key]
    if MISTAKE == "parses-numeric-text":
        for key, item in value.items():
            if key in ("round_num", "player_number", "mines_count") and isinstance(item, str):
                value[key] = int(item)
    if MISTAKE == "truncates-fractions":
        for key, item in value.items():
            if isinstance(item, float):
                value[key] = int(item)
    return value

algorithms = {name: list(registry()[name].variants) for name in ("battle.move", "casino.mines")}
hello = {"type": "hello", "protocol": 1, "name": "lenient", "version": MISTAKE,
         "algorithms": algorithms}
print(json.dumps(hello), flush=True)
for line in sys.stdin:
    request = json.loads(line)
    try:
        value = forgiven(request["input"])
        answer = {"output": compute(request["algorithm"], value, request["variant"])}
    except InvalidInput as error:
        answer = {"error": {"code": error.code}}
    print(json.dumps({"id": request["id"], **answer}), flush=True)
"""


@pytest.mark.parametrize(
    ("mistake", "caught_by"),
    [
        ("drops-unknown-fields", {"shape-unknown-field"}),
        ("null-is-absent", {"shape-null-"}),
        ("parses-numeric-text", {"shape-mistyped-round-num", "shape-mistyped-player-number",
                                 "shape-mistyped-mines-count"}),
        ("truncates-fractions", {"shape-fraction-"}),
    ],
)  # fmt: skip
def test_a_lenient_port_is_caught_by_the_rule_aimed_at_it(
    tmp_path: Path, mistake: str, caught_by: set[str]
) -> None:
    port = tmp_path / "lenient.py"
    port.write_text(LENIENT_PORT, encoding="utf-8")
    report_path = tmp_path / "report.json"
    done = fairvec(
        "run", "--algorithm", "battle.move", "--algorithm", "casino.mines", "--tier", "none",
        "--json", report_path, "--", sys.executable, port, mistake,
    )  # fmt: skip
    assert done.status == 1, done.stderr
    results = done.report(report_path)["results"]
    failed = {r["id"].split("/", 1)[1] for r in results if r["status"] != "pass"}
    assert failed
    assert all(any(name.startswith(prefix) for prefix in caught_by) for name in failed), failed
    assert {r["algorithm"] for r in results if r["status"] != "pass"} == {
        "battle.move", "casino.mines",
    }  # fmt: skip
