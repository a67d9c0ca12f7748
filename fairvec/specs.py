"""Reading spec files: YAML, validated against spec/spec.schema.json and for consistency.

Errors name the file, the field and the reason, on one line. A spec file is read only if
it is a regular file of at most SPEC_FILE_LIMIT bytes, and its YAML is bounded before it
is turned into Python values: at most MAX_NESTING levels deep, at most NODE_LIMIT values,
and its aliases may repeat at most ALIAS_EXPANSION_LIMIT nodes (docs/spec-format.md,
"Limits").
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

import yaml

from fairvec import __version__
from fairvec.cache_place import cache_folder
from fairvec.errors import FairvecError
from fairvec.jsonio import (
    INT_DIGITS_LIMIT,
    MAX_NESTING,
    check_nesting,
    decode_utf8,
    max_int_digits,
)
from fairvec.regular_files import SPEC_FILE_LIMIT, read_regular

if TYPE_CHECKING:  # types only: loading fairvec.data_model costs 2 ms of start-up
    from fairvec.data_model import (
        AccumulatedSet,
        GeneratedSet,
        Quirk,
        Source,
        SpecCase,
        SpecData,
        Step,
        UpstreamSet,
        Variant,
    )

# An alias shares the node of its anchor, so loading costs nothing, but everything that walks
# the loaded spec (the nesting check, the schema, the generator, the vector file it is
# written into) walks each use again: a "billion laughs" (ten aliases of ten aliases, nine
# times over) is 600 bytes that expand to 10^9 values. So the nodes aliases repeat are
# counted on the composed document, before anything is constructed, and bounded. The
# committed specs' only alias (a worked example's states, videopoker/game.yaml) repeats 71.
ALIAS_EXPANSION_LIMIT = 100_000
# The values (YAML nodes) one spec file may hold, counted as they are composed, so a file
# of a million values is refused after the first 20,001 rather than after all of them
# (issue 34: a million-item anchor aliased a thousand times was refused only after 88 s, the
# anchor composed whole first). The largest committed spec holds 1,652
# (videopoker/evaluate.yaml): twelve times as many is room enough for any hand-written spec.
NODE_LIMIT = 20_000
TOO_DEEP = (
    f"a spec file is nested too deeply: it nests arrays or objects more than {MAX_NESTING} "
    "levels deep, which no spec needs"
)


# The name a quirk gives the boundary vectors (fairvec/boundaries.py) in exercised_by.
BOUNDARY_SET = "boundary"


def too_many_values(line: int) -> FairvecError:
    return FairvecError(
        f"line {line}: a spec file holds more than {NODE_LIMIT:,} values (the largest "
        "committed spec holds under 2,000): split the cases, or draw them (generated:)"
    )


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader that refuses a key given twice (PyYAML keeps the last one silently), a
    document of more than NODE_LIMIT values (counted as composed), and one too deep or whose
    aliases expand too far (see _Measure)."""

    _depth = 0  # of the node being composed; the root's is 1
    _nodes = 0  # composed so far (an alias counts once here; _Measure counts its values)

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        # PyYAML composes recursively: bounded here, a 20,000-deep document is refused at
        # level 66 rather than by a RecursionError at whatever depth the stack allows
        self._nodes += 1
        if self._nodes > NODE_LIMIT:
            event = self.peek_event()  # type: ignore[no-untyped-call]
            raise too_many_values(int(event.start_mark.line) + 1)
        self._depth += 1
        try:
            if self._depth > MAX_NESTING + 1:  # a scalar inside MAX_NESTING collections
                raise FairvecError(TOO_DEEP)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def get_single_node(self) -> yaml.Node | None:
        return _measured(super().get_single_node())


def _measured(node: yaml.Node | None) -> yaml.Node | None:
    if isinstance(node, yaml.CollectionNode):
        _Measure().collection(node, 1)
    return node


