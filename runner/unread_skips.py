"""The skips of the files a run never read (runner/selected_counts.py), made into results
after all, in the vectors' order: for the reports that list every vector (--json,
--junit) and for --known-failures, which judges each vector it lists. A run that writes
neither only counts them (results.Tally).

The results made here are those the session would have made had the files been read:
the same vectors (skeletal: id, variant and tags, which is all a skip reports), the same
status and message, in the same places.
"""

from __future__ import annotations

from itertools import groupby, repeat
from typing import TYPE_CHECKING

from fairvec.runner.options import SelectionOptions
from fairvec.runner.results import ALGORITHM, Result, UnreadFile, not_declared
from fairvec.runner.selected_counts import miscounted
from fairvec.runner.selection import Selection, wanted
from fairvec.vectorfiles import algorithm_of, load_vector_files, vector_file_paths

if TYPE_CHECKING:
    from fairvec.data_model import Vector


def with_unread_skips(
    results: list[Result], selection: Selection, options: SelectionOptions
) -> list[Result]:
    """``results`` with a skip for each vector of ``selection.unread``, each algorithm's
    where its file is in the suite's order. ``results`` begins with those of the
    selection's works, in their order (a run's fixed vectors; then come fresh and
    accumulated ones, left where they are)."""
    if not selection.unread:
        return results
    made = _skips_of(selection.unread, selection, options)
    committed = len(selection.works)
    place = {algorithm_of(path): at for at, path in enumerate(vector_file_paths(options.root))}
    return _merged(results[:committed], made, place) + results[committed:]


def _skips_of(
    unread: tuple[UnreadFile, ...], selection: Selection, options: SelectionOptions
) -> dict[str, list[Result]]:
    """Each unread algorithm's skips, from its file read now (skeletal), checked against
    the count the run went by."""
    paths = {file.path: file for file in unread}
    algorithms = {file.algorithm for file in unread}
    files = load_vector_files(
        options.root, algorithms.__contains__, skeletal=True, hashes=selection.hashes
    )
    made: dict[str, list[Result]] = {}
    for vector_file in files:
        file = paths[vector_file.path]
        if vector_file.sha256 != file.sha256:  # changed since the run went by its hash
            raise miscounted(vector_file.path, file.selected, options)
        kept = picked_as_counted(vector_file.chosen_by, file, options)
        reason = not_declared(file.algorithm)
        made[file.algorithm] = list(
            map(Result, kept, repeat(file.algorithm), repeat("skip"), repeat(reason))
        )
    return made


def picked_as_counted(
    vectors: list[Vector], file: UnreadFile, options: SelectionOptions
) -> list[Vector]:
    """The ``vectors`` of an unread ``file`` that -k, --tag and --exclude-tag pick, as select
    picks them, checked to be as many as the run counted (a report's skips, the digest)."""
    tags, excluded = set(options.tags), set(options.excluded_tags)
    taken = [vector for vector in vectors if wanted(vector, options.keywords, tags, excluded)]
    if len(taken) != file.selected:
        raise miscounted(file.path, file.selected, options)
    return taken


def _merged(
    committed: list[Result], made: dict[str, list[Result]], place: dict[str, int]
) -> list[Result]:
    """``committed`` (one file's results after another's, in the suite's order) with each
    of ``made`` put in before the first algorithm that comes after it in the suite."""
    pending = sorted(made, key=place.__getitem__)
    merged: list[Result] = []
    for algorithm, group in groupby(committed, key=ALGORITHM):
        while pending and place[pending[0]] < place.get(algorithm, len(place)):
            merged += made[pending.pop(0)]
        merged += group
    for algorithm in pending:
        merged += made[algorithm]
    return merged
