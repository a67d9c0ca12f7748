"""``fairvec release build``: the deterministic archive, its manifest and SHA256SUMS.

Built twice from the same files, the archive is byte-identical: members sorted (the
manifest first), mtime 0, uid/gid 0, empty owner names, mode 0644, PAX format, and a gzip
header without a file name or a time. Nothing of the checkout (mtimes, modes, umask,
owner) reaches the bytes.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import tarfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from fairvec import __version__
from fairvec.errors import FairvecError
from fairvec.regular_files import (
    SMALL_FILE_LIMIT,
    SPEC_FILE_LIMIT,
    VECTOR_FILE_LIMIT,
    read_regular,
)
from fairvec.release.files import (
    MANIFEST,
    MINISIGN_SUFFIX,
    SSH_SUFFIX,
    SUMS,
    archive_name,
    check_out_folder,
    manifest_copy_name,
    refuse_special,
    signature_path,
    write_bytes_atomically,
)
from fairvec.release.manifest import MEMBER_NAME, Entry, Manifest, parse_version
from fairvec.release.suite import suite_digest
from fairvec.vectorfiles import load_vector_files

PROTOCOL_DOC = "docs/adapter-protocol.md"
SCHEMAS = (
    "spec/spec.schema.json",
    "vectors/vectors.schema.json",
    "runner/schemas/protocol.schema.json",
    "runner/schemas/report.schema.json",
)
# (folder in the release, glob under it): what a release holds besides the manifest
PATTERNS = (
    ("spec", "*.schema.json"),
    ("spec", "*/*.yaml"),
    ("vectors", "*.schema.json"),
    ("vectors", "*/*.json"),
    ("runner/schemas", "*.schema.json"),
)
COMPRESSION = 9  # the archive is built once and fetched many times


@dataclass(frozen=True)
class Built:
    archive: Path
    manifest: Manifest
    manifest_bytes: bytes
    manifest_copy: Path
    sums: Path


def package_root() -> Path:
    """The installed package: fairvec/spec, fairvec/vectors, fairvec/runner are its rooms."""
    return Path(str(resources.files("fairvec")))


def protocol_document(source: Path | None) -> Path:
    """docs/adapter-protocol.md: from --source, else packaged beside the rooms, else from
    the checkout an editable install lives in. A plain wheel does not ship it (yet)."""
    if source is not None:
        return source / PROTOCOL_DOC
    package = package_root()
    for candidate in (package / PROTOCOL_DOC, package.parent / PROTOCOL_DOC):
        if candidate.is_file():
            return candidate
    raise FairvecError(
        f"{PROTOCOL_DOC}: not in the installed package; build from a checkout with "
        "--source CHECKOUT"
    )


def collect(source: Path | None) -> list[tuple[str, Path]]:
    """(member name, file) for every file of the release, sorted by member name."""
    root = source if source is not None else package_root()
    found: dict[str, Path] = {PROTOCOL_DOC: protocol_document(source)}
    for folder, pattern in PATTERNS:
        base = (root / folder).resolve()
        for path in base.glob(pattern):
            name = f"{folder}/{path.relative_to(base).as_posix()}"
            if any(part.startswith(".") for part in path.relative_to(base).parts):
                continue  # editor and atomic-write leftovers are never part of a release
            if not MEMBER_NAME.fullmatch(name):
                raise FairvecError(f"{path}: {name!r} is not a portable file name; rename it")
            found[name] = path
    for required in (*SCHEMAS, PROTOCOL_DOC):
        # exists(), not is_file(): a FIFO or a folder there is named as such when read
        if required not in found or not found[required].exists():
            raise FairvecError(
                f"{root / required}: missing; a release needs it (is --source a checkout?)"
            )
    _refuse_case_collisions(found, root)
    return sorted(found.items())


def _refuse_case_collisions(found: dict[str, Path], root: Path) -> None:
    """Two names that differ only in case are one file on macOS and Windows: extracted
    there, one would overwrite the other, so ``release verify`` refuses such a manifest;
    refuse it here, naming both, rather than publish a release nobody can verify."""
    by_folded: dict[str, str] = {}
    for name in sorted(found):
        other = by_folded.setdefault(name.casefold(), name)
        if other != name:
            raise FairvecError(
                f"{root}: {other} and {name} differ only in case (a case collision: one "
                "file on a case-insensitive file system); rename or remove one"
            )


def _limit(name: str) -> int:
    """The most fairvec reads of one release file: the bounds the loaders use."""
    if name.startswith("vectors/") and not name.endswith(".schema.json"):
        return VECTOR_FILE_LIMIT
    if name.startswith("spec/") and name.endswith(".yaml"):
        return SPEC_FILE_LIMIT
    return SMALL_FILE_LIMIT  # schemas and the protocol document


def make_manifest(version: str, members: list[tuple[str, bytes]], vectors_root: Path) -> Manifest:
    """The manifest of ``members``; the vector files are validated first, since a release
    of files ``fairvec run`` would refuse helps nobody."""
    load_vector_files(vectors_root)
    digest, count = suite_digest(members, str(vectors_root))
    entries = tuple(
        Entry(name, hashlib.sha256(data).hexdigest(), len(data)) for name, data in members
    )
    return Manifest(version, __version__, digest, count, entries)


def archive_bytes(members: list[tuple[str, bytes]]) -> bytes:
    """The .tar.gz of ``members`` in the given order, with every varying field fixed."""
    buffer = io.BytesIO()
    with (
        gzip.GzipFile(
            filename="", mode="wb", fileobj=buffer, mtime=0, compresslevel=COMPRESSION
        ) as zipped,
        tarfile.open(fileobj=zipped, mode="w", format=tarfile.PAX_FORMAT) as tar,
    ):
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size, info.mtime, info.mode, info.type = len(data), 0, 0o644, tarfile.REGTYPE
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def release_paths(out: Path, version: str) -> list[Path]:
    """Every file a build of ``version`` into ``out`` may write or replace."""
    archive = out / archive_name(version)
    signatures = [signature_path(archive, suffix) for suffix in (SSH_SUFFIX, MINISIGN_SUFFIX)]
    return [archive, out / manifest_copy_name(version), out / SUMS, *signatures]


def refuse_to_overwrite(out: Path, version: str) -> None:
    """A release's files, once published or signed, must not change under its name: a
    rebuild would leave its signatures verifying nothing. (Other versions may share the
    folder: SHA256SUMS keeps their lines.)"""
    for name in (archive_name(version), manifest_copy_name(version)):
        if (out / name).exists():
            raise FairvecError(
                f"--out {out}: already holds {name}; give an empty folder, or --force to "
                f"replace that release"
            )


def _other_sums(path: Path, ours: set[str]) -> dict[str, str]:
    """The lines of an existing SHA256SUMS for files other than this build's (another
    version in the same folder), by file name; one that is not ASCII text is started
    afresh. Read before anything is written: one that cannot be read (or is over 1 MiB,
    some 7,000 versions) is refused then, rather than its other versions' lines dropped."""
    if not path.exists():
        return {}
    try:
        text = read_regular(path, "the SHA256SUMS file", SMALL_FILE_LIMIT).decode("ascii")
    except UnicodeDecodeError:
        return {}
    kept = {}
    for line in text.splitlines():
        digest, _, name = line.partition("  ")
        if len(digest) == 64 and name and name not in ours:
            kept[name] = f"{digest}  {name}\n"
    return kept


