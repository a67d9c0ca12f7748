"""Fresh vectors on pinned inputs, computed by the reference while ``fairvec run`` runs.

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

from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fairvec.errors import FairvecError
from fairvec.fuzz.oracle import expected
from fairvec.input_draws import Stream, drawer
from fairvec.specs import Spec, load_spec

if TYPE_CHECKING:
    from fairvec.data_model import Vector

PINNED_TAG = "pinned"  # as runner/claims.py names it (the runner does not import this module)


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
    vectors: list[Vector] = []
    for index in range(count):
        inputs = draw(stream)
        for variant in variants:
            suffix = f"@{variant}" if variant is not None else ""
            vectors.append(
                {
                    "id": f"{algorithm}/{PINNED_TAG}-{index}{suffix}",
                    "variant": variant,
                    "input": inputs,
                    "expected": expected(algorithm, inputs, variant),
                    "tags": [PINNED_TAG],
                    "provenance": {"pinned": pinned, "seed": seed, "index": index},
                }
            )
    return vectors


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
