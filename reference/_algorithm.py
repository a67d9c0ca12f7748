"""Registration, input checking and dispatch shared by every reference module."""

from __future__ import annotations

import functools
import importlib
import inspect
import pkgutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fairvec.errors import FairvecError
from fairvec.reference._input_checks import (
    InputSchema,
    check_input,
    input_schema,
    spec_root_default,
)

Output = dict[str, Any]


class InvalidInput(ValueError):
    """An input the algorithm rejects; ``code`` is the error code the spec names."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Algorithm:
    id: str
    function: Callable[..., Output]
    variants: tuple[str, ...]

    @property
    def default_variant(self) -> str | None:
        return self.variants[0] if self.variants else None


_REGISTRY: dict[str, Algorithm] = {}


def algorithm(
    algorithm_id: str, *, variants: tuple[str, ...] = ()
) -> Callable[[Callable[..., Output]], Callable[..., Output]]:
    """Register ``function`` as the reference for ``algorithm_id``.

    ``variants`` lists the named readings the function accepts through its
    ``variant`` keyword; the first is the default.
    """

    def register(function: Callable[..., Output]) -> Callable[..., Output]:
        if algorithm_id in _REGISTRY:
            raise RuntimeError(f"algorithm {algorithm_id} registered twice")
        if variants and "variant" not in inspect.signature(function).parameters:
            raise RuntimeError(f"{algorithm_id} declares variants but takes no 'variant'")
        _REGISTRY[algorithm_id] = Algorithm(algorithm_id, function, variants)
        return function

    return register


_loaded_families: list[str] = []


def registry() -> dict[str, Algorithm]:
    """Every registered algorithm, after importing every family module once."""
    if not _loaded_families:
        package = importlib.import_module("fairvec.reference")
        for module in pkgutil.iter_modules(package.__path__):
            if not module.name.startswith("_"):
                importlib.import_module(f"fairvec.reference.{module.name}")
                _loaded_families.append(module.name)
    return _REGISTRY


def compute(
    algorithm_id: str,
    inputs: Mapping[str, Any],
    variant: str | None = None,
    *,
    spec_root: Path | None = None,
) -> Output:
    """Check ``inputs`` against the spec's input schema, then run the algorithm.

    Raises :class:`InvalidInput` for an unknown algorithm or variant, every input the
    spec's ``inputs`` schema rejects (in the order ``_inputs`` documents), and whatever the
    algorithm itself rejects; nothing else, whatever ``inputs`` holds. The schema is read
    from the spec files under ``spec_root`` (default: the ones installed with fairvec).
    """
    found, schema = _algorithm_and_schema(algorithm_id, spec_root)
    chosen = _chosen_variant(found, variant)
    check_input(schema, inputs, lambda code, text: InvalidInput(code, f"{algorithm_id} {text}"))
    arguments = dict(inputs)
    if chosen is not None:
        arguments["variant"] = chosen
    return found.function(**arguments)


@functools.cache
def _algorithm_and_schema(
    algorithm_id: str, spec_root: Path | None
) -> tuple[Algorithm, InputSchema]:
    """The algorithm and its checked input schema, found once per algorithm: looked up on
    every call they were half of a fast algorithm's time (an accumulated stream asks
    10,000 times). An unknown algorithm raises, and is not remembered."""
    found = registry().get(algorithm_id)
    if found is None:
        raise InvalidInput("unknown-algorithm", f"no reference for algorithm {algorithm_id!r}")
    schema = input_schema(algorithm_id, spec_root or spec_root_default())
    _check_fields_match(found, schema)
    return found, schema


def _chosen_variant(found: Algorithm, variant: str | None) -> str | None:
    if not found.variants:
        if variant is not None:
            raise InvalidInput("unknown-variant", f"{found.id} has no variants, got {variant!r}")
        return None
    chosen = variant or found.default_variant
    if chosen not in found.variants:
        raise InvalidInput(
            "unknown-variant",
            f"{found.id} has variants {', '.join(found.variants)}, not {variant!r}",
        )
    return chosen


@functools.cache
def _check_fields_match(found: Algorithm, schema: InputSchema) -> None:
    """The spec's input fields are the function's keyword arguments: a mismatch is a bug
    in the spec or the reference, named once, not an input error."""
    parameters = [
        name for name in inspect.signature(found.function).parameters if name != "variant"
    ]
    if sorted(parameters) != sorted(schema.fields):
        raise FairvecError(
            f"{schema.where}: inputs/properties: lists {schema.fields}, but "
            f"{found.function.__module__}.{found.function.__name__} takes {parameters}"
        )
