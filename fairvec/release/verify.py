"""Verify a release before anything in it is read, and extract it where nothing else is.

The archive file is read once, whole (a regular file of bounded size), and decompressed
as a stream: exactly one gzip member, with nothing after it, holding one tar stream with
nothing after its end-of-archive padding. Its first member must be MANIFEST.json; the
detached signature over those exact bytes is checked against the trusted key before any
other member is looked at. Every later member must then be a plain file the signed
manifest lists, with its size and SHA-256; sizes are counted as the bytes arrive (a header
can lie), under stated limits, so a decompression bomb stops early. Members are written
only inside a fresh staging folder, which is renamed into place once everything matched
and deleted otherwise.

For ``fairvec run --suite ARCHIVE --trusted-key KEY [--min-version X.Y.Z]``::

    with open_verified_suite(archive, trusted_key, min_version) as suite:
        ...  # load vector files from suite.vectors; report suite.version, .digest, .signer
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import tarfile
import tempfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import IO, cast

from fairvec.errors import FairvecError
from fairvec.regular_files import RELEASE_ARCHIVE_LIMIT, read_regular
from fairvec.release import minisig, sshsig
from fairvec.release.files import ARCHIVE_PREFIX, MANIFEST, manifest_copy_path, signature_path
from fairvec.release.keys import TrustedKey, load_trusted_key
from fairvec.release.manifest import MEMBER_NAME, Entry, Manifest, parse_manifest, parse_version
from fairvec.release.refusals import ReleaseRefused, require_release_extra
from fairvec.release.sshsig import SignatureError
from fairvec.release.suite import is_vector_file, suite_digest

MiB = 1 << 20
MANIFEST_LIMIT = 4 * MiB  # today's manifest is about 20 KiB
SIGNATURE_LIMIT = 64 * 1024
CHUNK = 1 << 16
GZIP_MAGIC = b"\x1f\x8b"
# gzip header flags for fields that carry bytes of their own (RFC 1952, FLG): fairvec
# writes none, and what they hold is in no manifest, so an archive carrying one is refused
GZIP_EXTRA, GZIP_NAME, GZIP_COMMENT = 0x04, 0x08, 0x10
HEADER_ALLOWANCE = 4096  # tar header bytes allowed per member (PAX records included)
ARCHIVE_NAME = re.compile(re.escape(ARCHIVE_PREFIX) + r"(.+)\.tar\.gz")


@dataclass(frozen=True)
class Limits:
    """Stated limits: the largest vector file today is about 1 MiB, the suite about 14."""

    member: int = 64 * MiB
    total: int = 512 * MiB
    members: int = 10_000


@dataclass
class VerifiedSuite:
    """A verified release, extracted; its folder is deleted on close when it was temporary."""

    root: Path
    manifest: Manifest
    manifest_bytes: bytes  # exactly what the signature covers
    signer: str | None  # None only when no key was asked for (release diff without one)
    temporary: bool = field(default=True)

    @property
    def vectors(self) -> Path:
        return self.root / "vectors"

    @property
    def version(self) -> str:
        return self.manifest.version

    @property
    def digest(self) -> str:
        return self.manifest.suite_digest

    def close(self) -> None:
        if self.temporary:
            shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> VerifiedSuite:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def open_verified_suite(
    archive: Path,
    trusted_key: Path,
    min_version: str | None = None,
    *,
    signature: Path | None = None,
    extract_to: Path | None = None,
    limits: Limits | None = None,
) -> VerifiedSuite:
    """Verify ``archive`` against ``trusted_key`` (an allowed_signers file, an OpenSSH
    public key or a minisign public key) and extract it into ``extract_to`` (which must not
    exist yet) or a temporary folder. Raises ReleaseRefused (a FairvecError: one line,
    exit 2) naming the first thing wrong; nothing is left behind then."""
    # first, before the key or the archive is read: `release verify` and `run --suite`
    # (whose verified_release() calls this) do no work without the extra
    require_release_extra("verifying a signed release (--trusted-key)")
    trusted = load_trusted_key(trusted_key)
    return open_suite(archive, trusted, min_version, signature, extract_to, limits or Limits())


def open_suite(
    archive: Path,
    trusted: TrustedKey | None,
    min_version: str | None = None,
    signature: Path | None = None,
    extract_to: Path | None = None,
    limits: Limits | None = None,
) -> VerifiedSuite:
    """As open_verified_suite; with ``trusted`` None the signature is not checked (the
    archive is still checked against its own manifest and extracted as carefully)."""
    limits = limits or Limits()
    minimum = parse_version(min_version, "--min-version") if min_version else None
    where = str(archive)
    packed = _archive_bytes(archive)
    signature_text = _signature_text(archive, trusted, signature) if trusted else None
    staging = _staging_folder(extract_to)
    try:
        data, signer = _extract(
            archive, packed, staging, trusted, signature_text, limits, minimum
        )
        manifest = parse_manifest(data, where)
        _check_suite_digest(staging, manifest, where)
        _check_manifest_copy(archive, data, where)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    if extract_to is None:
        return VerifiedSuite(staging, manifest, data, signer)
    os.replace(staging, extract_to)
    return VerifiedSuite(extract_to, manifest, data, signer, temporary=False)


def _check_manifest_copy(archive: Path, manifest: bytes, where: str) -> None:
    """The manifest copy beside the archive, when there is one, must be the archive's own
    MANIFEST.json byte for byte: it is the file `ssh-keygen -Y verify` and `minisign -V`
    check (docs/releases.md), and fairvec checks the signature over the archive's. A copy
    edited alone made ssh-keygen fail while fairvec said "verified" (issue 36); now the two
    ways agree. No copy (only the archive and its signature downloaded) is fine."""
    copy = manifest_copy_path(archive)
    if copy is None or not os.path.lexists(copy):
        return
    if read_regular(copy, "a release manifest copy", MANIFEST_LIMIT) != manifest:
        raise ReleaseRefused(
            where,
            f"{copy} differs from the archive's MANIFEST.json: ssh-keygen -Y verify and "
            "minisign -V check that copy and would fail; restore it from the archive "
            "(tar -xzOf ARCHIVE MANIFEST.json) or download it again",
        )


def _archive_bytes(archive: Path) -> bytes:
    """The whole archive, read once: a FIFO, a device or a folder is named for what it is,
    and what is verified is exactly what is extracted (nobody can change the file between
    the two). Its size is bounded by RELEASE_ARCHIVE_LIMIT (the suite packs to about 3 MB)."""
    if not os.path.lexists(archive):
        raise FairvecError(f"{archive}: no such archive (give fairvec-vectors-X.Y.Z.tar.gz)")
    return read_regular(archive, "a release archive", RELEASE_ARCHIVE_LIMIT)


def _staging_folder(extract_to: Path | None) -> Path:
    if extract_to is None:
        return Path(tempfile.mkdtemp(prefix="fairvec-release-"))
    if extract_to.exists() or extract_to.is_symlink():
        raise FairvecError(f"--extract {extract_to}: already exists; name a new folder")
    if not extract_to.parent.is_dir():
        raise FairvecError(f"--extract {extract_to}: its parent folder does not exist")
    return Path(tempfile.mkdtemp(prefix=f".{extract_to.name}.", dir=extract_to.parent))


def _signature_text(archive: Path, trusted: TrustedKey, given: Path | None) -> str:
    path = given or signature_path(archive, trusted.suffix)
    if not os.path.lexists(path):  # only when nothing is there: anything else is named
        raise ReleaseRefused(
            str(archive),
            f"no signature: {path} is missing (a {trusted.kind} signature by the trusted key "
            "must sit beside the archive, or pass --signature FILE)",
        )
    data = read_regular(path, "a release signature", SIGNATURE_LIMIT)
    try:
        return data.decode("utf-8")
    except UnicodeError:
        raise ReleaseRefused(str(archive), f"{path} is not a signature file") from None


def _check_gzip_header(header: bytes, where: str) -> None:
    """(Anything that is not gzip at all is left to zlib, which calls it corrupt.)"""
    fields = GZIP_EXTRA | GZIP_NAME | GZIP_COMMENT
    if len(header) == 4 and header[:2] == GZIP_MAGIC and header[3] & fields:
        raise ReleaseRefused(
            where,
            "its gzip header carries a name, comment or extra field, bytes the signed "
            "manifest does not cover (fairvec writes none)",
        )


class _GzipMember:
    """Exactly one gzip member, decompressed on demand. Python's GzipFile reads on into a
    second member and skips trailing zeros, so bytes appended to a signed archive would
    pass unseen; zlib alone stops at the member's end and says what follows it."""

    def __init__(self, packed: bytes, where: str) -> None:
        _check_gzip_header(packed[:4], where)
        self.packed, self.at = memoryview(packed), 0
        self.inflate = zlib.decompressobj(zlib.MAX_WBITS | 16)  # gzip framing, CRC checked

    def read(self, size: int) -> bytes:
        while not self.inflate.eof:
            source = self.inflate.unconsumed_tail or self._next_input()
            if not source:
                raise EOFError("the gzip stream is cut short")
            data = self.inflate.decompress(source, size)
            if data:
                return data
        return b""

    def _next_input(self) -> bytes:
        chunk = bytes(self.packed[self.at : self.at + CHUNK])
        self.at += len(chunk)
        return chunk

    def trailing(self) -> int:
        """Bytes after the member's end (another member, zeros, anything)."""
        return len(self.inflate.unused_data) + len(self.packed) - self.at


