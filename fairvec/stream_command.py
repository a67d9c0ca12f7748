"""``fairvec stream``: a generator's raw output, for statistical test batteries.

The casino document (``000_162a66a6a1bf86ea.txt``, "Батарея тестов Dieharder") says its
generator was tested with 10^9 numbers through ``dieharder -g 202 -f FILE -a``, twice.
This command writes what such a run reads, computed by the reference: the generator's
bytes, or the document's numbers, for a given seed and count, to standard output or a
file, in the formats Dieharder, PractRand and TestU01 read (docs/stream.md).

One of the callers of the reference (docs/maintaining.md, "The dependency rule").
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import struct
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import IO, Any

from fairvec.errors import FairvecError

FORMATS = ("raw", "dieharder", "text")
UNITS = ("bytes", "numbers")
DEFAULT_SEED = "fairvec"
MAX_COUNT = 10**12  # values; a terabyte of text is a typing mistake
CHUNK_VALUES = 1 << 16  # values formatted and written at once
TWO_TO_32 = 2.0**32


@dataclass(frozen=True)
class Source:
    """One generator: its inputs with their defaults (from --seed), its output as blocks
    of bytes, and the document's numbers of one block."""

    name: str
    summary: str
    defaults: Callable[[str], dict[str, str]]  # seed -> every input, as text
    blocks: Callable[[dict[str, str]], Iterator[bytes]]
    numbers: Callable[[bytes], list[int] | list[float]]  # the document's numbers of a block
    block_bytes: int


# -- the generators -------------------------------------------------------------------------


def _casino_defaults(seed: str) -> dict[str, str]:
    return {
        "server_seed": seed,
        "salt": "salt",
        "client_seed": "client",
        "cursor": "0",  # the first cursor; each next block is the next cursor
        "variant": "hex-text",  # the key reading (spec/casino/bytes.yaml's variants)
    }


def _casino_blocks(inputs: dict[str, str]) -> Iterator[bytes]:
    from fairvec.reference import casino

    variant = inputs["variant"]
    if variant not in casino.KEY_READINGS:
        readings = ", ".join(casino.KEY_READINGS)
        raise FairvecError(f"--input variant={variant}: give one of {readings}")
    cursor = _whole(inputs, "cursor", 0)
    return casino.bytes_stream(
        inputs["server_seed"], inputs["salt"], inputs["client_seed"], variant, cursor
    )


def _casino_numbers(block: bytes) -> list[float]:
    from fairvec.reference import casino

    return casino.numbers_from_bytes(block)


def _stake_defaults(seed: str) -> dict[str, str]:
    return {"server_seed": seed, "client_seed": "client", "nonce": "0"}


def _stake_blocks(inputs: dict[str, str]) -> Iterator[bytes]:
    from fairvec.reference import stake

    nonce = _whole(inputs, "nonce", 0)
    return stake.round_stream(inputs["server_seed"], inputs["client_seed"], nonce)


def _stake_numbers(block: bytes) -> list[float]:
    from fairvec.reference import stake

    return [stake.float_from_bytes(block[at : at + 4]) for at in range(0, len(block), 4)]


def _little_endian_words(block: bytes) -> list[int]:
    """Tenhou's words: its C code's 32-bit words on a little-endian machine."""
    return list(struct.unpack(f"<{len(block) // 4}I", block))


def _tenhou_defaults(seed: str) -> dict[str, str]:
    """A Tenhou seed (2,496 bytes, base64 after the method name) made from ``seed``."""
    from fairvec.reference import tenhou

    stream = b"".join(
        hashlib.sha512(f"{seed}:{block}".encode()).digest() for block in range(39)
    )  # 39 x 64 = 2,496 bytes
    return {"shuffle": tenhou.SHUFFLE_PREFIX + base64.b64encode(stream).decode("ascii")}


def _tenhou_state(inputs: dict[str, str]) -> Any:
    from fairvec.reference import tenhou

    raw = tenhou.decode_seed(tenhou.split_shuffle(inputs["shuffle"]))
    return tenhou.c_init_by_array(tenhou.seed_words(raw))


def _tenhou_rnd_blocks(inputs: dict[str, str]) -> Iterator[bytes]:
    """Hand after hand of one game: the 144 rnd words each hand's wall is drawn from."""
    from fairvec.reference import tenhou

    generator = _tenhou_state(inputs)
    while True:
        yield b"".join(tenhou.hash_blocks(tenhou.hand_src(generator)))


def _tenhou_mt_blocks(inputs: dict[str, str]) -> Iterator[bytes]:
    """The game's MT19937 outputs, 624 words (little-endian) a block."""
    from fairvec.reference import tenhou

    generator = _tenhou_state(inputs)
    while True:
        yield tenhou.c_outputs(generator, 624)


