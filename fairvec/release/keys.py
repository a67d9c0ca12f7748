"""Reading keys: the signing keys maintainers already have (an OpenSSH ed25519 private key
file, an unencrypted minisign secret key) and the trusted keys consumers pin (an
allowed_signers file, an OpenSSH public key, a minisign public key)."""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import fnmatch
import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from fairvec.errors import FairvecError
from fairvec.regular_files import SMALL_FILE_LIMIT, read_regular
from fairvec.release.files import MINISIGN_SUFFIX, SSH_SUFFIX
from fairvec.release.refusals import require_cryptography
from fairvec.release.wire import ED25519, WireError, fingerprint, parse_ed25519_blob

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

KEY_FILE_LIMIT = SMALL_FILE_LIMIT  # no key file is a megabyte; refuse to read one that is
SSH_KEY_TYPES = ("ssh-", "ecdsa-", "sk-")
MINISIGN_ALGORITHM = b"Ed"
MINISIGN_NO_KDF = b"\0\0"
MINISIGN_CHECKSUM = b"B2"

Kind = Literal["ssh", "minisign"]


@dataclass(frozen=True)
class SigningKey:
    kind: Kind
    private: Ed25519PrivateKey
    key_id: bytes  # minisign's 8-byte key number; empty for ssh
    source: Path


@dataclass(frozen=True)
class SshSigner:
    """One ed25519 key an allowed_signers line (or a public key file) trusts."""

    public: bytes
    identity: str
    namespaces: tuple[str, ...] | None = None  # None: every namespace
    valid_after: dt.datetime | None = None
    valid_before: dt.datetime | None = None


@dataclass(frozen=True)
class TrustedKey:
    kind: Kind
    source: Path
    ssh_signers: tuple[SshSigner, ...] = ()
    minisign_id: bytes = b""
    minisign_public: bytes = b""

    @property
    def suffix(self) -> str:
        """The detached signature this key checks: .sig (SSHSIG) or .minisig."""
        return SSH_SUFFIX if self.kind == "ssh" else MINISIGN_SUFFIX


def minisign_key_id_text(key_id: bytes) -> str:
    """The key id as minisign prints it (a little-endian 64-bit number in hex)."""
    return f"{int.from_bytes(key_id, 'little'):016X}"


def _read_key_text(path: Path, what: str) -> str:
    # read_regular: a FIFO given as a key would block the read forever, /dev/zero never end
    data = read_regular(path, what, KEY_FILE_LIMIT)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise FairvecError(f"{path}: {what} is not UTF-8 text") from None


def _b64(text: str, path: Path, what: str) -> bytes:
    try:
        return base64.b64decode(text.strip(), validate=True)
    except binascii.Error:
        raise FairvecError(f"{path}: {what} is not valid base64") from None


# ---- signing keys -------------------------------------------------------------------


def load_signing_key(path: Path, kind: Kind) -> SigningKey:
    require_cryptography()
    text = _read_key_text(path, "a private key")
    if kind == "ssh":
        return _load_ssh_private(path, text)
    return _load_minisign_secret(path, text)


def _load_ssh_private(path: Path, text: str) -> SigningKey:
    # cryptography: the optional 'release' extra
    from cryptography.exceptions import UnsupportedAlgorithm
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import load_ssh_private_key

    try:
        key = load_ssh_private_key(text.encode("utf-8"), password=None)
    except (TypeError, UnsupportedAlgorithm):
        # cryptography says TypeError when a passphrase is needed; we never prompt for one
        raise FairvecError(
            f"--ssh-key {path}: passphrase-protected (or unsupported); sign the manifest "
            "with `ssh-keygen -Y sign -f KEY -n fairvec-release FILE` instead "
            "(docs/releases.md)"
        ) from None
    except ValueError:
        raise FairvecError(
            f"--ssh-key {path}: not an OpenSSH private key (make one with ssh-keygen -t ed25519)"
        ) from None
    if not isinstance(key, Ed25519PrivateKey):
        raise FairvecError(f"--ssh-key {path}: not an ed25519 key (ssh-keygen -t ed25519)")
    return SigningKey("ssh", key, b"", path)


