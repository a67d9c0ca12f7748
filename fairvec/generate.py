"""``fairvec generate``: spec files + reference → vector files.

Everything is computed and checked in memory first; only when every spec is good are
the files written (each atomically), so a failed run leaves the old vectors intact.
``--check`` writes nothing and fails when a committed file differs.
"""

from __future__ import annotations

import fnmatch
import importlib
import json
import multiprocessing
import os
import re
import signal
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import jsonschema

from fairvec import accumulated_digest
from fairvec.boundaries import boundary_vectors, spec_boundaries
from fairvec.errors import STOPPING_SIGNALS, FairvecError
from fairvec.input_draws import Stream, draw_inputs
from fairvec.jsonio import contains, read_json, write_atomically
from fairvec.reference import InvalidInput, compute, registry
from fairvec.reference._input_checks import ecma_source, plain_json
from fairvec.regular_files import SMALL_FILE_LIMIT
from fairvec.shapes import shapes
from fairvec.specs import BOUNDARY_SET, Spec, load_spec, load_specs, spec_paths
from fairvec.upstream_loaders import UpstreamCase, UpstreamDataError
from fairvec.vectorfiles import read_vector_bytes, validate_vector_file

if TYPE_CHECKING:  # types only: loading fairvec.data_model costs 2 ms of start-up
    from fairvec.data_model import (
        AccumulatedSet,
        AccumulatedVector,
        Expected,
        FieldGenerators,
        GeneratedSet,
        Quirk,
        QuirkNote,
        Source,
        SpecCase,
        Tier,
        UpstreamSet,
        Vector,
        VectorFileData,
    )

FORMAT = "fairvec-vectors/1"
DEFAULT_FIND_LIMIT = 1_000_000
# Outputs of an accumulated stream checked against the output schema: the first few (a
# check costs several times the computation; the generated sets' vectors are all checked).
SCHEMA_CHECKED_CASES = 100


@dataclass
class Planned:
    """One vector before its expected value is computed."""

    name: str
    input: dict[str, Any]
    variant: str | None
    tags: list[str]
    provenance: dict[str, Any]
    error: str | None = None
    states: dict[str, Any] | None = None
    comment: str | None = None
    # A boundary's at side: whatever the reference answers, an output or an error.
    open_answer: bool = False


def vector_id(spec: Spec, name: str, variant: str | None) -> str:
    return f"{spec.id}/{name}" + (f"@{variant}" if spec.variants else "")


def build_vector_file(spec: Spec, data: Path | None) -> VectorFileData:
    where = f"spec/{spec.family}/{spec.path.name}"
    _check_against_reference(spec, where)
    # The input schema is checked by compute() itself (the reference's one input check);
    # the output schema is checked here.
    output_check = SchemaCheck(spec.outputs, "output", where)
    spec_root = spec.path.parent.parent
    vectors = [
        _finish(spec, where, planned, output_check, spec_root)
        for planned in _plan(spec, where, data, spec_root)
    ]
    vectors += [
        _finish(spec, where, planned, output_check, spec_root)
        for planned in _plan_shapes(spec, where, vectors)
    ]
    vectors += [
        _finish(spec, where, planned, output_check, spec_root)
        for planned in _plan_boundaries(spec, vectors)
    ]
    _apply_input_tags(spec, where, vectors)
    _apply_output_quirks(spec, where, vectors)
    _check_disagreements_recorded(spec, where, vectors)
    accumulated = build_accumulated(spec, where, output_check, spec_root)
    _check_unique_ids(where, vectors, accumulated)
    vector_file: VectorFileData = {
        "format": FORMAT,
        "algorithm": spec.id,
        "title": spec.title,
        "summary": spec.summary.strip(),
        "spec": where,
        "source": _vector_source(spec),
        "variants": spec.variant_entries,
        "input_schema": spec.inputs,
        "output_schema": spec.outputs,
        "quirks": {quirk["id"]: _quirk_note(quirk) for quirk in spec.quirks},
        "vectors": vectors,
    }
    if accumulated:
        vector_file["accumulated"] = accumulated
    return vector_file


def _apply_input_tags(spec: Spec, where: str, vectors: list[Vector]) -> None:
    """``input_tags``: each tag on every vector (cases, generated, upstream and shape
    vectors alike) whose input satisfies its ``when`` schema, so that a port that
    legitimately refuses such inputs can leave them out with ``--exclude-tag``."""
    entries: list[dict[str, Any]] = cast("dict[str, Any]", spec.data).get("input_tags", [])
    for index, entry in enumerate(entries):
        place = f"{where}: input_tags/{index}"
        try:
            jsonschema.Draft202012Validator.check_schema(entry["when"])
        except jsonschema.exceptions.SchemaError as error:
            raise FairvecError(
                f"{place}/when: not a JSON Schema: {error.message.splitlines()[0]} (write a "
                "draft 2020-12 schema of the input, e.g. {properties: {cursor: {not: "
                "{multipleOf: 4}}}, required: [cursor]})"
            ) from None
        _check_keywords(entry["when"], f"{place}/when")
        names = sorted(spec.inputs.get("properties", {}))
        for name in entry["when"].get("properties", {}):
            if name not in names:
                raise FairvecError(
                    f"{place}/when/properties: {name!r} is no input field of {spec.id} "
                    f"(its inputs are {', '.join(names)})"
                )
        when = jsonschema.Draft202012Validator(entry["when"])
        # matching no vector is allowed: the rule holds for vectors added later too
        for vector in vectors:
            if when.is_valid(vector["input"]):
                vector["tags"] = _unique([*vector["tags"], entry["tag"]])


