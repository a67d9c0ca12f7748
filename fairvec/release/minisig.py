"""The minisign signature format (jedisct1.github.io/minisign), as ``minisign -S`` writes
it and ``minisign -V`` checks it: the prehashed ``ED`` form (Ed25519 over the BLAKE2b-512
of the file) plus a global signature over the signature and the trusted comment."""

from __future__ import annotations

import base64
import binascii
import hashlib

from fairvec.release.keys import SigningKey, TrustedKey, minisign_key_id_text
from fairvec.release.sshsig import SignatureError

PREHASHED, LEGACY = b"ED", b"Ed"
UNTRUSTED, TRUSTED = "untrusted comment: ", "trusted comment: "


def _prehash(message: bytes) -> bytes:
    return hashlib.blake2b(message, digest_size=64).digest()


def sign(key: SigningKey, message: bytes, trusted_comment: str, untrusted_comment: str) -> str:
    if "\n" in trusted_comment or "\n" in untrusted_comment:
        raise ValueError("minisign comments are one line")
    signature = key.private.sign(_prehash(message))
    global_signature = key.private.sign(signature + trusted_comment.encode("utf-8"))
    return (
        f"{UNTRUSTED}{untrusted_comment}\n"
        f"{base64.b64encode(PREHASHED + key.key_id + signature).decode('ascii')}\n"
        f"{TRUSTED}{trusted_comment}\n"
        f"{base64.b64encode(global_signature).decode('ascii')}\n"
    )


def _decode(line: str, size: int, what: str) -> bytes:
    try:
        raw = base64.b64decode(line.strip(), validate=True)
    except binascii.Error:
        raise SignatureError(f"the minisign {what} is not valid base64") from None
    if len(raw) != size:
        raise SignatureError(f"the minisign {what} is {len(raw)} bytes, not {size}")
    return raw


def verify(trusted: TrustedKey, message: bytes, text: str) -> str:
    """The signer's identity (key id and trusted comment) if ``text`` is a good signature of
    ``message`` by the trusted minisign key."""
    # cryptography: the optional 'release' extra
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    lines = text.splitlines()
    if len(lines) < 4 or not lines[0].startswith(UNTRUSTED) or not lines[2].startswith(TRUSTED):
        raise SignatureError("not a minisign signature (four lines: comment, signature, ...)")
    raw = _decode(lines[1], 74, "signature")
    algorithm, key_id, signature = raw[:2], raw[2:10], raw[10:]
    if algorithm not in (PREHASHED, LEGACY):
        raise SignatureError(f"unknown minisign signature algorithm {algorithm!r}")
    if key_id != trusted.minisign_id:
        raise SignatureError(
            f"signed by another key (minisign key {minisign_key_id_text(key_id)}, trusted "
            f"{minisign_key_id_text(trusted.minisign_id)})"
        )
    comment = lines[2][len(TRUSTED) :]
    public = Ed25519PublicKey.from_public_bytes(trusted.minisign_public)
    signed = _prehash(message) if algorithm == PREHASHED else message
    try:
        public.verify(signature, signed)
    except InvalidSignature:
        raise SignatureError("the minisign signature does not match the manifest") from None
    try:
        public.verify(_decode(lines[3], 64, "global signature"), signature + comment.encode())
    except InvalidSignature:
        raise SignatureError("the minisign trusted comment has been altered") from None
    return f"minisign key {minisign_key_id_text(key_id)} ({comment})"
