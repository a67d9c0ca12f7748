"""Detached signatures over a release's manifest, in the two formats consumers' own tools
check: SSHSIG (ssh-keygen -Y verify) and minisign (minisign -V)."""

from __future__ import annotations

from pathlib import Path

from fairvec.release import minisig, sshsig
from fairvec.release.files import (
    MINISIGN_SUFFIX,
    SSH_SUFFIX,
    manifest_copy_name,
    refuse_special,
    signature_path,
    write_bytes_atomically,
)
from fairvec.release.keys import load_signing_key
from fairvec.release.manifest import NAME, Manifest
from fairvec.release.refusals import require_cryptography


def trusted_comment(manifest: Manifest) -> str:
    """What minisign -V prints as verified: the release and the suite digest it pins."""
    return f"{NAME}-{manifest.version} suite {manifest.suite_digest}"


def sign_release(
    archive: Path,
    manifest: Manifest,
    manifest_bytes: bytes,
    ssh_key: Path | None,
    minisign_key: Path | None,
) -> list[Path]:
    """Write the signatures the keys given make, beside ``archive``; returns their paths.
    Without a key nothing is signed, and cryptography is not needed (an unsigned build)."""
    wanted = [(ssh_key, SSH_SUFFIX), (minisign_key, MINISIGN_SUFFIX)]
    targets = [signature_path(archive, suffix) for key, suffix in wanted if key is not None]
    if not targets:
        return []
    require_cryptography()
    for target in targets:  # all checked before the first is written
        refuse_special(target)
    written = []
    if ssh_key is not None:
        text = sshsig.sign(load_signing_key(ssh_key, "ssh"), manifest_bytes)
        written.append(_write(signature_path(archive, SSH_SUFFIX), text))
    if minisign_key is not None:
        key = load_signing_key(minisign_key, "minisign")
        untrusted = f"signature of {manifest_copy_name(manifest.version)}, made by fairvec"
        text = minisig.sign(key, manifest_bytes, trusted_comment(manifest), untrusted)
        written.append(_write(signature_path(archive, MINISIGN_SUFFIX), text))
    return written


def _write(path: Path, text: str) -> Path:
    write_bytes_atomically(path, text.encode("utf-8"))
    return path