def build(
    version: str, out: Path, source: Path | None = None, *, replace: bool = False
) -> Built:
    """Write the archive, the manifest beside it and SHA256SUMS into ``out``; a release
    already there is never overwritten unless ``replace`` (--force)."""
    parse_version(version, "--version")
    check_out_folder(out)
    for path in release_paths(out, version):  # even with --force: never over a FIFO or device
        refuse_special(path)
    if not replace:
        refuse_to_overwrite(out, version)
    files = collect(source)
    members = [(name, read_regular(path, "a release file", _limit(name))) for name, path in files]
    vectors_root = dict(files)["vectors/vectors.schema.json"].parent
    manifest = make_manifest(version, members, vectors_root)
    manifest_bytes = manifest.to_bytes()
    data = archive_bytes([(MANIFEST, manifest_bytes), *members])
    archive = out / archive_name(version)
    copy = out / manifest_copy_name(version)
    others = _other_sums(out / SUMS, {archive.name, copy.name})
    write_bytes_atomically(archive, data)
    write_bytes_atomically(copy, manifest_bytes)
    ours = {
        path.name: f"{hashlib.sha256(content).hexdigest()}  {path.name}\n"
        for path, content in ((archive, data), (copy, manifest_bytes))
    }
    lines = {**others, **ours}
    sums = "".join(lines[name] for name in sorted(lines))
    write_bytes_atomically(out / SUMS, sums.encode("ascii"))
    for suffix in (SSH_SUFFIX, MINISIGN_SUFFIX):  # --force: the old ones verify nothing now
        signature_path(archive, suffix).unlink(missing_ok=True)
    return Built(archive, manifest, manifest_bytes, copy, out / SUMS)
