"""The SSH wire encoding (RFC 4251 ``string``, ``uint32``) SSHSIG and key blobs are made of."""

from __future__ import annotations

import base64
import hashlib
import struct

ED25519 = b"ssh-ed25519"


class WireError(ValueError):
    """The bytes do not parse as the structure expected."""


def string(value: bytes) -> bytes:
    return struct.pack(">I", len(value)) + value


def ed25519_blob(public: bytes) -> bytes:
    """An OpenSSH public key blob: string "ssh-ed25519", string the 32 key bytes."""
    return string(ED25519) + string(public)


def fingerprint(public: bytes) -> str:
    """The fingerprint ssh-keygen -l prints: SHA256 of the blob, base64 without padding."""
    digest = hashlib.sha256(ed25519_blob(public)).digest()
    return "SHA256:" + base64.b64encode(digest).decode("ascii").rstrip("=")


class Reader:
    """Reads wire fields in order; every overrun is a WireError, never an IndexError."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.at = 0

    def take(self, count: int) -> bytes:
        if count < 0 or self.at + count > len(self.data):
            raise WireError("truncated")
        chunk = self.data[self.at : self.at + count]
        self.at += count
        return chunk

    def uint32(self) -> int:
        value: int = struct.unpack(">I", self.take(4))[0]
        return value

    def string(self) -> bytes:
        return self.take(self.uint32())

    def end(self) -> None:
        if self.at != len(self.data):
            raise WireError("trailing bytes")


def parse_ed25519_blob(blob: bytes) -> bytes:
    """The 32 public key bytes of an ssh-ed25519 blob; WireError for any other key type."""
    reader = Reader(blob)
    kind = reader.string()
    if kind != ED25519:
        raise WireError(f"a {kind.decode('ascii', 'replace')} key, not ssh-ed25519")
    public = reader.string()
    reader.end()
    if len(public) != 32:
        raise WireError("an ed25519 public key is 32 bytes")
    return public
