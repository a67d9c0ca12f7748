"""What a port claims beyond its algorithms (docs/adapter-protocol.md, "Pinned inputs" and
"Partial outputs"): the inputs it hard-codes, and the output fields it computes.

A port pinned to one salt cannot answer a vector with another salt, and a library that
returns only a crash point has no HMAC to give. Without these claims such a port answers
``unsupported`` to most vectors, or invents the fields it lacks, and the report cannot say
what was really checked. With them the runner sends only the vectors whose inputs hold
the pinned values (the others are skipped, counted as ``input-not-pinned``), adds fresh
vectors on the pinned values (computed by the reference outside the runner, see
``FreshVectors``), and judges only the fields claimed; the attestation says both.
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from fairvec.errors import FairvecError
from fairvec.jsonio import same_json
from fairvec.runner.results import Result, Work

if TYPE_CHECKING:
    from fairvec.data_model import Vector
    from fairvec.runner.protocol import Hello
    from fairvec.vectorfiles import VectorFile

ANY_ALGORITHM = "*"  # a hello's pins for every algorithm that has the field
VARIANT_MARK = "@"  # a pin's scope ALGORITHM@VARIANT holds for that variant's vectors only
# The JSON text of one pinned value, at most: a constant a port hard-codes is a salt, a
# seed, a number (bustabit's salt is 66 characters). Every fresh vector carries the value,
# so a 1 MB pin made 1,000 requests of 1 MB each (issue 34: about 25 minutes).
MAX_PIN_CHARACTERS = 1024
PINNED_TAG = "pinned"  # the tag of the fresh vectors made on the pinned values
SHOWN_VALUE = 80  # characters of a pinned value quoted in a message

# fresh vectors for one algorithm: (algorithm, variants, pinned fields, count, seed) -> vectors
FreshVectors = Callable[[str, list[str | None], dict[str, Any], int, str], list["Vector"]]


class Fix(NamedTuple):  # (not a dataclass: see runner/results.py)
    """One pinned field, as --fix or a hello gave it: ``scope`` is an algorithm id or glob
    (``*`` for every algorithm that has the field), or ``ALGORITHM@VARIANT`` for one
    variant's vectors; ``value`` is the value, or for --fix the text typed (read by the
    field's type, see _typed)."""

    scope: str
    field: str
    value: Any
    source: str  # "--fix ..." or "the hello", for messages
    typed: bool = False  # True: ``value`` is text to read by the field's schema type


class PinOptions:
    """--fix, and the fresh vectors made on the pinned values (runner/claims.py). (A plain
    class: a named tuple's field may not be called ``count``.)"""

    __slots__ = ("count", "fixes", "fresh", "seed")

    def __init__(
        self,
        fixes: tuple[Fix, ...] = (),
        count: int = 1000,  # fresh inputs per pinned algorithm
        seed: str | None = None,  # None: a new seed, printed
        # computes fresh vectors with the reference; given by the command (fairvec/cli.py),
        # as the runner itself never imports the reference. None: no fresh vectors.
        fresh: FreshVectors | None = None,
    ) -> None:
        self.fixes = fixes
        self.count = count
        self.seed = seed
        self.fresh = fresh


class Claims(NamedTuple):
    """The claims resolved over the algorithms selected."""

    # algorithm, or algorithm@variant (that variant's own pins) -> field -> value; what a
    # vector must hold is both (pinned_for)
    pins: dict[str, dict[str, Any]]
    outputs: dict[str, tuple[str, ...]]  # algorithm -> fields
    # algorithm -> field -> who pinned it: "hello" or "--fix"
    pinned_by: dict[str, dict[str, str]]

    def __bool__(self) -> bool:
        return bool(self.pins or self.outputs)


def parse_fix(text: str) -> Fix:
    """``[ALGORITHM[@VARIANT]:]FIELD=VALUE`` (argparse's type for --fix)."""
    head, equals, value = text.partition("=")
    scope, colon, name = head.rpartition(":")
    if not equals or not name:
        raise ValueError(
            f"{text!r}: give FIELD=VALUE, ALGORITHM:FIELD=VALUE or "
            "ALGORITHM@VARIANT:FIELD=VALUE (e.g. salt=0000...)"
        )
    from fairvec.jsonio import shown_text  # (a long value is cut in every message)

    source = f"--fix {head}={shown_text(value)}"
    return Fix(scope if colon else ANY_ALGORITHM, name, value, source, typed=True)