class _Bounded:
    """The decompressed stream, counted: past ``cap`` bytes (members, headers and all) the
    archive is refused, whatever its headers claim. It also notes where the last non-zero
    byte was, so what follows tar's end-of-archive marker can be checked to be padding."""

    def __init__(self, stream: _GzipMember, cap: int, where: str) -> None:
        self.stream, self.cap, self.where, self.count = stream, cap, where, 0
        self.data_end = 0  # the offset just past the last non-zero byte seen

    def read(self, size: int = -1) -> bytes:
        data = self.stream.read(size if size >= 0 else CHUNK)
        kept = len(data.rstrip(b"\0"))
        if kept:
            self.data_end = self.count + kept
        self.count += len(data)
        if self.count > self.cap:
            raise ReleaseRefused(
                self.where, f"decompresses to more than {self.cap} bytes (a decompression bomb?)"
            )
        return data


def _extract(
    archive: Path,
    packed: bytes,
    staging: Path,
    trusted: TrustedKey | None,
    signature_text: str | None,
    limits: Limits,
    minimum: tuple[int, int, int] | None,
) -> tuple[bytes, str | None]:
    where = str(archive)
    cap = limits.total + MANIFEST_LIMIT + HEADER_ALLOWANCE * (limits.members + 2)
    try:
        unzipped = _GzipMember(packed, where)
        bounded = _Bounded(unzipped, cap, where)
        with tarfile.open(fileobj=cast(IO[bytes], bounded), mode="r|") as tar:
            members = _members(tar, where, limits)
            manifest_bytes = _manifest_bytes(tar, members, where)
            signer = _check_signature(trusted, manifest_bytes, signature_text, where)
            manifest = _checked_manifest(manifest_bytes, archive, limits, minimum)
            # from here on the signed manifest says how much is left to come
            bounded.cap = min(cap, bounded.count + _expected_bytes(manifest))
            _extract_members(tar, members, manifest, staging, limits, where)
        while bounded.read(CHUNK):  # the rest: zlib checks gzip's length and CRC at the end
            pass
    except (tarfile.TarError, EOFError, zlib.error, UnicodeError) as error:
        raise ReleaseRefused(where, f"truncated or corrupt archive ({error})") from None
    _check_tar_end(tar.offset, bounded, where)
    if unzipped.trailing():
        raise ReleaseRefused(
            where,
            f"{unzipped.trailing()} bytes after the end of its gzip stream (another gzip "
            "member or appended data), which the signed manifest does not cover",
        )
    return manifest_bytes, signer