class _Measure:
    """Walks a composed YAML document once per collection node (a node met again, through
    an alias, is looked up, not walked), so a bomb costs what its text does, and refuses it
    if it nests more than MAX_NESTING collections deep, holds a collection inside itself, or
    if its aliases repeat more than ALIAS_EXPANSION_LIMIT nodes."""

    def __init__(self) -> None:
        self.known: dict[int, tuple[int, int]] = {}  # id(node): (nodes, height)
        self.open: set[int] = set()  # the collections from the root to the one measured
        self.repeated = 0
        self.distinct = 0  # nodes met first-hand (not through an alias): NODE_LIMIT

    def collection(self, node: yaml.CollectionNode, depth: int) -> tuple[int, int]:
        """(nodes, height) of a collection at ``depth`` (the root's is 1)."""
        known = self.known.get(id(node))
        if known is not None:  # an alias
            self.repeated += known[0]
            if self.repeated > ALIAS_EXPANSION_LIMIT:
                raise FairvecError(
                    f"line {_line(node)}: aliases (of the anchor here and others) repeat "
                    f"more than {ALIAS_EXPANSION_LIMIT:,} values, more than fairvec expands: "
                    "write the values out, or use fewer aliases"
                )
            if depth + known[1] - 1 > MAX_NESTING:
                raise FairvecError(TOO_DEEP)
            return known
        if id(node) in self.open:
            raise FairvecError(
                f"line {_line(node)}: an alias refers to this collection from inside it, "
                "which would never end: write the inner value out"
            )
        if depth > MAX_NESTING:
            raise FairvecError(TOO_DEEP)
        self.open.add(id(node))
        children = _children(node)
        self.distinct += 1 + len(children)
        if self.distinct > NODE_LIMIT:  # (LibYAML composed the file: counted here)
            raise too_many_values(_line(node))
        nodes, height = 1, 1
        for child in children:
            if isinstance(child, yaml.CollectionNode):
                child_nodes, child_height = self.collection(child, depth + 1)
                nodes, height = nodes + child_nodes, max(height, child_height + 1)
            else:
                nodes += 1
        self.open.discard(id(node))
        self.known[id(node)] = (nodes, height)
        return nodes, height


def _line(node: yaml.Node) -> int:
    return int(node.start_mark.line) + 1


def _children(node: yaml.CollectionNode) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    children: list[yaml.Node] = node.value
    return children


