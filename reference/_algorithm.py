"""Registration, input checking and dispatch shared by every reference module."""

from __future__ import annotations

import functools
import importlib
import inspect
import pkgutil
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

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


def compute(algorithm_id: str, inputs: Mapping[str, Any], variant: str | None = None) -> Output:
    """Check ``inputs`` against the function's signature, then run it.

    Raises :class:`InvalidInput` for an unknown algorithm or variant, a missing,
    unknown or mistyped field, and whatever the algorithm itself rejects.
    """
    found = registry().get(algorithm_id)
    if found is None:
        raise InvalidInput("unknown-algorithm", f"no reference for algorithm {algorithm_id!r}")
    arguments = _checked_arguments(found, inputs)
    if found.variants:
        chosen = variant or found.default_variant
        if chosen not in found.variants:
            raise InvalidInput(
                "unknown-variant",
                f"{algorithm_id} has variants {', '.join(found.variants)}, not {variant!r}",
            )
        arguments["variant"] = chosen
    elif variant is not None:
        raise InvalidInput("unknown-variant", f"{algorithm_id} has no variants, got {variant!r}")
    return found.function(**arguments)


@functools.cache
def _parameters(function: Callable[..., Output]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The input fields a function takes and their type hints, worked out once per
    function (not at registration: hints may name types defined later in the module)."""
    hints = typing.get_type_hints(function)
    parameters = {
        name: parameter
        for name, parameter in inspect.signature(function).parameters.items()
        if name != "variant"
    }
    return parameters, hints


def _checked_arguments(found: Algorithm, inputs: Mapping[str, Any]) -> dict[str, Any]:
    parameters, hints = _parameters(found.function)
    unknown = sorted(set(inputs) - set(parameters))
    if unknown:
        raise InvalidInput("unknown-field", f"{found.id} takes no field {unknown[0]!r}")
    for name, parameter in parameters.items():
        if name not in inputs:
            if parameter.default is inspect.Parameter.empty:
                raise InvalidInput("missing-field", f"{found.id} needs the field {name!r}")
            continue
        expected = hints.get(name)
        if expected is not None and not _is_instance(inputs[name], expected):
            raise InvalidInput(
                "wrong-type",
                f"{found.id} field {name!r} must be {_type_name(expected)}, "
                f"got {type(inputs[name]).__name__}",
            )
    return dict(inputs)


def _is_instance(value: Any, expected: Any) -> bool:
    """A shallow JSON-level type check: bool is never an int, an int is a float."""
    origin = typing.get_origin(expected)
    if origin in (typing.Union, types.UnionType):
        return any(_is_instance(value, option) for option in typing.get_args(expected))
    if origin is typing.Literal:
        return value in typing.get_args(expected)
    if expected is Any:
        return True
    if expected is type(None):
        return value is None
    target = origin or expected
    if target is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if target is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if isinstance(target, type):
        return isinstance(value, target)
    return True


def _type_name(expected: Any) -> str:
    origin = typing.get_origin(expected)
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_type_name(option) for option in typing.get_args(expected))
    if origin is typing.Literal:
        return "one of " + ", ".join(repr(option) for option in typing.get_args(expected))
    return getattr(origin or expected, "__name__", str(expected))
