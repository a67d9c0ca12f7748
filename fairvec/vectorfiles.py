"""Vector files: their schema, reading them, and the digest that names a set of vectors.

Validating the 18 MB of vector files against their schema takes seconds; reading them, a
fraction of that. So a file's validation is remembered, in the user's cache folder, keyed
by the SHA-256 of the file's exact bytes, the schema and fairvec's version: each run still
reads and hashes every selected file, and any changed byte is a cache miss (the file is
validated again). The cache says only "these exact bytes were valid"; it never holds data.
A tampered cache can therefore only make fairvec skip validating a file that someone who
can write the user's cache could equally have made valid by editing the installed package;
a cache that cannot be read or parsed is ignored, and one that cannot be written is not
an error. FAIRVEC_CACHE_DIR moves it; FAIRVEC_NO_CACHE=1 turns it off.

"Valid" covers everything checked of the bytes alone: strict JSON (no key twice, no NaN or
Infinity, no integer too long to convert: fairvec.jsonio.parse_json), the schema, and no
vector id twice. So these checks cost a cached file nothing.

A run chooses its vectors before the adapter's hello says which algorithms it implements,
and most runs of a port send a few algorithms and skip the rest. So ``fairvec run`` loads
files *skeletal* (``load_vector_files(..., skeletal=True)``): each vector only its id,
variant and tags, which are all a choice and a skip need, from an index remembered per
file SHA-256 (:func:`index_path`); once the hello is read, the files of the declared
algorithms are read whole (:meth:`VectorFile.fill`, each as its first vector is sent:
fairvec.runner.selection.Filler), into the very dicts the selection holds, and each filled
vector is checked against its skeleton. The index is the one cached
thing that is data: a tampered one could at most misname a vector skipped as undeclared
(one the run neither sends nor judges), and whoever can write it could as well edit the
installed package. Without the cache, or on a miss, a file is read whole as before. A file
whose SHA-256 is remembered for its identity on disk (fairvec.file_hashes) is not read
whole to be chosen from: only its header, its first bytes up to where its index says the
vectors begin; fill() reads the rest, and checks it against that SHA-256.

The digests that name a run's vectors (the whole suite's, and the selection's) are
remembered the same way (:class:`DigestCache`), keyed by everything they are computed from:
fairvec's version, every vector file's place and SHA-256, and the selection.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import json
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from fairvec import __version__
from fairvec.cache_place import cache_folder as cache_folder  # re-exported: its old home
from fairvec.errors import FairvecError
from fairvec.file_hashes import KnownHashes
from fairvec.jsonio import (
    canonical,
    digest,
    orjson_agrees,
    parse_json,
    same_canonical,
    trusted_loads,
    write_atomically,
)
from fairvec.regular_files import (
    SMALL_FILE_LIMIT,
    VECTOR_FILE_LIMIT,
    read_regular,
    read_regular_prefix,
    read_regular_with_status,
)

if TYPE_CHECKING:  # types only: loading fairvec.data_model costs 2 ms of start-up
    from fairvec.data_model import AccumulatedVector, Shown, Variant, Vector, VectorFileData

# A cache entry: the file is valid, and how it is read exactly as json reads it: by orjson
# whole, by orjson line by line with json for the lines orjson refuses (see _lines_loads),
# or by json alone.
_FAST, _LINES, _PLAIN = "orjson", "orjson-lines", "json"
_HOW = (_FAST, _LINES, _PLAIN)
# The generator's layout (fairvec/generate.py, render): the header, then one vector a line.
_VECTORS_OPEN, _VECTORS_CLOSE = b',\n  "vectors": [\n', b"\n  ]\n}\n"


class VectorFile:
    """A vector file: its place, its value (typed: fairvec.data_model.VectorFileData, the
    very dict parsed from JSON), read through the properties below, and its SHA-256.

    (A plain class, not a dataclass: importing dataclasses and making their methods cost
    every run's start-up 35 ms; see runner/results.py.)"""

    __slots__ = ("data", "path", "sha256", "unread")
    __hash__ = None  # type: ignore[assignment]  # equal by value, so not hashable

    def __init__(
        self,
        path: Path,
        data: VectorFileData,
        sha256: str = "",  # of the file's exact bytes, hex
        # a skeletal file's bytes (None: not read yet, known by its remembered hash alone)
        # and how to read them (_HOW), until fill() reads it whole
        unread: list[tuple[bytes | None, str]] | None = None,
    ) -> None:
        self.path = path
        self.data = data
        self.sha256 = sha256
        self.unread = [] if unread is None else unread

    def __eq__(self, other: object) -> bool:  # (``unread`` is how, not what: not compared)
        if type(other) is not VectorFile:
            return NotImplemented
        return (self.path, self.data, self.sha256) == (other.path, other.data, other.sha256)

    def __repr__(self) -> str:
        return f"VectorFile({self.path!r}, sha256={self.sha256!r})"

    @property
    def algorithm(self) -> str:
        return str(self.data["algorithm"])

    @property
    def vectors(self) -> list[Vector]:
        """Every vector, whole (a skeletal file is filled first)."""
        self.fill()
        return self.data["vectors"]

    @property
    def chosen_by(self) -> list[Vector]:
        """The vectors as they are now: of a skeletal file, only each one's id, variant
        and tags (what a selection chooses by); the same dicts are filled later."""
        return self.data["vectors"]

    def fill(self) -> None:
        """Read a skeletal file whole, into its vectors' dicts (so every Work holding one
        sees it whole), after checking every vector against its skeleton."""
        if not self.unread:
            return
        raw, how = self.unread[0]
        if raw is None:
            raw = read_as_hashed(self.path, self.sha256)
        with _collector_paused():
            data: VectorFileData = _known_loads(raw, how)
            whole, skeletons = data["vectors"], self.data["vectors"]
            if (
                len(whole) != len(skeletons)
                or _without_vectors(data) != _without_vectors(self.data)
                or not _same_skeletons(whole, skeletons)
            ):
                raise FairvecError(
                    f"{self.path}: the cached index {index_path(self.sha256)} does not match "
                    "the file; delete it (or run with FAIRVEC_NO_CACHE=1)"
                )
            for vector, skeleton in zip(whole, skeletons, strict=True):
                # the very dict the works hold, completed in one step (dict.update runs no
                # Python code: a session on another thread reading the vector's id, -j
                # with the answer memo, never finds it missing, as between clear and update)
                cast(dict[str, Any], skeleton).update(vector)
        self.unread.clear()

    @property
    def output_schema(self) -> dict[str, Any]:
        return self.data["output_schema"]

    @property
    def variant_entries(self) -> list[Variant]:
        """The algorithm's variants (id and text), the default first; empty when it has
        one reading."""
        return self.data["variants"]

    @property
    def variants(self) -> list[str]:
        """The variants' ids."""
        return [variant["id"] for variant in self.data["variants"]]

    @property
    def accumulated(self) -> list[AccumulatedVector]:
        return self.data.get("accumulated", [])


SCHEMA_NAME = "vectors.schema.json"  # beside the family folders, in a checkout and a release
REGENERATE = "regenerate with fairvec generate"


@cache
def vector_schema() -> dict[str, Any]:
    text = (default_vectors_root() / SCHEMA_NAME).read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def validate_vector_file(data: Any, where: str) -> None:
    """The schema, then every id once (the runner keys its results by id)."""
    if not _quickly_valid(data):
        _check_schema(data, where)
    _check_unique_ids(data, where)


# The quick yes. jsonschema took 5.7 s of CPU for the 85 committed files, in a run with an
# empty cache (a fresh clone's first run) before the first request could go out (issue 35);
# fastjsonschema, compiled once (0.03 s), says "valid" in 0.9 s. It only ever says yes: a
# file it refuses is checked by jsonschema, which alone finds the fault and words the
# message, and may still find none. Its one harmful disagreement would be a yes where
# jsonschema says no; the ways to one are closed: the data is what json.loads made (no
# tuples), the schema uses no keyword draft 7 reads otherwise ($ref stands alone; $defs is
# reached by its JSON pointer), and fastjsonschema's pattern "$" is the end of the text
# while Python's also matches before a final newline (only ever stricter).
# tests/test_vector_quick_check.py draws thousands of broken files: no yes where jsonschema
# says no.
def _quickly_valid(data: Any) -> bool:
    import fastjsonschema

    try:
        _quick_vector_check()(data)
    except fastjsonschema.JsonSchemaValueException:
        return False
    return True


@cache
def _quick_vector_check() -> Callable[[Any], Any]:
    import fastjsonschema

    # no $id: nothing for fastjsonschema to resolve against but the schema itself; its
    # detailed_exceptions=False fails to compile this schema (KeyError, fastjsonschema 2.22)
    schema = {key: value for key, value in vector_schema().items() if key != "$id"}
    return fastjsonschema.compile(schema, use_default=False, use_formats=False)


def _check_schema(data: Any, where: str) -> None:
    # start-up: jsonschema, 35 ms of `fairvec run`, which reads cached files, unvalidated
    import jsonschema

    validator = jsonschema.Draft202012Validator(vector_schema())
    error = jsonschema.exceptions.best_match(validator.iter_errors(data))
    if error is not None:
        at = "/".join(str(part) for part in error.absolute_path) or "(top level)"
        raise FairvecError(f"{where}: {at}: {error.message} ({REGENERATE})")


def _check_unique_ids(data: VectorFileData, where: str) -> None:
    """No id twice among a (schema-valid) file's vectors and accumulated vectors."""
    entries: list[Vector | AccumulatedVector] = [*data["vectors"], *data.get("accumulated", [])]
    seen: set[str] = set()
    for index, entry in enumerate(entries):
        if entry["id"] in seen:
            section = "vectors" if index < len(data["vectors"]) else "accumulated"
            raise FairvecError(
                f"{where}: {section}: the id {entry['id']!r} is given twice; every vector "
                f"needs its own ({REGENERATE})"
            )
        seen.add(entry["id"])


def default_vectors_root() -> Path:
    """The installed suite: the package's vectors folder (beside this module: not through
    importlib.resources, whose readers cost 3 ms of every run to name a plain folder)."""
    return Path(__file__).parent / "vectors"


def algorithm_of(path: Path) -> str:
    """A vector file's place names its algorithm: battle/move.json is battle.move."""
    return f"{path.parent.name}.{path.stem}"


def vector_file_paths(root: Path) -> list[Path]:
    """Every vector file under ``root``, in the suite's order (the digests' order)."""
    return sorted(root.glob("*/*.json"))


def load_vector_files(
    root: Path,
    wanted: Callable[[str], bool] = lambda _id: True,
    *,
    freeze: bool = False,
    skeletal: bool = False,
    hashes: KnownHashes | None = None,
    unneeded: Callable[[Path], bool] | None = None,
) -> list[VectorFile]:
    """Read and validate the vector files of the algorithms ``wanted`` accepts; the
    others are not even opened. A file validated before (same bytes) is not validated
    again (see the module's docstring).

    The garbage collector is paused meanwhile: the files hold a few hundred thousand
    containers, and collecting while they are made (none of them is garbage) took about
    a third of the loading time. ``freeze``: then move them, and everything else alive,
    out of the collector's sight (gc.freeze, until a gc.unfreeze), before it runs again,
    so no collection walks them either: for a caller that holds them through a run.
    ``skeletal``: a file the validation cache vouches for and the index cache knows is
    loaded skeletal (see the module's docstring); the others are read whole and indexed.
    ``hashes``: the remembered hashes (fairvec.file_hashes) as the caller opened them, to
    look up its other files in too (else opened here). ``unneeded``: asked of each file
    ``wanted`` accepts just before it would be loaded (what it decides may change while
    the files load); a file it declines is left out, for the caller to account for."""
    if not root.is_dir():
        raise FairvecError(f"{root}: no vectors folder here (pass --vectors DIR)")
    paths = vector_file_paths(root)
    if not paths:
        raise FairvecError(f"{root}: no vector files (expected <family>/<algorithm>.json)")
    known = ValidationCache.open()
    hashes = KnownHashes.open(cache_folder()) if hashes is None else hashes
    marked = (root / SCHEMA_NAME).is_file()
    chosen = [path for path in paths if wanted(algorithm_of(path))]
    with _collector_paused():
        # skeletal, a file whose identity is unchanged is not even read (file_hashes)
        indexed = _known_by_hash(chosen, hashes, known, unneeded) if skeletal else {}
        rest = [path for path in chosen if path not in indexed]
        if unneeded is not None:
            rest = [path for path in rest if not unneeded(path)]
        read = _read_and_hashed(rest, hashes)
        files = [
            indexed[path]
            if path in indexed
            else _load_in(root, path, read[path], known, marked, skeletal)
            for path in chosen
            if path in indexed or path in read
        ]
        if freeze:
            gc.freeze()
    known.save()
    hashes.save()
    return files


def _known_by_hash(
    paths: list[Path],
    hashes: KnownHashes,
    known: ValidationCache,
    unneeded: Callable[[Path], bool] | None,
) -> dict[Path, VectorFile]:
    """The files known valid and indexed by their remembered hash, skeletal and unread
    (and not ``unneeded``, asked of each in turn: see load_vector_files)."""
    found = {}
    folder = index_folder()
    for path in paths:
        if unneeded is not None and unneeded(path):
            continue
        key = hashes.sha_of(path)
        how = None if key is None else known.get(key)
        if key is None or how is None:
            continue
        loaded = _from_index(path, key, how, None, folder)
        if loaded is not None and loaded.algorithm == algorithm_of(path):
            found[path] = loaded
    return found


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


# What reading a file gave: its bytes and their SHA-256, or what reading it raised.
_Read = tuple[bytes, str] | FairvecError


def _read_and_hashed(paths: list[Path], hashes: KnownHashes) -> dict[Path, _Read]:
    """Every file read and hashed, by this thread and one other: both let go of the
    interpreter's lock to read and to hash, so the two share the work (the 23 MB of the
    suite: 40 ms alone, 25 ms together). An error is kept for its file, to be raised
    where that file is loaded (so the first bad file in the suite's order is the one named)."""
    read: dict[Path, _Read] = {}
    pending = iter(list(paths))
    lock = threading.Lock()

    def work() -> None:
        while True:
            with lock:
                path = next(pending, None)
            if path is None:
                return
            try:
                read[path] = read_and_hash(path, hashes)
            except FairvecError as error:
                read[path] = error

    helper = threading.Thread(target=work, daemon=True)
    helper.start()
    work()
    helper.join()
    return read


def _load_in(
    root: Path, path: Path, read: _Read, known: ValidationCache, marked: bool, skeletal: bool
) -> VectorFile:
    """_load_one; in a folder without the suite's schema beside the files (so probably
    not a vectors folder at all: --vectors /tmp, say), a bad file's error says that."""
    try:
        if isinstance(read, FairvecError):
            raise read
        return _load_one(path, known, skeletal, read)
    except FairvecError as error:
        if marked:
            raise
        why = str(error).removeprefix(f"{path}: ").removesuffix(f" ({REGENERATE})")
        raise FairvecError(
            f"{root}: not a fairvec vectors folder (no {SCHEMA_NAME}, and "
            f"{path.relative_to(root)} is not a vector file: {why}); pass --vectors the "
            "vectors/ folder of a checkout or an extracted release, or --suite ARCHIVE"
        ) from None


def read_vector_bytes(path: Path) -> bytes:
    """A vector file's bytes: a regular file of at most VECTOR_FILE_LIMIT bytes, or a
    one-line error (a FIFO, /dev/zero or a 3 GB sparse file would hang or fill memory)."""
    return read_regular(path, "a vector file", VECTOR_FILE_LIMIT)


def read_as_hashed(path: Path, sha: str) -> bytes:
    """The bytes of a file chosen by its remembered SHA-256 ``sha`` (fairvec.file_hashes),
    checked against it: what is sent, judged or digested is always what was hashed."""
    raw = read_vector_bytes(path)
    if hashlib.sha256(raw).hexdigest() == sha:
        return raw
    hashes = KnownHashes.open(cache_folder())
    hashes.forget(path)  # so the next run reads and hashes it
    hashes.save()
    raise FairvecError(
        f"{path}: changed during this run (it no longer has the SHA-256 remembered in "
        f"{hashes.path}); run again"
    )


def read_and_hash(path: Path, hashes: KnownHashes) -> tuple[bytes, str]:
    """read_vector_bytes, with the bytes' SHA-256 (remembered in ``hashes``)."""
    started = time.time_ns()
    raw, status = read_regular_with_status(path, "a vector file", VECTOR_FILE_LIMIT)
    key = hashlib.sha256(raw).hexdigest()
    hashes.remember(path, status, started, key)
    return raw, key


def _load_one(
    path: Path, known: ValidationCache, skeletal: bool, read: tuple[bytes, str]
) -> VectorFile:
    """``read``: the file's bytes and their SHA-256 (_read_and_hashed)."""
    raw, key = read
    how = known.get(key)
    loaded = None
    if skeletal and how is not None:
        loaded = _from_index(path, key, how, raw, index_folder())
    if loaded is None:
        loaded = VectorFile(path, _whole(path, raw, key, how, known), key)
        if skeletal and _header(raw) == _without_vectors(loaded.data):
            # the next run loads it skeletal
            _save_index(key, raw.find(_VECTORS_OPEN), loaded.vectors)
    data = loaded.data
    if data["algorithm"] != algorithm_of(path):  # the place, not the bytes: always checked
        raise FairvecError(
            f"{path}: algorithm: is {data['algorithm']!r} but the file's place says "
            f"{algorithm_of(path)!r} ({REGENERATE})"
        )
    return loaded


def _whole(
    path: Path, raw: bytes, key: str, how: str | None, known: ValidationCache
) -> VectorFileData:
    """A vector file's value, whole: validated, unless the cache vouches for these bytes."""
    if how is not None:
        data: VectorFileData = _known_loads(raw, how)
        return data
    # json, strictly, on the very bytes hashed: the verdict and the message
    data = parse_json(raw, path, "a vector file")
    validate_vector_file(data, str(path))
    known.add(key, _how_to_read(raw, data))
    return data


# -- skeletal files: the index cache -------------------------------------------------------

# bump when an index comes to hold more (2: in columns; 3: where the header ends, so a file
# known by its remembered hash is read up to there only)
INDEX_FORMAT = 3
INDEX_COLUMNS = ("ids", "variants", "tags", "tag_lists")
INDEX_KEYS = ("header_bytes", *INDEX_COLUMNS)


def index_path(key: str) -> Path | None:
    """Where the index of the vector file of SHA-256 ``key`` is cached (None: no cache)."""
    folder = index_folder()
    return None if folder is None else folder / f"{key}.json"


def index_folder() -> Path | None:
    """Where the indexes are cached (None: no cache). Found once a load, not once a file:
    finding the cache folder (the environment, the home folder) took 28 µs, 2.4 ms for
    the suite's 84 files."""
    folder = cache_folder()
    return None if folder is None else folder / f"index-{INDEX_FORMAT}"


def _same_skeletons(whole: list[Vector], skeletons: list[Vector]) -> bool:
    """Whether each vector has its skeleton's id, variant and tags: compared a column at a
    time (lists compared in C; a skeleton made for each vector cost 1.5 µs a vector)."""
    return all(
        [vector[key] for vector in whole] == [skeleton[key] for skeleton in skeletons]  # type: ignore[literal-required]
        for key in SKELETON_KEYS
    )


SKELETON_KEYS = ("id", "variant", "tags")  # what a selection chooses by, and a skip reports


def _from_index(
    path: Path, key: str, how: str, raw: bytes | None, folder: Path | None
) -> VectorFile | None:
    """The file of SHA-256 ``key`` (valid: the validation cache says so) with skeletal
    vectors, from its index, and its header, read alone from the file itself (``raw``, its
    bytes, if read already; else its first bytes, up to where the index says the header
    ends: fill() reads the rest); None when its index is not cached or its header cannot be
    read alone. An index is saved only for a file whose header, read alone, is the whole
    file but its vectors (the generator's layout: "vectors" last, nothing like it before),
    so the header read here is, unless the cache was tampered with, all of the file but the
    vectors; fill() checks that too, and every skeleton."""
    index = _read_index(key, folder)
    if index is None:
        return None
    header_bytes, skeletons = index
    header = _header(raw) if raw is not None else _header_alone(path, header_bytes)
    if header is None:
        return None
    header["vectors"] = skeletons
    return VectorFile(path, cast("VectorFileData", header), key, [(raw, how)])


def _header_alone(path: Path, header_bytes: int) -> dict[str, Any] | None:
    """A file's header from its first bytes (a few kilobytes), where its index says it
    ends; None if the file does not read so."""
    try:
        prefix = read_regular_prefix(path, "a vector file", header_bytes + len(_VECTORS_OPEN))
    except FairvecError:
        return None  # read whole later, which says what is wrong
    if prefix[header_bytes:] != _VECTORS_OPEN:
        return None
    return _parsed_header(prefix[:header_bytes])


def _header(raw: bytes) -> dict[str, Any] | None:
    """A file in the generator's layout, read up to its vectors: the other keys and their
    values; None for any other layout (or bytes that do not parse so)."""
    opening = raw.find(_VECTORS_OPEN)
    if opening < 0 or not raw.endswith(_VECTORS_CLOSE):
        return None
    return _parsed_header(raw[:opening])


def _parsed_header(before_vectors: bytes) -> dict[str, Any] | None:
    """The header of a file in the generator's layout, from its bytes up to the vectors."""
    head = before_vectors + b"}"
    try:
        value = json.loads(head) if b"\\ud" in head else trusted_loads(head)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _without_vectors(data: VectorFileData | dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in data.items() if key != "vectors"}


def _read_index(key: str, folder: Path | None) -> tuple[int, list[Vector]] | None:
    """Where the header of the file of SHA-256 ``key`` ends, and its skeletons, cached in
    ``folder`` (index_folder); None on a miss, and for anything unreadable or malformed (a
    cache is never an error)."""
    if folder is None:
        return None
    path = folder / f"{key}.json"
    try:
        text = read_regular(path, "a cache file", SMALL_FILE_LIMIT)  # the largest: 52 KB
        # json for an id with a lone surrogate (json.dumps wrote it escaped): orjson refuses
        value = json.loads(text) if b"\\ud" in text else trusted_loads(text)
    except (FairvecError, ValueError, RecursionError):
        return None
    if not _is_index(value):
        return None
    tag_lists = value["tag_lists"]
    # one list of tags for the vectors that have the same (nothing changes a skeleton's:
    # fill() replaces each skeleton's items whole)
    skeletons = [
        {"id": i, "variant": v, "tags": tag_lists[t]}
        for i, v, t in zip(value["ids"], value["variants"], value["tags"], strict=True)
    ]
    return value["header_bytes"], cast("list[Vector]", skeletons)


def _is_index(value: Any) -> bool:
    """An index's shape: {"ids": [str], "variants": [str | None], "tags": [int], and
    "tag_lists": [[str]]}, the tags of each vector an index into tag_lists, the columns of
    one length. Type by type over each column (map(type, ...) runs in C: 22,000 vectors
    are checked in about a millisecond)."""
    if type(value) is not dict or set(value) != set(INDEX_KEYS):
        return False
    if type(value["header_bytes"]) is not int or value["header_bytes"] < 0:
        return False
    ids, variants, tags, tag_lists = (value[key] for key in INDEX_COLUMNS)
    if not all(type(column) is list for column in (ids, variants, tags, tag_lists)):
        return False
    if not len(ids) == len(variants) == len(tags):
        return False
    return (
        set(map(type, ids)) <= {str}
        and set(map(type, variants)) <= {str, type(None)}
        and set(map(type, tags)) <= {int}
        and (not tags or (min(tags) >= 0 and max(tags) < len(tag_lists)))
        and set(map(type, tag_lists)) <= {list}
        and all(set(map(type, listed)) <= {str} for listed in tag_lists)
    )


def _save_index(key: str, header_bytes: int, vectors: list[Vector]) -> None:
    """Best effort, as the other caches; over an index that was not read (missing, not a
    regular file, malformed), so a broken one is repaired by the next run."""
    path = index_path(key)
    if path is None:
        return
    tag_lists: dict[tuple[str, ...], int] = {}
    tags = [tag_lists.setdefault(tuple(vector["tags"]), len(tag_lists)) for vector in vectors]
    index = {
        "header_bytes": header_bytes,
        "ids": [vector["id"] for vector in vectors],
        "variants": [vector["variant"] for vector in vectors],
        "tags": tags,
        "tag_lists": [list(listed) for listed in tag_lists],
    }
    with contextlib.suppress(OSError):
        write_atomically(path, json.dumps(index))


def read_unchecked(path: Path, raw: bytes, key: str, known: ValidationCache) -> Any:
    """A vector file's JSON value, not validated: read_json's verdicts and messages on
    ``raw``, the file's bytes (SHA-256 ``key``), parsed by orjson where the validation
    cache says it reads these bytes exactly as json does."""
    how = known.get(key)
    if how in (_FAST, _LINES):
        return _known_loads(raw, how)
    return parse_json(raw, path, "a vector file")


def _how_to_read(raw: bytes, data: Any) -> str:
    """How these bytes, which json read as ``data``, can be read faster to the same value."""
    if orjson_agrees(raw, data):
        return _FAST
    by_lines = _lines_loads(raw)
    if by_lines is not None and _same_file(by_lines, data):
        return _LINES
    return _PLAIN


def _same_file(one: Any, other: Any) -> bool:
    """Whether two readings of a vector file are the same JSON text: header, then vector by
    vector, so that the few vectors orjson cannot write (a lone surrogate in an input)
    cost json's text of themselves, not of the whole file."""
    if type(one) is not dict or type(other) is not dict or one.keys() != other.keys():
        return False
    vectors, others = one.get("vectors"), other.get("vectors")
    if type(vectors) is not list or type(others) is not list or len(vectors) != len(others):
        return same_canonical(one, other)
    header = {key: value for key, value in one.items() if key != "vectors"}
    header_too = {key: value for key, value in other.items() if key != "vectors"}
    return same_canonical(header, header_too) and all(
        same_canonical(vector, twin) for vector, twin in zip(vectors, others, strict=True)
    )


def _known_loads(raw: bytes, how: str) -> Any:
    if how == _FAST:
        return trusted_loads(raw)
    if how == _LINES:
        data = _lines_loads(raw)
        if data is not None:
            return data
    return json.loads(raw)


def _lines_loads(raw: bytes) -> Any:
    """A file in the generator's layout, read a line at a time: json reads the lines with
    an escape orjson refuses (a lone surrogate, "\\ud800": one input per text field of
    every algorithm), orjson the rest. None when the layout is not the generator's. json
    alone took 0.2 s of the 0.3 s before a run's first request."""
    opening, closing = raw.find(_VECTORS_OPEN), len(raw) - len(_VECTORS_CLOSE)
    if opening < 0 or not raw.endswith(_VECTORS_CLOSE):
        return None
    try:
        data = trusted_loads(raw[:opening] + b"}")
        lines = raw[opening + len(_VECTORS_OPEN) : closing].split(b",\n")
        data["vectors"] = [
            json.loads(line) if b"\\ud" in line else trusted_loads(line) for line in lines
        ]
    except (ValueError, TypeError):
        return None
    return data


# Part of the cache's name: bump it when "valid" comes to mean more, so that no verdict
# given before is trusted. 2: strict JSON and unique ids; 3: no number beyond a double
# (1e400) either (issue 16).
VALIDATION_FORMAT = 3


class ValidationCache:
    """The SHA-256s of vector files found valid, for one schema and one fairvec version."""

    def __init__(self, path: Path | None, entries: dict[str, str]) -> None:
        self.path = path
        self.entries = entries
        self.changed = False

    @classmethod
    def open(cls) -> ValidationCache:
        folder = cache_folder()
        if folder is None:
            return cls(None, {})
        schema = hashlib.sha256(json.dumps(vector_schema(), sort_keys=True).encode()).hexdigest()
        name = f"validated-{VALIDATION_FORMAT}-{__version__}-{schema[:16]}.json"
        path = folder / name.replace("/", "_")
        return cls(path, _read_entries(path))

    def get(self, key: str) -> str | None:
        return self.entries.get(key)

    def add(self, key: str, how: str) -> None:
        self.entries[key] = how
        self.changed = True

    def save(self) -> None:
        """Best effort: a read-only or full disk only costs the next run the validation."""
        if self.path is None or not self.changed:
            return
        with contextlib.suppress(OSError):
            write_atomically(self.path, json.dumps(self.entries, sort_keys=True, indent=0))


def read_cache(path: Path) -> Any:
    """A cache file's JSON value, or None if it is missing, unreadable, not a small regular
    file (a FIFO would hang the run) or not JSON: a cache is best effort, never an error."""
    try:
        return json.loads(read_regular(path, "a cache file", SMALL_FILE_LIMIT))
    except (FairvecError, ValueError, RecursionError):
        return None


def _read_entries(path: Path) -> dict[str, str]:
    """The cache's entries; anything unreadable or malformed is simply not a hit."""
    value = read_cache(path)
    if not isinstance(value, dict):
        return {}
    return {
        key: how
        for key, how in value.items()
        if isinstance(key, str) and len(key) == 64 and how in _HOW
    }


def vectors_digest(vectors: Sequence[Shown]) -> str:
    """One hash for the exact vectors run: ids, variants, inputs and expectations."""
    return digest(_digested(vectors))


def _digested(vectors: Iterable[Shown]) -> list[list[Any]]:
    return [[v["id"], v["variant"], v["input"], v["expected"]] for v in vectors]


class DigestStream:
    """vectors_digest fed a run of vectors at a time, never holding them all: the
    canonical JSON of a list is '[' + its items' canonical JSON joined by ',' + ']'."""

    def __init__(self) -> None:
        self._hasher = hashlib.sha256(b"[")
        self.count = 0

    def add(self, vectors: Sequence[Shown]) -> None:
        """Vectors, in order, each canonicalised once (one call for the whole run)."""
        if vectors:
            self._feed(_canonical_bytes(_digested(vectors))[1:-1], len(vectors))

    def add_items(self, items: list[bytes]) -> None:
        """Vectors already canonicalised one by one (see canonical_items)."""
        if items:
            self._feed(b",".join(items), len(items))

    def _feed(self, joined: bytes, count: int) -> None:
        if self.count:
            self._hasher.update(b",")
        self._hasher.update(joined)
        self.count += count

    def copy(self) -> DigestStream:
        twin = DigestStream()
        twin._hasher, twin.count = self._hasher.copy(), self.count
        return twin

    def digest(self) -> str:
        """vectors_digest of every vector added so far (more may be added after)."""
        final = self._hasher.copy()
        final.update(b"]")
        return f"sha256:{final.hexdigest()}"


def canonical_items(vectors: Sequence[Vector]) -> list[bytes]:
    """Each vector's item of vectors_digest, apart (for a stream that takes some of them)."""
    return [_canonical_bytes(item) for item in _digested(vectors)]


def _canonical_bytes(value: Any) -> bytes:
    # surrogatepass, as fairvec.jsonio.digest: a vector may hold a lone surrogate
    return canonical(value).encode("utf-8", "surrogatepass")


# -- the digest cache ----------------------------------------------------------------------

DIGEST_FORMAT = 1  # bump when what an entry means changes
DIGESTS_KEPT = 64  # entries: a few suites times a few selections
_DIGEST = re.compile(r"sha256:[0-9a-f]{64}")


def digest_key(**parts: Any) -> str:
    """A cache key over everything a digest is computed from; ``parts`` must hold the
    vector files as [relative path, SHA-256] pairs, in the suite's order."""
    described = {"format": DIGEST_FORMAT, "fairvec": __version__, **parts}
    return hashlib.sha256(json.dumps(described, sort_keys=True).encode()).hexdigest()


class DigestCache:
    """Digests computed before, each with its vector count, by digest_key. Best effort,
    as ValidationCache: an entry that cannot be read or does not look like a digest is a
    miss, a cache that cannot be written is not an error. Like it, it trusts the user's
    cache folder: whoever can write there could as well edit the installed package."""

    NAME = "digests.json"

    def __init__(self, path: Path | None, entries: dict[str, tuple[str, int]]) -> None:
        self.path = path
        self.entries = entries
        self.changed = False

    @classmethod
    def open(cls) -> DigestCache:
        folder = cache_folder()
        if folder is None:
            return cls(None, {})
        path = folder / cls.NAME
        return cls(path, _read_digests(path))

    def get(self, key: str) -> tuple[str, int] | None:
        return self.entries.get(key)

    def add(self, key: str, digest_text: str, count: int) -> None:
        self.entries.pop(key, None)
        self.entries[key] = (digest_text, count)  # the newest last
        while len(self.entries) > DIGESTS_KEPT:
            del self.entries[next(iter(self.entries))]
        self.changed = True

    def save(self) -> None:
        if self.path is None or not self.changed:
            return
        entries = {key: list(value) for key, value in self.entries.items()}
        with contextlib.suppress(OSError):
            write_atomically(self.path, json.dumps({"format": DIGEST_FORMAT, "entries": entries}))


def _read_digests(path: Path) -> dict[str, tuple[str, int]]:
    value = read_cache(path)
    if not isinstance(value, dict) or value.get("format") != DIGEST_FORMAT:
        return {}
    entries = value.get("entries")
    if not isinstance(entries, dict):
        return {}
    found = {}
    for key, entry in entries.items():
        if (
            isinstance(entry, list)
            and len(entry) == 2
            and isinstance(entry[0], str)
            and _DIGEST.fullmatch(entry[0])
            and type(entry[1]) is int
            and entry[1] >= 0
        ):
            found[key] = (entry[0], entry[1])
    return found
