"""Tenhou's wall of ``002_f6528bc9046dd8c8.txt``: MT19937, SHA-512, the shuffle, the commitment.

The document ("天凤牌山生成算法讲解" and "玩家可以进行哪些检定") walks through the code
Tenhou published at tenhou.net/stat/rand/. One game, from the seed in its log (spec ids in
brackets):

1. ``split_shuffle``, ``decode_seed``, ``seed_words`` [tenhou.seed]: the log's SHUFFLE
   ``seed`` attribute ``mt19937ar-sha512-n288-base64,<base64>`` is 2,496 bytes, that is
   624 little-endian 32-bit words: the key of mtLocal.
2. ``init_genrand``, ``init_by_array``, ``genrand_int32`` [tenhou.mt19937]: mtLocal is
   mt19937ar (Matsumoto and Nishimura's reference C code) seeded once per game with
   ``init_by_array(key, 624)``. Transcribed line by line here; the walls run the same
   generator in C (CPython's random.Random, ``c_init_by_array``: section 2b says why that
   is exact), seeded from the seed bytes and hashing src as bytes (``c_seeded``,
   ``hand_rnd``: steps 1 to 4 without unpacking the words and packing them again).
3. ``hand_src`` [tenhou.game]: every hand of the game, in order, takes the next 288 outputs.
4. ``hash_blocks``, ``rnd_words`` [tenhou.rnd]: nine SHA-512 digests of 128-byte slices of
   ``src`` (words laid out little-endian) read back as 144 little-endian words, ``rnd``.
5. ``shuffle_wall`` [tenhou.shuffle]: ``yama = 0..N-1``, then for i < N-1
   ``swap(yama[i], yama[i + rnd[i] % (N - i)])``; N is 136 (four players) or 108 (three).
6. ``roll_dice`` [tenhou.dice]: ``rnd[135] % 6`` and ``rnd[136] % 6``, 0-based.
7. ``deal_haipai``, ``dead_wall``, ``live_wall`` [tenhou.deal]: how the engine reads the wall.
8. ``skip_hands`` [tenhou.hand_wall]: the wall of hand k alone, as wall-only libraries give it;
   ``draw_order``, ``tile_label`` [tenhou.wall_tiles]: that wall as tile kinds in the order
   the tiles leave it (or in yama order), red fives marked, as log analysers give it.

Beside the wall: tile names [tenhou.tile], the seat order derived from the players' names
[tenhou.seat_order] and the pre-game commitment SHA-512(seat order + seed hex)
[tenhou.commitment].
"""

from __future__ import annotations

import base64
import functools
import hashlib
import random
import re
import struct
from dataclasses import dataclass, field
from urllib.parse import unquote_to_bytes

from fairvec.reference._algorithm import InvalidInput, Output, algorithm

# --- 1. the seed ----------------------------------------------------------------------

