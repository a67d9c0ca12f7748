"""The nardy document's archive, opened with its password (spec/nardy/archive.yaml).

"сгенерированную последовательность символов (либо сам архив + пароль к нему)": the
verification service takes the archive itself and its password. The
document names no format; spec/nardy/archive.yaml decides ZIP (ZipCrypto and WinZip AES)
and 7z (AES-256), read through pyzipper and py7zr (the 'archive' extra), and fixes the
order of the checks, each with its code:

1. ``archive_bytes``: standard base64 (the schema's pattern) to bytes;
2. ``archive_format``: the signature, ZIP or 7z, else unknown-format;
3. ``read_directory``: the list of members (corrupt-archive; a 7z whose list is encrypted
   needs the password here, and a wrong one is wrong-password);
4. ``the_member``: exactly one file (missing-member, extra-member; folders do not count);
5. ``check_member``: encrypted (not-encrypted), a method every port reads
   (unsupported-method), a declared size within the bound (member-too-large);
6. ``unpack_member``: the password (wrong-password), then the data's own checks
   (corrupt-archive), never more than one byte past the declared size;
7. ``member_text``: line breaks dropped, every other byte one of the 36 symbols (bad-character).
"""

from __future__ import annotations

import base64
import copy
import functools
import io
import lzma
import struct
import zlib
from dataclasses import dataclass
from typing import Any

from fairvec.reference._algorithm import InvalidInput

ZIP_SIGNATURES = (b"PK\x03\x04", b"PK\x05\x06")  # a local file header; an empty archive's end
SEVEN_ZIP_SIGNATURE = b"7z\xbc\xaf\x27\x1c"
# The document's archive holds 10,000 numbers, 5,000 characters; 1 MiB is 200 times that.
# A member declared larger is refused before anything is inflated (an archive bomb: 2 MiB of
# one letter packs into 2 KB), and no member is inflated more than one byte past its
# declared size.
MAX_MEMBER_BYTES = 1 << 20
ZIP_METHODS = {0: "stored", 8: "deflate"}  # what Info-ZIP and 7-Zip write for a text file
WINZIP_AES_STRENGTHS = {1: "aes-128", 2: "aes-192", 3: "aes-256"}
ZIP_FLAG_ENCRYPTED = 0x1
ZIP_FLAG_STRONG_ENCRYPTION = 0x40  # PKWARE's own strong encryption: no free reader has it
# 7zAES: AES-256, its key SHA-256 iterated over the salt and the password
SEVEN_ZIP_AES = bytes.fromhex("06f10701")
SEVEN_ZIP_METHODS = {
    bytes.fromhex("21"): "lzma2",  # 7-Zip's default
    bytes.fromhex("030101"): "lzma",  # the default of 7-Zip before 9.30
    bytes.fromhex("00"): "copy",  # -mx0
}
LINE_BREAKS = ("\r\n", "\n")


@dataclass(frozen=True)
class Member:
    """The one file of an archive, as its directory describes it."""

    name: str
    declared_size: int
    encrypted: bool
    encryption: str  # zipcrypto, aes-128/192/256 (WinZip), 7z-aes-256
    method: str  # stored, deflate (ZIP); lzma2, lzma, copy (7z); else the method's own name
    supported: bool
    handle: Any  # the library's record of it (a ZipInfo), or None for 7z


@dataclass(frozen=True)
class Directory:
    format: str  # zip, 7z
    members: list[Member]
    opened: Any  # the open library object


def archive_bytes(archive: str) -> bytes:
    """Standard base64 with its padding; the schema's pattern has already checked the text."""
    return base64.b64decode(archive, validate=True)


def archive_format(data: bytes) -> str:
    if data.startswith(ZIP_SIGNATURES):
        return "zip"
    if data.startswith(SEVEN_ZIP_SIGNATURE):
        return "7z"
    raise InvalidInput(
        "unknown-format",
        f"the archive begins with {data[:6].hex() or 'nothing'}; a ZIP (PK\\x03\\x04) or "
        "7z (7z\\xbc\\xaf\\x27\\x1c) archive is read",
    )


def corrupt(what: str) -> InvalidInput:
    return InvalidInput("corrupt-archive", f"the archive is damaged: {what}")


def wrong_password(what: str) -> InvalidInput:
    return InvalidInput("wrong-password", f"the password does not open the archive: {what}")


# --- ZIP ----------------------------------------------------------------------------------