def _apply_output_quirks(spec: Spec, where: str, vectors: list[Vector]) -> None:
    """A quirk's ``output_matches``: its id on every vector whose expected output satisfies
    that schema (bustabit's hybrid rule fails every game whose r is divisible by 33, not
    only the cases that were found for it)."""
    for index, quirk in enumerate(spec.quirks):
        schema = cast("dict[str, Any]", quirk).get("output_matches")
        if schema is None:
            continue
        place = f"{where}: quirks/{index}/output_matches"
        condition = _output_condition(spec, place, schema)
        matched = [
            vector
            for vector in vectors
            if "output" in vector["expected"] and condition.is_valid(vector["expected"]["output"])
        ]
        if not matched:
            raise FairvecError(
                f"{place}: no vector's output satisfies it: fix the schema, or add a case "
                "(a find case with satisfies) whose output does"
            )
        for vector in matched:
            vector["tags"] = _unique([*vector["tags"], quirk["id"]])


def _check_against_reference(spec: Spec, where: str) -> None:
    found = registry().get(spec.id)
    if found is None:
        raise FairvecError(f"{where}: id: the reference has no algorithm {spec.id!r}")
    if list(found.variants) != spec.variants:
        raise FairvecError(
            f"{where}: variants: the spec lists {spec.variants}, the reference "
            f"{list(found.variants)} (same names, default first)"
        )
    module = importlib.import_module(f"fairvec.reference.{spec.family}")
    for index, step in enumerate(spec.steps):
        if not callable(getattr(module, step["name"], None)):
            raise FairvecError(
                f"{where}: steps/{index}/name: fairvec.reference.{spec.family} has no "
                f"function {step['name']!r} (step names are the reference's function names)"
            )


def _vector_source(spec: Spec) -> Source:
    """The spec's source without its page: the page is for readers of the repository, and
    leaving it out keeps every vector file (and the suite's digest) as it was before pages
    existed (its name follows from the document's: fairvec.specs.source_page)."""
    return cast("Source", {key: value for key, value in spec.source.items() if key != "page"})


def _quirk_note(quirk: Quirk) -> QuirkNote:
    """A spec's quirk as its vector file carries it: without its id and exercised_by, the
    other fields in the spec's order."""
    left_out = ("id", "exercised_by", "output_matches")
    return cast("QuirkNote", {k: v for k, v in quirk.items() if k not in left_out})


def _variants_of(spec: Spec, entry: SpecCase | GeneratedSet | UpstreamSet) -> list[str | None]:
    chosen: list[str] = entry.get("variants") or spec.variants
    return list(chosen) if chosen else [None]


def _plan(spec: Spec, where: str, data: Path | None, spec_root: Path) -> Iterator[Planned]:
    for case in spec.cases:
        yield from _plan_case(spec, where, case, spec_root)
    for generated in spec.generated:
        yield from _plan_generated(spec, generated)
    for upstream in spec.upstream:
        yield from _plan_upstream(spec, where, upstream, data)


def _plan_case(spec: Spec, where: str, case: SpecCase, spec_root: Path) -> Iterator[Planned]:
    tags = [*case.get("tags", []), *spec.quirks_exercised_by(case["name"])]
    provenance: dict[str, Any] = {"case": case["name"]}
    document = case.get("document")
    if document:
        tags.insert(0, "document-example")
        provenance.update(document=spec.source["document"], section=document["section"])
    if "error" in case:
        tags.insert(0, "invalid")
    for variant in _variants_of(spec, case):
        inputs = case["input"] if "input" in case else _find(spec, where, case, variant, spec_root)
        yield Planned(
            name=case["name"],
            input=inputs,
            variant=variant,
            tags=_unique(tags),
            provenance=provenance,
            error=case.get("error"),
            states=document["states"] if document else None,
            comment=case.get("comment"),
        )


def _find(
    spec: Spec, where: str, case: SpecCase, variant: str | None, spec_root: Path
) -> dict[str, Any]:
    """The ``nth`` input (the first by default), stepping the ``vary`` field from its
    template value, whose output contains ``until`` and satisfies the schema ``satisfies``.

    An integer counts up, a text gets -1, -2, ... appended; with ``next`` each value is an
    output field of another algorithm on the value before (bustabit.previous_hash walks a
    hash chain backwards, so every value found is a real earlier game of that chain)."""
    # as a plain mapping: data_model.Find types only the original keys
    find = cast("dict[str, Any]", case["find"])
    place = f"{where}: cases/{case['name']}/find"
    template, field_name = find["input"], find["vary"]
    if field_name not in template:
        raise FairvecError(f"{place}/vary: {field_name!r} not in input")
    condition = _find_condition(spec, place, find.get("satisfies"))
    step_to = _find_stepper(place, find, spec_root)
    wanted, found, value = find.get("nth", 1), 0, template[field_name]
    for step in range(find.get("limit", DEFAULT_FIND_LIMIT)):
        if step:
            value = step_to(value, step, template[field_name])
        candidate = {**template, field_name: value}
        try:
            output = compute(spec.id, candidate, variant, spec_root=spec_root)
        except InvalidInput as error:
            raise FairvecError(f"{place}: {error}") from None
        if "until" in find and contains(output, find["until"]) is not None:
            continue
        if condition is not None and not condition.is_valid(output):
            continue
        found += 1
        if found == wanted:
            return candidate
    wanted_text = " and ".join(
        json.dumps(find[key]) for key in ("until", "satisfies") if key in find
    )
    how_many = "no input" if not found else f"only {found} of the {wanted} inputs wanted"
    raise FairvecError(
        f"{place}: {how_many} within {step + 1} tries gives {wanted_text}; raise find.limit "
        "or change the template"
    )