SHUFFLE_PREFIX = "mt19937ar-sha512-n288-base64,"
SEED_BYTES = 2496  # 624 words of 4 bytes: "4(座席並べ替え情報) + 624*8(乱数種)" counts them in hex
WORD_MASK = 0xFFFFFFFF
# Standard alphabet, padded to a multiple of four, nothing else: no whitespace, no
# URL-safe "-" or "_" (which Node's Buffer.from(s, "base64") would quietly accept).
# Groups of four, the last "xx==" or "xxx=": the same as BASE64_CHARACTERS below with a
# length that is a multiple of four (two "=" leave 2 letters mod 4, one leaves 3), which
# decode_seed checks instead (no backtracking over groups: a quarter of the time).
BASE64 = re.compile(r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?")
BASE64_CHARACTERS = re.compile(r"[A-Za-z0-9+/]*={0,2}")


def is_base64(text: str) -> bool:
    """``BASE64.fullmatch(text)``, computed as the length and the characters."""
    return len(text) % 4 == 0 and BASE64_CHARACTERS.fullmatch(text) is not None


def split_shuffle(shuffle: str) -> str:
    """The base64 text after the method name the SHUFFLE tag's ``seed`` attribute starts with."""
    if not shuffle.startswith(SHUFFLE_PREFIX):
        raise InvalidInput(
            "wrong-prefix",
            f"shuffle must start with {SHUFFLE_PREFIX!r} (the SHUFFLE tag's seed attribute)",
        )
    return shuffle[len(SHUFFLE_PREFIX) :]


def decode_seed(seed: str) -> bytes:
    """Strict standard base64 to the 2,496 seed bytes."""
    if not is_base64(seed):
        raise InvalidInput(
            "bad-base64",
            "seed must be standard base64 (A-Z a-z 0-9 + /, '=' padding, no whitespace)",
        )
    raw = base64.b64decode(seed, validate=True)
    if len(raw) != SEED_BYTES:
        raise InvalidInput(
            "wrong-length",
            f"seed decodes to {len(raw)} bytes; Tenhou's seed is {SEED_BYTES} bytes (624 words)",
        )
    return raw


def seed_words(raw: bytes) -> list[int]:
    """``int.from_bytes(seed_bytes[i*4:i*4+4], byteorder='little')``, as the document reads them.

    ``<`` is struct's little-endian standard size, 4 bytes an ``I``: the same words on any
    machine (the comprehension of from_bytes cost a third of a millisecond a game).
    """
    return list(struct.unpack(f"<{len(raw) // 4}I", raw))


def check_words(name: str, words: list[int]) -> None:
    for index, word in enumerate(words):
        if not 0 <= word <= WORD_MASK:
            raise InvalidInput(
                "word-out-of-range",
                f"{name}[{index}] is {word}; every word is an unsigned 32-bit integer",
            )


@algorithm("tenhou.seed")
def seed(shuffle: str) -> Output:
    return {"words": seed_words(decode_seed(split_shuffle(shuffle)))}


# --- 2. mt19937ar ---------------------------------------------------------------------
# A line-by-line transcription of mt19937ar.c (2002/1/26). Every product is reduced to
# 32 bits, which is what the C code's "& 0xffffffffUL" does on machines whose unsigned
# long is wider than 32 bits.

MT_N = 624
MT_M = 397
MATRIX_A = 0x9908B0DF
UPPER_MASK = 0x80000000
LOWER_MASK = 0x7FFFFFFF
MAX_KEY_WORDS = 10_000
MAX_COUNT = 10_000
MAX_SKIP = 1_000_000


@dataclass
class MtState:
    mt: list[int] = field(default_factory=lambda: [0] * MT_N)
    mti: int = MT_N + 1  # "mti==N+1 means mt[N] is not initialized"


def init_genrand(s: int) -> MtState:
    state = MtState()
    state.mt[0] = s & WORD_MASK
    for i in range(1, MT_N):
        previous = state.mt[i - 1]
        state.mt[i] = (1812433253 * (previous ^ (previous >> 30)) + i) & WORD_MASK
    state.mti = MT_N
    return state


def init_by_array(init_key: list[int]) -> MtState:
    """The key loop runs max(N, key_length) times, the second loop N - 1 times."""
    state = init_genrand(19650218)
    mt = state.mt
    key_length = len(init_key)
    i, j = 1, 0
    for _ in range(max(MT_N, key_length)):
        previous = mt[i - 1]
        mt[i] = ((mt[i] ^ ((previous ^ (previous >> 30)) * 1664525)) + init_key[j] + j) & WORD_MASK
        i += 1
        j += 1
        if i >= MT_N:
            mt[0] = mt[MT_N - 1]
            i = 1
        if j >= key_length:
            j = 0
    for _ in range(MT_N - 1):
        previous = mt[i - 1]
        mt[i] = ((mt[i] ^ ((previous ^ (previous >> 30)) * 1566083941)) - i) & WORD_MASK
        i += 1
        if i >= MT_N:
            mt[0] = mt[MT_N - 1]
            i = 1
    mt[0] = 0x80000000  # "MSB is 1; assuring non-zero initial array"
    return state


def generate_block(state: MtState) -> None:
    """Refill all N words at once (the ``if (mti >= N)`` branch of genrand_int32)."""
    mt = state.mt
    for kk in range(MT_N):
        y = (mt[kk] & UPPER_MASK) | (mt[(kk + 1) % MT_N] & LOWER_MASK)
        mt[kk] = mt[(kk + MT_M) % MT_N] ^ (y >> 1) ^ (MATRIX_A if y & 1 else 0)
    state.mti = 0


def genrand_int32(state: MtState) -> int:
    if state.mti >= MT_N:
        if state.mti == MT_N + 1:  # never seeded: the C code seeds with 5489
            state.mt, state.mti = init_genrand(5489).mt, MT_N
        generate_block(state)
    y = state.mt[state.mti]
    state.mti += 1
    y ^= y >> 11
    y ^= (y << 7) & 0x9D2C5680
    y ^= (y << 15) & 0xEFC60000
    y ^= y >> 18
    return y


def skip_outputs(state: MtState, count: int) -> None:
    """What ``count`` calls of genrand_int32 do to the state, without tempering outputs
    nobody reads: the index moves on, and each time it reaches N the block is refilled as
    genrand_int32 would refill it. (A hand's wall skips 288 outputs per hand before it:
    one call each made the generated hands a quarter of ``fairvec generate``.)"""
    while count > 0:
        if state.mti >= MT_N:
            if state.mti == MT_N + 1:  # never seeded: as genrand_int32 does
                state.mt, state.mti = init_genrand(5489).mt, MT_N
            generate_block(state)
        step = min(count, MT_N - state.mti)
        state.mti += step
        count -= step


@algorithm("tenhou.mt19937")
def mt19937(key: list[int], count: int, skip: int = 0) -> Output:
    if not 1 <= len(key) <= MAX_KEY_WORDS:
        raise InvalidInput(
            "key-length-out-of-range",
            f"key has {len(key)} words; init_by_array needs 1 to {MAX_KEY_WORDS}",
        )
    check_words("key", key)
    if not 1 <= count <= MAX_COUNT:
        raise InvalidInput("count-out-of-range", f"count is {count}; ask for 1 to {MAX_COUNT}")
    if not 0 <= skip <= MAX_SKIP:
        raise InvalidInput("skip-out-of-range", f"skip is {skip}; skip 0 to {MAX_SKIP} outputs")
    state = init_by_array(key)
    skip_outputs(state, skip)
    return {"outputs": [genrand_int32(state) for _ in range(count)]}


# --- 2b. the same generator, run by CPython's C code ----------------------------------
# The transcription above is the definition (tenhou.mt19937's vectors are its outputs). A
# game seeds a 624-word key and draws 288 outputs a hand, which in pure Python cost about
# 3 ms: most of the 10,000-case vectors of tenhou.game, tenhou.hand_wall and
# tenhou.wall_tiles. CPython's random.Random is this mt19937ar in C (CPython 3.11
# Modules/_randommodule.c: init_genrand, init_by_array and genrand_uint32 are mt19937ar.c's
# lines on uint32_t words, so every product is already reduced mod 2^32; its refill is
# generate_block's loop split where kk + 397 wraps), so the walls run it there.
# tests/test_tenhou_fast_generator.py holds the two paths equal.


def key_number(init_key: list[int]) -> int:
    """The key as one integer, word i at bits 32i to 32i+31 (what random.seed splits)."""
    return int.from_bytes(struct.pack(f"<{len(init_key)}I", *init_key), "little")


def c_init_by_array(init_key: list[int]) -> random.Random:
    """init_by_array(init_key), run in C: a generator at index 624, as after the C call.

    random.Random(n), for an int n (random.py's seed hands it to _random.Random.seed:
    random_seed), calls init_by_array with n's 32-bit words, least significant first (a
    big-endian machine reverses the array it reads, so the order is the same), and with
    key_length the words n needs: (bits - 1) // 32 + 1, or 1 when n is 0. That is this key
    exactly when the key is as long as the words its number needs, that is when its last
    word is not 0 or it is the single word [0]. A longer key ending in 0 would be seeded
    as a shorter key, another generator (quirk cpython-seed-drops-zero-words): for such a
    key the transcription computes the state and setstate loads it, words and index
    (random.py's version-3 state; the C setstate copies both as they are).
    """
    number = key_number(init_key)
    words_seeded = max(1, (number.bit_length() + 31) // 32)
    if words_seeded == len(init_key):
        return random.Random(number)
    state = init_by_array(init_key)
    generator = random.Random(0)
    generator.setstate((3, (*state.mt, state.mti), None))
    return generator


def c_seeded(raw: bytes) -> random.Random:
    """c_init_by_array(seed_words(raw)) without the words: the key's number (key_number) is
    the seed bytes read little-endian, as word i is bytes 4i to 4i+3 read little-endian and
    sits at bits 32i to 32i+31. Unpacking 624 words and packing them again was a sixth of a
    tenhou.game case (tests/test_tenhou_bytes_fast.py holds the two equal)."""
    number = int.from_bytes(raw, "little")
    if max(1, (number.bit_length() + 31) // 32) == len(raw) // 4:
        return random.Random(number)
    return c_init_by_array(seed_words(raw))  # the last word 0: see c_init_by_array


def c_outputs(generator: random.Random, count: int) -> bytes:
    """The next ``count`` genrand_int32 outputs, each as 4 little-endian bytes, in order.

    getrandbits(32 * count) calls genrand_uint32 count times and puts output i at bits
    32i to 32i+31 (it fills its word array least significant first on either byte order,
    and shifts no output since k is a multiple of 32; count 0 draws nothing), so the
    number's little-endian bytes are the outputs in order, on any machine. (k is a C int:
    up to 67 million outputs a call; a wall skips at most 99 hands of 288.)
    """
    return generator.getrandbits(32 * count).to_bytes(4 * count, "little")


# --- 3. and 4. src and rnd ------------------------------------------------------------

SRC_WORDS = 288  # "用mtLocal生成288个32bit随机数,共9216bit"
RND_WORDS = 144  # "将9216bit以1024bit为单位用SHA-512 hash到4608bit = 144*32bit"
BLOCK_BYTES = 128  # 1024 bits of src per digest
BLOCKS = 9


def hand_src(generator: random.Random) -> list[int]:
    """The next 288 outputs of the game's generator; it is never reseeded between hands."""
    return list(struct.unpack(f"<{SRC_WORDS}I", c_outputs(generator, SRC_WORDS)))


def hash_blocks(src: list[int]) -> list[bytes]:
    """SHA-512 of each 128-byte slice of src, its words laid out little-endian.

    Tenhou's C code hashes ``(unsigned char*)src + i*128`` on a little-endian machine
    with 32-bit words; the document's Python spells the same bytes out with
    ``to_bytes(4, byteorder='little')``.
    """
    return hash_src_bytes(struct.pack(f"<{len(src)}I", *src))


def hash_src_bytes(raw: bytes) -> list[bytes]:
    """hash_blocks of src given as its bytes, each word little-endian (as c_outputs gives it)."""
    view = memoryview(raw)
    return [
        hashlib.sha512(view[i * BLOCK_BYTES : (i + 1) * BLOCK_BYTES]).digest()
        for i in range(BLOCKS)
    ]


def hand_rnd(generator: random.Random) -> list[int]:
    """rnd_words(hash_blocks(hand_src(generator))), the next hand's rnd, with src kept as the
    bytes c_outputs gives: unpacking its 288 words and packing them again to hash them was
    half of the time from generator to rnd (tests/test_tenhou_bytes_fast.py: the same rnd)."""
    return rnd_words(hash_src_bytes(c_outputs(generator, SRC_WORDS)))


def rnd_words(digests: list[bytes]) -> list[int]:
    """The 576 digest bytes in order, read as 144 little-endian words."""
    raw = b"".join(digests)
    return list(struct.unpack(f"<{len(raw) // 4}I", raw))


def check_length(name: str, values: list[int], length: int) -> None:
    if len(values) != length:
        raise InvalidInput("wrong-length", f"{name} has {len(values)} words; it must have {length}")


@algorithm("tenhou.rnd")
def rnd(src: list[int]) -> Output:
    check_length("src", src, SRC_WORDS)
    check_words("src", src)
    digests = hash_blocks(src)
    return {"digests": [digest.hex() for digest in digests], "rnd": rnd_words(digests)}


# --- 5. and 6. the wall and the dice --------------------------------------------------

WALL_SIZE = {4: 136, 3: 108}  # "以四麻为例。三麻把所有136替换为108"
DICE_AT = (135, 136)  # the C code's "135+2以上を確保": rnd[135] and rnd[136], whatever N is


def check_players(players: int) -> int:
    if players not in WALL_SIZE:
        raise InvalidInput("bad-players", f"players is 3 or 4, got {players}")
    return WALL_SIZE[players]


def shuffle_wall(rnd: list[int], size: int) -> list[int]:
    """``swap(yama[i], yama[i + rnd[i] % (N - i)])`` for i from 0 to N-2.

    rnd[i] % (N - i) is biased by at most 2**-32 relative, which Tenhou's comment
    accepts ("1/2^32以下の誤差は許容"); a port must not "fix" it.
    """
    yama = list(range(size))
    for i in range(size - 1):
        j = i + rnd[i] % (size - i)
        yama[i], yama[j] = yama[j], yama[i]
    return yama


def roll_dice(rnd: list[int]) -> list[int]:
    """0-based, as the logs' INIT seed attribute stores them; the pips are one more."""
    return [rnd[index] % 6 for index in DICE_AT]


def check_rnd(rnd: list[int]) -> None:
    check_length("rnd", rnd, RND_WORDS)
    check_words("rnd", rnd)


@algorithm("tenhou.shuffle")
def shuffle(rnd: list[int], players: int = 4) -> Output:
    size = check_players(players)
    check_rnd(rnd)
    return {"yama": shuffle_wall(rnd, size)}


@algorithm("tenhou.dice")
def dice(rnd: list[int]) -> Output:
    check_rnd(rnd)
    rolled = roll_dice(rnd)
    return {"dice": rolled, "pips": [value + 1 for value in rolled]}


# --- 7. reading the wall --------------------------------------------------------------

HAND_TILES = 13
DEAL_BLOCKS = (4, 4, 4, 1)  # three rounds of four tiles, then one each
SEATS = 4
DEAD_WALL = 14
# Indices into yama, in the order the engine uses them (checked against the real logs'
# DORA tags, AGARI doraHai/doraHaiUra and the draws after each kan).
DORA_AT = (5, 7, 9, 11, 13)
URA_AT = (4, 6, 8, 10, 12)
RINSHAN_AT = (1, 0, 3, 2)


def check_dealer(dealer: int, players: int) -> None:
    if not 0 <= dealer < players:
        raise InvalidInput(
            "bad-dealer", f"dealer is {dealer}; a seat from 0 to {players - 1} (the INIT oya)"
        )


def deal_haipai(yama: list[int], dealer: int, players: int) -> list[list[int]]:
    """Hands by seat (0 = the log's hai0), each in the order its tiles were dealt.

    The engine takes from the end of yama: yama[N-1], yama[N-2], ... in blocks of
    4, 4, 4 then 1 per player, the dealer first and then round the table. The dice do
    not choose where the wall is broken.
    """
    hands: list[list[int]] = [[] for _ in range(SEATS)]
    position = len(yama) - 1
    for block in DEAL_BLOCKS:
        for turn in range(players):
            seat = (dealer + turn) % players
            for _ in range(block):
                hands[seat].append(yama[position])
                position -= 1
    return hands


def dead_wall(yama: list[int]) -> Output:
    """yama[0..13]: indicators at odd indices from 5, ura below each, rinshan 1, 0, 3, 2."""
    return {
        "dora_indicators": [yama[index] for index in DORA_AT],
        "ura_indicators": [yama[index] for index in URA_AT],
        "rinshan": [yama[index] for index in RINSHAN_AT],
    }


def live_wall(yama: list[int], players: int) -> list[int]:
    """The ordinary draws in order: on from where the deal stopped, down to yama[14].

    Each kan's replacement comes from the dead wall, and the live wall then ends one
    tile earlier; the order of the tiles that are drawn does not change.
    """
    first = len(yama) - 1 - players * HAND_TILES
    return [yama[index] for index in range(first, DEAD_WALL - 1, -1)]


def check_wall(yama: list[int]) -> int:
    players = {size: count for count, size in WALL_SIZE.items()}.get(len(yama))
    if players is None:
        raise InvalidInput("wrong-length", f"yama has {len(yama)} tiles; a wall has 136 or 108")
    if sorted(yama) != list(range(len(yama))):
        raise InvalidInput(
            "bad-wall", f"yama must hold each tile 0 to {len(yama) - 1} exactly once"
        )
    return players


@algorithm("tenhou.deal")
def deal(yama: list[int], dealer: int) -> Output:
    players = check_wall(yama)
    check_dealer(dealer, players)
    return {
        "haipai": deal_haipai(yama, dealer, players),
        **dead_wall(yama),
        "draws": live_wall(yama, players),
    }


# --- the whole game, hand after hand --------------------------------------------------

MAX_HANDS = 100


@algorithm("tenhou.game")
def game(seed: str, dealers: list[int], players: int = 4) -> Output:
    """Every hand of one game: one generator, seeded once, 288 outputs per hand in order.

    ``dealers`` holds each hand's dealer seat (the INIT tags' oya), renchan and draws
    included: a hand that is replayed still takes its own 288 outputs.
    """
    size = check_players(players)
    if not 1 <= len(dealers) <= MAX_HANDS:
        raise InvalidInput(
            "hand-count-out-of-range", f"dealers has {len(dealers)} hands; give 1 to {MAX_HANDS}"
        )
    for dealer in dealers:
        check_dealer(dealer, players)
    generator = c_seeded(decode_seed(seed))
    result: Output = {"dice": [], "dora_indicators": [], "haipai": [], "yama": []}
    for dealer in dealers:
        rnd = hand_rnd(generator)
        yama = shuffle_wall(rnd, size)
        result["dice"].append(roll_dice(rnd))
        result["dora_indicators"].append(yama[DORA_AT[0]])
        result["haipai"].append(deal_haipai(yama, dealer, players))
        result["yama"].append(yama)
    return result


# --- tile names -----------------------------------------------------------------------

SUITS = "mps"
# The document's haiDisp, in kind order 0..33.
HAI_DISP = (
    *(f"{number}{suit}" for suit in SUITS for number in range(1, 10)),
    "东", "南", "西", "北", "白", "发", "中",
)  # fmt: skip
FIVES = (4, 13, 22)  # kinds of 5m, 5p, 5s


def sanma_kind(index: int) -> int:
    """Three players: "0为1万,1为9万,2-10为1-9筒,11-19为1-9索,20-26为东南西北白发中"."""
    if index == 0:
        return 0
    if index == 1:
        return 8
    return index + 7


def tile_kind(tile: int, players: int) -> int:
    """The tile's kind 0..33 in the four-player order (1m..9m, 1p..9p, 1s..9s, honours)."""
    index = tile // 4
    return index if players == 4 else sanma_kind(index)


def tile_name(kind: int) -> str:
    """``1m``..``9m``, ``1p``.., ``1s``.., and honours ``1z`` (east) to ``7z`` (red dragon)."""
    if kind < 27:
        return f"{kind % 9 + 1}{SUITS[kind // 9]}"
    return f"{kind - 26}z"


def is_red(tile: int, kind: int, red: bool) -> bool:
    """With red fives in the rules, the copy of 5m, 5p, 5s whose id % 4 is 0 is red."""
    return red and kind in FIVES and tile % 4 == 0


def tenhou6_code(kind: int, red_five: bool) -> int:
    """The tile as tenhou.net/6 JSON logs write it: 11-19, 21-29, 31-39, 41-47; red 51-53."""
    if red_five:
        return 51 + kind // 9
    if kind < 27:
        return (kind // 9 + 1) * 10 + kind % 9 + 1
    return 41 + kind - 27


@algorithm("tenhou.tile")
def tile(tile: int, players: int = 4, red: bool = True) -> Output:
    size = check_players(players)
    if not 0 <= tile < size:
        raise InvalidInput("tile-out-of-range", f"tile is {tile}; ids run from 0 to {size - 1}")
    kind = tile_kind(tile, players)
    red_five = is_red(tile, kind, red)
    return {
        "kind": kind,
        "name": tile_name(kind),
        "red": red_five,
        "display": HAI_DISP[kind],
        "tenhou6": tenhou6_code(kind, red_five),
    }


# --- one hand's wall, as wall-only libraries and log analysers give it ---------------


def skip_hands(generator: random.Random, hand: int) -> None:
    """Hands 0 to hand-1 take their 288 outputs each before hand ``hand`` takes its own."""
    c_outputs(generator, hand * SRC_WORDS)


def nth_wall(seed: str, hand: int, players: int) -> list[int]:
    """yama of hand ``hand`` (0-based, the log's INIT tags in order), as tenhou.game makes it."""
    size = check_players(players)
    generator = c_seeded(decode_seed(seed))
    skip_hands(generator, hand)
    return shuffle_wall(hand_rnd(generator), size)


@algorithm("tenhou.hand_wall")
def hand_wall(seed: str, hand: int, players: int = 4) -> Output:
    """The k-th wall of the game's generator: ``tenhou.game``'s ``yama[hand]``, nothing else."""
    return {"yama": nth_wall(seed, hand, players)}


WALL_ORDERS = ("draw-order", "yama-order")


def draw_order(yama: list[int], variant: str) -> list[int]:
    """The tile ids in the order the view lists them.

    ``draw-order``: item p is yama[N-1-p], the order the tiles leave the wall: the deal
    (p < 13 * players, in deal order), the ordinary draws from p = 13 * players on, then the
    dead wall yama[13] .. yama[0] (dora indicator at p = N-6, replacement draws at
    p = N-2, N-1, N-4, N-3). ``yama-order``: yama itself, whose last item is drawn first.
    """
    return list(reversed(yama)) if variant == "draw-order" else list(yama)


# Remembered: a wall's 136 labels were two fifths of a wall_tiles case, and there are only
# 136 tiles x 2 player counts x red or not of them.
@functools.cache
def tile_label(tile: int, players: int, red: bool) -> tuple[str, int]:
    """The tile's name (a red five written 0m, 0p, 0s) and its tenhou.net/6 code."""
    kind = tile_kind(tile, players)
    red_five = is_red(tile, kind, red)
    name = tile_name(kind)
    return ("0" + name[1] if red_five else name), tenhou6_code(kind, red_five)


@algorithm("tenhou.wall_tiles", variants=WALL_ORDERS)
def wall_tiles(seed: str, hand: int, variant: str, players: int = 4, red: bool = True) -> Output:
    labels = [
        tile_label(tile, players, red)
        for tile in draw_order(nth_wall(seed, hand, players), variant)
    ]
    return {"tiles": [name for name, _ in labels], "tenhou6": [code for _, code in labels]}


# --- the seat order -------------------------------------------------------------------

PERCENT_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")


def decode_name(encoded: str) -> str:
    """``urllib.parse.unquote`` of the UN tag's n0..n3, strictly: malformed escapes and
    bytes that are not UTF-8 are errors; ``+`` stays ``+``."""
    if PERCENT_ESCAPE.search(encoded):
        raise InvalidInput("bad-name", f"{encoded!r} has a '%' not followed by two hex digits")
    try:
        return unquote_to_bytes(encoded).decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidInput("bad-name", f"{encoded!r} does not decode to UTF-8") from None


def number_players(decoded: list[str]) -> list[int]:
    """Player numbers by seat: the names sorted ascending by code point, from 0.

    Python's ``sorted`` (the document's) compares code points; equal names, such as two
    guests called NoName, are numbered in seat order.
    """
    order = sorted((name, seat) for seat, name in enumerate(decoded))
    numbers = [0] * len(decoded)
    for number, (_, seat) in enumerate(order):
        numbers[seat] = number
    return numbers


def seat_order_text(numbers: list[int], empty_seats: int) -> str:
    """"xyzw": the player who started East, South, West, North; an empty seat is 3."""
    return "".join(str(number) for number in numbers) + "3" * empty_seats


@algorithm("tenhou.seat_order")
def seat_order(names: list[str]) -> Output:
    if len(names) != SEATS:
        raise InvalidInput("wrong-player-count", f"names has {len(names)} entries; give n0 to n3")
    players = SEATS - 1 if names[-1] == "" else SEATS
    if any(name == "" for name in names[:players]):
        raise InvalidInput(
            "wrong-player-count", "only n3 may be empty (the three-player game's missing North)"
        )
    decoded = [decode_name(name) for name in names[:players]]
    numbers = number_players(decoded)
    return {
        "decoded": decoded,
        "sorted": sorted(decoded),
        "seat_order": seat_order_text(numbers, SEATS - players),
    }


# --- the commitment -------------------------------------------------------------------

SEAT_ORDER = re.compile(r"[0-3]{4}")


def seed_text(raw: bytes, variant: str) -> str:
    """The seed as lowercase hex: all 4,992 digits, or the document's big integer."""
    if variant == "bytes-hex":
        return raw.hex()
    # hex(int.from_bytes(base64.b64decode(seed_text), byteorder='big'))[2:]: leading
    # zero digits of the first byte(s) vanish.
    return format(int.from_bytes(raw, "big"), "x")


def commitment_hash(order: str, text: str) -> str:
    """``hashlib.sha512(seat + seed)``: the seat order's ASCII digits, then the hex text."""
    return hashlib.sha512(order.encode("ascii") + text.encode("ascii")).hexdigest()


@algorithm("tenhou.commitment", variants=("bytes-hex", "document-int-hex"))
def commitment(seat_order: str, seed: str, variant: str) -> Output:
    if not SEAT_ORDER.fullmatch(seat_order) or len(set(seat_order)) != SEATS:
        raise InvalidInput(
            "bad-seat-order", f"seat_order {seat_order!r} must be the digits 0-3, each once"
        )
    text = seed_text(decode_seed(seed), variant)
    return {
        "source_length": len(seat_order) + len(text),
        "hash": commitment_hash(seat_order, text),
    }
