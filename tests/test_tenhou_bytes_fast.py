"""The tenhou walls' byte-level steps (reference/tenhou.py: c_seeded, hash_src_bytes, hand_rnd)
against the word-level steps they stand for: seeding from the seed bytes is
c_init_by_array(seed_words(raw)), and a hand's rnd from the generator's bytes is
rnd_words(hash_blocks(hand_src(generator))), hand after hand, for seeds of every kind (a
last word 0, which CPython's seed would shorten, included)."""

from __future__ import annotations

import base64
import json
import random
import struct
from pathlib import Path

import pytest

from fairvec.reference import tenhou

VECTORS = Path(__file__).resolve().parent.parent / "vectors" / "tenhou"
SEED_BYTES = 4 * 624


def seeds() -> list[bytes]:
    """Random seeds, seeds whose last words are 0 (one, several, all but the first), and
    the committed tenhou.game vectors' seeds."""
    draw = random.Random(35)
    made = [draw.randbytes(SEED_BYTES) for _ in range(6)]
    made += [draw.randbytes(SEED_BYTES - 4 * zeros) + bytes(4 * zeros) for zeros in (1, 2, 7)]
    made += [b"\x01" + bytes(SEED_BYTES - 1), bytes(SEED_BYTES)]
    document = json.loads((VECTORS / "game.json").read_text(encoding="utf-8"))
    for vector in document["vectors"][:20]:
        seed = vector["input"].get("seed")
        if isinstance(seed, str) and "output" in vector["expected"]:
            made.append(base64.b64decode(seed))
    return made


@pytest.mark.parametrize("raw", seeds(), ids=lambda raw: raw[-8:].hex())
def test_seeded_from_bytes_as_from_words(raw: bytes) -> None:
    by_bytes = tenhou.c_seeded(raw)
    by_words = tenhou.c_init_by_array(tenhou.seed_words(raw))
    assert by_bytes.getstate() == by_words.getstate()
    for _hand in range(3):  # hand after hand: the generator is never reseeded
        src = tenhou.hand_src(by_words)
        assert tenhou.hand_rnd(by_bytes) == tenhou.rnd_words(tenhou.hash_blocks(src))


def test_hashing_the_bytes_is_hashing_the_words() -> None:
    draw = random.Random(288)
    for _ in range(20):
        src = [draw.getrandbits(32) for _ in range(tenhou.SRC_WORDS)]
        raw = struct.pack(f"<{len(src)}I", *src)
        assert tenhou.hash_src_bytes(raw) == tenhou.hash_blocks(src)