def _find_condition(
    spec: Spec, place: str, schema: dict[str, Any] | None
) -> jsonschema.Draft202012Validator | None:
    """``satisfies``, compiled (see _output_condition)."""
    return None if schema is None else _output_condition(spec, f"{place}/satisfies", schema)


def _output_condition(
    spec: Spec, place: str, schema: dict[str, Any]
) -> jsonschema.Draft202012Validator:
    """A JSON Schema of the output, compiled, whose ``properties`` name output fields only
    (a misspelt field would never match: a search would run to its limit, a tag would
    silently tag nothing)."""
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.exceptions.SchemaError as error:
        at = "/".join(str(part) for part in error.absolute_path) or "(top level)"
        raise FairvecError(
            f"{place}: {at}: not a JSON Schema: {error.message.splitlines()[0]} (write a "
            "draft 2020-12 schema of the output, e.g. {properties: {r: {multipleOf: 33}}})"
        ) from None
    _check_keywords(schema, place)
    outputs = sorted(spec.outputs.get("properties", {}))
    for name in schema.get("properties", {}):
        if name not in outputs:
            raise FairvecError(
                f"{place}/properties: {name!r} is no output field of {spec.id} "
                f"(its outputs are {', '.join(outputs)})"
            )
    return jsonschema.Draft202012Validator(schema)


def _find_stepper(
    place: str, find: dict[str, Any], spec_root: Path
) -> Callable[[Any, int, Any], Any]:
    """The function giving the vary field's value at ``step`` from the one before it."""
    follow = find.get("next")
    if follow is None:
        return lambda value, step, start: (
            start + step if isinstance(start, int) else f"{start}-{step}"
        )
    algorithm_id, output_field = follow["algorithm"], follow["output"]
    found = registry().get(algorithm_id)
    if found is None:
        raise FairvecError(
            f"{place}/next/algorithm: the reference has no algorithm {algorithm_id!r}"
        )
    variant = follow.get("variant")
    if found.variants and variant not in found.variants:
        raise FairvecError(
            f"{place}/next/variant: name the chain rule, one of {algorithm_id}'s variants "
            f"{list(found.variants)}"
        )
    if not found.variants and variant is not None:
        raise FairvecError(f"{place}/next/variant: {algorithm_id} has no variants; remove it")
    field_name = find["vary"]

    def step_to(value: Any, step: int, start: Any) -> Any:
        try:
            output = compute(algorithm_id, {field_name: value}, variant, spec_root=spec_root)
        except InvalidInput as error:
            raise FairvecError(
                f"{place}/next: {algorithm_id} refuses {{{field_name}: {value!r}}}: {error}"
            ) from None
        if output_field not in output:
            raise FairvecError(
                f"{place}/next/output: {algorithm_id} has no output {output_field!r} "
                f"(it has {', '.join(sorted(output))})"
            )
        return output[output_field]

    return step_to


def _plan_generated(spec: Spec, generated: GeneratedSet) -> Iterator[Planned]:
    stream = Stream(generated["seed"])
    tags = _unique(
        ["generated", *generated.get("tags", []), *spec.quirks_exercised_by(generated["name"])]
    )
    for index in range(generated["count"]):
        inputs = draw_inputs(stream, generated["input"])
        for variant in _variants_of(spec, generated):
            yield Planned(
                name=f"{generated['name']}-{index}",
                input=inputs,
                variant=variant,
                tags=tags,
                provenance={
                    "generated": generated["name"],
                    "seed": generated["seed"],
                    "index": index,
                },
            )


def _plan_shapes(spec: Spec, where: str, vectors: list[Vector]) -> Iterator[Planned]:
    """The shape vectors (fairvec.shapes), from the case ``shapes_from`` names, for the
    default variant only: the input check comes before the algorithm and its variants.
    Named, not found (the first case with an output, say), so a case added above it moves
    no shape vector."""
    variant = spec.variants[0] if spec.variants else None
    name = spec.shapes_from
    case_names = {case["name"] for case in spec.cases}
    wanted = vector_id(spec, name, variant)
    base = next((v for v in vectors if v["id"] == wanted), None)
    if name not in case_names or base is None:
        raise FairvecError(
            f"{where}: shapes_from: no case {name!r} for the default variant: name one of "
            "the cases (one with an output)"
        )
    if "output" not in base["expected"]:
        raise FairvecError(
            f"{where}: shapes_from: case {name!r} expects an error: name a case with an "
            "output (the shape vectors need a valid input)"
        )
    for shape in shapes(spec.inputs, base["input"]):
        yield Planned(
            name=shape.name,
            input=shape.input,
            variant=variant,
            tags=["invalid", "shape"],
            provenance={
                "shape": shape.rule,
                **({"field": shape.field} if shape.field else {}),
                "from": base["id"],
            },
            error=shape.code,
        )


def _plan_boundaries(spec: Spec, vectors: list[Vector]) -> Iterator[Planned]:
    """The boundary vectors (fairvec.boundaries), from the same case as the shape vectors
    (checked there), for the default variant: each bound of the input schema at it and one
    past it, and each string class the protocol treats specially."""
    variant = spec.variants[0] if spec.variants else None
    wanted = vector_id(spec, spec.shapes_from, variant)
    base = next(v for v in vectors if v["id"] == wanted)
    for planned in boundary_vectors(spec_boundaries(spec.data), spec.inputs, base["input"]):
        yield Planned(
            name=planned.name,
            input=planned.input,
            variant=variant,
            tags=[
                "boundary",
                *(["invalid"] if planned.code else spec.quirks_exercised_by(BOUNDARY_SET)),
            ],
            provenance={"boundary": planned.label, "from": base["id"]},
            error=planned.code,
            open_answer=planned.code is None,
        )


