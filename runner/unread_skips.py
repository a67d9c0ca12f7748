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

from fairvec.runner.options import SelectionOptions
from fairvec.runner.results import ALGORITHM, Result, UnreadFile, not_declared
from fairvec.runner.selected_counts import miscounted
from fairvec.runner.selection import Selection, wanted
from fairvec.vectorfiles import algorithm_of, load_vector_files, vector_file_paths


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
    files = load_vector_files(
        options.root,
        lambda name: name in {file.algorithm for file in unread},
        skeletal=True,
        hashes=selection.hashes,
    )
    keywords, tags, excluded = options.keywords, set(options.tags), set(options.excluded_tags)
    made: dict[str, list[Result]] = {}
    for vector_file in files:
        file = paths[vector_file.path]
        kept = [v for v in vector_file.chosen_by if wanted(v, keywords, tags, excluded)]
        if vector_file.sha256 != file.sha256 or len(kept) != file.selected:
            raise miscounted(vector_file.path, file.selected, options)
        reason = not_declared(file.algorithm)
        made[file.algorithm] = list(
            map(Result, kept, repeat(file.algorithm), repeat("skip"), repeat(reason))
        )
    return made


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