SOURCES = {
    source.name: source
    for source in (
        Source(
            "casino.bytes",
            "HMAC-SHA512(SHA256(server_seed:salt), client_seed:cursor), cursor 0, 1, ...; "
            "numbers: the document's 8 numbers in [0, 1) of each 64 bytes",
            _casino_defaults,
            _casino_blocks,
            _casino_numbers,
            64,
        ),
        Source(
            "stake.bytes",
            "HMAC-SHA256(server_seed, client_seed:nonce:round), round 0, 1, ...; numbers: "
            "Stake's floats, 4 bytes each",
            _stake_defaults,
            _stake_blocks,
            _stake_numbers,
            32,
        ),
        Source(
            "tenhou.rnd",
            "Tenhou's rnd words, hand after hand of one game (SHA-512 of 288 MT19937 "
            "outputs, 144 words); numbers: the words",
            _tenhou_defaults,
            _tenhou_rnd_blocks,
            _little_endian_words,
            576,
        ),
        Source(
            "tenhou.mt19937",
            "the game's MT19937 outputs, seeded with init_by_array(the seed's 624 words); "
            "numbers: the words",
            _tenhou_defaults,
            _tenhou_mt_blocks,
            _little_endian_words,
            2496,
        ),
    )
}


def _whole(inputs: dict[str, str], name: str, default: int) -> int:
    from fairvec.jsonio import TooManyDigits, int_of_text, shown_text

    text = inputs.get(name, str(default))
    if not text.isdecimal():
        raise FairvecError(f"--input {name}={shown_text(text)}: give a whole number")
    try:
        return int_of_text(text)
    except TooManyDigits as error:
        raise FairvecError(
            f"--input {name}={shown_text(text)}: {error}; give a smaller whole number"
        ) from None


# -- the values -----------------------------------------------------------------------------


def values(blocks: Iterator[bytes], unit: str, source: Source) -> Iterator[int | float]:
    """The stream's values: each 4 bytes as a 32-bit word, big-endian (the first byte most
    significant, as the casino and Stake documents read their bytes), or the document's
    numbers (Tenhou's are its little-endian words)."""
    if unit == "bytes":
        fmt = f">{source.block_bytes // 4}I"
        for block in blocks:
            yield from struct.unpack(fmt, block)
    else:
        for block in blocks:
            yield from source.numbers(block)


def as_u32(value: int | float) -> int:
    """A value as the 32-bit integer Dieharder reads: a word as it is, a number x in [0, 1)
    as floor(x * 2^32) (its first 32 bits)."""
    return value if isinstance(value, int) else int(value * TWO_TO_32)


def write_stream(out: IO[bytes], blocks: Iterator[bytes], options: StreamOptions) -> None:
    """``options.count`` values in ``options.form``, CHUNK_VALUES at a time; the raw bytes
    of the generator go out as they come."""
    if options.form == "raw" and options.unit == "bytes":
        _write_bytes(out, blocks, options.count * 4)
        return
    out.write(options.header)
    iterator = values(blocks, options.unit, options.source)
    left = options.count
    while left > 0:
        chunk = list(islice(iterator, min(left, CHUNK_VALUES)))
        out.write(_formatted(chunk, options.form))
        left -= len(chunk)


def _write_bytes(out: IO[bytes], blocks: Iterator[bytes], size: int) -> None:
    pending: list[bytes] = []
    held = 0
    while size > 0:
        block = next(blocks)[:size]
        pending.append(block)
        held += len(block)
        size -= len(block)
        if held >= CHUNK_VALUES * 4 or size == 0:
            out.write(b"".join(pending))
            pending, held = [], 0


@dataclass(frozen=True)
class StreamOptions:
    source: Source
    count: int
    unit: str
    form: str
    header: bytes = b""


def _formatted(chunk: list[int | float], form: str) -> bytes:
    if form == "raw":  # 32-bit little-endian words, as dieharder -g 200 and PractRand read
        return struct.pack(f"<{len(chunk)}I", *map(as_u32, chunk))
    if form == "dieharder":
        return ("\n".join(map(str, map(as_u32, chunk))) + "\n").encode("ascii")
    return ("\n".join(map(repr, chunk)) + "\n").encode("ascii")


def dieharder_header(source: Source, seed: str, count: int) -> bytes:
    """The header of Dieharder's file_input (-g 202): type d, count, 32 bits a number."""
    return (
        "#==================================================================\n"
        f"# generator {source.name} (fairvec stream)  seed = {seed}\n"
        "#==================================================================\n"
        f"type: d\ncount: {count}\nnumbit: 32\n"
    ).encode("ascii")


