"""The digests a run's reports carry: of every vector of the suite the vectors were drawn
from (so two reports with the same digest drew from the same vectors), and of the vectors
run. Each is taken from the digest cache when it has it, else computed (and cached) in
one pass over the vectors, after the run: a digest never delays the first request. The
SHA-256 of each file the run does not load, for the cache's key, is the one remembered
for it (fairvec.file_hashes) when its identity is unchanged; the others are read and
hashed meanwhile, on another thread (:class:`UnselectedFiles`): reads and SHA-256 let go
of the interpreter's lock, though the Python between them waits for it behind a busy run.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

from fairvec import __version__
from fairvec.file_hashes import KnownHashes
from fairvec.runner.accumulated_run import Accumulated
from fairvec.runner.options import SelectionOptions
from fairvec.runner.results import UnreadFile
from fairvec.runner.selection import Selection
from fairvec.runner.unread_skips import picked_as_counted
from fairvec.vectorfiles import (
    DigestCache,
    DigestStream,
    ValidationCache,
    cache_folder,
    canonical_items,
    digest_key,
    read_and_hash,
    read_as_hashed,
    read_unchecked,
    vector_file_paths,
)

if TYPE_CHECKING:  # the reports are imported once the run is over: not on the way to it
    from fairvec.data_model import Vector
    from fairvec.release.verify import VerifiedSuite
    from fairvec.runner.report import SuiteSource


# A file's SHA-256 and its bytes, or None when the SHA-256 is the one remembered for the
# file's identity (the bytes are read only if a digest must be computed).
Hashed = tuple[str, bytes | None]


class UnselectedFiles:
    """The SHA-256 of every vector file under ``root`` the selection did not load: the
    remembered one (fairvec.file_hashes), or read and hashed, with its bytes, on a thread
    started here; :meth:`get` waits for them, and raises what reading raised (a FIFO or an
    oversized file: the same one-line error as ever)."""

    def __init__(self, root: Path, selection: Selection) -> None:
        loaded = {f.path for f in selection.files} | {u.path for u in selection.unread}
        self._paths = [path for path in vector_file_paths(root) if path not in loaded]
        hashes = selection.hashes  # (as the selection opened them: once a run)
        self._hashes = KnownHashes.open(cache_folder()) if hashes is None else hashes
        self._read: dict[Path, Hashed] = {}
        self._error: BaseException | None = None
        # a daemon: a run that stops early (Ctrl-C, a usage error) never waits for it
        self._thread = threading.Thread(target=self._read_all, daemon=True)
        self._thread.start()

    def _read_all(self) -> None:
        try:
            for path in self._paths:
                remembered = self._hashes.sha_of(path)
                if remembered is not None:
                    self._read[path] = (remembered, None)
                else:  # bounded: an unselected FIFO must not hang the digest
                    raw, key = read_and_hash(path, self._hashes)
                    self._read[path] = (key, raw)
        except BaseException as error:  # handed to get(), in the main thread
            self._error = error

    def get(self) -> dict[Path, Hashed]:
        self._thread.join()
        if self._error is not None:
            raise self._error
        self._hashes.save()
        return self._read


def digests(
    options: SelectionOptions,
    release: VerifiedSuite | None,
    archive: Path | None,
    selection: Selection,
    chosen: list[Accumulated],
    unselected_files: UnselectedFiles | None = None,
) -> tuple[SuiteSource, str]:
    """What the vectors were drawn from, with the digest of all of its vectors (the signed
    one for ``release``, extracted from ``archive``; else computed as the release builder
    does), and the digest of the vectors run (the fixed ones, then the accumulated ones).

    Both come from the digest cache when it has them, keyed by fairvec's version, every
    vector file's place and SHA-256, and the selection; else they are computed in one pass
    over the vectors, each canonicalised once. ``unselected_files``: the files the
    selection left out, read already (else they are read here)."""
    # the reports are imported once the run is over (start-up)
    from fairvec.runner.report import SuiteSource

    root = options.root
    cache = DigestCache.open()
    selected = _selected_hashes(selection)
    run_key = digest_key(
        files=_placed(root, list(selected.items())),
        selection=options.recorded(),
        tier=options.tier,
    )
    run = cache.get(run_key)
    if release is not None:
        suite = SuiteSource(
            release.version,
            release.digest,
            release.manifest.vectors,
            "release",
            str(archive),
            release.signer,
        )
        if run is None:
            run = _computed(options, selection, chosen, {}, suite=False)[1]
            cache.add(run_key, *run)
        cache.save()
        return suite, run[0]
    # The suite: every vector file, the unselected ones read (and only on a miss parsed).
    unselected = (unselected_files or UnselectedFiles(root, selection)).get()
    hashes = {**selected, **{path: sha for path, (sha, _raw) in unselected.items()}}
    suite_key = digest_key(files=_placed(root, sorted(hashes.items())))
    whole = cache.get(suite_key)
    if whole is None:
        whole, run = _computed(options, selection, chosen, unselected, suite=True)
        cache.add(suite_key, *whole)
        cache.add(run_key, *run)
    elif run is None:
        run = _computed(options, selection, chosen, {}, suite=False)[1]
        cache.add(run_key, *run)
    cache.save()
    installed = options.vectors is None
    version = __version__ if installed else "unversioned"
    source = "installed" if installed else "folder"
    return SuiteSource(version, whole[0], whole[1], source, str(root)), run[0]


def _selected_hashes(selection: Selection) -> dict[Path, str]:
    """The SHA-256 of each file of the algorithms selected, read or not (unread: the
    files of algorithms the adapter does not declare, runner/selected_counts.py), in the
    suite's order (the files read are in it already: sorted only with unread ones)."""
    selected = [(f.path, f.sha256) for f in selection.files]
    if selection.unread:
        selected = sorted(selected + [(file.path, file.sha256) for file in selection.unread])
    return dict(selected)