def _load_minisign_secret(path: Path, text: str) -> SigningKey:
    # cryptography: the optional 'release' extra
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    lines = [line for line in text.splitlines() if line.strip()]
    where = f"--minisign-key {path}"
    if len(lines) < 2 or not lines[0].startswith("untrusted comment:"):
        raise FairvecError(f"{where}: not a minisign secret key (make one with minisign -G -W)")
    raw = _b64(lines[1], path, "the minisign secret key")
    if len(raw) != 158 or raw[:2] != MINISIGN_ALGORITHM or raw[4:6] != MINISIGN_CHECKSUM:
        raise FairvecError(f"{where}: not a minisign ed25519 secret key (minisign -G -W)")
    if raw[2:4] != MINISIGN_NO_KDF:
        raise FairvecError(
            f"{where}: password-protected; sign the manifest with `minisign -S -s KEY -m FILE` "
            "instead, or use a key made with minisign -G -W (docs/releases.md)"
        )
    key_id, secret, checksum = raw[54:62], raw[62:126], raw[126:158]
    # minisign 0.11 leaves the checksum of an unencrypted key zero; later ones fill it in
    expected = hashlib.blake2b(MINISIGN_ALGORITHM + key_id + secret, digest_size=32).digest()
    if checksum not in (expected, bytes(32)):
        raise FairvecError(f"{where}: checksum mismatch (the key file is damaged)")
    private = Ed25519PrivateKey.from_private_bytes(secret[:32])
    if _raw_public(private) != secret[32:]:
        raise FairvecError(f"{where}: its public half does not match (the key file is damaged)")
    return SigningKey("minisign", private, key_id, path)


def _raw_public(private: Ed25519PrivateKey) -> bytes:
    # cryptography: the optional 'release' extra
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    return private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


def raw_public(key: SigningKey) -> bytes:
    return _raw_public(key.private)


# ---- trusted keys -------------------------------------------------------------------


def load_trusted_key(path: Path) -> TrustedKey:
    """An allowed_signers file, an OpenSSH public key file, or a minisign public key
    (file, or the bare base64 line minisign -P takes); told apart by their first line."""
    require_cryptography()  # checking the signature it is for will need it
    text = _read_key_text(path, "a trusted key")
    lines = [line.strip() for line in text.splitlines()]
    lines = [line for line in lines if line and not line.startswith("#")]
    where = f"--trusted-key {path}"
    if not lines:
        raise FairvecError(f"{where}: empty (give an allowed_signers file or a public key)")
    if "PRIVATE KEY" in lines[0] or "secret key" in lines[0]:
        raise FairvecError(f"{where}: a private key; give its public half (never publish this)")
    if lines[0].startswith("untrusted comment:"):
        if len(lines) < 2:
            raise FairvecError(f"{where}: a minisign public key has a second, base64 line")
        return _minisign_public(path, lines[1])
    if len(lines) == 1 and lines[0].startswith("RW") and " " not in lines[0]:
        return _minisign_public(path, lines[0])
    if lines[0].startswith(SSH_KEY_TYPES):
        signers = [_public_key_line(path, number, line) for number, line in enumerate(lines, 1)]
    else:
        signers = [_allowed_signer(path, number, line) for number, line in enumerate(lines, 1)]
    usable = tuple(signer for signer in signers if signer is not None)
    if not usable:
        raise FairvecError(f"{where}: no ssh-ed25519 key in it (releases are signed with ed25519)")
    return TrustedKey("ssh", path, ssh_signers=usable)


def _minisign_public(path: Path, line: str) -> TrustedKey:
    raw = _b64(line, path, "the minisign public key")
    if len(raw) != 42 or raw[:2] != MINISIGN_ALGORITHM:
        raise FairvecError(f"--trusted-key {path}: not a minisign ed25519 public key")
    return TrustedKey("minisign", path, minisign_id=raw[2:10], minisign_public=raw[10:])


def _ssh_public(path: Path, number: int, kind: str, blob_text: str) -> bytes | None:
    """The raw ed25519 key of one key field, or None for another key type (skipped: such a
    key can never have made an ed25519 signature)."""
    if kind != ED25519.decode("ascii"):
        return None
    try:
        return parse_ed25519_blob(_b64(blob_text, path, f"line {number}'s key"))
    except WireError as error:
        raise FairvecError(
            f"--trusted-key {path}:{number}: bad ssh-ed25519 key ({error})"
        ) from None