def _construct_int(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> int:
    """An integer, or a one-line error for one too long to convert: Python refuses more
    than 4,300 digits (a ValueError, "internal error") and fairvec refuses them even where
    that guard is off, as the conversion takes quadratic time."""
    if len(node.value.replace("_", "").lstrip("+-")) <= INT_DIGITS_LIMIT:
        try:
            return int(loader.construct_yaml_int(node))
        except ValueError:
            pass  # Python's own bound may be set lower than ours
    raise FairvecError(
        f"line {_line(node)}: an integer of more than {max_int_digits():,} "
        "digits, which fairvec does not read: no spec needs one (quote it if it is text)"
    )


def _construct_float(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> float:
    """A float, or a one-line error for .nan, .inf and -.inf (and 1e400): JSON has no such
    number, so no vector may be generated from one."""
    value = float(loader.construct_yaml_float(node))
    if not math.isfinite(value):
        raise FairvecError(
            f"line {_line(node)}: {node.value} is not a finite number, which no JSON "
            "vector can hold: write a number (or quote it if it is text)"
        )
    return value


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
_StrictLoader.add_constructor("tag:yaml.org,2002:int", _construct_int)
_StrictLoader.add_constructor("tag:yaml.org,2002:float", _construct_float)

# LibYAML's parser reads the specs about ten times faster than PyYAML's own. It is optional
# (PyYAML wheels bundle it; a source build may not), and it refuses a few escapes that the
# YAML spec allows and PyYAML reads (e.g. a lone surrogate "\ud800"), so a file it refuses is
# read again by the pure-Python loader, which gives the verdict and the message.
_CLoaderBase: type[Any] | None = getattr(yaml, "CSafeLoader", None)
_FastLoader: type[Any] | None = None
if _CLoaderBase is not None:
    _c_compose: Callable[[Any], yaml.Node | None] = _CLoaderBase.get_single_node
    _FastLoader = type(
        "_StrictCLoader",
        (_CLoaderBase,),
        # LibYAML composes (a deep file goes to the pure-Python loader: _shallow), and the
        # document is measured as above
        {"get_single_node": lambda loader: _measured(_c_compose(loader))},
    )
    _FastLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
    _FastLoader.add_constructor("tag:yaml.org,2002:int", _construct_int)
    _FastLoader.add_constructor("tag:yaml.org,2002:float", _construct_float)


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


def _few_values(text: str) -> bool:
    """Whether ``text`` may hold at most NODE_LIMIT values: each value but the first follows
    a comma, a line end, a "-", ":", "?" or an opening bracket (a key and its value share
    one ":"), so a text with fewer of these can hold no more. Others go to the pure-Python
    loader, which counts while composing and stops at the limit; LibYAML, which cannot be
    stopped, would compose a million values first."""
    separators = sum(text.count(character) for character in ",\n-:?[{")
    return 2 * separators + 1 <= NODE_LIMIT


def _load_yaml(text: str) -> Any:
    if _FastLoader is not None and _few_values(text) and _shallow(text):
        try:
            return yaml.load(text, Loader=_FastLoader)
        except yaml.YAMLError:
            pass  # the pure-Python loader below decides, and says where and why
    return yaml.load(text, Loader=_StrictLoader)


@dataclass(frozen=True)
class Spec:
    """A spec file: its place and its value (typed: fairvec.data_model.SpecData), read
    through the properties below."""

    path: Path
    data: SpecData

    @property
    def id(self) -> str:
        return str(self.data["id"])

    @property
    def family(self) -> str:
        return self.id.split(".", 1)[0]

    @property
    def title(self) -> str:
        return self.data["title"]

    @property
    def summary(self) -> str:
        return self.data["summary"]

    @property
    def source(self) -> Source:
        return self.data["source"]

    @property
    def inputs(self) -> dict[str, Any]:
        """The JSON Schema of the input object."""
        return self.data["inputs"]

    @property
    def outputs(self) -> dict[str, Any]:
        """The JSON Schema of the output object."""
        return self.data["outputs"]

    @property
    def steps(self) -> list[Step]:
        return self.data["steps"]

    @property
    def variants(self) -> list[str]:
        """The variants' ids, the default first; empty when there is one reading."""
        return [variant["id"] for variant in self.variant_entries]

    @property
    def variant_entries(self) -> list[Variant]:
        """The variants as the spec gives them (id and text)."""
        return self.data.get("variants", [])

    @property
    def quirks(self) -> list[Quirk]:
        return self.data.get("quirks", [])

    @property
    def shapes_from(self) -> str:
        return self.data["shapes_from"]

    @property
    def cases(self) -> list[SpecCase]:
        return self.data.get("cases", [])

    @property
    def generated(self) -> list[GeneratedSet]:
        return self.data.get("generated", [])

    @property
    def upstream(self) -> list[UpstreamSet]:
        return self.data.get("upstream", [])

    @property
    def accumulated(self) -> list[AccumulatedSet]:
        return self.data.get("accumulated", [])

    def quirks_exercised_by(self, name: str) -> list[str]:
        return [q["id"] for q in self.quirks if name in q["exercised_by"]]

    def quirk(self, quirk_id: str) -> Quirk:
        return next(q for q in self.quirks if q["id"] == quirk_id)


@cache
def spec_schema() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(_spec_schema_bytes())
    return schema


@cache
def _spec_schema_bytes() -> bytes:
    return resources.files("fairvec").joinpath("spec", "spec.schema.json").read_bytes()


def spec_paths(spec_root: Path) -> list[Path]:
    return sorted(spec_root.glob("*/*.yaml"))


def load_spec(path: Path, spec_root: Path) -> Spec:
    where = _relative(path, spec_root.parent)
    raw = _read_spec(path, where)
    data = _parse_yaml(raw, where)
    _validate_once(raw, data, where)
    spec = Spec(path, data)
    _check_consistency(spec, where, path.relative_to(spec_root))
    return spec


def read_yaml(path: Path, where: str) -> Any:
    """The value of a spec file (or another YAML file of the spec folder, such as
    spec/fuzz.yaml) within the bounds above, or a one-line error starting with ``where``."""
    return _parse_yaml(_read_spec(path, where), where)


def _parse_yaml(raw: bytes, where: str) -> Any:
    try:
        text = decode_utf8(raw, where, "a spec file")
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
    check_nesting(data, where, "a spec file")
    return data


def _read_spec(path: Path, where: str) -> bytes:
    """A regular file of at most SPEC_FILE_LIMIT bytes (a FIFO, /dev/zero or a 3 GB sparse
    file would hang or fill memory), its errors naming the file as the others do."""
    try:
        return read_regular(path, "a spec file", SPEC_FILE_LIMIT)
    except FairvecError as error:
        raise FairvecError(where + str(error).removeprefix(str(path))) from None


def load_specs(spec_root: Path) -> list[Spec]:
    if not spec_root.is_dir():
        raise FairvecError(f"{spec_root}: no spec folder here (pass --root, the repository root)")
    specs = [load_spec(path, spec_root) for path in spec_paths(spec_root)]
    if not specs:
        raise FairvecError(f"{spec_root}: no spec files (expected spec/<family>/<algorithm>.yaml)")
    return specs


# The spec files known to pass the spec schema, by content. The check is jsonschema's, whose
# import (80 ms) and walk (20 ms a file) were most of the start of a process answering
# with the reference; the test command starts about 650 of them (issue 35). A file's mark
# is named by a digest of this name, fairvec's version, the spec schema and the file's
# bytes, so an edit to any of them is a new name and no mark is ever stale (bump the name
# when the check itself changes). Best effort, as fairvec's other caches (cache_place): a
# folder that cannot be read or written costs the check, never an error.
VALID_SPECS = "valid-specs-1"


def _validate_once(raw: bytes, data: Any, where: str) -> None:
    mark = _validity_mark(raw)
    with contextlib.suppress(OSError):  # an unreadable folder (EACCES): check the file
        if mark is not None and mark.is_file():
            return
    _validate_against_schema(data, where)
    if mark is not None:
        with contextlib.suppress(OSError):
            mark.parent.mkdir(parents=True, exist_ok=True)
            mark.touch()


def _validity_mark(raw: bytes) -> Path | None:
    folder = cache_folder()
    if folder is None:
        return None
    digest = hashlib.sha256()
    for part in (VALID_SPECS.encode(), __version__.encode(), _spec_schema_bytes(), raw):
        digest.update(len(part).to_bytes(8, "big") + part)  # lengths: no two splits alike
    return folder / VALID_SPECS / digest.hexdigest()


def _validate_against_schema(data: Any, where: str) -> None:
    import jsonschema  # only here: a spec already known valid never needs it (above)

    validator = jsonschema.Draft202012Validator(spec_schema())
    error = jsonschema.exceptions.best_match(validator.iter_errors(data))
    if error is not None:
        field = "/".join(str(part) for part in error.absolute_path) or "(top level)"
        raise FairvecError(f"{where}: {field}: {error.message}")


def source_page(document: str) -> str:
    """The page of a source document in the repository (docs/sources/), which a clone can
    read although it lacks the document: its file name without folder or extension
    (``research/bustabit-vx.md`` -> ``docs/sources/bustabit-vx.md``)."""
    return f"docs/sources/{PurePosixPath(document).stem}.md"


def _check_consistency(spec: Spec, where: str, relative: Path) -> None:
    expected_id = f"{relative.parent.as_posix()}.{relative.stem}"
    if spec.id != expected_id:
        raise FairvecError(f"{where}: id: is {spec.id!r} but the file's place says {expected_id!r}")
    page = source_page(spec.source["document"])
    if spec.source.get("page") != page:
        raise FairvecError(
            f"{where}: source/page: is {spec.source.get('page')!r}; its source's page is {page!r} "
            '(docs/spec-format.md, "Source pages")'
        )
    names = list(_set_names(spec))
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise FairvecError(f"{where}: cases: the name {duplicates[0]!r} is used twice")
    # A quirk may also name an accumulated set (its streams then carry the quirk's tag, as a
    # case's vectors do; an accumulated set may share a case's name: its ids differ) and the
    # generated boundary vectors, BOUNDARY_SET (those that answer an output carry it).
    streams = (accumulated_set["name"] for accumulated_set in spec.accumulated)
    exercisable = {*names, *streams, BOUNDARY_SET}
    for index, quirk in enumerate(spec.quirks):
        for name in quirk["exercised_by"]:
            if name not in exercisable:
                raise FairvecError(
                    f"{where}: quirks/{index}/exercised_by: no case, generated, upstream or "
                    f"accumulated set is named {name!r} (nor is it {BOUNDARY_SET!r})"
                )
    for section, entries in _sets(spec):
        for index, entry in enumerate(entries):
            for variant in entry.get("variants", []):
                if variant not in spec.variants:
                    raise FairvecError(
                        f"{where}: {section}/{index}/variants: {variant!r} is not one of "
                        f"the spec's variants {spec.variants}"
                    )


def _sets(spec: Spec) -> list[tuple[str, list[SpecCase] | list[GeneratedSet] | list[UpstreamSet]]]:
    """The named sets of vectors, by section: their names are unique, their variants the
    spec's."""
    return [("cases", spec.cases), ("generated", spec.generated), ("upstream", spec.upstream)]


def _set_names(spec: Spec) -> Iterator[str]:
    for _section, entries in _sets(spec):
        for entry in entries:
            yield entry["name"]


def _relative(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)
