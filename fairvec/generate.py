"""``fairvec generate``: spec files + reference → vector files.

Everything is computed and checked in memory first; only when every spec is good are
the files written (each atomically), so a failed run leaves the old vectors intact.
``--check`` writes nothing and fails when a committed file differs.
"""

from __future__ import annotations

import fnmatch
import importlib
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema

from fairvec.errors import FairvecError
from fairvec.inputs import Stream, draw_inputs
from fairvec.jsonio import contains, write_atomically
from fairvec.reference import InvalidInput, compute, registry
from fairvec.specs import Spec, load_specs
from fairvec.upstream import UpstreamCase, UpstreamDataError
from fairvec.vectorfiles import validate_vector_file

FORMAT = "fairvec-vectors/1"
DEFAULT_FIND_LIMIT = 1_000_000


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


def vector_id(spec: Spec, name: str, variant: str | None) -> str:
    return f"{spec.id}/{name}" + (f"@{variant}" if spec.variants else "")


def build_vector_file(spec: Spec, data: Path | None) -> dict[str, Any]:
    where = f"spec/{spec.family}/{spec.path.name}"
    _check_against_reference(spec, where)
    checks = (
        SchemaCheck(spec.data["inputs"], "input"),
        SchemaCheck(spec.data["outputs"], "output"),
    )
    vectors = [_finish(spec, where, planned, checks) for planned in _plan(spec, where, data)]
    _check_disagreements_recorded(spec, where, vectors)
    return {
        "format": FORMAT,
        "algorithm": spec.id,
        "title": spec.data["title"],
        "summary": spec.data["summary"].strip(),
        "spec": where,
        "source": spec.data["source"],
        "variants": spec.data.get("variants", []),
        "input_schema": spec.data["inputs"],
        "output_schema": spec.data["outputs"],
        "quirks": {
            quirk["id"]: {k: v for k, v in quirk.items() if k not in ("id", "exercised_by")}
            for quirk in spec.data.get("quirks", [])
        },
        "vectors": vectors,
    }


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
    for index, step in enumerate(spec.data["steps"]):
        if not callable(getattr(module, step["name"], None)):
            raise FairvecError(
                f"{where}: steps/{index}/name: fairvec.reference.{spec.family} has no "
                f"function {step['name']!r} (step names are the reference's function names)"
            )


def _variants_of(spec: Spec, entry: dict[str, Any]) -> list[str | None]:
    chosen: list[str] = entry.get("variants") or spec.variants
    return list(chosen) if chosen else [None]


def _plan(spec: Spec, where: str, data: Path | None) -> Iterator[Planned]:
    for case in spec.data.get("cases", []):
        yield from _plan_case(spec, where, case)
    for generated in spec.data.get("generated", []):
        yield from _plan_generated(spec, generated)
    for upstream in spec.data.get("upstream", []):
        yield from _plan_upstream(spec, where, upstream, data)


def _plan_case(spec: Spec, where: str, case: dict[str, Any]) -> Iterator[Planned]:
    tags = [*case.get("tags", []), *spec.quirks_exercised_by(case["name"])]
    provenance: dict[str, Any] = {"case": case["name"]}
    document = case.get("document")
    if document:
        tags.insert(0, "document-example")
        provenance.update(document=spec.data["source"]["document"], section=document["section"])
    if "error" in case:
        tags.insert(0, "invalid")
    for variant in _variants_of(spec, case):
        inputs = case["input"] if "input" in case else _find(spec, where, case, variant)
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


def _find(spec: Spec, where: str, case: dict[str, Any], variant: str | None) -> dict[str, Any]:
    """The first input, counting up the ``vary`` field, whose output contains ``until``."""
    find = case["find"]
    template, field_name = find["input"], find["vary"]
    if field_name not in template:
        raise FairvecError(f"{where}: cases/{case['name']}/find/vary: {field_name!r} not in input")
    start = template[field_name]
    for step in range(find.get("limit", DEFAULT_FIND_LIMIT)):
        value = start + step if isinstance(start, int) else (f"{start}-{step}" if step else start)
        candidate = {**template, field_name: value}
        try:
            output = compute(spec.id, candidate, variant)
        except InvalidInput as error:
            raise FairvecError(f"{where}: cases/{case['name']}/find: {error}") from None
        if contains(output, find["until"]) is None:
            return candidate
    raise FairvecError(
        f"{where}: cases/{case['name']}/find: no input within {step + 1} tries gives "
        f"{json.dumps(find['until'])}; raise find.limit or change the template"
    )


def _plan_generated(spec: Spec, generated: dict[str, Any]) -> Iterator[Planned]:
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


