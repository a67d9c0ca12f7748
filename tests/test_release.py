"""Signed vector releases: a deterministic build, signatures the real ssh-keygen and minisign
accept (and whose own signatures fairvec accepts), verification that refuses every tamper
case with its reason, and ``release diff``.

Keys are throwaway ones made at test time; the releases are built from a small copy of the
checkout (two algorithms) so the whole file stays fast. One test builds the real suite.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import io
import json
import os
import shutil
import subprocess
import tarfile
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    NoEncryption,
    PrivateFormat,
    PublicFormat,
)
from support import HANG, REPO
from support import SMALL_RELEASE as SMALL

from fairvec.cli import main
from fairvec.release import sshsig
from fairvec.release.files import MANIFEST
from fairvec.release.manifest import parse_manifest
from fairvec.release.verify import Limits, open_verified_suite
from fairvec.vectorfiles import default_vectors_root, load_vector_files, vectors_digest

CHANGED = "vectors/battle/ticket.json"
SSH_KEYGEN, MINISIGN = shutil.which("ssh-keygen"), shutil.which("minisign")
needs_ssh_keygen = pytest.mark.skipif(SSH_KEYGEN is None, reason="ssh-keygen is not installed")
needs_minisign = pytest.mark.skipif(MINISIGN is None, reason="minisign is not installed")


# ---- keys and trees -------------------------------------------------------------------


@dataclass(frozen=True)
class SshKey:
    private: Path
    public: Path
    allowed_signers: Path


def make_ssh_key(folder: Path, name: str) -> SshKey:
    """A throwaway ed25519 key in OpenSSH's own file format, made by cryptography."""
    folder.mkdir(parents=True, exist_ok=True)
    key = Ed25519PrivateKey.generate()
    private = folder / name
    private.write_bytes(key.private_bytes(Encoding.PEM, PrivateFormat.OpenSSH, NoEncryption()))
    private.chmod(0o600)  # ssh-keygen refuses a private key others can read
    public_line = key.public_key().public_bytes(Encoding.OpenSSH, PublicFormat.OpenSSH).decode()
    public = folder / f"{name}.pub"
    public.write_text(f"{public_line} {name}@test\n", encoding="utf-8")
    signers = folder / f"{name}.allowed_signers"
    signers.write_text(f'{name}@test namespaces="fairvec-release" {public_line}\n', "utf-8")
    return SshKey(private, public, signers)


def copy_small_tree(target: Path) -> Path:
    for name in SMALL:
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(REPO / name, target / name)
    return target


def fail(*arguments: str | Path) -> str:
    """Run ``fairvec`` in-process and return its one-line error (exit 2 is required)."""
    stderr = io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("sys.stderr", stderr)
        status = main([str(argument) for argument in arguments])
    message = stderr.getvalue()
    assert status == 2, message
    assert message.count("\n") == 1 and message.startswith("fairvec: error: "), message
    return message


def ok(*arguments: str | Path, capsys: pytest.CaptureFixture[str]) -> str:
    status = main([str(argument) for argument in arguments])
    out = capsys.readouterr()
    assert status == 0, out.err
    return out.out


@dataclass(frozen=True)
class Release:
    folder: Path
    archive: Path
    signature: Path
    key: SshKey
    version: str


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> tuple[SshKey, SshKey]:
    folder = tmp_path_factory.mktemp("keys")
    return make_ssh_key(folder, "maintainer"), make_ssh_key(folder, "intruder")


@pytest.fixture(scope="module")
def small_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_small_tree(tmp_path_factory.mktemp("tree"))


@pytest.fixture(scope="module")
def release(
    tmp_path_factory: pytest.TempPathFactory, small_tree: Path, keys: tuple[SshKey, SshKey]
) -> Release:
    folder = tmp_path_factory.mktemp("dist")
    status = main(
        [
            "release",
            "build",
            "--version",
            "1.2.0",
            "--out",
            str(folder),
            "--source",
            str(small_tree),
            "--ssh-key",
            str(keys[0].private),
        ]
    )
    assert status == 0
    archive = folder / "fairvec-vectors-1.2.0.tar.gz"
    return Release(
        folder, archive, folder / "fairvec-vectors-1.2.0.MANIFEST.json.sig", keys[0], "1.2.0"
    )


# ---- the build ------------------------------------------------------------------------