def fix_text(fix: Fix) -> str:
    """The --fix argument that gives ``fix`` again, its value whole (a replay line)."""
    head = fix.field if fix.scope == ANY_ALGORITHM else f"{fix.scope}:{fix.field}"
    return f"{head}={fix.value}"


def hello_fixes(hello: Hello) -> list[Fix]:
    return [
        Fix(scope, name, value, "the adapter's hello")
        for scope, fields in hello.pins.items()
        for name, value in fields.items()
    ]


def resolve(hello: Hello, fixes: Sequence[Fix], files: Sequence[VectorFile]) -> Claims:
    """The pins and the partial outputs over the selected algorithms' vector files; a pin
    or a claim the suite cannot honour is a one-line usage error."""
    schemas = {f.algorithm: (f.data["input_schema"], f.output_schema) for f in files}
    return resolve_schemas(hello, fixes, schemas, {f.algorithm: f.variants for f in files})


def resolve_schemas(
    hello: Hello,
    fixes: Sequence[Fix],
    schemas: dict[str, tuple[dict[str, Any], dict[str, Any]]],
    variants: Mapping[str, Sequence[str]] | None = None,
) -> Claims:
    """resolve, given each selected algorithm's input and output schemas (fairvec fuzz
    has specs, not vector files) and its variants (for pins of one variant)."""
    pins: dict[str, dict[str, Any]] = {}
    sources: dict[str, dict[str, str]] = {}
    for fix in [*hello_fixes(hello), *fixes]:
        for key, value in _pinned_by(fix, schemas, hello, variants or {}):
            sources.setdefault(key, {})[fix.field] = "--fix" if fix.typed else "hello"
            already = pins.setdefault(key, {})
            if fix.field in already and not same_json(already[fix.field], value):
                raise FairvecError(
                    f"{fix.source}: {key}'s {fix.field} is pinned twice, to "
                    f"{_shown(already[fix.field])} and {_shown(value)}: pin it once"
                )
            already[fix.field] = value
    _check_variant_pins(pins)
    outputs = {
        algorithm: _claimed_outputs(algorithm, fields, schemas[algorithm][1])
        for algorithm, fields in hello.outputs.items()
        if algorithm in schemas
    }
    return Claims(pins, outputs, sources)


def pinned_for(claims: Claims, algorithm: str, variant: str | None) -> dict[str, Any]:
    """What a vector of ``algorithm`` in ``variant`` must hold: the algorithm's pins and
    that variant's own (_check_variant_pins: never two values for one field)."""
    pinned = claims.pins.get(algorithm, {})
    if variant is None:
        return pinned
    own = claims.pins.get(f"{algorithm}{VARIANT_MARK}{variant}")
    return {**pinned, **own} if own else pinned


def _check_variant_pins(pins: dict[str, dict[str, Any]]) -> None:
    for key, fields in pins.items():
        algorithm, _, _ = key.partition(VARIANT_MARK)
        if algorithm == key:
            continue
        for name, value in fields.items():
            held = pins.get(algorithm, {}).get(name, value)
            if not same_json(held, value):
                raise FairvecError(
                    f"{key}'s {name} is pinned to {_shown(value)}, and {algorithm}'s (every "
                    f"variant's) to {_shown(held)}: pin it once, per variant or for all"
                )


def _variant_scope(
    fix: Fix, schemas: dict[str, Any], hello: Hello, variants: Mapping[str, Sequence[str]]
) -> tuple[str, str] | None:
    """(algorithm, variant) of a pin scoped ``ALGORITHM@VARIANT``, checked: the algorithm
    is selected and declared, and has that variant, which the adapter declares; None for
    a pin of a whole algorithm (or glob), or of an algorithm a hello pins but this run did
    not select."""
    algorithm, mark, variant = fix.scope.partition(VARIANT_MARK)
    if not mark:
        return None
    if set("*?[") & set(algorithm) or not variant:
        raise FairvecError(
            f"{fix.source}: {fix.scope}: a variant's pin names one algorithm and one of its "
            "variants (e.g. bustabit.games@raw-bytes), without wildcards"
        )
    if algorithm not in schemas:
        if fix.typed:
            raise FairvecError(
                f"{fix.source}: {algorithm} is not among the algorithms selected "
                "(check the name, and --algorithm)"
            )
        return None
    known = list(variants.get(algorithm, ()))
    if variant not in known:
        raise FairvecError(
            f"{fix.source}: {algorithm} has no variant {variant!r} "
            f"(its variants: {', '.join(known) or 'none'})"
        )
    if variant not in hello.algorithms.get(algorithm, []):
        raise FairvecError(
            f"{fix.source}: the adapter does not declare {algorithm}'s variant {variant!r} "
            "(its hello lists " + (", ".join(hello.algorithms.get(algorithm, [])) or "none") + ")"
        )
    return algorithm, variant


