"""Reading spec files: YAML, validated against spec/spec.schema.json and for consistency.

Errors name the file, the field and the reason, on one line.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from fairvec.errors import FairvecError
from fairvec.jsonio import check_nesting, decode_utf8


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader that refuses a key given twice (PyYAML keeps the last one silently)."""


def _construct_mapping(loader: _StrictLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    seen: set[Any] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node)
        line = key_node.start_mark.line + 1
        if not isinstance(key, (str, int, float, bool)) and key is not None:
            raise FairvecError(
                f"line {line}: a key must be plain text, not {type(key).__name__}"
                " (is a {{placeholder}} left in, or a quote missing?)"
            )
        if key in seen:
            raise FairvecError(f"line {line}: key {key!r} appears twice")
        seen.add(key)
    return dict(loader.construct_pairs(node))


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)

# LibYAML's parser reads the specs about ten times faster than PyYAML's own. It is optional
# (PyYAML wheels bundle it; a source build may not), and it refuses a few escapes that the
# YAML spec allows and PyYAML reads (e.g. a lone surrogate "\ud800"), so a file it refuses is
# read again by the pure-Python loader, which gives the verdict and the message.
_CLoaderBase: type[Any] | None = getattr(yaml, "CSafeLoader", None)
_FastLoader: type[Any] | None = None
if _CLoaderBase is not None:
    _FastLoader = type("_StrictCLoader", (_CLoaderBase,), {})
    _FastLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


# LibYAML's composer recurses on the C stack: a file nested thousands of levels deep crashes
# the interpreter (a segfault, not an exception). Such a file goes to the pure-Python loader,
# whose RecursionError becomes a one-line error. Counting brackets ignores quoting, so it can
# only over-count, which merely costs speed.
_FAST_MAX_BRACKETS = 64
_FAST_MAX_INDENT = 1_000


def _shallow(text: str) -> bool:
    depth = deepest = 0
    for character in text:
        if character in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif character in "]}":
            depth = max(depth - 1, 0)
    if deepest > _FAST_MAX_BRACKETS:
        return False
    return all(len(line) - len(line.lstrip(" ")) <= _FAST_MAX_INDENT for line in text.splitlines())


def _load_yaml(text: str) -> Any:
    if _FastLoader is not None and _shallow(text):
        try:
            return yaml.load(text, Loader=_FastLoader)
        except yaml.YAMLError:
            pass  # the pure-Python loader below decides, and says where and why
    return yaml.load(text, Loader=_StrictLoader)


@dataclass(frozen=True)
class Spec:
    path: Path
    data: dict[str, Any]

    @property
    def id(self) -> str:
        return str(self.data["id"])

    @property
    def family(self) -> str:
        return self.id.split(".", 1)[0]

    @property
    def variants(self) -> list[str]:
        return [variant["id"] for variant in self.data.get("variants", [])]

    def quirks_exercised_by(self, name: str) -> list[str]:
        return [q["id"] for q in self.data.get("quirks", []) if name in q["exercised_by"]]

    def quirk(self, quirk_id: str) -> dict[str, Any]:
        return next(q for q in self.data.get("quirks", []) if q["id"] == quirk_id)


@cache
def spec_schema() -> dict[str, Any]:
    text = resources.files("fairvec").joinpath("spec", "spec.schema.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def spec_paths(spec_root: Path) -> list[Path]:
    return sorted(spec_root.glob("*/*.yaml"))


def load_spec(path: Path, spec_root: Path) -> Spec:
    where = _relative(path, spec_root.parent)
    try:
        text = decode_utf8(path.read_bytes(), where, "a spec file")
        data = _load_yaml(text)
    except FairvecError as error:
        message = str(error)  # decode_utf8 names the place itself; the loader does not
        place = "" if message.startswith(where) else f"{where}: "
        raise FairvecError(place + message) from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        place = f":{mark.line + 1}:{mark.column + 1}" if mark else ""
        problem = getattr(error, "problem", None) or str(error)
        raise FairvecError(f"{where}{place}: not valid YAML ({problem})") from None
    except RecursionError:
        raise FairvecError(f"{where}: a spec file is nested too deeply to read") from None
    except OSError as error:
        raise FairvecError(f"{where}: cannot read ({error.strerror})") from None
    check_nesting(data, where, "a spec file")
    _validate_against_schema(data, where)
    spec = Spec(path, data)
    _check_consistency(spec, where, path.relative_to(spec_root))
    return spec


def load_specs(spec_root: Path) -> list[Spec]:
    if not spec_root.is_dir():
        raise FairvecError(f"{spec_root}: no spec folder here (pass --root, the repository root)")
    specs = [load_spec(path, spec_root) for path in spec_paths(spec_root)]
    if not specs:
        raise FairvecError(f"{spec_root}: no spec files (expected spec/<family>/<algorithm>.yaml)")
    return specs


def _validate_against_schema(data: Any, where: str) -> None:
    validator = jsonschema.Draft202012Validator(spec_schema())
    error = jsonschema.exceptions.best_match(validator.iter_errors(data))
    if error is not None:
        field = "/".join(str(part) for part in error.absolute_path) or "(top level)"
        raise FairvecError(f"{where}: {field}: {error.message}")


def _check_consistency(spec: Spec, where: str, relative: Path) -> None:
    expected_id = f"{relative.parent.as_posix()}.{relative.stem}"
    if spec.id != expected_id:
        raise FairvecError(f"{where}: id: is {spec.id!r} but the file's place says {expected_id!r}")
    names = list(_set_names(spec))
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise FairvecError(f"{where}: cases: the name {duplicates[0]!r} is used twice")
    for index, quirk in enumerate(spec.data.get("quirks", [])):
        for name in quirk["exercised_by"]:
            if name not in names:
                raise FairvecError(
                    f"{where}: quirks/{index}/exercised_by: no case, generated or upstream "
                    f"set is named {name!r}"
                )
    for section in ("cases", "generated", "upstream"):
        for index, entry in enumerate(spec.data.get(section, [])):
            for variant in entry.get("variants", []):
                if variant not in spec.variants:
                    raise FairvecError(
                        f"{where}: {section}/{index}/variants: {variant!r} is not one of "
                        f"the spec's variants {spec.variants}"
                    )


def _set_names(spec: Spec) -> Iterator[str]:
    for section in ("cases", "generated", "upstream"):
        for entry in spec.data.get(section, []):
            yield entry["name"]


def _relative(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)
