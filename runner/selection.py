"""Which vectors a run sends: the vector files of the algorithms selected (--algorithm
globs), and of their vectors those the id keywords and the tags select.

Also what the suite holds (its algorithm ids), for the hints that follow a selection or
a hello naming an algorithm the suite does not have.
"""

from __future__ import annotations

import fnmatch
import gc
import threading
from collections.abc import Callable, Iterable, Sequence
from functools import cache
from itertools import compress
from operator import itemgetter
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from fairvec.errors import FairvecError
from fairvec.file_hashes import KnownHashes
from fairvec.runner.options import SelectionOptions
from fairvec.runner.results import UnreadFile, Work, works_of
from fairvec.runner.selected_counts import SelectedCounts
from fairvec.vectorfiles import (
    VectorFile,
    algorithm_of,
    cache_folder,
    load_vector_files,
    vector_file_paths,
)

if TYPE_CHECKING:
    from fairvec.data_model import Vector

GLOB_CHARACTERS = set("*?[")
TAGS = itemgetter("tags")


class Selection(NamedTuple):  # (not a dataclass: see runner/results.py)
    files: list[VectorFile]  # the files of the algorithms selected, whole
    works: list[Work]  # the vectors selected, in the files' order
    variants: dict[str, list[str]]  # the variants of each algorithm selected
    # the hashes remembered (fairvec.file_hashes), opened once a run: the digest looks up
    # the files left out in them too (a cache of 2,048 files takes 3 ms to read)
    hashes: KnownHashes | None = None
    # the files of algorithms the adapter does not declare, not read: their vectors
    # counted, each skipped (fairvec run, with ``undeclared``; in the suite's order)
    unread: tuple[UnreadFile, ...] = ()


def select(
    options: SelectionOptions,
    *,
    none_ok: bool = False,
    freeze: bool = False,
    skeletal: bool = False,
    undeclared: Callable[[str], bool] | None = None,
) -> Selection:
    """``none_ok``: an empty selection is no error (the caller also selects accumulated
    vectors). ``freeze``: see load_vector_files (for fairvec run, which holds them to the
    end). ``skeletal``: the works' vectors may hold only id, variant and tags until
    a Filler reads the files of the works sent whole (for fairvec run: the hello comes
    after the selection). ``undeclared``: whether an algorithm is known not to be the
    adapter's, asked before each file is loaded (fairvec run: once the hello is in); such
    a file whose count of selected vectors is remembered (runner/selected_counts.py) is
    not read, but counted in the selection's ``unread``."""
    works: list[Work] = []
    variants: dict[str, list[str]] = {}
    globs = options.algorithms
    keywords = options.keywords
    tags = set(options.tags)
    excluded = set(options.excluded_tags)
    hashes = KnownHashes.open(cache_folder())
    counts = SelectedCounts.open(options) if undeclared is not None else None
    unread: dict[Path, UnreadFile] = {}
    unneeded = None
    if undeclared is not None and counts is not None:
        unneeded = _counted_instead(undeclared, hashes, counts, unread)
    files = load_vector_files(
        options.root,
        lambda name: not globs or _matches_any(name, globs),
        freeze=freeze,
        skeletal=skeletal,
        hashes=hashes,
        unneeded=unneeded,
    )
    for vector_file in files:
        schema = vector_file.output_schema
        algorithm = vector_file.algorithm
        variants[algorithm] = vector_file.variants
        before = len(works)
        if not (keywords or tags or excluded):  # every vector (the common case, made fast)
            works += works_of(vector_file.chosen_by, algorithm, schema)
        elif not keywords:  # tags alone decide, once per list of tags (skeletons share them)
            kept = _kept_by_tags(vector_file.chosen_by, tags, excluded)
            works += works_of(kept, algorithm, schema)
        else:
            works += [
                Work(vector, algorithm, schema)
                for vector in vector_file.chosen_by
                if wanted(vector, keywords, tags, excluded)
            ]
        if counts is not None:  # for a run that will not read it (see selected_counts)
            counts.add(vector_file.sha256, len(works) - before, len(vector_file.chosen_by))
    if counts is not None:
        counts.save()
    skipped = tuple(unread[path] for path in sorted(unread))
    if not works and not any(file.selected for file in skipped) and not none_ok:
        raise nothing_selected(options.root, options.algorithms)
    return Selection(files, works, variants, hashes, skipped)


def _counted_instead(
    undeclared: Callable[[str], bool],
    hashes: KnownHashes,
    counts: SelectedCounts,
    unread: dict[Path, UnreadFile],
) -> Callable[[Path], bool]:
    """load_vector_files's ``unneeded``: a file is not read if its algorithm is known not
    to be the adapter's and both its SHA-256 (by its identity) and its count under the
    filters are remembered; it is then added to ``unread``."""

    def unneeded(path: Path) -> bool:
        if path in unread:
            return True
        algorithm = algorithm_of(path)
        if not undeclared(algorithm):
            return False
        known = hashes.known(path)  # (its SHA-256, and its size: a bound on its count)
        count = None if known is None else counts.get(*known)
        if known is None or count is None:
            return False
        sha = known[0]
        unread[path] = UnreadFile(path, sha, algorithm, count)
        return True

    return unneeded