def _plan_upstream(
    spec: Spec, where: str, upstream: UpstreamSet, data: Path | None
) -> Iterator[Planned]:
    if data is None or not (data / "upstream").is_dir():
        raise FairvecError(
            f"{where}: upstream/{upstream['name']}: no upstream/ folder in {data} "
            f"(generate from the repository root, or pass --data DIR)"
        )
    module_name, function_name = upstream["loader"].split(":")
    try:
        module = importlib.import_module(f"fairvec.upstream_loaders.{module_name}")
        loader = getattr(module, function_name)
    except (ImportError, AttributeError):
        raise FairvecError(
            f"{where}: upstream/{upstream['name']}/loader: no "
            f"fairvec.upstream_loaders.{module_name}."
            f"{function_name}"
        ) from None
    tags = _unique(
        ["upstream", *upstream.get("tags", []), *spec.quirks_exercised_by(upstream["name"])]
    )
    try:
        cases: list[UpstreamCase] = list(loader(data))
    except UpstreamDataError as error:
        raise FairvecError(f"{where}: upstream/{upstream['name']}: {error}") from None
    for case in cases:
        for variant in _variants_of(spec, upstream):
            yield Planned(
                name=f"{upstream['name']}-{case['name']}",
                input=case["input"],
                variant=variant,
                tags=tags,
                provenance={"upstream": upstream["name"], **case["provenance"]},
                states=case["states"],
            )


def _finish(
    spec: Spec, where: str, planned: Planned, output_check: SchemaCheck, spec_root: Path
) -> Vector:
    """Compute the expected value of one planned vector and check it every way we can."""
    place = f"{where}: {planned.name}" + (f" ({planned.variant})" if planned.variant else "")
    expected: Expected
    states: dict[str, Any] | None = None
    try:
        output = compute(spec.id, planned.input, planned.variant, spec_root=spec_root)
    except InvalidInput as error:
        if planned.open_answer:
            planned = replace(planned, error=error.code)  # an algorithm's own check, at the bound
        if planned.error != error.code:
            wanted = f"error {planned.error!r}" if planned.error else "an output"
            raise FairvecError(
                f"{place}: the spec expects {wanted}, the reference raised {error}"
            ) from None
        expected = {"error": error.code}
    else:
        if planned.error:
            raise FairvecError(
                f"{place}: the spec expects error {planned.error!r}, the reference returned "
                f"{json.dumps(output, ensure_ascii=False)[:200]}"
            )
        output_check.check(output, place)
        expected = {"output": output}
        if planned.states is not None:
            states = planned.states
            _compare_with_stated(spec, place, planned, output)
    identifier = vector_id(spec, planned.name, planned.variant)
    vector: Vector
    if states is None:
        vector = {
            "id": identifier,
            "variant": planned.variant,
            "input": planned.input,
            "expected": expected,
            "tags": planned.tags,
            "provenance": planned.provenance,
        }
    else:  # in the file, the document's values follow the expected ones
        vector = {
            "id": identifier,
            "variant": planned.variant,
            "input": planned.input,
            "expected": expected,
            "document_states": states,
            "tags": planned.tags,
            "provenance": planned.provenance,
        }
    if planned.comment:
        vector["comment"] = planned.comment
    return vector


def _compare_with_stated(spec: Spec, place: str, planned: Planned, output: Any) -> None:
    difference = contains(output, planned.states)
    if difference is None:
        return
    recorded = [
        quirk_id
        for quirk_id in planned.tags
        if any(q["id"] == quirk_id and q.get("disagrees_with_document") for q in spec.quirks)
    ]
    if not recorded:
        raise FairvecError(
            f"{place}: the source states a different value at {difference or '(whole output)'} "
            f"than the reference computes; fix the reference, or record the disagreement as a "
            f"quirk with disagrees_with_document: true exercised by this case"
        )


def _check_disagreements_recorded(spec: Spec, where: str, vectors: list[Vector]) -> None:
    """A quirk that says the document disagrees must be shown disagreeing by a vector."""
    for quirk in spec.quirks:
        if not quirk.get("disagrees_with_document"):
            continue
        stated = [v for v in vectors if quirk["id"] in v["tags"] and "document_states" in v]
        if all(contains(v["expected"]["output"], v["document_states"]) is None for v in stated):
            raise FairvecError(
                f"{where}: quirks/{quirk['id']}: says the document disagrees with the reference, "
                f"but no document example it exercises shows a disagreement"
            )


class SchemaCheck:
    """One spec schema, compiled once and applied to every vector of the spec."""

    def __init__(self, schema: dict[str, Any], what: str, where: str) -> None:
        _check_keywords(schema, f"{where}: {what}s")
        self.validator = jsonschema.Draft202012Validator(schema)
        self.quick = quick_check(schema)
        self.what = what

    def check(self, value: Any, place: str) -> None:
        if self.quick is not None and quickly_valid(self.quick, value):
            return
        if self.validator.is_valid(value):  # the details only on failure
            return
        error = jsonschema.exceptions.best_match(self.validator.iter_errors(value))
        assert error is not None
        at = "/".join(str(part) for part in error.absolute_path) or "(top level)"
        raise FairvecError(
            f"{place}: {self.what}: {at}: {error.message} (spec {self.what}s schema)"
        )