def zip_member(info: Any) -> Member:
    """ZipCrypto or WinZip AES (pyzipper reads the AES extra field and gives the real method)."""
    aes_strength = getattr(info, "wz_aes_strength", None)
    encrypted = bool(info.flag_bits & ZIP_FLAG_ENCRYPTED)
    strong = bool(info.flag_bits & ZIP_FLAG_STRONG_ENCRYPTION)
    if aes_strength is not None:
        encryption = WINZIP_AES_STRENGTHS.get(aes_strength, f"aes-strength-{aes_strength}")
    else:
        encryption = "pkware-strong" if strong else "zipcrypto"
    method = ZIP_METHODS.get(info.compress_type, f"zip-method-{info.compress_type}")
    supported = (
        info.compress_type in ZIP_METHODS
        and not strong
        and (aes_strength is None or aes_strength in WINZIP_AES_STRENGTHS)
    )
    return Member(info.filename, info.file_size, encrypted, encryption, method, supported, info)


def read_zip_directory(data: bytes) -> Directory:
    import pyzipper  # the 'archive' extra

    try:
        opened = pyzipper.AESZipFile(io.BytesIO(data))
        infos = opened.infolist()
        members = [zip_member(info) for info in infos if not info.is_dir()]
    except (pyzipper.BadZipFile, ValueError, EOFError, struct.error, NotImplementedError) as error:
        raise corrupt(f"its ZIP directory cannot be read ({error})") from None
    return Directory("zip", members, opened)


def unpack_zip_member(directory: Directory, member: Member, password: str) -> bytes:
    import pyzipper

    # Asked to stop one byte past the declared size, so that more data than declared shows
    # (zipfile stops at the declared size, and an AE-2 member has no CRC-32 to fail: its
    # authentication code is checked only once the whole stream is read).
    info = copy.copy(member.handle)
    info.file_size = member.declared_size + 1
    try:
        with directory.opened.open(info, pwd=password.encode("ascii")) as stream:
            data: bytes = stream.read(member.declared_size + 1)
    except RuntimeError as error:  # pyzipper's "Bad password for file"
        raise wrong_password(f"{member.name}: {error}") from None
    except (pyzipper.BadZipFile, zlib.error, EOFError, ValueError, struct.error) as error:
        raise corrupt(f"{member.name}: {error}") from None
    if len(data) != member.declared_size:
        raise corrupt(
            f"{member.name} holds {len(data)} bytes, its header says {member.declared_size}"
        )
    return data


# --- 7z -----------------------------------------------------------------------------------


def seven_zip_method(coders: list[dict[str, Any]]) -> tuple[bool, str, bool]:
    """(encrypted, compression method, supported) of a folder's coders, in 7z's order."""
    ids = [bytes(coder["method"]) for coder in coders]
    encrypted = SEVEN_ZIP_AES in ids
    others = [coder_id for coder_id in ids if coder_id != SEVEN_ZIP_AES]
    if len(others) == 1 and others[0] in SEVEN_ZIP_METHODS:
        return encrypted, SEVEN_ZIP_METHODS[others[0]], True
    return encrypted, "+".join(f"7z-method-{coder_id.hex()}" for coder_id in others), False


def open_seven_zip(data: bytes, password: str | None) -> Any:
    import py7zr  # the 'archive' extra

    remember_seven_zip_keys()
    return py7zr.SevenZipFile(io.BytesIO(data), password=password)


# py7zr derives the 7zAES key afresh at every open and every extract (py7zr 1.1
# compressor.py, AESDecompressor, through helpers.calculate_key): SHA-256 over 2^19 copies
# of salt + password + counter, built by a Python list comprehension, about 0.2 s of CPU a
# time. That was nine tenths of nardy.archive's time: its 108 vectors derive the same two
# keys 18 times (issue 35). The key is a function of its four arguments alone (password,
# cycles, salt, digest name), so py7zr is handed the same function remembering its last
# few keys: the keys, and so every answer, are unchanged (tests/test_nardy_archive_fast.py).
KEYS_REMEMBERED = 16


def remember_seven_zip_keys() -> None:
    """Put the remembering key derivation in py7zr's compressor module, once per process.
    A py7zr without that helper is left as it is (only slower)."""
    import py7zr.compressor

    derive = getattr(py7zr.compressor, "calculate_key", None)
    if derive is not None and not hasattr(derive, "cache_info"):
        remembering = functools.lru_cache(maxsize=KEYS_REMEMBERED)(derive)
        setattr(py7zr.compressor, "calculate_key", remembering)  # noqa: B010 (not exported)


# what py7zr and the decoders under it raise on bytes that are not what the header promised
SEVEN_ZIP_ERRORS: tuple[type[BaseException], ...] = (
    ValueError, EOFError, struct.error, KeyError, IndexError, TypeError, OSError,
    lzma.LZMAError, zlib.error,
)  # fmt: skip


