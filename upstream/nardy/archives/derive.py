"""The damaged archives beside this file, each made from a real archive by one byte edit.

Run once, by hand, from this folder (python3 derive.py); PROVENANCE.md lists what each
edit shows. Deterministic: running it again writes the same bytes.
"""

import struct
from pathlib import Path


def flip(source: str, target: str, offset: int) -> None:
    data = bytearray(Path(source).read_bytes())
    data[offset] ^= 0x01
    Path(target).write_bytes(bytes(data))


def truncate(source: str, target: str, keep: int) -> None:
    Path(target).write_bytes(Path(source).read_bytes()[:keep])


def zip_sizes_lie(source: str, target: str, size: int) -> None:
    """Set the one member's uncompressed size to ``size`` in its local header and in the
    central directory, leaving the data (and its CRC-32) as the archiver wrote them."""
    data = bytearray(Path(source).read_bytes())
    struct.pack_into("<I", data, 22, size)  # local header: uncompressed size
    central = data.index(b"PK\x01\x02")
    struct.pack_into("<I", data, central + 24, size)
    Path(target).write_bytes(bytes(data))


# ZIP: a byte of the encrypted data (past the 12-byte ZipCrypto header / the AES salt and check)
flip("zipcrypto-5000.zip", "zipcrypto-5000-data-flipped.zip", 30 + len("game.txt") + 1000)
flip("zip-aes256-5000.zip", "zip-aes256-5000-data-flipped.zip", 30 + len("game.txt") + 11 + 1000)
# ZIP: the end of central directory cut off
truncate("zipcrypto-document.zip", "zipcrypto-document-truncated.zip", 120)
# ZIP: 2 MiB of A declared as 1,000 bytes
zip_sizes_lie("zipcrypto-bomb.zip", "zipcrypto-bomb-size-lies.zip", 1000)
# the same under WinZip AES (AE-2: no CRC-32, only the authentication code of the whole stream)
zip_sizes_lie("zip-aes256-bomb.zip", "zip-aes256-bomb-size-lies.zip", 1000)
# 7z: a byte of the signature header's next-header offset (its CRC no longer matches)
flip("7z-aes256-5000.7z", "7z-aes256-5000-start-header-flipped.7z", 13)
# 7z: the file cut short, so the header it points to is past the end
truncate("7z-aes256-5000.7z", "7z-aes256-5000-truncated.7z", 2000)
# 7z: a byte of the encrypted data of an archive whose list is not encrypted
flip("7z-aes256-open-header.7z", "7z-aes256-open-header-data-flipped.7z", 32 + 1000)