def _plan_upstream(
    spec: Spec, where: str, upstream: dict[str, Any], data: Path | None
) -> Iterator[Planned]:
    if data is None or not (data / "upstream").is_dir():
        raise FairvecError(
            f"{where}: upstream/{upstream['name']}: no upstream/ folder in {data} "
            f"(generate from the repository root, or pass --data DIR)"
        )
    module_name, function_name = upstream["loader"].split(":")
    try:
        loader = getattr(importlib.import_module(f"fairvec.upstream.{module_name}"), function_name)
    except (ImportError, AttributeError):
        raise FairvecError(
            f"{where}: upstream/{upstream['name']}/loader: no fairvec.upstream.{module_name}."
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
    spec: Spec, where: str, planned: Planned, checks: tuple[SchemaCheck, SchemaCheck]
) -> dict[str, Any]:
    """Compute the expected value of one planned vector and check it every way we can."""
    place = f"{where}: {planned.name}" + (f" ({planned.variant})" if planned.variant else "")
    vector: dict[str, Any] = {
        "id": vector_id(spec, planned.name, planned.variant),
        "variant": planned.variant,
        "input": planned.input,
    }
    try:
        output = compute(spec.id, planned.input, planned.variant)
    except InvalidInput as error:
        if planned.error != error.code:
            wanted = f"error {planned.error!r}" if planned.error else "an output"
            raise FairvecError(
                f"{place}: the spec expects {wanted}, the reference raised {error}"
            ) from None
        vector["expected"] = {"error": error.code}
    else:
        if planned.error:
            raise FairvecError(
                f"{place}: the spec expects error {planned.error!r}, the reference returned "
                f"{json.dumps(output, ensure_ascii=False)[:200]}"
            )
        input_check, output_check = checks
        input_check.check(planned.input, place)
        output_check.check(output, place)
        vector["expected"] = {"output": output}
        if planned.states is not None:
            vector["document_states"] = planned.states
            _compare_with_stated(spec, place, planned, output)
    vector["tags"] = planned.tags
    vector["provenance"] = planned.provenance
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
        if any(
            q["id"] == quirk_id and q.get("disagrees_with_document")
            for q in spec.data.get("quirks", [])
        )
    ]
    if not recorded:
        raise FairvecError(
            f"{place}: the source states a different value at {difference or '(whole output)'} "
            f"than the reference computes; fix the reference, or record the disagreement as a "
            f"quirk with disagrees_with_document: true exercised by this case"
        )


def _check_disagreements_recorded(spec: Spec, where: str, vectors: list[dict[str, Any]]) -> None:
    """A quirk that says the document disagrees must be shown disagreeing by a vector."""
    for quirk in spec.data.get("quirks", []):
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

    def __init__(self, schema: dict[str, Any], what: str) -> None:
        self.validator = jsonschema.Draft202012Validator(schema)
        self.what = what

    def check(self, value: Any, place: str) -> None:
        if self.validator.is_valid(value):  # the quick path; the details only on failure
            return
        error = jsonschema.exceptions.best_match(self.validator.iter_errors(value))
        assert error is not None
        at = "/".join(str(part) for part in error.absolute_path) or "(top level)"
        raise FairvecError(
            f"{place}: {self.what}: {at}: {error.message} (spec {self.what}s schema)"
        )


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))


def render(vector_file: dict[str, Any]) -> str:
    """Pretty header, one vector per line: readable, and diffs show whole vectors."""
    header = {key: value for key, value in vector_file.items() if key != "vectors"}
    head = json.dumps(header, indent=2, ensure_ascii=False)[:-2]
    lines = [
        json.dumps(v, ensure_ascii=False, separators=(", ", ": ")) for v in vector_file["vectors"]
    ]
    body = ",\n    ".join(lines)
    return f'{head},\n  "vectors": [\n    {body}\n  ]\n}}\n'


def vector_path(vectors_root: Path, spec: Spec) -> Path:
    return vectors_root / spec.family / f"{spec.id.split('.', 1)[1]}.json"


def generate(root: Path, data: Path | None, check: bool, only: Sequence[str] = ()) -> list[str]:
    """Generate the vector files (of algorithms matching ``only``, if given); returns one
    line per file written, or with ``check`` per file that is stale."""
    specs = [spec for spec in load_specs(root / "spec") if _selected(spec.id, only)]
    if not specs:
        raise FairvecError(f"--algorithm {' '.join(only)}: no spec matches")
    _check_every_algorithm_has_a_spec(specs, only)
    rendered: dict[Path, str] = {}
    for spec in specs:
        vector_file = build_vector_file(spec, data)
        validate_vector_file(
            vector_file, f"vectors/{spec.family}/{spec.path.stem}.json (generated)"
        )
        rendered[vector_path(root / "vectors", spec)] = render(vector_file)
    stale_files = _stale(root / "vectors", rendered, orphans=not only)
    if check:
        return [f"stale: {path.relative_to(root)}" for path in stale_files]
    for path in stale_files:
        if path in rendered:
            write_atomically(path, rendered[path])
        else:
            path.unlink()
    return [f"wrote: {path.relative_to(root)}" for path in stale_files]


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


def _stale(vectors_root: Path, rendered: dict[Path, str], *, orphans: bool) -> list[Path]:
    """Files whose text would change, and (with ``orphans``) vector files no spec
    produces any more."""
    stale = [
        path
        for path, text in rendered.items()
        if not path.is_file() or path.read_text(encoding="utf-8") != text
    ]
    if not orphans:
        return sorted(stale)
    unproduced = [path for path in sorted(vectors_root.glob("*/*.json")) if path not in rendered]
    return sorted(stale) + unproduced
