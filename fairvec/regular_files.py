"""Reading a file a user names, safely: only a regular file, and only up to a bound.

A path can name something that is not a file at all: a FIFO (reading it waits forever
for a writer), a device (``/dev/zero`` never ends, ``/dev/full`` must never be replaced),
or a 3 GB sparse file that costs nothing on disk and gigabytes in memory. Every file
fairvec reads on a user's word goes through ``read_regular``, which opens without
blocking, looks at what was opened (not at the name: a symbolic link is followed to
what it points at, and that is what is judged), and refuses anything but a regular file
of at most ``limit`` bytes, in one line naming the file. The bounds per kind of file
are below, and stated in docs/vector-format.md ("Limits").
"""

from __future__ import annotations

import os
import signal
import stat
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import BinaryIO

from fairvec.errors import FairvecError

MiB = 1024 * 1024
# The largest committed vector file is 1.3 MB, and the largest accumulated one far less:
# 64 MiB leaves fifty times the room, yet refuses a sparse or runaway file before it is read.
VECTOR_FILE_LIMIT = 64 * MiB
SPEC_FILE_LIMIT = 4 * MiB  # the largest spec is 134 KB (nardy/archive.yaml: archives in base64)
KNOWN_FAILURES_LIMIT = 8 * MiB  # about 100,000 ids with their reasons
RELEASE_ARCHIVE_LIMIT = 256 * MiB  # the whole suite packs to about 3 MB
SMALL_FILE_LIMIT = 1 * MiB  # keys, signatures, manifests, schemas

_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def kind_of(mode: int) -> str:
    """What a non-regular file is, in words."""
    return next((words for test, words in _KINDS if test(mode)), "not a regular file")


def read_regular(path: Path, what: str, limit: int) -> bytes:
    """The bytes of ``path``, a regular file of at most ``limit`` bytes, or a one-line
    FairvecError naming the file, what it is and the fix. ``what`` names the kind of file
    (``"a vector file"``); OSError never escapes."""
    return read_regular_with_status(path, what, limit)[0]


def read_regular_with_status(path: Path, what: str, limit: int) -> tuple[bytes, os.stat_result]:
    """read_regular, with the status of the file opened (fstat, before reading): for
    fairvec.file_hashes, which remembers a hash by the file's identity."""
    with _opened_regular(path, what) as (handle, status):
        _check_size(path, what, status.st_size, limit)
        data = _read_at_most(handle, limit + 1, status.st_size)
    _check_size(path, what, len(data), limit)  # it may have grown since fstat
    return data, status


def read_regular_prefix(path: Path, what: str, count: int) -> bytes:
    """The first ``count`` bytes of ``path`` (all of it if shorter), a regular file; the
    errors of read_regular."""
    with _opened_regular(path, what) as (handle, _status):
        return _read_at_most(handle, count)


@contextmanager
def _opened_regular(path: Path, what: str) -> Iterator[tuple[int, os.stat_result]]:
    """``path`` opened for reading, if it is a regular file, with its status; OSError
    (opening, or reading in the block) becomes a one-line FairvecError."""
    try:
        # O_NONBLOCK: opening a FIFO with no writer returns at once instead of waiting
        handle = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as error:
        raise FairvecError(f"{path}: cannot read {what}: {error.strerror}") from None
    try:
        status = os.fstat(handle)
        if not stat.S_ISREG(status.st_mode):
            raise FairvecError(
                f"{path}: {what} must be a regular file, and this is "
                f"{kind_of(status.st_mode)}; give the path of a file"
            )
        yield handle, status
    except OSError as error:
        raise FairvecError(f"{path}: cannot read {what}: {error.strerror}") from None
    finally:
        os.close(handle)


def _check_size(path: Path, what: str, size: int, limit: int) -> None:
    if size > limit:
        raise FairvecError(
            f"{path}: {what} is {size:,} bytes, more than the {limit:,} fairvec reads; "
            "check it is the file you meant"
        )


def _read_at_most(handle: int, count: int, size: int | None = None) -> bytes:
    """Up to ``count`` bytes. ``size``: the file's size when opened, read in one call (and
    one more byte, to see it has not grown): each read asks for a buffer of its length, and
    8 MiB asked to read a memo file of 300 KB, once more to find its end, cost a fast port's
    rerun a few milliseconds over 34 files."""
    os.set_blocking(handle, True)  # a regular file: reads never wait for a writer
    chunks: list[bytes] = []
    left = count
    wanted = 8 * MiB if size is None else size + 1
    while left > 0:
        chunk = os.read(handle, min(left, wanted))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
        wanted = 64 * 1024 if len(chunk) < wanted else 8 * MiB  # (it grew: read on)
    return b"".join(chunks)