def _check_tar_end(end: int, bounded: _Bounded, where: str) -> None:
    """After the last member (at ``end``), only what tar itself writes: the end-of-archive
    marker (two zero blocks), then zeros up to the next whole record, as Python's tarfile
    and GNU tar write it. tarfile stops reading at the first zero (or unreadable) block, so
    anything hidden behind it would otherwise be accepted unseen."""
    if bounded.data_end > end:
        raise ReleaseRefused(
            where,
            "data after the tar end-of-archive marker, which the signed manifest does not "
            "cover (another archive appended?)",
        )
    padded = end + 2 * tarfile.BLOCKSIZE
    expected = -(-padded // tarfile.RECORDSIZE) * tarfile.RECORDSIZE
    if bounded.count < expected:
        raise ReleaseRefused(
            where, "the tar stream lacks its end-of-archive marker or padding (truncated?)"
        )
    if bounded.count > expected:
        raise ReleaseRefused(
            where,
            f"{bounded.count - expected} zero bytes after the tar end-of-archive padding, "
            "which the signed manifest does not cover",
        )


def _expected_bytes(manifest: Manifest) -> int:
    """Decompressed bytes the rest of the archive may take: the listed files, a header
    allowance for each, and tar's end-of-archive padding."""
    files = sum(entry.size for entry in manifest.files)
    return files + HEADER_ALLOWANCE * (len(manifest.files) + 1) + tarfile.RECORDSIZE


def _members(tar: tarfile.TarFile, where: str, limits: Limits) -> Iterator[tarfile.TarInfo]:
    """Every member, each checked to be a plain file with a plain relative name, once."""
    seen: dict[str, str] = {}  # case-folded name -> the name as first met
    for count, info in enumerate(tar, 1):
        if count > limits.members + 1:
            raise ReleaseRefused(where, f"more than {limits.members} members")
        name = info.name
        _check_type(info, where)
        _check_name(name, where)
        _check_unique(name, seen, where)
        if info.size > limits.member:
            raise ReleaseRefused(
                where,
                f"member {name!r} declares {info.size} bytes, over the {limits.member}-byte limit",
            )
        yield info


def _check_unique(name: str, seen: dict[str, str], where: str) -> None:
    """Once per name, and once per name whatever its case: extracted on a case-insensitive
    file system (macOS, Windows), two such names are one file, the second overwriting the
    first."""
    first = seen.get(name.casefold())
    if first is None:
        seen[name.casefold()] = name
        return
    if first == name:
        raise ReleaseRefused(where, f"duplicate member {name!r} (it is in the archive twice)")
    raise ReleaseRefused(
        where,
        f"members {first!r} and {name!r} differ only in case (a case collision: one file on "
        "a case-insensitive file system)",
    )


def _check_type(info: tarfile.TarInfo, where: str) -> None:
    kinds = (
        (info.issym(), "a symbolic link"),
        (info.islnk(), "a hard link"),
        (info.ischr() or info.isblk(), "a device"),
        (info.isfifo(), "a FIFO"),
        (info.isdir(), "a directory entry"),
    )
    for found, kind in kinds:
        if found:
            raise ReleaseRefused(
                where, f"member {info.name!r} is {kind}; a release holds files only"
            )
    if not info.isreg():
        raise ReleaseRefused(where, f"member {info.name!r} is not a regular file")


def _check_name(name: str, where: str) -> None:
    if name.startswith("/") or re.match(r"[A-Za-z]:", name):
        raise ReleaseRefused(where, f"member {name!r} has an absolute path")
    if ".." in re.split(r"[/\\]", name):
        raise ReleaseRefused(where, f"member {name!r} climbs out with '..'")
    if not MEMBER_NAME.fullmatch(name):
        raise ReleaseRefused(where, f"member name {name!r} is not a plain relative path")


def _read_member(
    tar: tarfile.TarFile, info: tarfile.TarInfo, limit: int, where: str
) -> Iterator[bytes]:
    """The member's bytes in chunks, counted as they arrive."""
    stream = tar.extractfile(info)
    if stream is None:  # pragma: no cover - _check_type lets regular files only through
        raise ReleaseRefused(where, f"member {info.name!r} has no content")
    received = 0
    while chunk := stream.read(CHUNK):
        received += len(chunk)
        if received > limit:
            raise ReleaseRefused(where, f"member {info.name!r} is over {limit} bytes")
        yield chunk


def _manifest_bytes(tar: tarfile.TarFile, members: Iterator[tarfile.TarInfo], where: str) -> bytes:
    first = next(members, None)
    if first is None:
        raise ReleaseRefused(where, "an empty archive (no MANIFEST.json)")
    if first.name != MANIFEST:
        raise ReleaseRefused(
            where, f"the first member is {first.name!r}, not {MANIFEST} (not a fairvec release)"
        )
    return b"".join(_read_member(tar, first, MANIFEST_LIMIT, where))


def _check_signature(
    trusted: TrustedKey | None, manifest: bytes, text: str | None, where: str
) -> str | None:
    if trusted is None or text is None:
        return None
    check = sshsig.verify if trusted.kind == "ssh" else minisig.verify
    try:
        return check(trusted, manifest, text)
    except SignatureError as error:
        raise ReleaseRefused(where, str(error)) from None


def _checked_manifest(
    data: bytes, archive: Path, limits: Limits, minimum: tuple[int, int, int] | None
) -> Manifest:
    where = str(archive)
    try:
        manifest = parse_manifest(data, where)
    except FairvecError as error:
        raise ReleaseRefused(where, f"the manifest does not parse ({error})") from None
    named = ARCHIVE_NAME.fullmatch(archive.name)
    if named and named.group(1) != manifest.version:
        raise ReleaseRefused(
            where, f"named version {named.group(1)} but its signed manifest says {manifest.version}"
        )
    if minimum and parse_version(manifest.version, where) < minimum:
        wanted = ".".join(map(str, minimum))
        raise ReleaseRefused(
            where, f"version {manifest.version} is older than --min-version {wanted} (a rollback?)"
        )
    if len(manifest.files) > limits.members:
        raise ReleaseRefused(where, f"the manifest lists more than {limits.members} files")
    total = sum(entry.size for entry in manifest.files)
    if total > limits.total:
        raise ReleaseRefused(where, f"the manifest adds up to {total} bytes, over {limits.total}")
    return manifest


def _extract_members(
    tar: tarfile.TarFile,
    members: Iterator[tarfile.TarInfo],
    manifest: Manifest,
    staging: Path,
    limits: Limits,
    where: str,
) -> None:
    found: set[str] = set()
    for info in members:
        entry = manifest.entry(info.name)
        if entry is None:
            raise ReleaseRefused(
                where, f"member {info.name!r} is not in the signed manifest (added or renamed)"
            )
        found.add(info.name)
        _write_member(tar, info, entry, staging, limits, where)
    missing = [entry.path for entry in manifest.files if entry.path not in found]
    if missing:
        raise ReleaseRefused(
            where, f"member {missing[0]!r} of the signed manifest is missing (removed or renamed)"
        )


def _write_member(
    tar: tarfile.TarFile,
    info: tarfile.TarInfo,
    entry: Entry,
    staging: Path,
    limits: Limits,
    where: str,
) -> None:
    """Stream one member into the staging folder, hashing it; no byte past the size the
    manifest states is accepted."""
    target = staging.joinpath(*entry.path.split("/"))
    target.parent.mkdir(parents=True, exist_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    digest, size = hashlib.sha256(), 0
    with os.fdopen(os.open(target, flags, 0o644), "wb") as out:
        for chunk in _read_member(tar, info, min(entry.size, limits.member), where):
            digest.update(chunk)
            size += len(chunk)
            out.write(chunk)
    if size != entry.size or digest.hexdigest() != entry.sha256:
        raise ReleaseRefused(
            where, f"member {entry.path!r} was modified (its SHA-256 or size is not the manifest's)"
        )


def _check_suite_digest(root: Path, manifest: Manifest, where: str) -> None:
    """The signed digest must be the one ``fairvec run`` will print for these files."""
    members = [
        (entry.path, root.joinpath(*entry.path.split("/")).read_bytes())
        for entry in manifest.files
        if is_vector_file(entry.path)
    ]
    digest, count = suite_digest(members, where)
    if (digest, count) != (manifest.suite_digest, manifest.vectors):
        raise ReleaseRefused(
            where,
            f"the manifest does not match its vectors (suite digest {manifest.suite_digest}, "
            f"{manifest.vectors} vectors; the files give {digest}, {count})",
        )