# -- the command ------------------------------------------------------------------------------


def add_stream_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    stream = commands.add_parser(
        "stream",
        help="write a generator's raw output for Dieharder, PractRand or TestU01",
        description="Write COUNT values of a generator, computed by the reference, to standard "
        "output or --output (docs/stream.md). Generators: "
        + "; ".join(f"{name}: {source.summary}" for name, source in SOURCES.items()),
    )
    stream.add_argument(
        "generator", choices=sorted(SOURCES), metavar="GENERATOR",
        help=f"one of {', '.join(sorted(SOURCES))}",
    )  # fmt: skip
    stream.add_argument(
        "--count", type=_count, required=True, metavar="N",
        help="values to write (32-bit words; numbers with --unit numbers)",
    )  # fmt: skip
    stream.add_argument(
        "--unit", choices=UNITS, default="bytes",
        help="bytes: the output as 32-bit words (default); numbers: the document's numbers",
    )  # fmt: skip
    stream.add_argument(
        "--format", choices=FORMATS, default="raw", dest="form",
        help="raw: 32-bit little-endian words (dieharder -g 200, PractRand stdin32; the "
        "default); dieharder: Dieharder's text file_input (-g 202); text: one value a line "
        "(numbers in shortest form, as TestU01's ufile_CreateReadText reads them)",
    )  # fmt: skip
    stream.add_argument(
        "--seed", default=DEFAULT_SEED, metavar="TEXT",
        help=f"the text every input is made from (default {DEFAULT_SEED!r})",
    )  # fmt: skip
    stream.add_argument(
        "--input", action="append", default=[], type=_input, metavar="FIELD=VALUE",
        help="set one input instead (e.g. client_seed=abc, cursor=100); repeatable",
    )  # fmt: skip
    stream.add_argument(
        "--output", type=Path, metavar="FILE",
        help="write to FILE (all or nothing) instead of standard output",
    )  # fmt: skip
    stream.set_defaults(handler=stream_command)


def _count(text: str) -> int:
    # (the length first: int() of 5,000 digits raises, and of millions takes seconds)
    if not text.isdecimal() or len(text) > len(str(MAX_COUNT)) or not 1 <= int(text) <= MAX_COUNT:
        from fairvec.jsonio import shown_text

        raise argparse.ArgumentTypeError(
            f"{shown_text(text)!r}: give a whole number from 1 to {MAX_COUNT:,}"
        )
    return int(text)


def _input(text: str) -> tuple[str, str]:
    name, equals, value = text.partition("=")
    if not equals or not name:
        raise argparse.ArgumentTypeError(f"{text!r}: give FIELD=VALUE")
    return name, value


def stream_command(arguments: argparse.Namespace) -> int:
    source = SOURCES[arguments.generator]
    inputs = _inputs(source, arguments.seed, arguments.input)
    blocks = _checked_blocks(source, inputs)
    header = b""
    if arguments.form == "dieharder":
        header = dieharder_header(source, arguments.seed, arguments.count)
    options = StreamOptions(source, arguments.count, arguments.unit, arguments.form, header)
    if arguments.output is None:
        write_stream(sys.stdout.buffer, blocks, options)
        sys.stdout.buffer.flush()
        return 0
    from fairvec.regular_files import check_not_special, written_beside

    check_not_special(arguments.output, "--output", "a stream")
    with written_beside(arguments.output, "--output") as out:
        write_stream(out, blocks, options)
    return 0


def _inputs(source: Source, seed: str, given: list[tuple[str, str]]) -> dict[str, str]:
    inputs = source.defaults(seed)
    for name, value in given:
        if name not in inputs:
            raise FairvecError(
                f"--input {name}={value[:40]}: {source.name} has no input {name!r} (its "
                f"inputs: {', '.join(inputs)})"
            )
        inputs[name] = value
    return inputs


def _checked_blocks(source: Source, inputs: dict[str, str]) -> Iterator[bytes]:
    """The blocks, the first one computed now: a bad input is a one-line error before
    anything is written (and one met later, a cursor past 2^53 - 1, is one too)."""
    from fairvec.reference import InvalidInput

    try:
        blocks = source.blocks(inputs)
        first = next(blocks)
    except InvalidInput as error:
        raise FairvecError(f"{source.name}: {error.message} ({error.code})") from None
    return _chain_first(source, first, blocks)


def _chain_first(source: Source, first: bytes, rest: Iterator[bytes]) -> Iterator[bytes]:
    from fairvec.reference import InvalidInput

    yield first
    try:
        yield from rest
    except InvalidInput as error:
        raise FairvecError(
            f"{source.name}: the stream ran out of inputs: {error.message} ({error.code})"
        ) from None