def _public_key_line(path: Path, number: int, line: str) -> SshSigner | None:
    fields = line.split(maxsplit=2)
    if len(fields) < 2:
        raise FairvecError(
            f"--trusted-key {path}:{number}: expected 'ssh-ed25519 BASE64 [comment]'"
        )
    public = _ssh_public(path, number, fields[0], fields[1])
    if public is None:
        return None
    comment = fields[2] if len(fields) > 2 else path.name
    return SshSigner(public, f"{comment} ({fingerprint(public)})")


def _tokens(line: str) -> list[str]:
    """Whitespace-separated fields, double quotes kept and protecting their spaces."""
    tokens: list[str] = []
    current, quoted = "", False
    for character in line:
        if character == '"':
            quoted = not quoted
        if character.isspace() and not quoted:
            if current:
                tokens.append(current)
            current = ""
        else:
            current += character
    if quoted:
        raise ValueError("unbalanced double quote")
    if current:
        tokens.append(current)
    return tokens


def _split_options(text: str) -> dict[str, str]:
    options: dict[str, str] = {}
    for option in _commas(text):
        name, _, value = option.partition("=")
        options[name.lower()] = value.strip('"')
    return options


def _commas(text: str) -> list[str]:
    """Split on commas outside double quotes (namespaces="git,file" is one option)."""
    parts: list[str] = []
    current, quoted = "", False
    for character in text:
        if character == '"':
            quoted = not quoted
        if character == "," and not quoted:
            parts.append(current)
            current = ""
        else:
            current += character
    parts.append(current)
    return [part for part in parts if part]


def _allowed_signer(path: Path, number: int, line: str) -> SshSigner | None:
    """One allowed_signers line: principals [options] keytype base64 [comment] (ssh-keygen(1),
    ALLOWED SIGNERS)."""
    where = f"--trusted-key {path}:{number}"
    try:
        tokens = _tokens(line)
    except ValueError as error:
        raise FairvecError(f"{where}: {error}") from None
    options: dict[str, str] = {}
    if len(tokens) >= 3 and not tokens[1].startswith(SSH_KEY_TYPES):
        options = _split_options(tokens[1])
        tokens = [tokens[0], *tokens[2:]]
    if len(tokens) < 3 or not tokens[1].startswith(SSH_KEY_TYPES):
        raise FairvecError(
            f"{where}: not an allowed_signers line ('PRINCIPALS [OPTIONS] ssh-ed25519 BASE64')"
        )
    if "cert-authority" in options:
        raise FairvecError(f"{where}: cert-authority lines are not supported; list the key itself")
    public = _ssh_public(path, number, tokens[1], tokens[2])
    if public is None:
        return None
    namespaces = options.get("namespaces")
    return SshSigner(
        public,
        f"{tokens[0].strip(chr(34))} ({fingerprint(public)})",
        tuple(namespaces.split(",")) if namespaces is not None else None,
        _timestamp(options.get("valid-after"), where),
        _timestamp(options.get("valid-before"), where),
    )


def _timestamp(text: str | None, where: str) -> dt.datetime | None:
    """ssh-keygen's YYYYMMDD[HHMM[SS]][Z]: UTC with Z, the local time zone without."""
    if text is None:
        return None
    utc = text.endswith(("Z", "z"))
    digits = text[:-1] if utc else text
    formats = {8: "%Y%m%d", 12: "%Y%m%d%H%M", 14: "%Y%m%d%H%M%S"}
    try:
        moment = dt.datetime.strptime(digits, formats[len(digits)])
    except (KeyError, ValueError):
        raise FairvecError(f"{where}: bad timestamp {text!r} (YYYYMMDD[HHMM[SS]][Z])") from None
    return moment.replace(tzinfo=dt.UTC) if utc else moment.astimezone()


def namespace_allowed(signer: SshSigner, namespace: str) -> bool:
    """The namespaces option is a pattern list: a negated match refuses, any match allows."""
    if signer.namespaces is None:
        return True
    if any(p.startswith("!") and fnmatch.fnmatchcase(namespace, p[1:]) for p in signer.namespaces):
        return False
    return any(
        fnmatch.fnmatchcase(namespace, p) for p in signer.namespaces if not p.startswith("!")
    )