def read_seven_zip_directory(data: bytes, password: str) -> Directory:
    """Without the password first: py7zr says PasswordRequired when the list itself is
    encrypted (-mhe=on), and the password is then needed to read the member list."""
    import py7zr

    errors: tuple[type[BaseException], ...] = (
        py7zr.Bad7zFile, py7zr.exceptions.CrcError, py7zr.DecompressionError,
        py7zr.UnsupportedCompressionMethodError, *SEVEN_ZIP_ERRORS,
    )  # fmt: skip
    try:
        opened = open_seven_zip(data, None)
        opened.close()
    except py7zr.PasswordRequired:
        try:  # 7z keeps no password check: a list that does not decode means a wrong password
            opened = open_seven_zip(data, password)
        except errors as error:
            raise wrong_password(f"the encrypted member list does not decode ({error})") from None
    except errors as error:
        raise corrupt(f"its 7z header cannot be read ({error})") from None
    else:
        opened = open_seven_zip(data, password)
    return Directory("7z", seven_zip_members(opened), opened)


def seven_zip_members(opened: Any) -> list[Member]:
    members = []
    for entry in opened.files:
        if entry.is_directory:
            continue
        folder = entry.folder
        if folder is None:  # an empty file: no stream, nothing encrypted
            members.append(Member(entry.filename, 0, False, "none", "copy", True, None))
            continue
        encrypted, method, supported = seven_zip_method(folder.coders)
        encryption = "7z-aes-256" if encrypted else "none"
        size = entry.uncompressed
        members.append(Member(entry.filename, size, encrypted, encryption, method, supported,
                              None))  # fmt: skip
    return members


def unpack_seven_zip_member(directory: Directory, member: Member) -> bytes:
    """7z has no password check: data that fails to decode or fails its CRC after
    decryption is what a wrong password gives (7-Zip itself says "Wrong password?")."""
    import py7zr
    from py7zr.io import BytesIOFactory

    factory = BytesIOFactory(MAX_MEMBER_BYTES + 1)
    errors: tuple[type[BaseException], ...] = (
        py7zr.Bad7zFile, py7zr.exceptions.CrcError, py7zr.DecompressionError,
        py7zr.exceptions.DecompressionBombError, *SEVEN_ZIP_ERRORS,
    )  # fmt: skip
    try:
        directory.opened.extract(targets=[member.name], factory=factory)
        product = factory.products[member.name]
        product.seek(0)
        data: bytes = product.read()
    except errors as error:
        raise wrong_password(f"{member.name} does not decode or fails its CRC ({error})") from None
    if len(data) != member.declared_size:
        raise wrong_password(
            f"{member.name} decodes to {len(data)} bytes, not {member.declared_size}"
        )
    return data


# --- the steps ----------------------------------------------------------------------------


def read_directory(data: bytes, kind: str, password: str) -> Directory:
    if kind == "zip":
        return read_zip_directory(data)
    return read_seven_zip_directory(data, password)


def the_member(directory: Directory) -> Member:
    files = directory.members
    if not files:
        raise InvalidInput("missing-member", "the archive holds no file (folders only, or nothing)")
    if len(files) > 1:
        names = ", ".join(repr(member.name) for member in files)
        raise InvalidInput(
            "extra-member",
            f"the archive holds {len(files)} files ({names}); the sequence is one file",
        )
    return files[0]


def check_member(member: Member) -> None:
    if not member.encrypted:
        raise InvalidInput(
            "not-encrypted",
            f"{member.name} is not encrypted; the committed archive is the one with a password",
        )
    if not member.supported:
        raise InvalidInput(
            "unsupported-method",
            f"{member.name} is {member.encryption} {member.method}; read are ZipCrypto or WinZip "
            "AES with stored or deflate (ZIP), 7zAES with LZMA2, LZMA or copy (7z)",
        )
    if member.declared_size > MAX_MEMBER_BYTES:
        raise InvalidInput(
            "member-too-large",
            f"{member.name} declares {member.declared_size} bytes; at most {MAX_MEMBER_BYTES} "
            "are unpacked (the document's sequence is 5,000)",
        )


def unpack_member(directory: Directory, member: Member, password: str) -> bytes:
    if directory.format == "zip":
        return unpack_zip_member(directory, member, password)
    return unpack_seven_zip_member(directory, member)


def member_text(data: bytes, alphabet: str) -> str:
    """Line breaks dropped (decision file-line-breaks); every other byte a symbol."""
    text = data.decode("latin-1")
    for line_break in LINE_BREAKS:
        text = text.replace(line_break, "")
    for index, character in enumerate(text):
        if character not in alphabet:
            raise InvalidInput(
                "bad-character",
                f"the member's character {index} (line breaks not counted) is byte "
                f"{ord(character):#04x}; the sequence uses only A-Z and 0-9",
            )
    return text