def _pinned_by(
    fix: Fix,
    schemas: dict[str, tuple[dict[str, Any], dict[str, Any]]],
    hello: Hello,
    variants: Mapping[str, Sequence[str]],
) -> list[tuple[str, Any]]:
    """The (algorithm or algorithm@variant, value) pairs ``fix`` pins among the
    algorithms selected and declared, each value checked against that algorithm's input
    schema."""
    if VARIANT_MARK in fix.scope:
        scoped = _variant_scope(fix, schemas, hello, variants)
        if scoped is None:
            return []
        algorithm, _ = scoped
        exact_fix = fix._replace(scope=algorithm)
        return [(fix.scope, value) for _, value in _pinned_by(exact_fix, schemas, hello, {})]
    exact = not set("*?[") & set(fix.scope)
    if exact and fix.scope not in schemas:
        if fix.typed:  # a user's --fix naming no selected algorithm is a mistake
            raise FairvecError(
                f"{fix.source}: {fix.scope} is not among the algorithms selected "
                "(check the name, and --algorithm)"
            )
        return []  # a hello may pin algorithms this run did not select
    found = []
    if exact and fix.typed and fix.scope not in hello.algorithms:
        raise FairvecError(
            f"{fix.source}: the adapter does not declare {fix.scope} (its hello names "
            f"{', '.join(sorted(hello.algorithms)[:8]) or 'nothing'})"
        )
    for algorithm, (input_schema, _) in schemas.items():
        if algorithm not in hello.algorithms or not fnmatch.fnmatchcase(algorithm, fix.scope):
            continue
        properties = input_schema.get("properties", {})
        if fix.field not in properties:
            if exact:
                raise FairvecError(
                    f"{fix.source}: {algorithm} has no input field {fix.field!r} (its fields: "
                    f"{', '.join(properties)})"
                )
            continue
        value = _typed(fix, algorithm, properties[fix.field])
        _check_size(fix, algorithm, value)
        _check_value(fix, algorithm, properties[fix.field], value)
        found.append((algorithm, value))
    if not found and fix.typed:
        raise FairvecError(
            f"{fix.source}: no algorithm selected and declared by the adapter has an input "
            f"field {fix.field!r}"
        )
    return found


def _check_size(fix: Fix, algorithm: str, value: Any) -> None:
    """A pinned value of more than MAX_PIN_CHARACTERS of JSON is refused before it is
    checked against the schema or any vector is made with it."""
    size = len(json.dumps(value, ensure_ascii=False))
    if size > MAX_PIN_CHARACTERS:
        raise FairvecError(
            f"{fix.source}: {algorithm}'s {fix.field}: a pinned value of {size:,} characters "
            f"of JSON, more than the {MAX_PIN_CHARACTERS:,} a pin may hold (every fresh "
            "vector carries it): pin the short constant the port hard-codes"
        )


def _typed(fix: Fix, algorithm: str, schema: dict[str, Any]) -> Any:
    """--fix's text as the field's value: the text itself for a text field, else JSON."""
    if not fix.typed:
        return fix.value
    types = schema.get("type")
    if types == "string" or (isinstance(types, list) and "string" in types):
        return fix.value
    from pathlib import Path

    from fairvec.jsonio import max_int_digits, parse_json

    digits = fix.value.removeprefix("-")
    if len(digits) > max_int_digits() and digits.isascii() and digits.isdigit():
        raise FairvecError(  # (parse_json's message is about files)
            f"{fix.source}: {algorithm}'s {fix.field}: {len(digits):,} digits, more than the "
            f"{max_int_digits():,} fairvec reads; give a smaller number"
        )
    try:
        return parse_json(fix.value.encode(), Path("value"), "it")
    except FairvecError as error:  # "value: it is not valid JSON (...)", said once
        said = str(error).removeprefix("value").lstrip(":0123456789 ")
        raise FairvecError(
            f"{fix.source}: {algorithm}'s {fix.field} is not text: give its value as JSON "
            f"(a number, true, [1, 2]); {said}"
        ) from None


