"""Binary files written atomically, and the release's file names."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from fairvec.errors import FairvecError
from fairvec.regular_files import check_not_special, kind_of, temporary_beside

ARCHIVE_PREFIX = "fairvec-vectors-"
MANIFEST = "MANIFEST.json"
SUMS = "SHA256SUMS"
SSH_SUFFIX = ".sig"  # what ssh-keygen -Y sign writes beside the file it signs
MINISIGN_SUFFIX = ".minisig"  # what minisign -S writes beside the file it signs


def archive_name(version: str) -> str:
    return f"{ARCHIVE_PREFIX}{version}.tar.gz"


def manifest_copy_name(version: str) -> str:
    """The signed manifest beside the archive: the file a maintainer signs and a consumer
    checks with ssh-keygen or minisign without opening the archive."""
    return f"{ARCHIVE_PREFIX}{version}.{MANIFEST}"


def manifest_copy_path(archive: Path) -> Path | None:
    """The manifest copy beside ``archive`` (fairvec-vectors-X.Y.Z.MANIFEST.json), or None
    when the archive is not named as a release is."""
    if not (archive.name.startswith(ARCHIVE_PREFIX) and archive.name.endswith(".tar.gz")):
        return None
    return archive.with_name(f"{archive.name.removesuffix('.tar.gz')}.{MANIFEST}")


def signature_path(archive: Path, suffix: str) -> Path:
    """Where the detached signature of ``archive``'s manifest lives by default."""
    stem = archive.name.removesuffix(".tar.gz")
    return archive.with_name(f"{stem}.{MANIFEST}{suffix}")


def _mode(path: Path, where: str) -> int | None:
    """The mode of what ``path`` leads to (a link followed), or None when nothing is there."""
    try:
        return path.stat().st_mode
    except FileNotFoundError:
        return None
    except OSError as error:
        raise FairvecError(f"{where}: cannot look at it ({error.strerror})") from None


def refuse_special(path: Path) -> None:
    """A release file is written to a temporary file renamed over ``path``: anything there
    but a regular file (a FIFO, a device, a link to one) is refused before anything is
    written."""
    check_not_special(path, "", "a release")


def check_out_folder(out: Path, option: str = "--out") -> None:
    """The folder a release goes to: missing (it is created) or a folder, nothing else."""
    mode = _mode(out, f"{option} {out}")
    if mode is not None and not stat.S_ISDIR(mode):
        kind = "a regular file" if stat.S_ISREG(mode) else kind_of(mode)
        raise FairvecError(
            f"{option} {out}: is {kind}, not a folder; give a folder (a missing one is created)"
        )


def write_bytes_atomically(path: Path, data: bytes) -> None:
    """The binary twin of fairvec.jsonio.write_atomically: a temporary file beside ``path``
    renamed into place, so a reader never sees half an archive. A special file at ``path``
    is refused (callers check all their paths first, so nothing is half written)."""
    refuse_special(path)
    try:
        temporary = temporary_beside(path, data)
    except OSError as error:
        raise FairvecError(f"{path}: cannot write it ({error.strerror})") from None
    try:
        os.replace(temporary, path)
    except OSError as error:
        Path(temporary).unlink(missing_ok=True)
        raise FairvecError(f"{path}: cannot write it ({error.strerror})") from None
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
