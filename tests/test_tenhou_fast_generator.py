"""The tenhou walls' generator runs in C (CPython's random.Random, reference/tenhou.py
section 2b); the transcription of mt19937ar.c is its definition. These tests hold the two
equal: seeding for keys of every kind (those CPython's seed would shorten included), the
outputs and skips across block edges, and each hot step on the committed vectors' inputs."""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import random
import struct
from collections import defaultdict
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from fairvec.reference import tenhou

VECTORS = Path(__file__).resolve().parent.parent / "vectors" / "tenhou"


def transcription_outputs(state: tenhou.MtState, count: int) -> list[int]:
    return [tenhou.genrand_int32(state) for _ in range(count)]


def c_words(generator: random.Random, count: int) -> list[int]:
    return list(struct.unpack(f"<{count}I", tenhou.c_outputs(generator, count)))


def assert_same_generator(key: list[int], count: int = 700) -> None:
    """Same state after seeding, and the same outputs over more than a block."""
    state, generator = tenhou.init_by_array(key), tenhou.c_init_by_array(key)
    assert generator.getstate()[1] == (*state.mt, state.mti)
    assert c_words(generator, count) == transcription_outputs(state, count)


def random_key(rng: random.Random, length: int) -> list[int]:
    return [rng.randrange(2**32) for _ in range(length)]


@pytest.mark.parametrize("length", [1, 2, 4, 623, 624, 625, 1000, 1249])
def test_seeding_in_c_is_init_by_array_for_keys_of_any_length(length: int) -> None:
    rng = random.Random(length)
    for _ in range(3):
        key = random_key(rng, length)
        key[-1] |= 1  # a last word that is not 0: CPython's seed takes every word
        assert_same_generator(key)


@pytest.mark.parametrize("length", [1, 2, 4, 624, 625, 1000])
def test_keys_ending_in_zero_words_are_seeded_with_every_word(length: int) -> None:
    """random.seed(int) would drop the trailing zero words (a shorter key, another
    generator); the fallback seeds the whole key, as init_by_array does."""
    rng = random.Random(-length)
    for zeros in range(1, min(length, 3) + 1):
        key = random_key(rng, length - zeros) + [0] * zeros
        assert_same_generator(key)
    assert_same_generator([0] * length)