def test_the_archive_holds_the_manifest_first_then_every_file_sorted(release: Release) -> None:
    with tarfile.open(release.archive) as tar:
        members = tar.getmembers()
        manifest = parse_manifest(tar.extractfile(MANIFEST).read(), "test")  # type: ignore[union-attr]
    names = [member.name for member in members]
    assert names == [MANIFEST, *sorted(SMALL)]
    assert [entry.path for entry in manifest.files] == sorted(SMALL)
    for member in members:
        assert (member.mtime, member.mode, member.uid, member.gid) == (0, 0o644, 0, 0)
        assert (member.uname, member.gname, member.type) == ("", "", tarfile.REGTYPE)
    for entry in manifest.files:
        data = (REPO / entry.path).read_bytes()
        assert (entry.sha256, entry.size) == (hashlib.sha256(data).hexdigest(), len(data))


def test_the_gzip_header_has_no_name_and_no_time(release: Release) -> None:
    header = release.archive.read_bytes()[:10]
    assert header[3] & 0x08 == 0, "FNAME flag set: the header carries a file name"
    assert header[4:8] == b"\0\0\0\0", "MTIME is not zero"


def test_the_manifest_names_the_suite_digest_the_runner_prints(release: Release) -> None:
    manifest = parse_manifest(
        release.folder.joinpath("fairvec-vectors-1.2.0.MANIFEST.json").read_bytes(), "test"
    )
    vectors = [
        v
        for f in load_vector_files(
            REPO / "vectors", lambda name: name in {"battle.ticket", "nardy.cuts"}
        )
        for v in f.vectors
    ]
    assert manifest.suite_digest == vectors_digest(vectors)
    assert manifest.vectors == len(vectors)
    assert manifest.version == "1.2.0"


def test_sha256sums_beside_the_archive_checks_out(release: Release) -> None:
    lines = (release.folder / "SHA256SUMS").read_text("ascii").splitlines()
    assert len(lines) == 2
    for line in lines:
        digest, name = line.split("  ")
        assert hashlib.sha256((release.folder / name).read_bytes()).hexdigest() == digest


def test_built_twice_the_release_is_byte_identical_whatever_the_checkout(
    tmp_path: Path, small_tree: Path, release: Release, keys: tuple[SshKey, SshKey]
) -> None:
    """Other mtimes, other modes and another umask: the same bytes, signature included
    (Ed25519 is deterministic)."""
    other = copy_small_tree(tmp_path / "other")
    for number, path in enumerate(sorted(other.rglob("*"))):
        if path.is_file():
            os.utime(path, (1_000_000 + number, 2_000_000_000 - number))
            path.chmod(0o600 if number % 2 else 0o755)
    previous = os.umask(0o077)
    try:
        status = main(
            [
                "release",
                "build",
                "--version",
                "1.2.0",
                "--out",
                str(tmp_path / "out"),
                "--source",
                str(other),
                "--ssh-key",
                str(keys[0].private),
            ]
        )
    finally:
        os.umask(previous)
    assert status == 0
    for name in (
        "fairvec-vectors-1.2.0.tar.gz",
        "fairvec-vectors-1.2.0.MANIFEST.json",
        "fairvec-vectors-1.2.0.MANIFEST.json.sig",
        "SHA256SUMS",
    ):
        assert (tmp_path / "out" / name).read_bytes() == (release.folder / name).read_bytes(), name


@pytest.mark.heavy  # builds and verifies a release of the whole suite
def test_the_installed_suite_builds_and_verifies(
    tmp_path: Path, keys: tuple[SshKey, SshKey], capsys: pytest.CaptureFixture[str]
) -> None:
    """The real thing, from the installed package: every vector, and the digest the runner
    computes (its order: vector files as sorted paths, vectors in file order)."""
    ok(
        "release",
        "build",
        "--version",
        "0.1.0",
        "--out",
        tmp_path,
        "--ssh-key",
        keys[0].private,
        capsys=capsys,
    )
    installed = sorted(default_vectors_root().glob("*/*.json"))
    vectors = [v for path in installed for v in json.loads(path.read_bytes())["vectors"]]
    archive = tmp_path / "fairvec-vectors-0.1.0.tar.gz"
    with open_verified_suite(archive, keys[0].allowed_signers) as suite:
        assert suite.digest == vectors_digest(vectors)
        assert sorted(suite.vectors.glob("*/*.json")) == [
            suite.vectors / path.relative_to(default_vectors_root()) for path in installed
        ]
        assert suite.signer is not None and suite.signer.startswith("maintainer@test")
        root = suite.root
    assert not root.exists(), "the temporary extraction folder outlives the suite"