def _check_value(fix: Fix, algorithm: str, schema: dict[str, Any], value: Any) -> None:
    import jsonschema  # only when something is pinned

    error = jsonschema.exceptions.best_match(
        jsonschema.Draft202012Validator(schema).iter_errors(value)
    )
    if error is not None:
        code = f" ({schema['error']})" if "error" in schema else ""
        raise FairvecError(
            f"{fix.source}: {_shown(value)} is not a valid {fix.field} of {algorithm}{code}: "
            f"{error.message[:200]}"
        )


def _claimed_outputs(
    algorithm: str, fields: list[str], output_schema: dict[str, Any]
) -> tuple[str, ...]:
    properties = output_schema.get("properties")
    if not isinstance(properties, dict):
        raise FairvecError(
            f"the adapter's hello claims output fields of {algorithm}, whose output is not "
            "an object: claim the whole output (leave it out of 'outputs')"
        )
    unknown = [name for name in fields if name not in properties]
    if unknown:
        raise FairvecError(
            f"the adapter's hello claims {', '.join(map(repr, unknown))} of {algorithm}, "
            f"which has no such output field (its fields: {', '.join(properties)})"
        )
    return tuple(dict.fromkeys(fields))  # once each, in the hello's order


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=True)
    return text if len(text) <= SHOWN_VALUE else text[:SHOWN_VALUE] + "..."


# -- applied to the works -----------------------------------------------------------------


def apply(
    works: Iterable[Work], claims: Claims, declared: dict[str, list[str]]
) -> tuple[list[Work], list[Result]]:
    """The works to send (partial claims judged on their fields only) and the skips: a
    vector whose input does not hold a pinned value, or that expects none of the fields
    claimed. A vector of a variant the hello does not declare is left for the session
    to skip as such (that is the first reason it is not checked)."""
    if not claims:
        return list(works), []
    sent: list[Work] = []
    skipped: list[Result] = []
    for work in works:
        variant = work.vector["variant"]
        if variant is not None and variant not in declared.get(work.algorithm, [variant]):
            sent.append(work)
            continue
        pinned = pinned_for(claims, work.algorithm, variant)
        if pinned and not holds(work.vector["input"], pinned):
            skipped.append(_skip(work, "input-not-pinned", _not_pinned(pinned)))
            continue
        fields = claims.outputs.get(work.algorithm)
        if fields is None:
            sent.append(work)
            continue
        narrowed = narrow(work, fields)
        if narrowed is None:
            message = (
                f"expects none of the output fields the adapter computes ({', '.join(fields)})"
            )
            skipped.append(_skip(work, "outputs-not-claimed", message))
        else:
            sent.append(narrowed)
    return sent, skipped


def holds(inputs: Any, pinned: dict[str, Any]) -> bool:
    """Whether an input object holds every pinned value."""
    return isinstance(inputs, dict) and all(
        name in inputs and same_json(inputs[name], value) for name, value in pinned.items()
    )


def _not_pinned(pinned: dict[str, Any]) -> str:
    return f"its input is not the pinned {pinned_values(pinned)}"


def pinned_values(pinned: dict[str, Any]) -> str:
    return ", ".join(f"{name} = {_shown(value)}" for name, value in pinned.items())


def _skip(work: Work, kind: str, message: str) -> Result:
    return Result(work.vector, work.algorithm, "skip", message, skip_kind=kind)


def narrow(work: Work, fields: tuple[str, ...]) -> Work | None:
    """The work judged on ``fields`` only: its expected output and its output schema cut
    to them (an expected error is judged as ever); None when it expects none of them."""
    expected = work.vector["expected"]
    if "output" not in expected:
        return Work(work.vector, work.algorithm, work.output_schema, fields)
    output = expected["output"]
    if not isinstance(output, dict):
        return None
    kept = {name: output[name] for name in fields if name in output}
    if not kept:
        return None
    vector: Vector = {**work.vector, "expected": {"output": kept}}
    return Work(vector, work.algorithm, narrow_schema(work.output_schema, fields), fields)


