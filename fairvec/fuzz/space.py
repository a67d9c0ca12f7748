"""The input space: spec/fuzz.yaml, validated against spec/fuzz.schema.json, merged per algorithm.

Errors name the file, the place and the fix on one line.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import referencing

from fairvec.errors import FairvecError
from fairvec.specs import read_yaml, spec_schema

SECTIONS = (
    "start",
    "mutate",
    "invalid",
    "input_invalid",
    "invalid_kinds",
    "strings",
    "integers",
    "numbers",
    "arrays",
)


def default_space_path() -> Path:
    return Path(str(resources.files("fairvec").joinpath("spec", "fuzz.yaml")))


@cache
def fuzz_schema() -> dict[str, Any]:
    text = resources.files("fairvec").joinpath("spec", "fuzz.schema.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


@dataclass(frozen=True)
class Space:
    """The whole file; :meth:`for_algorithm` gives one algorithm's merged settings."""

    where: str
    data: dict[str, Any]

    def for_algorithm(self, algorithm_id: str) -> dict[str, Any]:
        """The global sections with the algorithm's overrides merged key by key, plus its
        ``events`` (empty when it has none), its ``share`` of ``--count`` (default 1) and
        its cost ``bounds`` (field name to limits; empty when it has none)."""
        merged = {section: copy.deepcopy(self.data[section]) for section in SECTIONS}
        override = self.data.get("algorithms", {}).get(algorithm_id, {})
        for section in SECTIONS:
            if section in override:
                merged[section] = _merge(merged[section], override[section])
        merged["events"] = override.get("events", [])
        merged["share"] = override.get("share", 1)
        merged["bounds"] = copy.deepcopy(override.get("bounds", {}))
        return merged

    def unknown_algorithms(self, known: set[str]) -> list[str]:
        return sorted(set(self.data.get("algorithms", {})) - known)


def _merge(base: Any, override: Any) -> Any:
    """Objects merge key by key (recursively); anything else is replaced."""
    if isinstance(base, dict) and isinstance(override, dict):
        merged = dict(base)
        for key, value in override.items():
            merged[key] = _merge(base.get(key), value)
        return merged
    return copy.deepcopy(override)


def load_space(path: Path | None = None) -> Space:
    where = "spec/fuzz.yaml" if path is None else str(path)
    path = path or default_space_path()
    # the spec files' reader: bounded in size, depth and alias expansion (issue 16)
    data = read_yaml(path, where)
    _validate(data, where)
    _check_spans(data, where)
    return Space(where, data)


def _validate(data: Any, where: str) -> None:
    spec = referencing.Resource.from_contents(spec_schema())
    registry: referencing.Registry[Any] = referencing.Registry().with_resource(
        spec_schema()["$id"], spec
    )
    validator = jsonschema.Draft202012Validator(fuzz_schema(), registry=registry)
    error = jsonschema.exceptions.best_match(validator.iter_errors(data))
    if error is not None:
        at = "/".join(str(part) for part in error.absolute_path) or "(top level)"
        raise FairvecError(f"{where}: {at}: {error.message} (see spec/fuzz.schema.json)")


def _check_spans(data: dict[str, Any], where: str) -> None:
    """What the schema cannot say: every [low, high] has low <= high, every weight set
    has a positive total."""
    sections = [
        ("", data),
        *((f"algorithms/{k}/", v) for k, v in data.get("algorithms", {}).items()),
    ]
    for prefix, section in sections:
        strings = section.get("strings", {})
        spans = [(f"{prefix}strings/length", strings.get("length"))]
        for name, kind in strings.get("kinds", {}).items():
            spans.append((f"{prefix}strings/kinds/{name}/length", kind.get("length")))
            spans.append((f"{prefix}strings/kinds/{name}/bytes", kind.get("bytes")))
            for index, span in enumerate(kind.get("ranges", [])):
                spans.append((f"{prefix}strings/kinds/{name}/ranges/{index}", span))
        for place, span in spans:
            if span is not None and span[0] > span[1]:
                raise FairvecError(
                    f"{where}: {place}: {span} is empty (write [low, high], low <= high)"
                )
        for name, bound in section.get("bounds", {}).items():
            low, high = bound.get("minimum"), bound.get("maximum")
            if low is not None and high is not None and low > high:
                raise FairvecError(
                    f"{where}: {prefix}bounds/{name}: minimum {low} is above maximum {high} "
                    "(write minimum <= maximum)"
                )
        for key in ("start", "mutate", "invalid_kinds"):
            weights = section.get(key)
            if weights is not None and not any(value > 0 for value in weights.values()):
                raise FairvecError(
                    f"{where}: {prefix}{key}: every weight is 0 (give one a weight above 0)"
                )
