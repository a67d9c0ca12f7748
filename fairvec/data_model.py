"""Typed views of the data model: a spec file, its cases and sets, a vector file and its
vectors, as the code reads them.

They are TypedDicts: a type checker's view of the very dicts the loaders return (YAML
from fairvec.specs, JSON from fairvec.vectorfiles), so they cost nothing at run time: the
runner's ~20,000 vectors stay the dicts parsed from JSON. The schemas are the source of
truth, and these follow them field for field: spec/spec.schema.json for the spec
(``SpecData`` and what it holds), vectors/vectors.schema.json for the vector file
(``VectorFileData``, ``Vector``, ``AccumulatedVector``). A field the schema does not
require is ``NotRequired``. What the schemas leave open (an algorithm's input and output,
a JSON Schema, provenance, a field generator) stays ``dict[str, Any]``.

This module imports nothing of fairvec: the reference, the runner and the callers may
all import it (docs/maintaining.md, "The dependency rule"). They import it for the type
checker only (``if TYPE_CHECKING:``, and ``cast("Vector", ...)`` by name): making these
classes takes about 2 ms, which ``fairvec run``'s start-up need not pay.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

# -- spec files (spec/spec.schema.json) ----------------------------------------------------

# One input field's generator ({"int": [0, 9]}, {"hex": 32}, ...: $defs/fieldGenerator),
# by field name.
FieldGenerators = dict[str, dict[str, Any]]


class Source(TypedDict):
    """Where an algorithm comes from: the seed document (or research file), its page in
    docs/sources/ and its sections. A vector file carries its spec's without the page (the
    page's name follows from the document's: fairvec.specs.source_page)."""

    document: str
    page: NotRequired[str]  # required in a spec file, absent from a vector file
    sections: list[str]
    references: NotRequired[list[str]]
    upstream: NotRequired[list[str]]


class Step(TypedDict):
    name: str  # the reference function that performs it
    text: str


class Variant(TypedDict):
    """A named reading of an ambiguous document (the first is the default); a vector file
    lists its spec's."""

    id: str
    text: str


class Decision(TypedDict):
    id: str
    question: str
    decision: str
    reason: str


class Quirk(TypedDict):
    id: str
    document_says: str
    reference_does: str
    why: str
    exercised_by: list[str]  # names of cases, generated or upstream sets
    disagrees_with_document: NotRequired[bool]


class DocumentExample(TypedDict):
    """A case's worked example: the section and the output values the document prints."""

    section: str
    states: dict[str, Any]


class Find(TypedDict):
    """A case's input found by search: ``vary`` counts up until the output holds ``until``."""

    input: dict[str, Any]
    vary: str
    until: dict[str, Any]
    limit: NotRequired[int]


class SpecCase(TypedDict):
    """One case of a spec (``cases``): exactly one of ``input`` and ``find``."""

    name: str
    comment: NotRequired[str]
    tags: NotRequired[list[str]]
    variants: NotRequired[list[str]]  # all of the algorithm's when absent
    input: NotRequired[dict[str, Any]]
    find: NotRequired[Find]
    error: NotRequired[str]
    document: NotRequired[DocumentExample]


class GeneratedSet(TypedDict):
    name: str
    comment: NotRequired[str]
    count: int
    seed: str
    tags: NotRequired[list[str]]
    variants: NotRequired[list[str]]
    input: FieldGenerators


class UpstreamSet(TypedDict):
    name: str
    loader: str  # module:function under fairvec.upstream_loaders
    comment: str
    tags: NotRequired[list[str]]
    variants: NotRequired[list[str]]


class AccumulatedSet(TypedDict):
    name: str
    comment: NotRequired[str]
    seed: str
    input: str | FieldGenerators  # a generated set's name, or field generators
    variants: NotRequired[list[str]]  # the default variant alone when absent
    full: NotRequired[bool]
    count: NotRequired[int]  # the default tier's cases when fewer than 10,000 (ten blocks)
    tags: NotRequired[list[str]]


class SpecData(TypedDict):
    """A spec file's value, as read and validated by fairvec.specs.load_spec."""

    id: str
    title: str
    source: Source
    summary: str
    inputs: dict[str, Any]  # JSON Schema of the input object
    outputs: dict[str, Any]  # JSON Schema of the output object
    steps: list[Step]
    variants: NotRequired[list[Variant]]
    decisions: NotRequired[list[Decision]]
    quirks: NotRequired[list[Quirk]]
    shapes_from: str
    cases: list[SpecCase]
    generated: NotRequired[list[GeneratedSet]]
    upstream: NotRequired[list[UpstreamSet]]
    accumulated: NotRequired[list[AccumulatedSet]]
    cost: NotRequired[dict[str, Any]]  # one case's cost (spec.schema.json: case, steps)


# -- vector files (vectors/vectors.schema.json) --------------------------------------------


class Expected(TypedDict, total=False):
    """A vector's expectation: exactly one of ``output`` (the algorithm's output) and
    ``error`` (the error code)."""

    output: Any
    error: str


class Request(TypedDict):
    """What a request carries of a vector (runner/protocol.py); a case of an accumulated
    vector's stream is only this (runner/accumulated_run.py)."""

    id: str
    variant: str | None
    input: dict[str, Any]


class Vector(Request):
    """One vector of a vector file ($defs/vector)."""

    expected: Expected
    document_states: NotRequired[dict[str, Any]]
    tags: list[str]
    provenance: dict[str, Any]
    comment: NotRequired[str]


# An accumulated vector's tier: run by every fairvec run, or instead with --tier full.
Tier = Literal["default", "full"]


class AccumulatedStream(TypedDict):
    seed: str
    input: FieldGenerators


class AccumulatedExpected(TypedDict):
    digest: str  # SHA-256 (hex) of every case's record
    checkpoints: list[str]  # of the first k * block cases, k = 1, 2, ...; the last is digest


class AccumulatedVector(TypedDict):
    """One accumulated vector of a vector file ($defs/accumulated, docs/accumulated.md)."""

    id: str
    variant: str | None
    tier: Tier
    stream: AccumulatedStream
    encoding: str
    count: int
    block: int
    expected: AccumulatedExpected
    tags: list[str]
    provenance: dict[str, Any]
    comment: NotRequired[str]
    case_cost: NotRequired[float]  # the spec's cost.case, when more than 1


class ShownAccumulated(Request):
    """An accumulated vector as a report shows it: its stream and count as the input, its
    digests as the expectation (runner/accumulated_run.py, Accumulated.vector)."""

    expected: AccumulatedExpected
    tags: list[str]
    provenance: dict[str, Any]


# What a run's result shows of the vector it ended: a vector, or an accumulated one.
Shown = Vector | ShownAccumulated


class QuirkNote(TypedDict):
    """A vector file's quirk (by id): a spec's quirk without its id and exercised_by."""

    document_says: str
    reference_does: str
    why: str
    disagrees_with_document: NotRequired[bool]


class VectorFileData(TypedDict):
    """A vector file's value, as fairvec.vectorfiles reads it (and fairvec generate
    writes it, in this order)."""

    format: str
    algorithm: str
    title: str
    summary: str
    spec: str  # the spec file, relative to the repository root
    source: Source
    variants: list[Variant]  # empty when the algorithm has one reading
    input_schema: dict[str, Any]
    output_schema: dict[str, Any]
    quirks: dict[str, QuirkNote]
    vectors: list[Vector]
    accumulated: NotRequired[list[AccumulatedVector]]