def narrow_schema(schema: dict[str, Any], fields: tuple[str, ...]) -> dict[str, Any]:
    properties = schema.get("properties", {})
    narrowed = {**schema, "properties": {n: properties[n] for n in fields if n in properties}}
    if "required" in schema:
        narrowed["required"] = [name for name in schema["required"] if name in fields]
    return narrowed


def judged_part(output: Any, fields: tuple[str, ...]) -> Any:
    """What of an adapter's output is judged under a partial claim: the fields claimed
    (the others it sent are ignored; a missing one is a difference)."""
    if not isinstance(output, dict):
        return output
    return {name: output[name] for name in fields if name in output}


def fresh_works(
    claims: Claims,
    files: Sequence[VectorFile],
    hello: Hello,
    options: PinOptions,
) -> tuple[list[Work], FreshPlan | None]:
    """Fresh vectors on the pinned values, for every pinned algorithm, in each variant the
    adapter declares, each variant on its own pins (options.fresh computes them: the
    runner never imports the reference). None for the plan when nothing is pinned or none
    are asked for."""
    if not claims.pins or options.fresh is None or options.count == 0:
        return [], None
    import secrets

    plan = FreshPlan(options.seed or secrets.token_hex(8), options.count)
    by_algorithm = {vector_file.algorithm: vector_file for vector_file in files}
    works: list[Work] = []
    pinned_algorithms = sorted({key.partition(VARIANT_MARK)[0] for key in claims.pins})
    for algorithm in pinned_algorithms:
        vector_file = by_algorithm[algorithm]
        declared = hello.algorithms[algorithm]
        variants: list[str | None] = [v for v in vector_file.variants if v in declared]
        if not vector_file.variants:
            variants = [None]
        for group, pinned in _variants_by_pins(claims, algorithm, variants):
            # one stream per set of pins: the algorithm's own seed when every variant
            # shares them (as before per-variant pins), else the variants' names added
            seed = plan.seed if len(group) == len(variants) else _group_seed(plan.seed, group)
            vectors = options.fresh(algorithm, group, pinned, options.count, seed)
            plan.made[algorithm] = plan.made.get(algorithm, 0) + len(vectors)
            works += [Work(vector, algorithm, vector_file.output_schema) for vector in vectors]
    return works, plan


def _variants_by_pins(
    claims: Claims, algorithm: str, variants: list[str | None]
) -> list[tuple[list[str | None], dict[str, Any]]]:
    """The variants grouped by the pins their vectors hold, in the spec's order; a variant
    nothing pins makes no fresh vectors (its committed vectors all run)."""
    groups: dict[str, tuple[list[str | None], dict[str, Any]]] = {}
    for variant in variants:
        pinned = pinned_for(claims, algorithm, variant)
        if pinned:
            key = json.dumps(pinned, sort_keys=True)
            groups.setdefault(key, ([], pinned))[0].append(variant)
    return list(groups.values())


def _group_seed(seed: str, group: list[str | None]) -> str:
    return f"{seed}{VARIANT_MARK}{'+'.join(str(variant) for variant in group)}"


# -- the attestation ------------------------------------------------------------------------


class FreshPlan:
    """The fresh vectors made on the pinned values: how many inputs per algorithm, from
    which seed (printed, so that any failure can be replayed with --pinned-seed)."""

    __slots__ = ("count", "made", "seed")

    def __init__(self, seed: str, count: int) -> None:
        self.seed = seed
        self.count = count
        self.made: dict[str, int] = {}  # algorithm -> vectors made


def attested(claims: Claims, plan: FreshPlan | None) -> dict[str, Any]:
    """The claims as the report's attestation shows them."""
    return {
        "pinned": {algorithm: dict(fields) for algorithm, fields in sorted(claims.pins.items())},
        "pinned_by": dict(sorted(claims.pinned_by.items())),
        "outputs": {
            algorithm: list(fields) for algorithm, fields in sorted(claims.outputs.items())
        },
        "fresh": None
        if plan is None
        else {"seed": plan.seed, "count": plan.count, "vectors": dict(sorted(plan.made.items()))},
    }