def check_not_special(path: Path, option: str, written: str = "a report") -> None:
    """For a file fairvec will write (``written``: a report, a release): refuse, before
    anything runs, a path that exists and is not a regular file. Writing goes to a temporary
    file renamed over the path, which would replace a device or a FIFO for the whole machine
    (as root, /dev/full). ``option`` names the path in the message ("" for none)."""
    place = f"{option} {path}" if option else str(path)
    try:
        mode = path.stat().st_mode
    except (FileNotFoundError, NotADirectoryError):  # a new file (its folder is checked later)
        return
    except OSError as error:
        raise FairvecError(f"{place}: cannot look at it ({error.strerror})") from None
    if not stat.S_ISREG(mode):
        raise FairvecError(
            f"{place}: is {kind_of(mode)}, not a regular file; fairvec writes {written} "
            "only to a new or a regular file (move it away)"
        )


def check_not_an_input(path: Path, option: str, inputs: Sequence[tuple[str, Path]]) -> None:
    """Refuse, before anything is read, an output ``path`` that is one of the command's
    ``inputs`` ((option, path) pairs): the output would replace it (a JSON report written
    over the --known-failures list it was run with, an HTML page over its own report)."""
    for given, source in inputs:
        try:
            same = os.path.samefile(path, source)  # a link or a hard link to it too
        except OSError:  # one of them does not exist (yet): not the same file
            same = os.path.realpath(path) == os.path.realpath(source)
        if same:
            named = f"{given} {source}" if given else str(source)
            raise FairvecError(
                f"{option} {path}: is also {named}, which writing it would replace; give "
                "another path"
            )


def write_all_or_none(files: list[tuple[Path, str, str]]) -> None:
    """Write each ``(path, text, option)``: every text to a temporary file beside its path,
    then all renamed into place, so a reader sees every report or none, never half of one
    or a JSON report without its JUnit twin. SIGINT, SIGTERM and SIGHUP arriving meanwhile
    wait until the last rename (about a tenth of a second for a 5 MB report) and then take
    effect; whatever happens, no temporary file is left behind."""
    temporaries: list[str] = []
    with _signals_deferred():
        try:
            for path, text, option in files:
                check_not_special(path, option)  # again: the run may have taken minutes
                temporaries.append(_temporary_with(path, text, option))
            for (path, _text, option), temporary in zip(files, temporaries, strict=True):
                try:
                    os.replace(temporary, path)
                except OSError as error:
                    raise FairvecError(
                        f"{option} {path}: cannot write it ({error.strerror})"
                    ) from None
        finally:
            for temporary in temporaries:
                Path(temporary).unlink(missing_ok=True)


def _temporary_with(path: Path, text: str, option: str) -> str:
    try:
        return temporary_beside(path, text.encode("utf-8"))
    except OSError as error:
        raise FairvecError(f"{option} {path}: cannot write it ({error.strerror})") from None


def temporary_beside(path: Path, data: bytes) -> str:
    """``data`` in a new file beside ``path``, for a rename into place (the one way fairvec
    writes a file: a reader never sees half of one). Readable by everyone (mkstemp makes
    0600; vector files, reports and releases are for others to read). Raises OSError, and
    then leaves nothing behind."""
    path.parent.mkdir(parents=True, exist_ok=True)
    import tempfile  # only to write: 4 ms of imports a run that reads only would pay

    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.chmod(temporary, 0o644)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return temporary


def replace_with(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through temporary_beside and a rename into place."""
    temporary = temporary_beside(path, data)
    try:
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


@contextmanager
def written_beside(path: Path, option: str) -> Iterator[BinaryIO]:
    """A file to write into, streamed (for output too large to hold: ``fairvec stream``),
    renamed over ``path`` only when the block ends without an exception: a reader never
    sees half of it, and an error or Ctrl-C leaves nothing behind. ``option`` names the
    path in the one-line error when it cannot be written."""
    import tempfile  # only to write: 4 ms of imports a run that reads only would pay

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    except OSError as error:
        raise FairvecError(f"{option} {path}: cannot write it ({error.strerror})") from None
    try:
        with os.fdopen(handle, "wb") as stream:
            yield stream
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except OSError as error:
        Path(temporary).unlink(missing_ok=True)
        raise FairvecError(f"{option} {path}: cannot write it ({error.strerror})") from None
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


_DEFERRED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


@contextmanager
def _signals_deferred() -> Iterator[None]:
    """Signals that would stop fairvec are noted, not acted on, until the block ends; then
    the first one is delivered again to the handler it had. Python runs signal handlers in
    the main thread only, so this holds whichever thread the signal was sent to."""
    if threading.current_thread() is not threading.main_thread():
        yield  # signal handlers can only be set from the main thread
        return
    caught: list[int] = []
    previous = {number: signal.signal(number, _noting(caught)) for number in _DEFERRED}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
        if caught:
            signal.raise_signal(caught[0])


def _noting(caught: list[int]) -> Callable[[int, FrameType | None], None]:
    def note(number: int, _frame: FrameType | None) -> None:
        caught.append(number)

    return note