class Filler:
    """Reads the skeletal files of a selection (select(skeletal=True)) whole as their
    vectors are needed: an algorithm's file just before its first request is sent, so the
    first request goes out once its own file is read, not every declared one, and the others
    are read while the adapter works. The vectors of the algorithms a hello does not
    declare are skipped by id and variant, which their skeletons hold: never read.

    Safe with -j (sessions on threads): a file is marked read only once it is, so no
    session sends a vector another is still reading. Each file read is frozen with the rest
    (gc.freeze): nothing in it is garbage, and no collection during the run should walk it."""

    def __init__(self, selection: Selection) -> None:
        self._unread = {f.algorithm: f for f in selection.files if f.unread}
        self._lock = threading.Lock()

    def before_send(self, works: Sequence[Work]) -> None:
        """The hook a session calls with works whose vectors it needs whole: before it
        makes their request lines (those the answer memo does not remember), and as its
        ``before_judge``, before it judges their answers (those the memo did not settle)."""
        if self._unread:  # (none unread: nothing to do a batch)
            self.fill({work.algorithm for work in works})

    def fill(self, algorithms: Iterable[str]) -> None:
        """The files of ``algorithms`` (any not in the selection, or read, are ignored)."""
        for algorithm in algorithms:
            if algorithm in self._unread:
                self._fill_one(algorithm)

    def _fill_one(self, algorithm: str) -> None:
        with self._lock:
            vector_file = self._unread.get(algorithm)
            if vector_file is None:  # another session read it meanwhile
                return
            vector_file.fill()
            gc.freeze()
            del self._unread[algorithm]  # last: only now may its vectors be sent


def wanted(vector: Vector, keywords: tuple[str, ...], tags: set[str], excluded: set[str]) -> bool:
    """Whether -k, --tag and --exclude-tag keep ``vector``."""
    if keywords and not any(_keyword(vector["id"], k) for k in keywords):
        return False
    return _tags_kept(vector["tags"], tags, excluded)


def _tags_kept(vector_tags: list[str], tags: set[str], excluded: set[str]) -> bool:
    if tags and tags.isdisjoint(vector_tags):
        return False
    return not (excluded and not excluded.isdisjoint(vector_tags))


def _kept_by_tags(vectors: list[Vector], tags: set[str], excluded: set[str]) -> list[Vector]:
    """The ``vectors`` --tag and --exclude-tag keep, decided once per list of tags, by the
    list's identity: a skeletal file's vectors share one list for the same tags (and the
    lists live as long as their vectors, so an identity is never reused meanwhile). The
    loop over the vectors runs in C: a Python call for each of 10,000 took 2 ms of every
    run's start."""
    tag_lists = list(map(TAGS, vectors))
    identities = list(map(id, tag_lists))
    verdicts = {
        identity: _tags_kept(tag_list, tags, excluded)
        for identity, tag_list in dict(zip(identities, tag_lists, strict=True)).items()
    }
    return list(compress(vectors, map(verdicts.__getitem__, identities)))


def select_works(options: SelectionOptions) -> list[Work]:
    """The vectors selected; none is an error."""
    return select(options).works


def nothing_selected(root: Path, globs: tuple[str, ...]) -> FairvecError:
    """The error for a selection of no vector, with a hint for a misspelt --algorithm."""
    hint = _algorithm_hint(globs, suite_algorithms(root))
    return FairvecError(
        f"{root}: no vector matches the selection (check --algorithm, -k, --tag, "
        f"--exclude-tag){hint}"
    )


def suite_algorithms(root: Path) -> set[str]:
    """Every algorithm id of the suite in ``root``, selected or not (from the list of its
    files the loading made: globbing the folders again took 1 to 2 ms of every run)."""
    return {algorithm_of(path) for path in vector_file_paths(root)}


def _algorithm_hint(globs: tuple[str, ...], suite: set[str]) -> str:
    """For an --algorithm that matches nothing, the suite's closest id, as for the hello."""
    import difflib  # only on the way to an error: not imported before the first request

    for glob in globs:
        if not any(fnmatch.fnmatchcase(name, glob) for name in suite):
            close = difflib.get_close_matches(glob, sorted(suite), n=1)
            if close:
                return f"; --algorithm {glob!r} matches nothing: did you mean {close[0]!r}?"
    return ""


def _matches_any(name: str, globs: tuple[str, ...]) -> bool:
    """Whether ``name`` is one of the --algorithm ``globs``: a set's lookup for those that
    are plain ids (a port's author lists its 34 algorithms, and 84 names were matched
    against each glob in turn: 4 ms of every run's start)."""
    plain, patterns = _globs_split(globs)
    return name in plain or any(fnmatch.fnmatchcase(name, glob) for glob in patterns)


@cache
def _globs_split(globs: tuple[str, ...]) -> tuple[frozenset[str], tuple[str, ...]]:
    """``globs`` as the plain ids and the patterns (with a wildcard) among them."""
    patterns = tuple(glob for glob in globs if GLOB_CHARACTERS & set(glob))
    return frozenset(globs) - frozenset(patterns), patterns


def _keyword(vector_id: str, pattern: str) -> bool:
    """-k: a pattern with a wildcard is a glob over the whole id, else text in it."""
    if GLOB_CHARACTERS & set(pattern):
        return fnmatch.fnmatchcase(vector_id, pattern)
    return pattern in vector_id