# The quick yes. jsonschema took 43% of a profiled `generate --check --algorithm 'tenhou.*'`
# (2,700 outputs, walls of 136 tiles checked item by item: issue 35, docs/benchmarks.md);
# fastjsonschema compiles the schema to Python once and says yes many times faster. It only
# ever says yes: an output it refuses is checked by jsonschema, which alone words the fault
# (and may find none). A yes where jsonschema says no is closed off:
# - the value must be JSON as json.loads gives it (reference/_input_checks.py plain_json,
#   1.0 allowed: both read it as an integer): no tuple (an array to fastjsonschema, not to
#   jsonschema), no key but str, no NaN or infinity, no lone surrogate;
# - the schema may use only keywords both read alike (QUICK_KEYWORDS): fastjsonschema
#   reads draft 7, where $ref stands alone and items may be a list; a schema with another
#   keyword, a $ref beside other keywords, or a list as items gets no quick check;
# - patterns are given with ECMA's ``$`` (the end of the text, reference/_input_checks.py
#   ecma_source): stricter than jsonschema's Python ``$``, which also matches before a
#   final newline, so only ever a no where jsonschema says yes.
# tests/test_generate_quick_check.py checks 60 committed outputs of every spec, and those
# broken in thousands of ways: no yes where jsonschema says no.
QUICK_KEYWORDS = frozenset({
    "type", "properties", "required", "additionalProperties", "items", "minimum", "maximum",
    "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems",
    "uniqueItems", "minLength", "maxLength", "pattern", "enum", "const", "oneOf", "anyOf",
    "allOf", "not", "$defs", "$ref",
})  # fmt: skip
# read by neither validator: left out of the compiled schema
ANNOTATIONS = frozenset({"description", "title", "examples", "default", "$comment", "error"})
_SUBSCHEMA = ("items", "additionalProperties", "not")
_SUBSCHEMA_MAPS = ("properties", "$defs")
_SUBSCHEMA_LISTS = ("oneOf", "anyOf", "allOf")


# Every keyword of JSON Schema 2020-12's validation and applicator vocabularies and the
# annotations: anything else in a spec's output schema is a slip, most often YAML's (a
# flow mapping's description holding a comma, `{description: a, b}`, made the key "b"),
# which every validator ignores and every vector file would carry.
SCHEMA_KEYWORDS = QUICK_KEYWORDS | ANNOTATIONS | frozenset({
    "prefixItems", "contains", "minContains", "maxContains", "unevaluatedItems",
    "unevaluatedProperties", "patternProperties", "propertyNames", "dependentRequired",
    "dependentSchemas", "minProperties", "maxProperties", "if", "then", "else", "format",
    "$id", "$schema", "$anchor", "$dynamicRef", "$dynamicAnchor", "$vocabulary",
    "deprecated", "readOnly", "writeOnly", "contentEncoding", "contentMediaType",
    "contentSchema",
})  # fmt: skip


def _check_keywords(schema: Any, place: str) -> None:
    """A one-line error for a key of ``schema`` (or of a schema inside it) that is no JSON
    Schema keyword."""
    if not isinstance(schema, dict):
        return
    unknown = sorted(set(schema) - SCHEMA_KEYWORDS, key=str)
    if unknown:
        raise FairvecError(
            f"{place}: {unknown[0]!r} is no JSON Schema keyword (a description holding a comma "
            "inside {...}? quote it: description: \"a, b\")"
        )
    for key in ("items", "additionalProperties", "not", "contains", "if", "then", "else",
                "propertyNames", "unevaluatedItems", "unevaluatedProperties"):  # fmt: skip
        _check_keywords(schema.get(key), f"{place}/{key}")
    for key in ("properties", "$defs", "patternProperties", "dependentSchemas"):
        if isinstance(schema.get(key), dict):
            for name, part in schema[key].items():
                _check_keywords(part, f"{place}/{key}/{name}")
    for key in ("oneOf", "anyOf", "allOf", "prefixItems"):
        if isinstance(schema.get(key), list):
            for index, part in enumerate(schema[key]):
                _check_keywords(part, f"{place}/{key}/{index}")


def quick_check(schema: dict[str, Any]) -> Callable[[Any], Any] | None:
    """fastjsonschema's validate for ``schema``, or None where it might read the schema
    otherwise than jsonschema (see above)."""
    translated = _for_fastjsonschema(schema)
    if translated is None:
        return None
    import fastjsonschema

    # use_default=False: fastjsonschema would otherwise write the defaults into the value.
    # (Its detailed_exceptions=False fails to compile a const: KeyError, fastjsonschema 2.22.)
    try:
        return fastjsonschema.compile(translated, use_default=False, use_formats=False)
    except Exception:  # a schema it cannot compile is checked by jsonschema alone
        return None


def _for_fastjsonschema(schema: Any) -> Any:
    """``schema`` without annotations and with ECMA patterns, or None if some part of it
    uses a keyword outside QUICK_KEYWORDS, or $ref beside another keyword."""
    if isinstance(schema, bool):
        return schema
    if not isinstance(schema, dict):
        return None
    kept = {key: value for key, value in schema.items() if key not in ANNOTATIONS}
    if not QUICK_KEYWORDS.issuperset(kept) or ("$ref" in kept and len(kept) > 1):
        return None
    if isinstance(kept.get("pattern"), str):
        kept["pattern"] = ecma_source(kept["pattern"])
    for key in _SUBSCHEMA:
        if key in kept and (translated := _for_fastjsonschema(kept[key])) is None:
            return None
        if key in kept:
            kept[key] = translated
    for key in _SUBSCHEMA_MAPS:
        if key in kept:
            if not isinstance(kept[key], dict):
                return None
            parts = {name: _for_fastjsonschema(part) for name, part in kept[key].items()}
            if any(part is None for part in parts.values()):
                return None
            kept[key] = parts
    for key in _SUBSCHEMA_LISTS:
        if key in kept:
            if not isinstance(kept[key], list):
                return None
            listed = [_for_fastjsonschema(part) for part in kept[key]]
            if any(part is None for part in listed):
                return None
            kept[key] = listed
    return kept


