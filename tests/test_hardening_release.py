"""Hardening round 3 (issue 16), the release part: the release extra checked before any
work (and an unsigned build that needs no extra), no byte after the signed archive's
content accepted, and every refusal saying what it met (a FIFO, a device, a case
collision), never "missing" or "duplicate" for something else.

Whatever could hang on the code before these fixes (a FIFO read as a key or as
SHA256SUMS) runs in a subprocess with a timeout, so a regression fails instead of hanging.
"""

from __future__ import annotations

import gzip
import io
import os
import shutil
import struct
import subprocess
import sys
import tarfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from support import HANG
from test_release import (
    SshKey,
    copy_small_tree,
    fail,
    file_member,
    make_ssh_key,
    members_of,
    pack,
)

from fairvec.cli import main

EXTRA = "pip install 'fairvec[release]'"
VERSION = "1.2.0"
# fairvec.cli.main in a Python that cannot import what BLOCK names (None in sys.modules
# makes every import of that module raise ImportError, whatever is installed)
WITHOUT = (
    "import sys\n"
    "for name in sys.argv[1].split(','):\n"
    "    sys.modules[name] = None\n"
    "from fairvec.cli import main\n"
    "sys.exit(main(sys.argv[2:]))\n"
)
WITH = "import sys\nfrom fairvec.cli import main\nsys.exit(main(sys.argv[1:]))\n"


@dataclass(frozen=True)
class Done:
    status: int
    out: str
    err: str


def run_fairvec(*arguments: str | Path, block: str = "", cwd: Path | None = None) -> Done:
    """``fairvec ARGUMENTS`` in a fresh Python (without the modules ``block`` names), with a
    timeout: a refusal must come at once, not after a wait for a FIFO's writer."""
    script = [sys.executable, "-c", WITHOUT, block] if block else [sys.executable, "-c", WITH]
    env = {key: value for key, value in os.environ.items() if key != "FAIRVEC_DEBUG"}
    try:
        done = subprocess.run(
            [*script, *map(str, arguments)],
            capture_output=True,
            text=True,
            timeout=HANG,
            cwd=cwd,
            env=env,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"fairvec {' '.join(map(str, arguments))}: hung (a FIFO read blocking?)")
    return Done(done.returncode, done.stdout, done.stderr)


def one_line_refusal(done: Done) -> str:
    assert done.status == 2, done.out + done.err
    assert done.err.count("\n") == 1 and done.err.startswith("fairvec: error: "), done.err
    return done.err


@pytest.fixture(scope="module")
def key(tmp_path_factory: pytest.TempPathFactory) -> SshKey:
    return make_ssh_key(tmp_path_factory.mktemp("keys"), "maintainer")


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_small_tree(tmp_path_factory.mktemp("tree"))


@dataclass(frozen=True)
class Release:
    folder: Path
    archive: Path
    signature: Path


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory, tree: Path, key: SshKey) -> Release:
    folder = tmp_path_factory.mktemp("dist")
    build = ["release", "build", "--version", VERSION, "--out", str(folder)]
    assert main([*build, "--source", str(tree), "--ssh-key", str(key.private)]) == 0
    return Release(
        folder,
        folder / f"fairvec-vectors-{VERSION}.tar.gz",
        folder / f"fairvec-vectors-{VERSION}.MANIFEST.json.sig",
    )


def beside(release: Release, folder: Path, data: bytes) -> Path:
    """``data`` as the archive in ``folder``, with the release's own (good) signature."""
    folder.mkdir(parents=True, exist_ok=True)
    archive = folder / release.archive.name
    archive.write_bytes(data)
    shutil.copyfile(release.signature, folder / release.signature.name)
    return archive


def verify_fails(archive: Path, key: SshKey, *more: str | Path) -> str:
    return fail("release", "verify", archive, "--trusted-key", key.allowed_signers, *more)


# ---- 1. an unsigned build needs no cryptography ----------------------------------------


