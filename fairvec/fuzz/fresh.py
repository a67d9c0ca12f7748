"""Fresh vectors on pinned inputs, and the expected digests of accumulated streams no file
holds (stream_checkpoints), computed by the reference while ``fairvec run`` runs.

A port that hard-codes an input (bustabit's salt, say) is checked by the committed vectors
that hold that value, and by these: inputs drawn like the algorithm's first generated set
(docs/spec-format.md, "Generated sets"), each pinned field held at its value, from a seeded
stream (the seed is printed, so a failure replays with --pinned-seed), with the
reference's expected answer (fuzz/oracle.py's, as for a fuzz input: this is the same
differential use of the reference). The runner receives this function from the command
(fairvec/cli.py) and never imports the reference itself (docs/maintaining.md, "The
dependency rule").
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from fairvec.errors import FairvecError
from fairvec.fuzz.oracle import expected
from fairvec.input_draws import Stream, drawer
from fairvec.runner.claims import PINNED_TAG
from fairvec.specs import Spec, load_spec

if TYPE_CHECKING:
    from fairvec.data_model import Expected, Vector

# The most one pinned algorithm's fresh vectors may cost (each set of pins of it, with its
# variants), in ordinary cases (about a millisecond of the reference each: about five
# minutes), estimated from the spec's cost before any is computed. Past it the run is
# refused with the largest --pinned-count that fits (issue 34: --fix game_number=110000000
# asked the reference for 1,000 walks of 10^8 hashes, hours, before the first request).
FRESH_BUDGET = 300_000
STEP_COST = 0.001  # a SHA-256 step of a chain walk, in ordinary cases (about 1 us)


def fresh_vectors(
    algorithm: str, variants: list[str | None], pinned: dict[str, Any], count: int, seed: str
) -> list[Vector]:
    """``count`` inputs of ``algorithm`` holding the ``pinned`` values, each with the
    reference's answer for every variant in ``variants`` (None: the algorithm has none),
    drawn from the stream ``<seed>/<algorithm>``. Ids: ``<algorithm>/pinned-<i>[@variant]``.
    Empty when the spec has no generated set to draw from."""
    spec = _spec(algorithm)
    if not spec.generated:
        return []
    draw = drawer(_generators(spec, pinned))
    stream = Stream(f"{seed}/{algorithm}")
    drawn = [draw(stream) for _ in range(count)]  # cheap; computing them may not be
    _check_budget(spec, drawn, len(variants), pinned)
    rules = _tag_rules(spec)
    vectors: list[Vector] = []
    for index, inputs in enumerate(drawn):
        for variant in variants:
            suffix = f"@{variant}" if variant is not None else ""
            answer = expected(algorithm, inputs, variant)
            vectors.append(
                {
                    "id": f"{algorithm}/{PINNED_TAG}-{index}{suffix}",
                    "variant": variant,
                    "input": inputs,
                    "expected": answer,
                    "tags": [PINNED_TAG, *_tags(rules, inputs, answer)],
                    "provenance": {"fresh": True, "pinned": pinned, "seed": seed, "index": index},
                }
            )
    return vectors


def case_cost(spec: Spec, inputs: dict[str, Any]) -> float:
    """One input's cost in ordinary cases, by the spec's ``cost`` (docs/spec-format.md,
    "Cost"): its weight, and a thousandth per hash step its steps field counts."""
    cost: dict[str, Any] = cast("dict[str, Any]", spec.data).get("cost", {})
    weight = float(cost.get("case", 1))
    steps = cost.get("steps")
    if steps is None:
        return weight
    value = inputs.get(steps["field"])
    if type(value) is not int or value <= 0:
        return weight  # an invalid value: refused before any work
    chain = steps.get("chain")
    walked = (value - 1) % chain + 1 if chain else value
    return weight + walked * STEP_COST


def _check_budget(
    spec: Spec, drawn: list[dict[str, Any]], variants: int, pinned: dict[str, Any]
) -> None:
    total = sum(case_cost(spec, inputs) for inputs in drawn) * variants
    if total <= FRESH_BUDGET:
        return
    fits = int(FRESH_BUDGET * len(drawn) / total)
    values = ", ".join(f"{name}={json.dumps(value)[:40]}" for name, value in pinned.items())
    raise FairvecError(
        f"fresh vectors of {spec.id} on {values}: {len(drawn):,} input(s) x {variants} "
        f"variant(s) would cost about {total:,.0f} ordinary cases ({_duration(total)} of the "
        f"reference), more than the {FRESH_BUDGET:,} ({_duration(FRESH_BUDGET)}) a pinned "
        f"run may ask: give --pinned-count {fits} or fewer, or --pinned-count 0"
    )


def _duration(cases: float) -> str:
    seconds = cases / 1000  # an ordinary case: about a millisecond
    if seconds < 120:
        return f"about {seconds:.0f} s"
    if seconds < 7200:
        return f"about {seconds / 60:.0f} minutes"
    return f"about {seconds / 3600:.1f} hours"


# (kind, tag, condition): a spec's input_tags ("input") and its quirks' output_matches
# ("output"), as fairvec generate applies them (docs/spec-format.md), so that a fresh
# vector's failure names the rule (hybrid-instant-crash-33) as a committed one's does
_Rule = tuple[str, str, Any]


def _tag_rules(spec: Spec) -> list[_Rule]:
    import jsonschema  # only with pinned inputs

    # as plain mappings: data_model types only the keys the generator reads directly
    entries: list[dict[str, Any]] = cast("dict[str, Any]", spec.data).get("input_tags", [])
    rules: list[_Rule] = [
        ("input", entry["tag"], jsonschema.Draft202012Validator(entry["when"]))
        for entry in entries
    ]
    for quirk in spec.quirks:
        matches = cast("dict[str, Any]", quirk).get("output_matches")
        if matches is not None:
            rules.append(("output", quirk["id"], jsonschema.Draft202012Validator(matches)))
    return rules


def _tags(rules: list[_Rule], inputs: dict[str, Any], answer: Expected) -> list[str]:
    tags = []
    for kind, tag, condition in rules:
        if kind == "input":
            if condition.is_valid(inputs):
                tags.append(tag)
        elif "output" in answer and condition.is_valid(answer["output"]):
            tags.append(tag)
    return tags


def _spec(algorithm: str) -> Spec:
    root = Path(str(resources.files("fairvec").joinpath("spec")))
    family, _, name = algorithm.partition(".")
    path = root / family / f"{name}.yaml"
    if not path.is_file():
        raise FairvecError(f"{algorithm}: no spec of that id to draw fresh vectors from")
    return load_spec(path, root)


def _generators(spec: Spec, pinned: dict[str, Any]) -> dict[str, Any]:
    """The first generated set's field generators, each pinned field a constant (added at
    the end where the set does not draw it)."""
    fields: dict[str, Any] = dict(spec.generated[0]["input"])
    for name, value in pinned.items():
        fields[name] = {"const": value}
    return fields


# -- fresh and partial accumulated streams (docs/accumulated.md, "Fresh streams") ----------


def stream_checkpoints(
    algorithm: str,
    variant: str | None,
    stream: dict[str, Any],
    count: int,
    block: int,
    fields: tuple[str, ...] | None,
) -> list[str]:
    """The reference's checkpoints for the first ``count`` cases of ``stream`` in blocks
    of ``block`` (the last one the digest), as ``fairvec generate`` computes a committed
    stream's; with ``fields``, each output cut to those fields first, as the runner judges
    a partial port's answers (runner/claims.py judged_part). For the runner, which never
    imports the reference: a stream drawn at run time, which no file holds, and a partial
    port's digest of the fields it claims."""
    from itertools import islice

    from fairvec import accumulated_digest
    from fairvec.runner.claims import judged_part

    total = accumulated_digest.Accumulator(block)
    for inputs in islice(accumulated_digest.cases(stream["seed"], stream["input"]), count):
        answer: Any = expected(algorithm, inputs, variant)
        if fields is not None and "output" in answer:
            answer = {"output": judged_part(answer["output"], fields)}
        total.add(answer)
    checkpoints = list(total.checkpoints)
    if total.count % block:  # a last, partial block
        checkpoints.append(total.digest)
    return checkpoints