def quickly_valid(compiled: Callable[[Any], Any], value: Any) -> bool:
    """True only for a value jsonschema also finds valid; False says nothing."""
    import fastjsonschema

    if not plain_json(value, integral_floats=True):
        return False
    try:
        compiled(value)
    except fastjsonschema.JsonSchemaException:
        return False
    return True


# -- accumulated vectors (docs/accumulated.md) ------------------------------------------


def build_accumulated(
    spec: Spec, where: str, output_check: SchemaCheck, spec_root: Path
) -> list[AccumulatedVector]:
    """The accumulated vectors: each set's default tier, computed here, and its full tier
    where the spec says one is committed (read from the file `fairvec accumulated full`
    writes, and checked against the default tier, which is its first block)."""
    entries = []
    for index, accumulated_set in enumerate(spec.accumulated):
        place = f"{where}: accumulated/{index}"
        generators = accumulated_generators(spec, place, accumulated_set)
        full = _full_tier_file(spec, place) if accumulated_set.get("full") else None
        for variant in accumulated_variants(spec, accumulated_set):
            total = accumulate_stream(
                spec,
                accumulated_set,
                generators,
                variant,
                default_count(accumulated_set),
                output_check,
                spec_root,
            )
            entries.append(
                _accumulated_entry(spec, accumulated_set, generators, variant, "default", total)
            )
            if full is not None:
                entries.append(
                    _full_entry(spec, place, accumulated_set, generators, variant, full, total)
                )
    return entries


def default_count(accumulated_set: AccumulatedSet) -> int:
    """The default tier's cases: 10,000, or the spec's smaller ``count``."""
    return accumulated_set.get("count", accumulated_digest.TIERS["default"])


def accumulated_generators(
    spec: Spec, place: str, accumulated_set: AccumulatedSet
) -> FieldGenerators:
    """The field generators: given, or those of the generated set the spec names."""
    chosen = accumulated_set["input"]
    if isinstance(chosen, dict):
        return chosen
    for generated in spec.generated:
        if generated["name"] == chosen:
            return generated["input"]
    raise FairvecError(
        f"{place}/input: names the generated set {chosen!r}, which the spec does not have "
        f"(give the name of one under generated:, or field generators)"
    )


def accumulated_variants(spec: Spec, accumulated_set: AccumulatedSet) -> list[str | None]:
    """The variants listed, else the default one: a stream per variant costs a stream."""
    listed: list[str] | None = accumulated_set.get("variants")
    if listed:
        return list(listed)
    return [spec.variants[0]] if spec.variants else [None]


def accumulate_stream(
    spec: Spec,
    accumulated_set: AccumulatedSet,
    generators: FieldGenerators,
    variant: str | None,
    count: int,
    output_check: SchemaCheck,
    spec_root: Path,
) -> accumulated_digest.Accumulator:
    """Feed the reference's answers to the first ``count`` cases to an accumulator."""
    total = accumulated_digest.Accumulator(tier_block(count))
    cases = accumulated_digest.cases(accumulated_set["seed"], generators)
    for index, inputs in zip(range(count), cases, strict=False):
        try:
            output = compute(spec.id, inputs, variant, spec_root=spec_root)
        except InvalidInput as error:
            total.add({"error": error.code})
            continue
        if index < SCHEMA_CHECKED_CASES:
            output_check.check(output, f"{spec.id}/{accumulated_set['name']} case {index}")
        total.add({"output": output})
    return total


def tier_block(count: int) -> int:
    """The cases between checkpoints of a tier of ``count`` cases: the full tier's 10,000
    (BLOCK), the default tier's a tenth of its cases (accumulated_digest.default_block)."""
    if count == accumulated_digest.TIERS["full"]:
        return accumulated_digest.BLOCK
    return accumulated_digest.default_block(count)


def _accumulated_entry(
    spec: Spec,
    accumulated_set: AccumulatedSet,
    generators: FieldGenerators,
    variant: str | None,
    tier: Tier,
    total: accumulated_digest.Accumulator | dict[str, Any],
) -> AccumulatedVector:
    name = accumulated_set["name"] + (accumulated_digest.FULL_SUFFIX if tier == "full" else "")
    count = accumulated_digest.TIERS["full"] if tier == "full" else default_count(accumulated_set)
    checkpoints = (
        total.checkpoints
        if isinstance(total, accumulated_digest.Accumulator)
        else total["checkpoints"]
    )
    tags = ["accumulated", *(["accumulated-full"] if tier == "full" else [])]
    tags += [*accumulated_set.get("tags", []), *spec.quirks_exercised_by(accumulated_set["name"])]
    entry: AccumulatedVector = {
        "id": vector_id(spec, name, variant),
        "variant": variant,
        "tier": tier,
        "stream": {"seed": accumulated_set["seed"], "input": generators},
        "encoding": accumulated_digest.ENCODING,
        "count": count,
        "block": tier_block(count),
        "expected": {"digest": checkpoints[-1], "checkpoints": checkpoints},
        "tags": _unique(tags),
        "provenance": {"accumulated": accumulated_set["name"]},
    }
    if accumulated_set.get("comment"):
        entry["comment"] = accumulated_set["comment"]
    case_cost = spec.data.get("cost", {}).get("case", 1)
    if case_cost != 1:  # the runner's time for an accumulate request follows it
        entry["case_cost"] = case_cost
    return entry