def test_an_unsigned_build_without_cryptography_succeeds_and_signs_later(
    tmp_path: Path, tree: Path, key: SshKey, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without a key the build uses nothing of cryptography: it writes the release and
    says how to sign it (by hand, or with `release sign` once the extra is there)."""
    out = tmp_path / "out"
    done = run_fairvec(
        "release", "build", "--version", "1.0.0", "--out", out, "--source", tree,
        block="cryptography",
    )
    assert done.status == 0, done.err
    assert "not signed" in done.out and done.err == ""
    archive = out / "fairvec-vectors-1.0.0.tar.gz"
    names = {path.name for path in out.iterdir()}
    assert names == {archive.name, "fairvec-vectors-1.0.0.MANIFEST.json", "SHA256SUMS"}
    assert main(["release", "sign", str(archive), "--ssh-key", str(key.private)]) == 0
    assert main(["release", "verify", str(archive), "--trusted-key", str(key.public)]) == 0
    capsys.readouterr()


@pytest.mark.parametrize("option", ["--ssh-key", "--minisign-key"])
def test_a_signed_build_without_cryptography_writes_nothing(
    option: str, tmp_path: Path, tree: Path
) -> None:
    out = tmp_path / "out"
    done = run_fairvec(
        "release", "build", "--version", "1.0.0", "--out", out, "--source", tree,
        option, tmp_path / "not-read", block="cryptography",
    )
    message = one_line_refusal(done)
    assert EXTRA in message and "release build" in message
    assert not out.exists()


# ---- 2. every command needing the extra checks it first --------------------------------


COMMANDS: dict[str, list[str]] = {
    # every path is missing: the check for the extra must come before anything is read
    "verify": ["release", "verify", "missing.tar.gz", "--trusted-key", "missing.pub"],
    "sign": ["release", "sign", "missing.tar.gz", "--ssh-key", "missing"],
    "diff": ["release", "diff", "old.tar.gz", "new.tar.gz", "--trusted-key", "missing.pub"],
    "build": ["release", "build", "--version", "1.0.0", "--out", "out", "--ssh-key", "x"],
    "run --suite": ["run", "--suite", "missing.tar.gz", "--trusted-key", "missing.pub",
                    "--", "false"],
}
# the whole package missing, or only the part fairvec uses (a broken or partial install)
BLOCKED = {
    "cryptography": "cryptography",
    "ed25519 only": "cryptography.hazmat.primitives.asymmetric.ed25519",
}


@pytest.mark.parametrize("blocked", BLOCKED)
@pytest.mark.parametrize("command", COMMANDS)
def test_each_command_needing_the_extra_says_so_before_any_work(
    command: str, blocked: str, tmp_path: Path
) -> None:
    message = one_line_refusal(run_fairvec(*COMMANDS[command], block=BLOCKED[blocked],
                                           cwd=tmp_path))
    assert EXTRA in message, message
    assert "release extra" in message, message
    named = command if command == "run --suite" else f"release {command}"
    assert message.startswith(f"fairvec: error: fairvec {named}"), message
    assert list(tmp_path.iterdir()) == []


def test_diff_without_a_trusted_key_needs_no_extra(
    tmp_path: Path, release: Release, key: SshKey
) -> None:
    done = run_fairvec("release", "diff", release.archive, release.archive, block="cryptography")
    assert done.status == 0, done.err
    assert "signatures NOT checked" in done.out


# ---- 3. nothing after the signed content ------------------------------------------------


def tar_of(release: Release) -> bytes:
    return gzip.decompress(release.archive.read_bytes())


def regzip(data: bytes) -> bytes:
    return gzip.compress(data, mtime=0)


def hidden_tar() -> bytes:
    return pack([file_member("vectors/battle/hidden.json", b'{"vectors": []}')])


def last_member_end(tar: bytes) -> int:
    with tarfile.open(fileobj=io.BytesIO(tar)) as archive:
        last = archive.getmembers()[-1]
    return last.offset_data + -(-last.size // tarfile.BLOCKSIZE) * tarfile.BLOCKSIZE


APPENDED: dict[str, Callable[[Release], bytes]] = {
    "a second gzip member": lambda r: r.archive.read_bytes() + regzip(b"hidden data"),
    "an empty gzip member": lambda r: r.archive.read_bytes() + regzip(b""),
    "trailing zeros": lambda r: r.archive.read_bytes() + bytes(4096),
    "trailing garbage": lambda r: r.archive.read_bytes() + b"hidden data",
    "a tar after the tar": lambda r: regzip(tar_of(r) + gzip.decompress(hidden_tar())),
    "bytes after the end marker": lambda r: regzip(tar_of(r) + b"hidden data"),
    "a zero record more": lambda r: regzip(tar_of(r) + bytes(tarfile.RECORDSIZE)),
    "a member after one zero block": lambda r: regzip(
        tar_of(r)[: last_member_end(tar_of(r))]
        + bytes(tarfile.BLOCKSIZE)
        + gzip.decompress(hidden_tar())
    ),
    "no end marker": lambda r: regzip(tar_of(r)[: last_member_end(tar_of(r))]),
}


@pytest.mark.parametrize("shape", APPENDED)
def test_bytes_the_signature_does_not_cover_are_refused(
    shape: str, tmp_path: Path, release: Release, key: SshKey
) -> None:
    archive = beside(release, tmp_path, APPENDED[shape](release))
    message = verify_fails(archive, key, "--extract", tmp_path / "suite")
    assert "release refused" in message
    assert any(words in message for words in ("does not cover", "end-of-archive", "corrupt"))
    assert not (tmp_path / "suite").exists()


def test_the_canonical_archive_still_verifies_after_recompression(
    tmp_path: Path, release: Release, key: SshKey, capsys: pytest.CaptureFixture[str]
) -> None:
    """Another zlib, another level: other compressed bytes, the same tar: still accepted
    (the reason the manifest, not the .tar.gz, is signed)."""
    archive = beside(release, tmp_path, gzip.compress(tar_of(release), 1, mtime=0))
    assert archive.read_bytes() != release.archive.read_bytes()
    assert main(["release", "verify", str(archive), "--trusted-key", str(key.public)]) == 0
    capsys.readouterr()


def gzip_with_comment(data: bytes, comment: bytes) -> bytes:
    """A gzip member whose header carries FCOMMENT (Python's gzip cannot write one)."""
    deflate = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    body = deflate.compress(data) + deflate.flush()
    header = b"\x1f\x8b\x08\x10" + bytes(4) + b"\x00\xff" + comment + b"\0"
    return header + body + struct.pack("<II", zlib.crc32(data), len(data) & 0xFFFFFFFF)


def test_a_gzip_header_carrying_a_comment_is_refused(
    tmp_path: Path, release: Release, key: SshKey
) -> None:
    data = gzip_with_comment(tar_of(release), b"hidden data " * 1000)
    assert gzip.decompress(data) == tar_of(release)
    message = verify_fails(beside(release, tmp_path, data), key)
    assert "gzip header" in message and "does not cover" in message


# ---- 4. say exactly what happened -------------------------------------------------------


def test_a_case_collision_is_named_as_one_with_both_names(
    tmp_path: Path, release: Release, key: SshKey
) -> None:
    members = members_of(release.archive)
    info, data = members[-1]
    twin = file_member(info.name.upper(), data)
    message = verify_fails(beside(release, tmp_path, pack([*members, twin])), key)
    assert "case" in message and "duplicate" not in message
    assert repr(info.name) in message and repr(twin[0].name) in message


def test_a_case_collision_in_the_source_is_refused_by_the_build(
    tmp_path: Path, tree: Path
) -> None:
    source = copy_small_tree(tmp_path / "tree")
    shutil.copyfile(source / "spec/battle/ticket.yaml", source / "spec/battle/Ticket.yaml")
    message = fail("release", "build", "--version", "1.0.0", "--out", tmp_path / "out",
                   "--source", source)
    assert "case" in message
    assert "spec/battle/Ticket.yaml" in message and "spec/battle/ticket.yaml" in message
    assert not (tmp_path / "out").exists()


def test_a_manifest_case_collision_names_both_paths() -> None:
    from fairvec.errors import FairvecError
    from fairvec.release.manifest import Entry, Manifest, parse_manifest

    entries = (Entry("spec/A.yaml", "0" * 64, 1), Entry("spec/a.yaml", "0" * 64, 1))
    text = Manifest("1.0.0", "0.1.0", "sha256:" + "0" * 64, 0, entries).to_bytes()
    with pytest.raises(FairvecError, match=r"'spec/A\.yaml' and 'spec/a\.yaml'"):
        parse_manifest(text, "test")


def test_an_archive_that_is_a_fifo_is_named_a_fifo(tmp_path: Path, key: SshKey) -> None:
    archive = tmp_path / f"fairvec-vectors-{VERSION}.tar.gz"
    os.mkfifo(archive)
    message = one_line_refusal(
        run_fairvec("release", "verify", archive, "--trusted-key", key.public)
    )
    assert "FIFO" in message and "no such" not in message


def test_a_signature_that_is_a_link_to_dev_zero_is_named_a_device(
    tmp_path: Path, release: Release, key: SshKey
) -> None:
    archive = beside(release, tmp_path, release.archive.read_bytes())
    signature = tmp_path / release.signature.name
    signature.unlink()
    signature.symlink_to("/dev/zero")
    message = verify_fails(archive, key)
    assert "character device" in message and "missing" not in message
    folder = tmp_path / "a-folder"
    folder.mkdir()
    message = verify_fails(archive, key, "--signature", folder)
    assert "a folder" in message and "missing" not in message


@pytest.mark.parametrize("which", ["--trusted-key", "--signature"])
def test_a_fifo_as_key_or_signature_is_refused_at_once(
    which: str, tmp_path: Path, release: Release, key: SshKey
) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    arguments: list[str | Path] = ["release", "verify", release.archive]
    if which == "--trusted-key":
        arguments += ["--trusted-key", fifo]
    else:
        arguments += ["--trusted-key", key.public, "--signature", fifo]
    message = one_line_refusal(run_fairvec(*arguments))
    assert "FIFO" in message


def test_a_signing_key_that_is_a_device_is_named_a_device(
    tmp_path: Path, release: Release
) -> None:
    link = tmp_path / "id_ed25519"
    link.symlink_to("/dev/zero")
    message = fail("release", "sign", release.archive, "--ssh-key", link)
    assert "character device" in message


def test_a_fifo_in_the_source_is_refused_not_read(tmp_path: Path) -> None:
    source = copy_small_tree(tmp_path / "tree")
    os.mkfifo(source / "spec/battle/stuck.yaml")
    done = run_fairvec("release", "build", "--version", "1.0.0", "--out", tmp_path / "out",
                       "--source", source)
    message = one_line_refusal(done)
    assert "FIFO" in message and "stuck.yaml" in message
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "name", [f"fairvec-vectors-{VERSION}.tar.gz", "SHA256SUMS",
             f"fairvec-vectors-{VERSION}.MANIFEST.json.sig"]
)
def test_a_release_is_never_written_over_a_fifo(name: str, tmp_path: Path, tree: Path,
                                                key: SshKey) -> None:
    out = tmp_path / "out"
    out.mkdir()
    os.mkfifo(out / name)
    done = run_fairvec("release", "build", "--version", VERSION, "--out", out, "--source", tree,
                       "--ssh-key", key.private, "--force")
    message = one_line_refusal(done)
    assert "FIFO" in message and name in message
    assert [path.name for path in out.iterdir()] == [name]
    assert (out / name).is_fifo()


def test_release_sign_never_writes_over_a_special_file(
    tmp_path: Path, release: Release, key: SshKey
) -> None:
    archive = beside(release, tmp_path, release.archive.read_bytes())
    signature = tmp_path / release.signature.name
    signature.unlink()
    os.mkfifo(signature)
    message = fail("release", "sign", archive, "--ssh-key", key.private)
    assert "FIFO" in message
    assert signature.is_fifo()


@pytest.mark.parametrize("kind", ["a file", "a device"])
def test_an_out_that_is_not_a_folder_is_one_line(kind: str, tmp_path: Path, tree: Path) -> None:
    out = tmp_path / "out"
    if kind == "a file":
        out.write_text("not a folder\n")
    else:
        out.symlink_to("/dev/null")
    message = fail("release", "build", "--version", "1.0.0", "--out", out, "--source", tree)
    assert "--out" in message and "not a folder" in message

