"""Binary files written atomically, and the release's file names."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

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


def signature_path(archive: Path, suffix: str) -> Path:
    """Where the detached signature of ``archive``'s manifest lives by default."""
    stem = archive.name.removesuffix(".tar.gz")
    return archive.with_name(f"{stem}.{MANIFEST}{suffix}")


def write_bytes_atomically(path: Path, data: bytes) -> None:
    """The binary twin of fairvec.jsonio.write_atomically: a temporary file beside ``path``,
    renamed into place, so a reader never sees half an archive."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.chmod(temporary, 0o644)  # mkstemp makes 0600; a release is for everyone
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
