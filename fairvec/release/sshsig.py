"""The OpenSSH signature format (PROTOCOL.sshsig), as ``ssh-keygen -Y sign`` writes it and
``ssh-keygen -Y verify`` checks it. Only the container is ours; Ed25519 is cryptography's."""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import hashlib

from fairvec.release.keys import SigningKey, SshSigner, TrustedKey, namespace_allowed, raw_public
from fairvec.release.wire import (
    ED25519,
    Reader,
    WireError,
    ed25519_blob,
    fingerprint,
    parse_ed25519_blob,
    string,
)

MAGIC = b"SSHSIG"
VERSION = 1
NAMESPACE = "fairvec-release"  # ssh-keygen -n: a signature made for git or for files is not ours
HASHES = {"sha512": hashlib.sha512, "sha256": hashlib.sha256}
BEGIN, END = "-----BEGIN SSH SIGNATURE-----", "-----END SSH SIGNATURE-----"
LINE = 70  # ssh-keygen's armour width


class SignatureError(ValueError):
    """Why a signature is not accepted (the caller names the place)."""


def _signed_data(namespace: bytes, hash_name: bytes, message: bytes) -> bytes:
    """What the Ed25519 signature covers: never the message itself, its hash in a frame
    that names the namespace, so a signature cannot be replayed in another protocol."""
    digest = HASHES[hash_name.decode("ascii")](message).digest()
    return MAGIC + string(namespace) + string(b"") + string(hash_name) + string(digest)


def sign(key: SigningKey, message: bytes) -> str:
    namespace, hash_name = NAMESPACE.encode("ascii"), b"sha512"
    signature = key.private.sign(_signed_data(namespace, hash_name, message))
    blob = (
        MAGIC
        + VERSION.to_bytes(4, "big")
        + string(ed25519_blob(raw_public(key)))
        + string(namespace)
        + string(b"")
        + string(hash_name)
        + string(string(ED25519) + string(signature))
    )
    text = base64.b64encode(blob).decode("ascii")
    lines = [text[at : at + LINE] for at in range(0, len(text), LINE)]
    return "\n".join([BEGIN, *lines, END]) + "\n"


def _unarmour(text: str) -> bytes:
    lines = [line.strip() for line in text.strip().splitlines()]
    if len(lines) < 3 or lines[0] != BEGIN or lines[-1] != END:
        raise SignatureError("not an SSH signature (no BEGIN/END SSH SIGNATURE lines)")
    try:
        return base64.b64decode("".join(lines[1:-1]), validate=True)
    except binascii.Error:
        raise SignatureError("the SSH signature is not valid base64") from None


def _fields(blob: bytes) -> tuple[bytes, bytes, bytes, bytes]:
    """public key, namespace, hash name, raw signature; SignatureError if malformed."""
    try:
        reader = Reader(blob)
        if reader.take(6) != MAGIC or reader.uint32() != VERSION:
            raise SignatureError("not an SSHSIG version 1 signature")
        public_blob, namespace = reader.string(), reader.string()
        reader.string()  # reserved
        hash_name, signature_blob = reader.string(), reader.string()
        reader.end()
        inner = Reader(signature_blob)
        if inner.string() != ED25519:
            raise SignatureError("not an ssh-ed25519 signature")
        signature = inner.string()
        inner.end()
    except WireError as error:
        raise SignatureError(f"malformed SSH signature ({error})") from None
    return public_blob, namespace, hash_name, signature


def verify(trusted: TrustedKey, message: bytes, text: str) -> str:
    """The identity of the trusted signer whose key made ``text`` over ``message``."""
    # cryptography: the optional 'release' extra
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    public_blob, namespace, hash_name, signature = _fields(_unarmour(text))
    try:
        public = parse_ed25519_blob(public_blob)
    except WireError as error:
        raise SignatureError(f"signed with {error}") from None
    signers = [signer for signer in trusted.ssh_signers if signer.public == public]
    if not signers:
        raise SignatureError(f"signed by another key ({fingerprint(public)}), not one it trusts")
    if namespace != NAMESPACE.encode("ascii"):
        raise SignatureError(f"signed for namespace {namespace!r}, not {NAMESPACE!r}")
    if hash_name.decode("ascii", "replace") not in HASHES:
        raise SignatureError(f"unsupported hash {hash_name!r} in the SSH signature")
    try:
        Ed25519PublicKey.from_public_bytes(public).verify(
            signature, _signed_data(namespace, hash_name, message)
        )
    except InvalidSignature:
        raise SignatureError(
            f"the SSH signature by {fingerprint(public)} does not match the manifest"
        ) from None
    return _allowed_now(signers).identity


def _allowed_now(signers: list[SshSigner]) -> SshSigner:
    now = dt.datetime.now(dt.UTC)
    for signer in signers:
        if not namespace_allowed(signer, NAMESPACE):
            continue
        if signer.valid_after and now < signer.valid_after:
            continue
        if signer.valid_before and now > signer.valid_before:
            continue
        return signer
    raise SignatureError(
        f"the signing key is trusted only for other namespaces or times ({signers[0].identity})"
    )