def full_tier_path(spec: Spec) -> Path:
    return spec.path.with_name(f"{spec.path.stem}.accumulated.json")


def _full_tier_file(spec: Spec, place: str) -> dict[str, Any]:
    path = full_tier_path(spec)
    command = f"fairvec accumulated full --algorithm {spec.id}"
    if not path.exists():  # what exists is read_json's to judge: a FIFO is no missing file
        raise FairvecError(
            f"{place}/full: {path.name} is missing: compute the full tier with `{command}` "
            f"(slow), or set full: false"
        )
    data: dict[str, Any] = read_json(path, "a full-tier digest file", SMALL_FILE_LIMIT)
    return data


def _full_entry(
    spec: Spec,
    place: str,
    accumulated_set: AccumulatedSet,
    generators: FieldGenerators,
    variant: str | None,
    full: dict[str, Any],
    default: accumulated_digest.Accumulator,
) -> AccumulatedVector:
    """The committed full tier, if it was computed for this very stream and its first
    block agrees with the default tier just computed (a changed reference shows there)."""
    name = vector_id(spec, accumulated_set["name"] + accumulated_digest.FULL_SUFFIX, variant)
    command = f"fairvec accumulated full --algorithm {spec.id}"
    found = full.get("vectors", {}).get(name)
    wanted = accumulated_digest.definition(accumulated_set["seed"], generators, variant)
    if not isinstance(found, dict) or found.get("definition") != wanted:
        raise FairvecError(
            f"{place}/full: {full_tier_path(spec).name} has no digests for {name} as the spec "
            f"now defines its stream: recompute them with `{command}` (slow)"
        )
    checkpoints = found.get("checkpoints", [])
    wanted_blocks = accumulated_digest.TIERS["full"] // accumulated_digest.BLOCK
    if len(checkpoints) != wanted_blocks or checkpoints[:1] != [default.digest]:
        raise FairvecError(
            f"{place}/full: {full_tier_path(spec).name}: the digests of {name} disagree with "
            f"the reference's first {accumulated_digest.BLOCK} cases: recompute them with "
            f"`{command}`"
        )
    return _accumulated_entry(spec, accumulated_set, generators, variant, "full", found)


def _check_unique_ids(
    where: str, vectors: list[Vector], accumulated: list[AccumulatedVector]
) -> None:
    """Every id once: the runner keys its results by id, and refuses a file with one twice.
    Set names are unique (specs.py), yet a case named like a generated vector (random-0)
    or a shape vector (shape-unknown-field) would take its id."""
    seen: set[str] = set()
    for vector in vectors:
        if vector["id"] in seen:
            raise FairvecError(
                f"{where}: the id {vector['id']!r} is given twice (a case named like a "
                "generated, upstream or shape vector?); rename the case"
            )
        seen.add(vector["id"])
    for entry in accumulated:
        if entry["id"] in seen:
            raise FairvecError(
                f"{where}: accumulated: the id {entry['id']!r} is also a vector's; rename the set"
            )
        seen.add(entry["id"])


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))


def render(vector_file: VectorFileData) -> str:
    """Pretty header, one vector per line: readable, and diffs show whole vectors."""
    header = {key: value for key, value in vector_file.items() if key != "vectors"}
    head = _json_text(header, indent=2)[:-2]
    lines = [_json_text(v, separators=(", ", ": ")) for v in vector_file["vectors"]]
    body = ",\n    ".join(lines)
    return f'{head},\n  "vectors": [\n    {body}\n  ]\n}}\n'


_SURROGATE = re.compile("[\ud800-\udfff]")


def _json_text(value: Any, **layout: Any) -> str:
    """JSON with text as written (not escaped), except lone surrogates: a vector may hold
    one (an input a port must reject), and only the escape \\udXXX can carry it in a
    UTF-8 file; json.loads reads it back as the same lone surrogate."""
    # allow_nan=False: a vector file is strict JSON, which fairvec run insists on reading
    text = json.dumps(value, ensure_ascii=False, allow_nan=False, **layout)
    return _SURROGATE.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


def vector_path(vectors_root: Path, spec: Spec) -> Path:
    return vectors_root / spec.family / f"{spec.id.split('.', 1)[1]}.json"


def generate(
    root: Path, data: Path | None, check: bool, only: Sequence[str] = (), jobs: int = 1
) -> list[str]:
    """Generate the vector files (of algorithms matching ``only``, if given), ``jobs``
    algorithms at a time; returns one line per file written, or with ``check`` per file
    that is stale."""
    specs = _selected_specs(root / "spec", only)
    if not specs:
        raise FairvecError(f"--algorithm {' '.join(only)}: no spec matches")
    _check_every_algorithm_has_a_spec(specs, only)
    rendered = dict(_rendered(specs, root / "vectors", data, jobs))
    stale_files = _stale(root / "vectors", rendered, orphans=not only)
    if check:
        return [f"stale: {path.relative_to(root)}" for path in stale_files]
    for path in stale_files:
        if path in rendered:
            write_atomically(path, rendered[path])
        else:
            path.unlink()
    return [f"wrote: {path.relative_to(root)}" for path in stale_files]