@pytest.mark.parametrize("length", [1, 4, 624, 1000])
def test_keys_not_ending_in_zero_are_seeded_in_c(
    length: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The tests above compare C with the transcription only if C seeds: for a key whose
    last word is not 0 (the key [0] too) c_init_by_array must not call the transcription."""
    rng = random.Random(length + 35)
    keys = [[*random_key(rng, length - 1), 1 + rng.randrange(2**32 - 1)], [0]]
    expected = [tuple(tenhou.init_by_array(key).mt) for key in keys]

    def not_called(init_key: list[int]) -> tenhou.MtState:
        raise AssertionError("the transcription seeded a key random.seed takes whole")

    monkeypatch.setattr(tenhou, "init_by_array", not_called)
    for key, state in zip(keys, expected, strict=True):
        assert tenhou.c_init_by_array(key).getstate()[1][:-1] == state


def test_the_fallback_is_needed_for_keys_ending_in_zero() -> None:
    """Shows what the fallback guards against: CPython's seed of the key's number is
    another generator when the key ends in 0 (the spec's quirk)."""
    key = [291, 564, 837, 0]
    seeded_short = random.Random(tenhou.key_number(key))
    assert seeded_short.getstate()[1] != (*tenhou.init_by_array(key).mt, 624)


@pytest.mark.parametrize("seed", range(3))
def test_outputs_and_skips_cross_block_edges_as_the_transcription(seed: int) -> None:
    rng = random.Random(seed)
    key = random_key(rng, 624)
    state, generator = tenhou.init_by_array(key), tenhou.c_init_by_array(key)
    for count in (0, 1, 287, 288, 336, 623, 624, 625, 1248, 1249, rng.randrange(5000)):
        tenhou.skip_outputs(state, count)
        tenhou.c_outputs(generator, count)  # a skip: the outputs thrown away
        assert generator.getstate()[1] == (*state.mt, state.mti), count
        taken = rng.randrange(1, 700)
        assert c_words(generator, taken) == transcription_outputs(state, taken), count


@cache
def vectors(name: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = json.loads((VECTORS / f"{name}.json").read_text())["vectors"]
    return found


def valid_seeds() -> list[str]:
    """Every distinct seed of the committed game, hand_wall and wall_tiles vectors that
    decodes (the shape vectors' bad seeds fail before any generator)."""
    seeds: set[str] = set()
    for name in ("game", "hand_wall", "wall_tiles"):
        for vector in vectors(name):
            seed = vector["input"].get("seed")
            if isinstance(seed, str) and "output" in vector["expected"]:
                seeds.add(seed)
    return sorted(seeds)


def transcription_walls(seed: str, hands: int, size: int) -> list[list[int]]:
    """Walls 0 to hands-1 as they were made before the generator ran in C: every step in
    Python, one generator for the game."""
    state = tenhou.init_by_array(tenhou.seed_words(tenhou.decode_seed(seed)))
    return [
        tenhou.shuffle_wall(
            document_rnd(document_digests(transcription_outputs(state, tenhou.SRC_WORDS))),
            size,
        )
        for _ in range(hands)
    ]


def document_digests(src: list[int]) -> list[bytes]:
    """hash_blocks as the document's Python spells it: to_bytes(4, 'little') per word."""
    raw = b"".join(word.to_bytes(4, "little") for word in src)
    return [hashlib.sha512(raw[i * 128 : (i + 1) * 128]).digest() for i in range(9)]


def document_rnd(digests: list[bytes]) -> list[int]:
    """rnd_words as the document reads it: from_bytes(4 bytes, 'little') per word."""
    joined = b"".join(digests)
    return [int.from_bytes(joined[i : i + 4], "little") for i in range(0, len(joined), 4)]


def test_the_committed_vectors_have_seeds_of_both_kinds() -> None:
    """The vectors below cover both seeding paths: some seeds end in a zero word."""
    last_words = {tenhou.seed_words(tenhou.decode_seed(seed))[-1] == 0 for seed in valid_seeds()}
    assert last_words == {True, False}


def test_each_committed_seed_seeds_the_same_generator() -> None:
    """seed_words (struct now) reads the words as the document's from_bytes does."""
    for seed in valid_seeds():
        raw = tenhou.decode_seed(seed)
        key = tenhou.seed_words(raw)
        assert key == [int.from_bytes(raw[i : i + 4], "little") for i in range(0, len(raw), 4)]
        assert_same_generator(key, count=tenhou.SRC_WORDS * 2)


@pytest.mark.heavy  # every committed input
def test_nth_wall_is_the_transcription_on_the_committed_inputs() -> None:
    """hand_wall's and wall_tiles' inputs (hands up to 99), both wall sizes."""
    asked: dict[tuple[str, int], set[int]] = defaultdict(set)
    for name in ("hand_wall", "wall_tiles"):
        for vector in vectors(name):
            given = vector["input"]
            if "output" in vector["expected"] and isinstance(given.get("seed"), str):
                asked[given["seed"], given.get("players", 4)].add(given["hand"])
    for (seed, players), hands in sorted(asked.items()):
        walls = transcription_walls(seed, max(hands) + 1, tenhou.WALL_SIZE[players])
        for hand in sorted(hands):
            assert tenhou.nth_wall(seed, hand, players) == walls[hand], (seed[:8], hand)


def test_game_walls_are_the_transcription_on_the_committed_inputs() -> None:
    for vector in vectors("game"):
        given = vector["input"]
        if "output" not in vector["expected"] or not isinstance(given.get("seed"), str):
            continue
        players = given.get("players", 4)
        walls = tenhou.game(given["seed"], given["dealers"], players)["yama"]
        assert walls == transcription_walls(
            given["seed"], len(walls), tenhou.WALL_SIZE[players]
        ), vector["id"]


def test_rnd_steps_are_the_documents_reading_on_the_committed_inputs() -> None:
    """hash_blocks and rnd_words (struct now) lay out and read the bytes as the
    document's to_bytes and from_bytes do."""
    for vector in vectors("rnd"):
        src = vector["input"].get("src")
        if "output" not in vector["expected"]:
            continue
        digests = tenhou.hash_blocks(src)
        assert digests == document_digests(src)
        assert tenhou.rnd_words(digests) == document_rnd(digests)


def test_the_base64_check_is_the_group_pattern() -> None:
    """decode_seed's length-and-characters check accepts exactly what the pattern of
    groups of four accepts: every string up to 8 characters over letters, '=' and
    characters outside the alphabet, and long ones with their end changed."""
    short = [
        "".join(letters)
        for length in range(9)
        for letters in itertools.product("A/=-", repeat=length)
    ]
    rng = random.Random(35)
    body = base64.b64encode(rng.randbytes(2496)).decode("ascii")
    long = [body[: rng.randrange(len(body))] + end for end in short[:400] for _ in range(2)]
    for text in short + long:
        assert tenhou.is_base64(text) == bool(tenhou.BASE64.fullmatch(text)), text[-12:]