def _computed(
    options: SelectionOptions,
    selection: Selection,
    chosen: list[Accumulated],
    unselected: dict[Path, Hashed],
    *,
    suite: bool,
) -> tuple[tuple[str, int], tuple[str, int]]:
    """(the suite's digest and count, the run's digest and count), in one pass: every
    vector is canonicalised once, and fed to the suite's hash, the run's, or both. With
    ``suite`` False only the run's is computed (the first pair is then meaningless)."""
    run = DigestStream()
    everything = DigestStream() if suite else None
    picked = {id(work.vector) for work in selection.works}
    loaded = {f.path: f for f in selection.files}
    unread = {file.path: file for file in selection.unread}
    root = options.root
    paths = vector_file_paths(root) if suite else list(_selected_hashes(selection))
    known = ValidationCache.open() if unselected or unread else None
    for path in paths:
        vector_file = loaded.get(path)
        if vector_file is None and path not in unread:  # in the suite, not selected
            assert everything is not None and known is not None
            sha, raw = unselected[path]
            raw = read_as_hashed(path, sha) if raw is None else raw
            everything.add(read_unchecked(path, raw, sha, known)["vectors"])
            continue
        if vector_file is None:  # selected, not read: its vectors picked as select does
            assert known is not None
            vectors = _unread_vectors(unread[path], known)
            taken = picked_as_counted(vectors, unread[path], options)
        else:
            vectors = vector_file.vectors
            taken = [vector for vector in vectors if id(vector) in picked]
        if everything is None:
            run.add(taken)
        elif len(taken) == len(vectors):  # the whole file: one canonical text for both
            if everything.count == run.count:  # nothing left out so far: the same hash
                run.add(vectors)
                everything = run.copy()
                continue
            items = canonical_items(vectors)
            everything.add_items(items)
            run.add_items(items)
        else:
            items = canonical_items(vectors)
            everything.add_items(items)
            kept = {id(vector) for vector in taken}
            run.add_items([item for item, v in zip(items, vectors, strict=True) if id(v) in kept])
    expected = len(selection.works) + sum(file.selected for file in selection.unread)
    if run.count != expected:  # the works are the files' vectors, in order
        raise RuntimeError(f"the run's digest covers {run.count} of {expected}")
    whole = (everything.digest(), everything.count) if everything is not None else ("", 0)
    run.add([one.vector for one in chosen])
    return whole, (run.digest(), run.count)


def _unread_vectors(unread: UnreadFile, known: ValidationCache) -> list[Vector]:
    """The vectors of a selected file the run did not read, read now (its SHA-256 checked:
    the one the run went by)."""
    raw = read_as_hashed(unread.path, unread.sha256)
    vectors: list[Vector] = read_unchecked(unread.path, raw, unread.sha256, known)["vectors"]
    return vectors


def _placed(root: Path, hashes: list[tuple[Path, str]]) -> list[list[str]]:
    """Each file's place under ``root`` with its SHA-256: the cache key's file list. (A
    vector file is ``root/<family>/<name>.json``, vector_file_paths: its place is its last
    two parts, without pathlib's relative_to, 20 us a file twice a run.)"""
    return [[f"{path.parent.name}/{path.name}", sha] for path, sha in hashes]