def test_a_release_is_never_overwritten_without_force(
    release: Release, small_tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = {path.name: path.read_bytes() for path in release.folder.iterdir()}
    build = ["release", "build", "--version", release.version, "--out", release.folder]
    message = fail(*build, "--source", small_tree)
    assert "already holds" in message and "--force" in message
    assert {path.name: path.read_bytes() for path in release.folder.iterdir()} == before
    copy = release.folder.parent / "forced"
    copy.mkdir()
    for name, content in before.items():
        (copy / name).write_bytes(content)
    ok("release", "build", "--version", release.version, "--out", copy, "--source", small_tree,
       "--force", capsys=capsys)
    assert release.signature.name not in {path.name for path in copy.iterdir()}
    assert (copy / release.archive.name).exists()


def test_versions_sharing_a_folder_keep_their_sums(
    small_tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for version in ("1.0.0", "1.1.0"):
        ok("release", "build", "--version", version, "--out", tmp_path, "--source", small_tree,
           capsys=capsys)
    listed = (tmp_path / "SHA256SUMS").read_text("ascii").splitlines()
    names = sorted(line.split("  ", 1)[1] for line in listed)
    expected = [f"fairvec-vectors-{v}{suffix}" for v in ("1.0.0", "1.1.0")
                for suffix in (".MANIFEST.json", ".tar.gz")]
    assert names == sorted(expected)
    for line in listed:
        digest, name = line.split("  ", 1)
        assert hashlib.sha256((tmp_path / name).read_bytes()).hexdigest() == digest


def test_a_bad_version_or_source_is_one_line(tmp_path: Path) -> None:
    assert "not a version" in fail("release", "build", "--version", "1.2", "--out", tmp_path)
    message = fail(
        "release", "build", "--version", "1.0.0", "--out", tmp_path, "--source", tmp_path
    )
    assert "missing" in message


# ---- signatures with the real tools --------------------------------------------------


def keygen_ssh(folder: Path) -> SshKey:
    assert SSH_KEYGEN is not None
    private = folder / "id_ed25519"
    subprocess.run(
        [SSH_KEYGEN, "-q", "-t", "ed25519", "-N", "", "-C", "tool@test", "-f", str(private)],
        check=True,
        timeout=HANG,
    )
    public = folder / "id_ed25519.pub"
    kind, blob, _comment = public.read_text("utf-8").split()
    signers = folder / "allowed_signers"
    signers.write_text(f"tool@test {kind} {blob}\n", "utf-8")
    return SshKey(private, public, signers)


def keygen_minisign(folder: Path) -> tuple[Path, Path]:
    assert MINISIGN is not None
    public, secret = folder / "minisign.pub", folder / "minisign.key"
    subprocess.run(
        [MINISIGN, "-G", "-W", "-p", str(public), "-s", str(secret)],
        check=True,
        capture_output=True,
        timeout=HANG,
    )
    return public, secret


def build_small(out: Path, tree: Path, *signing: str | Path) -> Path:
    status = main(
        [
            "release",
            "build",
            "--version",
            "1.0.0",
            "--out",
            str(out),
            "--source",
            str(tree),
            *map(str, signing),
        ]
    )
    assert status == 0
    return out / "fairvec-vectors-1.0.0.tar.gz"


@needs_ssh_keygen
def test_ssh_keygen_accepts_fairvecs_signature_and_fairvec_accepts_ssh_keygens(
    tmp_path: Path, small_tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key = keygen_ssh(tmp_path)
    archive = build_small(tmp_path / "dist", small_tree, "--ssh-key", key.private)
    manifest = tmp_path / "dist" / "fairvec-vectors-1.0.0.MANIFEST.json"
    signature = Path(f"{manifest}.sig")
    assert SSH_KEYGEN is not None
    verify = [
        SSH_KEYGEN,
        "-Y",
        "verify",
        "-f",
        str(key.allowed_signers),
        "-I",
        "tool@test",
        "-n",
        "fairvec-release",
        "-s",
        str(signature),
    ]
    done = subprocess.run(verify, input=manifest.read_bytes(), capture_output=True, timeout=HANG)
    assert done.returncode == 0, done.stderr
    wrong_namespace = [*verify[:7], "file", *verify[8:]]
    done = subprocess.run(wrong_namespace, input=manifest.read_bytes(), capture_output=True)
    assert done.returncode != 0, "the namespace is not part of what ssh-keygen checks?"
    # and the other way: ssh-keygen signs by hand, fairvec verifies
    signature.unlink()
    subprocess.run(
        [SSH_KEYGEN, "-Y", "sign", "-f", str(key.private), "-n", "fairvec-release", str(manifest)],
        check=True,
        capture_output=True,
        timeout=HANG,
    )
    for trusted in (key.allowed_signers, key.public):
        out = ok("release", "verify", archive, "--trusted-key", trusted, capsys=capsys)
        assert "fairvec-vectors 1.0.0" in out and "tool@test" in out


def test_an_edited_manifest_copy_is_refused_as_ssh_keygen_refuses_it(
    tmp_path: Path, release: Release, capsys: pytest.CaptureFixture[str]
) -> None:
    """The two documented ways to verify agree: ssh-keygen checks the manifest copy beside
    the archive, fairvec the signature over the archive's own; a copy edited alone made
    ssh-keygen fail while fairvec said "verified" (issue 36)."""
    for name in ("tar.gz", "MANIFEST.json", "MANIFEST.json.sig"):
        shutil.copy(release.folder / f"fairvec-vectors-1.2.0.{name}", tmp_path)
    archive = tmp_path / release.archive.name
    copy = tmp_path / "fairvec-vectors-1.2.0.MANIFEST.json"
    trusted = release.key.allowed_signers
    ok("release", "verify", archive, "--trusted-key", trusted, capsys=capsys)
    copy.write_bytes(copy.read_bytes().replace(b'"1.2.0"', b'"1.2.1"', 1))
    message = fail("release", "verify", archive, "--trusted-key", trusted)
    assert f"{copy} differs from the archive's MANIFEST.json: ssh-keygen -Y verify" in message
    if SSH_KEYGEN is not None:  # and ssh-keygen indeed refuses that copy
        verify = [SSH_KEYGEN, "-Y", "verify", "-f", str(trusted), "-I", "maintainer@test", "-n",
                  "fairvec-release", "-s", f"{copy}.sig"]  # fmt: skip
        done = subprocess.run(verify, input=copy.read_bytes(), capture_output=True, timeout=HANG)
        assert done.returncode != 0
    copy.unlink()  # only the archive and its signature: what fairvec checks is the archive's
    ok("release", "verify", archive, "--trusted-key", trusted, capsys=capsys)


@needs_ssh_keygen
def test_a_signature_for_another_namespace_is_refused(tmp_path: Path, release: Release) -> None:
    assert SSH_KEYGEN is not None
    manifest = release.folder / "fairvec-vectors-1.2.0.MANIFEST.json"
    copy = tmp_path / "manifest"
    shutil.copyfile(manifest, copy)
    subprocess.run(
        [SSH_KEYGEN, "-Y", "sign", "-f", str(release.key.private), "-n", "file", str(copy)],
        check=True,
        capture_output=True,
        timeout=HANG,
    )
    message = fail(
        "release",
        "verify",
        release.archive,
        "--trusted-key",
        release.key.public,
        "--signature",
        f"{copy}.sig",
    )
    assert "namespace" in message


@needs_minisign
def test_minisign_accepts_fairvecs_signature_and_fairvec_accepts_minisigns(
    tmp_path: Path, small_tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    public, secret = keygen_minisign(tmp_path)
    archive = build_small(tmp_path / "dist", small_tree, "--minisign-key", secret)
    manifest = tmp_path / "dist" / "fairvec-vectors-1.0.0.MANIFEST.json"
    assert MINISIGN is not None
    done = subprocess.run(
        [MINISIGN, "-Vm", str(manifest), "-p", str(public)],
        capture_output=True,
        text=True,
        timeout=HANG,
    )
    assert done.returncode == 0, done.stderr
    digest = parse_manifest(manifest.read_bytes(), "test").suite_digest
    assert f"Trusted comment: fairvec-vectors-1.0.0 suite {digest}" in done.stdout
    out = ok("release", "verify", archive, "--trusted-key", public, capsys=capsys)
    assert "minisign key" in out
    # minisign signs by hand (its own trusted comment), fairvec verifies
    Path(f"{manifest}.minisig").unlink()
    subprocess.run(
        [MINISIGN, "-S", "-s", str(secret), "-m", str(manifest), "-t", "by hand"],
        check=True,
        capture_output=True,
        timeout=HANG,
    )
    out = ok("release", "verify", archive, "--trusted-key", public, capsys=capsys)
    assert "(by hand)" in out
    (tmp_path / "other").mkdir()
    other_public, _other = keygen_minisign(tmp_path / "other")
    assert "another key" in fail("release", "verify", archive, "--trusted-key", other_public)


@needs_ssh_keygen
@needs_minisign
def test_passphrase_protected_keys_are_refused_with_the_way_out(
    tmp_path: Path, small_tree: Path
) -> None:
    """fairvec never prompts: it points at the tools that sign with such keys."""
    assert SSH_KEYGEN is not None and MINISIGN is not None
    locked = tmp_path / "locked"
    subprocess.run(
        [SSH_KEYGEN, "-q", "-t", "ed25519", "-N", "secret", "-f", str(locked)],
        check=True,
        timeout=HANG,
    )
    # a password-protected minisign key differs in its KDF field ("Sc"); making a real one
    # costs seconds of scrypt, so mark an unencrypted one as protected
    _public, secret = keygen_minisign(tmp_path)
    comment, line = secret.read_text("utf-8").splitlines()[:2]
    raw = bytearray(base64.b64decode(line))
    raw[2:4] = b"Sc"
    (tmp_path / "m.key").write_text(f"{comment}\n{base64.b64encode(raw).decode()}\n", "utf-8")
    out = tmp_path / "dist"
    message = fail(
        "release",
        "build",
        "--version",
        "1.0.0",
        "--out",
        out,
        "--source",
        small_tree,
        "--ssh-key",
        locked,
    )
    assert "ssh-keygen -Y sign" in message
    message = fail(
        "release",
        "sign",
        out / "fairvec-vectors-1.0.0.tar.gz",
        "--minisign-key",
        tmp_path / "m.key",
    )
    assert "minisign -S" in message


# ---- verification refuses every tamper case ------------------------------------------

Member = tuple[tarfile.TarInfo, bytes]


def members_of(archive: Path) -> list[Member]:
    with tarfile.open(archive) as tar:
        return [(info, tar.extractfile(info).read()) for info in tar.getmembers()]  # type: ignore[union-attr]


def file_member(name: str, data: bytes) -> Member:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    return info, data


def special_member(name: str, kind: bytes, target: str = "") -> Member:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, target
    return info, b""


def pack(members: list[Member]) -> bytes:
    """Any archive, bad ones included (tarfile writes what it is given)."""
    buffer = io.BytesIO()
    with (
        gzip.GzipFile(filename="", mode="wb", fileobj=buffer, mtime=0) as zipped,
        tarfile.open(fileobj=zipped, mode="w", format=tarfile.PAX_FORMAT) as tar,
    ):
        for info, data in members:
            tar.addfile(info, io.BytesIO(data) if info.isreg() else None)
    return buffer.getvalue()


def resign(manifest: bytes, key: SshKey) -> str:
    """A signature by ``key`` over any manifest, made as ``release build`` makes one."""
    from fairvec.release.keys import load_signing_key

    return sshsig.sign(load_signing_key(key.private, "ssh"), manifest)


def tampered(release: Release, folder: Path, data: bytes, signature: str | None = None) -> Path:
    """``data`` as the archive, beside the release's own signature (or ``signature``)."""
    folder.mkdir(parents=True, exist_ok=True)
    archive = folder / release.archive.name
    archive.write_bytes(data)
    sig = folder / release.signature.name
    if signature is None:
        shutil.copyfile(release.signature, sig)
    else:
        sig.write_text(signature, "utf-8")
    return archive


def edit_manifest(members: list[Member], change: Callable[[dict[str, object]], None]) -> bytes:
    manifest = json.loads(members[0][1])
    change(manifest)
    text = (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode()
    members[0] = file_member(MANIFEST, text)
    return text


def replace(
    members: list[Member], name: str, new_name: str, new_data: bytes | None
) -> list[Member]:
    """``members`` with the one called ``name`` renamed and, if given, its content replaced."""
    found = [data for info, data in members if info.name == name]
    assert found, name
    return [
        file_member(new_name, found[0] if new_data is None else new_data)
        if info.name == name
        else (info, data)
        for info, data in members
    ]


def modified(members: list[Member]) -> list[Member]:
    """One digit of one expected value changed, the size kept."""
    data = dict((info.name, data) for info, data in members)[CHANGED]
    return replace(members, CHANGED, CHANGED, data.replace(b'"ticket": 1', b'"ticket": 2', 1))


def renamed(members: list[Member]) -> list[Member]:
    return replace(members, "vectors/nardy/cuts.json", "vectors/nardy/cut.json", None)


def with_extra(*extra: Member) -> Callable[[list[Member]], list[Member]]:
    return lambda members: [*members[:2], *extra, *members[2:]]


SHAPES: dict[str, tuple[Callable[[list[Member]], list[Member]], str]] = {
    "modified": (modified, "was modified"),
    "added": (with_extra(file_member("vectors/battle/extra.json", b"{}")), "not in the signed"),
    "removed": (lambda members: members[:-1], "is missing"),
    "renamed": (renamed, "renamed"),
    "absolute": (with_extra(file_member("/tmp/fairvec-evil", b"x")), "absolute path"),
    "dotdot": (with_extra(file_member("vectors/../../evil", b"x")), "'..'"),
    "symlink": (
        with_extra(special_member("vectors/link", tarfile.SYMTYPE, "/etc/passwd")),
        "symbolic link",
    ),
    "hardlink": (
        with_extra(special_member("vectors/hard", tarfile.LNKTYPE, MANIFEST)),
        "hard link",
    ),
    "device": (with_extra(special_member("vectors/dev", tarfile.CHRTYPE)), "a device"),
    "fifo": (with_extra(special_member("vectors/fifo", tarfile.FIFOTYPE)), "a FIFO"),
    "duplicate": (lambda members: [*members, members[-1]], "duplicate member"),
    "manifest not first": (lambda members: [*members[1:], members[0]], "not MANIFEST.json"),
}


@pytest.fixture
def quiet_temp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The system temporary folder, private to this test, to see that nothing is left."""
    folder = tmp_path / "system-temp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    yield folder
    assert list(folder.iterdir()) == [], "a refused release left files behind"


def refused(archive: Path, key: Path, *more: str | Path) -> str:
    """Refused with a one-line reason, exit 2, and nothing written: the --extract folder
    is never created and no staging folder is left beside it."""
    target = archive.parent / "extracted"
    message = fail("release", "verify", archive, "--trusted-key", key, "--extract", target, *more)
    assert "release refused" in message or "error" in message
    assert not target.exists()
    assert not [p for p in archive.parent.iterdir() if p.name.startswith(".extracted")]
    return message


def test_the_untampered_release_verifies_and_extracts_exactly_its_files(
    tmp_path: Path, release: Release, quiet_temp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "suite"
    out = ok(
        "release",
        "verify",
        release.archive,
        "--trusted-key",
        release.key.allowed_signers,
        "--extract",
        target,
        capsys=capsys,
    )
    assert "signed by maintainer@test" in out
    extracted = sorted(p.relative_to(target).as_posix() for p in target.rglob("*") if p.is_file())
    assert extracted == sorted(SMALL)
    for name in SMALL:
        assert (target / name).read_bytes() == (REPO / name).read_bytes()


@pytest.mark.parametrize("shape", SHAPES)
def test_a_tampered_archive_is_refused(
    shape: str, tmp_path: Path, release: Release, quiet_temp: Path
) -> None:
    change, reason = SHAPES[shape]
    archive = tampered(release, tmp_path, pack(change(members_of(release.archive))))
    assert reason in refused(archive, release.key.allowed_signers)
    assert not Path("/tmp/fairvec-evil").exists()


def test_an_edited_manifest_fails_the_signature(
    tmp_path: Path, release: Release, quiet_temp: Path
) -> None:
    members = members_of(release.archive)
    edit_manifest(members, lambda manifest: manifest.update(vectors=1))
    archive = tampered(release, tmp_path, pack(members))
    assert "does not match the manifest" in refused(archive, release.key.allowed_signers)


def test_a_signed_manifest_that_does_not_match_its_files_is_refused(
    tmp_path: Path, release: Release, quiet_temp: Path
) -> None:
    """Signed by the right key, but naming another suite digest (a broken builder)."""
    members = members_of(release.archive)
    text = edit_manifest(
        members, lambda manifest: manifest.update(suite_digest="sha256:" + "0" * 64)
    )
    archive = tampered(release, tmp_path, pack(members), resign(text, release.key))
    assert "does not match its vectors" in refused(archive, release.key.allowed_signers)


def test_a_signature_by_another_key_or_none_is_refused(
    tmp_path: Path, release: Release, keys: tuple[SshKey, SshKey], quiet_temp: Path
) -> None:
    members = members_of(release.archive)
    forged = resign(members[0][1], keys[1])
    archive = tampered(release, tmp_path / "forged", release.archive.read_bytes(), forged)
    assert "another key" in refused(archive, release.key.allowed_signers)
    assert "another key" in refused(archive, release.key.public)
    archive = tampered(release, tmp_path / "unsigned", release.archive.read_bytes())
    (tmp_path / "unsigned" / release.signature.name).unlink()
    assert "no signature" in refused(archive, release.key.allowed_signers)


@pytest.mark.parametrize("damage", ["truncated", "corrupt", "not gzip"])
def test_a_truncated_or_corrupt_archive_is_refused(
    damage: str, tmp_path: Path, release: Release, quiet_temp: Path
) -> None:
    data = bytearray(release.archive.read_bytes())
    if damage == "truncated":
        data = data[: len(data) * 2 // 3]
    elif damage == "corrupt":
        data[len(data) // 2] ^= 0xFF
    else:
        data = bytearray(b"PK\x03\x04 a zip file, say")
    archive = tampered(release, tmp_path, bytes(data))
    message = refused(archive, release.key.allowed_signers)
    assert "corrupt" in message or "was modified" in message


def test_limits_on_a_member_and_the_total_are_enforced(
    tmp_path: Path, release: Release, quiet_temp: Path
) -> None:
    largest = max(len(data) for _info, data in members_of(release.archive))
    key = release.key.allowed_signers
    message = refused(release.archive, key, "--max-member-size", str(largest - 1))
    assert "over the" in message
    total = sum(len(data) for _info, data in members_of(release.archive)[1:])
    assert "adds up to" in refused(release.archive, key, "--max-total-size", str(total - 1))


def test_a_decompression_bomb_stops_early_whatever_the_headers_say(
    tmp_path: Path, release: Release, quiet_temp: Path
) -> None:
    """8 MiB of PAX header behind an honest-looking member: the count of decompressed
    bytes stops it, not the (small) size its header declares."""
    info, data = file_member("vectors/bomb.json", b"{}")
    info.pax_headers = {"comment": "0" * (8 << 20)}
    archive = tampered(
        release, tmp_path, pack(with_extra((info, data))(members_of(release.archive)))
    )
    assert archive.stat().st_size < 1 << 20
    assert "decompression bomb" in refused(archive, release.key.allowed_signers)


def test_an_older_version_than_the_minimum_is_refused(release: Release, quiet_temp: Path) -> None:
    key = release.key.allowed_signers
    assert "rollback" in refused(release.archive, key, "--min-version", "1.10.0")
    assert "rollback" in refused(release.archive, key, "--min-version", "2.0.0")
    with open_verified_suite(release.archive, key, "1.2.0") as suite:
        assert suite.version == "1.2.0"


def test_a_renamed_archive_cannot_pass_for_another_version(
    tmp_path: Path, release: Release, quiet_temp: Path
) -> None:
    (tmp_path / "dist").mkdir()
    archive = tmp_path / "dist" / "fairvec-vectors-9.0.0.tar.gz"
    shutil.copyfile(release.archive, archive)
    shutil.copyfile(
        release.signature, tmp_path / "dist" / "fairvec-vectors-9.0.0.MANIFEST.json.sig"
    )
    assert "signed manifest says 1.2.0" in refused(archive, release.key.allowed_signers)


def test_verify_limits_are_stated_defaults() -> None:
    """The documented limits (docs/releases.md) are the ones in force."""
    text = (REPO / "docs" / "releases.md").read_text("utf-8")
    limits = Limits()
    assert f"{limits.member >> 20} MiB" in text and f"{limits.total >> 20} MiB" in text
    assert f"{limits.members:,}" in text


# ---- diff -----------------------------------------------------------------------------


def build_version(version: str, tree: Path, out: Path) -> Path:
    assert (
        main(["release", "build", "--version", version, "--out", str(out), "--source", str(tree)])
        == 0
    )
    return out / f"fairvec-vectors-{version}.tar.gz"


def test_diff_of_two_builds_with_one_changed_vector_shows_exactly_that_vector(
    tmp_path: Path,
    small_tree: Path,
    release: Release,
    keys: tuple[SshKey, SshKey],
    capsys: pytest.CaptureFixture[str],
) -> None:
    changed = copy_small_tree(tmp_path / "changed")
    data = json.loads((changed / CHANGED).read_text("utf-8"))
    victim = next(v for v in data["vectors"] if "output" in v["expected"])
    victim["expected"]["output"]["ticket"] = (victim["expected"]["output"]["ticket"] + 1) % 2**32
    (changed / CHANGED).write_text(json.dumps(data, indent=2) + "\n", "utf-8")
    for version in ("2.0.0", "1.3.0"):
        status = main(
            [
                "release",
                "build",
                "--version",
                version,
                "--out",
                str(tmp_path / "new"),
                "--source",
                str(changed),
                "--ssh-key",
                str(keys[0].private),
            ]
        )
        assert status == 0
    capsys.readouterr()
    new = tmp_path / "new" / "fairvec-vectors-2.0.0.tar.gz"
    status = main(
        [
            "release",
            "diff",
            str(release.archive),
            str(new),
            "--trusted-key",
            str(keys[0].allowed_signers),
        ]
    )
    out = capsys.readouterr().out
    assert status == 0, out
    changed_lines = [line for line in out.splitlines() if line.startswith("  ")]
    assert changed_lines == [f"  changed  {victim['id']}: expected"]
    assert "vectors: 0 added, 0 removed, 1 changed" in out
    assert "required bump: major" in out and "follows the rules" in out
    assert "signatures checked" in out
    status = main(
        [
            "release",
            "diff",
            str(release.archive),
            str(tmp_path / "new" / "fairvec-vectors-1.3.0.tar.gz"),
        ]
    )
    out = capsys.readouterr().out
    assert status == 1 and "too small, the rules need major" in out


def test_diff_names_added_algorithms_and_files_and_wants_a_minor_bump(
    tmp_path: Path, small_tree: Path, release: Release, capsys: pytest.CaptureFixture[str]
) -> None:
    grown = copy_small_tree(tmp_path / "grown")
    for name in ("spec/nardy/rolls.yaml", "vectors/nardy/rolls.json"):
        shutil.copyfile(REPO / name, grown / name)
    (grown / "docs/adapter-protocol.md").write_text("a new paragraph\n", "utf-8")
    new = build_version("1.3.0", grown, tmp_path / "out")
    assert main(["release", "diff", str(release.archive), str(new)]) == 0
    out = capsys.readouterr().out
    rolls = [
        v["id"] for v in json.loads((REPO / "vectors/nardy/rolls.json").read_text())["vectors"]
    ]
    assert f"vectors: {len(rolls)} added, 0 removed, 0 changed" in out
    assert "algorithms added: nardy.rolls" in out
    assert "other files changed: docs/adapter-protocol.md, spec/nardy/rolls.yaml" in out
    assert "required bump: minor" in out and "signatures NOT checked" in out
    same = build_version("1.2.1", small_tree, tmp_path / "same")
    assert main(["release", "diff", str(new), str(same)]) == 1  # a downgrade removes things
    assert "version bump: none: 1.2.1 must be higher than 1.3.0" in capsys.readouterr().out


# ---- allowed_signers options ----------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "accepted"),
    [
        ('namespaces="git,fairvec-*"', True),
        ('namespaces="git,file"', False),
        ('namespaces="*,!fairvec-release"', False),
        ('valid-after="20000101",valid-before="29991231Z"', True),
        ('valid-before="20000101"', False),
        ('valid-after="29991231Z"', False),
    ],
)
def test_allowed_signers_options_are_honoured_as_ssh_keygen_does(
    options: str, accepted: bool, tmp_path: Path, release: Release
) -> None:
    """fairvec's answer is the one ssh-keygen gives on the same file (when installed)."""
    public = release.key.public.read_text("utf-8").split()
    signers = tmp_path / "allowed_signers"
    signers.write_text(
        f"# a comment, then another key type, then the key\n"
        f"other@test ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ\n"
        f"maintainer@test {options} {public[0]} {public[1]}\n",
        "utf-8",
    )
    if accepted:
        with open_verified_suite(release.archive, signers) as suite:
            assert suite.signer is not None and suite.signer.startswith("maintainer@test")
    else:
        assert "trusted only for other" in fail(
            "release", "verify", release.archive, "--trusted-key", signers
        )
    if SSH_KEYGEN is not None:
        manifest = release.folder / "fairvec-vectors-1.2.0.MANIFEST.json"
        done = subprocess.run(
            [
                SSH_KEYGEN,
                "-Y",
                "verify",
                "-f",
                str(signers),
                "-I",
                "maintainer@test",
                "-n",
                "fairvec-release",
                "-s",
                str(release.signature),
            ],
            input=manifest.read_bytes(),
            capture_output=True,
            timeout=HANG,
        )
        assert (done.returncode == 0) == accepted, done.stderr


def test_a_cert_authority_line_is_refused_in_one_line(tmp_path: Path, release: Release) -> None:
    public = release.key.public.read_text("utf-8").split()
    signers = tmp_path / "allowed_signers"
    signers.write_text(f"*@test cert-authority {public[0]} {public[1]}\n", "utf-8")
    assert "cert-authority" in fail("release", "verify", release.archive, "--trusted-key", signers)


def test_signing_without_cryptography_writes_nothing(tmp_path: Path) -> None:
    """A key is given but the release extra is not installed: one line, and no archive or
    sums left behind unsigned."""
    blocker = tmp_path / "blocked" / "cryptography"
    blocker.mkdir(parents=True)
    (blocker / "__init__.py").write_text("raise ImportError('No module named cryptography')\n")
    key = tmp_path / "id_ed25519"
    key.write_text("not read: the check comes first\n")
    out = tmp_path / "out"
    from support import FAIRVEC_COMMAND

    done = subprocess.run(
        [*FAIRVEC_COMMAND, "release", "build", "--version", "1.0.0", "--out", str(out),
         "--ssh-key", str(key)],
        capture_output=True, text=True, timeout=HANG, cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(tmp_path / "blocked")},
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "pip install 'fairvec[release]'" in done.stderr and done.stderr.count("\n") == 1
    assert not out.exists() or not any(out.iterdir())
