"""One algorithm's fuzz inputs: a base input from the spec, then fuzz values over it.

Input ``index`` of algorithm ``A`` under seed ``S`` is drawn from its own stream,
``fairvec-fuzz/1/S/A/index``, so it is the same whatever else the run selects, and a
mismatch can be replayed alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from fairvec.errors import FairvecError
from fairvec.fuzz.fields import NOTHING, FieldFuzzer, json_types
from fairvec.fuzz.picker import Picker
from fairvec.input_draws import draw, draw_inputs
from fairvec.specs import Spec

if TYPE_CHECKING:  # types only: loading fairvec.data_model costs 2 ms of start-up
    from fairvec.data_model import GeneratedSet

STREAM_FORMAT = "fairvec-fuzz/1/{seed}/{algorithm}/{index}"


@dataclass
class Drawn:
    algorithm: str
    index: int
    input: dict[str, Any]
    variant: str | None
    how: list[str] = field(default_factory=list)  # how it was made, for the report
    label: str = ""  # tells apart the shrinking candidates of one input


class AlgorithmPlan:
    def __init__(
        self,
        spec: Spec,
        settings: dict[str, Any],
        variants: list[str],
        where: str = "spec/fuzz.yaml",
        pinned: dict[str, Any] | None = None,
    ) -> None:
        self.spec = spec
        # inputs the port hard-codes (--fix, or its hello's pins): held in every input
        self.pinned = pinned or {}
        self.settings = settings
        self.variants = variants  # the ones both the spec and the adapter name, spec order
        self.schema = spec.inputs
        self.fields: dict[str, Any] = self.schema.get("properties", {})
        self.required: list[str] = list(self.schema.get("required", []))
        # the cost bounds (spec/fuzz.yaml `bounds`): valid values are drawn from these
        # narrowed schemas; invalid ones still from the spec's (the reference rejects them
        # before any work)
        self.bounds: dict[str, dict[str, Any]] = settings.get("bounds", {})
        self.valid_fields = {
            name: _narrowed(schema, self.bounds.get(name))
            for name, schema in self.fields.items()
        }
        self._check_bounds(where)
        self.generated: list[GeneratedSet] = spec.generated
        self.cases = [
            (case["name"], case["input"] if "input" in case else case["find"]["input"])
            for case in spec.cases
        ]
        self.events: list[dict[str, Any]] = settings["events"]
        self.fuzzer = FieldFuzzer(settings)

    @property
    def id(self) -> str:
        return self.spec.id

    def _check_bounds(self, where: str) -> None:
        """Each bound names an input field of the spec, of a type it can limit."""
        for name, bound in self.bounds.items():
            place = f"{where}: algorithms/{self.id}/bounds/{name}"
            if name not in self.fields:
                raise FairvecError(
                    f"{place}: {self.id} has no input field {name!r} "
                    f"(its fields: {', '.join(self.fields) or 'none'})"
                )
            types = json_types(self.fields[name])
            numeric = {"minimum", "maximum"} & set(bound)
            if numeric and not {"integer", "number"} & set(types):
                raise FairvecError(
                    f"{place}: {sorted(numeric)[0]} limits a number, and {name} is "
                    f"{'/'.join(types) or 'untyped'} (use maxItems for an array)"
                )
            if "maxItems" in bound and "array" not in types:
                raise FairvecError(
                    f"{place}: maxItems limits an array, and {name} is "
                    f"{'/'.join(types) or 'untyped'} (use minimum/maximum for a number)"
                )

    def draw(self, seed: str, index: int) -> Drawn:
        picker = Picker(STREAM_FORMAT.format(seed=seed, algorithm=self.id, index=index))
        how: list[str] = []
        inputs = self._base(picker, how)
        self._mutate(inputs, picker, how)
        self._keep_in_bounds(inputs, how)
        if picker.chance(self.settings["input_invalid"]):
            self._break_object(inputs, picker, how)
        if self.pinned and isinstance(inputs, dict):  # last: no mutation moves a pinned value
            inputs.update(self.pinned)
            how.append(f"{', '.join(self.pinned)}: pinned")
        variant = picker.item(self.variants) if self.variants else None
        return Drawn(self.id, index, inputs, variant, how)

    def _base(self, picker: Picker, how: list[str]) -> dict[str, Any]:
        weights = dict(self.settings["start"])
        if not self.generated:
            weights["generated"] = 0
        if not self.cases:
            weights["case"] = 0
        if not self.events:
            weights["event"] = 0
        if not any(weight > 0 for weight in weights.values()):
            weights = {"schema": 1}
        start = picker.weighted(weights)
        if start == "generated":
            chosen = picker.item(self.generated)
            how.append(f"generated set {chosen['name']}")
            return draw_inputs(picker.stream, chosen["input"])
        if start == "case":
            name, inputs = picker.item(self.cases)
            how.append(f"case {name}")
            return dict(inputs)
        if start == "event":
            event = self._event(picker)
            how.append(f"event {event['name']}")
            base = self._base_for_event(picker)
            return {**base, **{k: draw(picker.stream, g) for k, g in event["input"].items()}}
        how.append("schema")
        return self._from_schema(picker)

    def _event(self, picker: Picker) -> dict[str, Any]:
        weights = {str(i): event["weight"] for i, event in enumerate(self.events)}
        return self.events[int(picker.weighted(weights))]

    def _base_for_event(self, picker: Picker) -> dict[str, Any]:
        if self.generated:
            return draw_inputs(picker.stream, picker.item(self.generated)["input"])
        if self.cases:
            return dict(picker.item(self.cases)[1])
        return self._from_schema(picker)

    def _from_schema(self, picker: Picker) -> dict[str, Any]:
        inputs: dict[str, Any] = {}
        for name, schema in self.valid_fields.items():
            if name in self.required or picker.chance(0.5):
                inputs[name] = self.fuzzer.valid(schema, None, picker)
        return inputs

    def _mutate(self, inputs: dict[str, Any], picker: Picker, how: list[str]) -> None:
        names = list(self.fields)
        count = min(int(picker.weighted(self.settings["mutate"])), len(names))
        for name in picker.shuffled(names)[:count]:
            schema = self.fields[name]
            current = inputs.get(name)
            if picker.chance(self.settings["invalid"]):
                value = self.fuzzer.invalid(schema, current, picker)
                if value is not NOTHING:
                    inputs[name] = value
                    how.append(f"{name}: invalid")
                    continue
            inputs[name] = self.fuzzer.valid(self.valid_fields[name], current, picker)
            how.append(f"{name}: fuzzed")

    def _keep_in_bounds(self, inputs: dict[str, Any], how: list[str]) -> None:
        """A valid value the base input brought (a case's, a generated set's, an event's)
        beyond the field's cost bound is clamped to it. A value the spec's schema rejects
        is left as it is: the reference rejects it before any work, and it is the point
        of the case (``bound-too-large``)."""
        for name, bound in self.bounds.items():
            if name not in inputs:
                continue
            value = inputs[name]
            kept = _clamped(value, self.fields[name], bound)
            if kept is not value:
                inputs[name] = kept
                shown = f"{len(kept)} items" if isinstance(kept, list) else str(kept)
                how.append(f"{name}: clamped to {shown} (fuzz bound)")

    def _break_object(self, inputs: dict[str, Any], picker: Picker, how: list[str]) -> None:
        present = [name for name in self.required if name in inputs]
        if present and picker.chance(0.5):
            name = picker.item(present)
            del inputs[name]
            how.append(f"{name}: removed")
            return
        names = list(self.fields) or ["input"]
        base = picker.item(names)
        unknown = picker.item([base.upper(), base.title(), f"{base}_", "extra"])
        if unknown not in self.fields:
            inputs[unknown] = 1
            how.append(f"{unknown}: unknown field added")


def _narrowed(schema: Any, bound: dict[str, Any] | None) -> Any:
    """The field's schema with the cost bound's limits put inside its own."""
    if not bound or not isinstance(schema, dict):
        return schema
    narrowed = dict(schema)
    if "maximum" in bound:
        narrowed["maximum"] = min(schema.get("maximum", bound["maximum"]), bound["maximum"])
    if "minimum" in bound:
        narrowed["minimum"] = max(schema.get("minimum", bound["minimum"]), bound["minimum"])
    if "maxItems" in bound:
        top = min(schema.get("maxItems", bound["maxItems"]), bound["maxItems"])
        narrowed["maxItems"] = max(top, schema.get("minItems", 0))
    return narrowed


def _clamped(value: Any, schema: Any, bound: dict[str, Any]) -> Any:
    """``value`` itself when it keeps to the bound or the schema rejects it anyway; else
    the nearest value inside the bound."""
    if not isinstance(schema, dict) or isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        if isinstance(value, float) and schema.get("type") == "integer":
            return value  # a fraction (or 1.0) for an integer: wrong-type before any work
        if not schema.get("minimum", value) <= value <= schema.get("maximum", value):
            return value  # out of the schema's range: rejected before any work
        if "maximum" in bound and value > bound["maximum"]:
            return type(value)(bound["maximum"])
        if "minimum" in bound and value < bound["minimum"]:
            return type(value)(bound["minimum"])
        return value
    if isinstance(value, list) and "maxItems" in bound:
        if len(value) > schema.get("maxItems", len(value)):
            return value  # too long for the schema: rejected before any work
        top = max(bound["maxItems"], schema.get("minItems", 0))
        return value[:top] if len(value) > top else value
    return value