def _rendered(
    specs: list[Spec], vectors_root: Path, data: Path | None, jobs: int
) -> Iterator[tuple[Path, str]]:
    """Each spec's vector file path and text. With several jobs, the specs are shared out
    to worker processes, the costliest first (guessed from the committed file: see
    _cost_guess), so no long one starts last."""
    work = [(spec, vectors_root, data) for spec in specs]
    # (no fork on Windows: one process there)
    if jobs == 1 or len(work) == 1 or "fork" not in multiprocessing.get_all_start_methods():
        yield from map(_render_spec, work)
        return
    work.sort(key=lambda item: -_cost_guess(vector_path(vectors_root, item[0])))
    # fork: the workers inherit the loaded specs and reference (and the work: a task is
    # its place in it, a few bytes, so the pipe that carries tasks never fills); imap keeps
    # the order given, so the first error met is the same at every run
    context = multiprocessing.get_context("fork")
    # A stop (Ctrl-C, SIGTERM, SIGHUP) waits while the pool starts, and while it ends: one
    # raised between two forks left a started worker unknown to the pool, which outlived
    # generate (14 runs in 16 of tests/test_generate.py's two stops, before), and one raised
    # while it ends would leave the rest running. It is raised right after, where it can be.
    unblocked = signal.pthread_sigmask(signal.SIG_BLOCK, STOPS)
    try:
        pool = context.Pool(
            min(jobs, len(work)), initializer=_worker_setup, initargs=(work, unblocked)
        )
        try:
            signal.pthread_sigmask(signal.SIG_SETMASK, unblocked)
            yield from pool.imap(_render_at, range(len(work)), chunksize=1)
        finally:
            signal.pthread_sigmask(signal.SIG_BLOCK, STOPS)
            pool.terminate()
            pool.join()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, unblocked)


STOPS = {signal.SIGINT, *STOPPING_SIGNALS}  # Ctrl-C, and what stops fairvec as it does
# A worker's share of the work: the parent's list, inherited by fork (_worker_setup)
_work: list[tuple[Spec, Path, Path | None]] = []


def _render_at(place: int) -> tuple[Path, str]:
    return _render_spec(_work[place])


def _render_spec(item: tuple[Spec, Path, Path | None]) -> tuple[Path, str]:
    spec, vectors_root, data = item
    vector_file = build_vector_file(spec, data)
    validate_vector_file(vector_file, f"vectors/{spec.family}/{spec.path.stem}.json (generated)")
    return vector_path(vectors_root, spec), render(vector_file)


def _worker_setup(work: list[tuple[Spec, Path, Path | None]], mask: set[signal.Signals]) -> None:
    """A worker keeps the work it inherited, and leaves Ctrl-C and SIGTERM to the parent,
    which ends the pool (terminate sends SIGTERM: the default action, not the parent's
    inherited handler, must meet it); then takes the signals the parent blocked while it
    forked (``mask``: the parent's mask before)."""
    _work[:] = work
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for number in STOPPING_SIGNALS:
        signal.signal(number, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, mask)


# What a vector tagged slow costs to compute, in bytes of ordinary vectors: a chain walk
# of millions of SHA-256 steps takes about 2 CPU seconds, as a megabyte of vectors does
# (bustabit.chain_position: 70 KB holding 12 walks, 28 s; tenhou.hand_wall: 2 MB, a few s).
SLOW_VECTOR_BYTES = 1_000_000


def _cost_guess(path: Path) -> int:
    """How long generating a vector file takes, guessed from the committed one: its size
    (tenhou's three files take a quarter of the work), plus SLOW_VECTOR_BYTES for each
    vector tagged slow, which the size does not show: ordered by size alone, the chain
    walks' small files started last and ran on alone. Zero for a file not there."""
    try:
        text = path.read_bytes()
    except OSError:
        return 0
    return len(text) + text.count(b'"slow"') * SLOW_VECTOR_BYTES


def _selected_specs(spec_root: Path, only: Sequence[str]) -> list[Spec]:
    """The selected specs; only those are read, so a broken spec of another family (being
    edited right now, say) does not stop generating this one."""
    if not only:
        return load_specs(spec_root)
    paths = [p for p in spec_paths(spec_root) if _selected(f"{p.parent.name}.{p.stem}", only)]
    return [load_spec(path, spec_root) for path in paths]


def _selected(algorithm_id: str, only: Sequence[str]) -> bool:
    return not only or any(fnmatch.fnmatchcase(algorithm_id, glob) for glob in only)


def _check_every_algorithm_has_a_spec(specs: list[Spec], only: Sequence[str]) -> None:
    wanted = {algorithm_id for algorithm_id in registry() if _selected(algorithm_id, only)}
    missing = sorted(wanted - {spec.id for spec in specs})
    if missing:
        family, name = missing[0].split(".", 1)
        raise FairvecError(
            f"spec/{family}/{name}.yaml: missing: the reference registers {missing[0]!r} "
            f"but no spec describes it"
        )


def _committed(path: Path) -> bytes | None:
    """The bytes of the vector file at ``path``, None if there is none. Anything else there
    (a FIFO, a device, a file beyond the size bound) is refused in one line, not read, and
    not written over: it is not what the generator wrote."""
    if not os.path.lexists(path):
        return None
    return read_vector_bytes(path)


def _stale(vectors_root: Path, rendered: dict[Path, str], *, orphans: bool) -> list[Path]:
    """Files whose text would change, and (with ``orphans``) vector files no spec
    produces any more."""
    stale = [path for path, text in rendered.items() if _committed(path) != text.encode()]
    if not orphans:
        return sorted(stale)
    unproduced = [path for path in sorted(vectors_root.glob("*/*.json")) if path not in rendered]
    return sorted(stale) + unproduced
