"""Nardy (backgammon) dice of ``003_c4a62d84289b5613.txt``: a committed sequence and two cuts.

The site commits, before a match, to a sequence of dice numbers 1-6, stored as one
character per pair of numbers. Each player picks a "cut" (срезка) from 1 to 7. The cuts
select which numbers of the sequence become the match's rolls (spec ids in brackets):

1. ``decode_sequence`` [nardy.decode]: characters back to numbers, ``A`` = 1 1,
   ``B`` = 1 2, ..., ``9`` = 6 6 (``encode_sequence`` [nardy.encode] is the inverse).
2. ``resolve_cut``, ``start_position``, ``mask_string`` [nardy.cuts]: a missing cut is 7;
   the product of the cuts is the 1-based start position; the two cuts as three binary
   digits each, the first player's first, are the six-digit mask.
3. ``kept_positions``, ``pair_up`` [nardy.mask]: from the start on, the mask is laid over
   each window of six numbers; numbers under a 1 are kept and pair up in order.
4. ``take_rolls`` [nardy.rolls]: pairs a game's rule forbids are dropped and the next
   pair is taken, until the game has as many rolls as it asked for.
5. [nardy.archive] the verification service's other input, "сам архив + пароль к нему":
   the archive opened with its password (``reference/_nardy_archive.py``, the steps from
   ``archive_bytes`` to ``member_text``), then the rolls as nardy.rolls.
"""

from __future__ import annotations

import re

from fairvec.reference._algorithm import InvalidInput, Output, algorithm
from fairvec.reference._nardy_archive import (  # the steps of nardy.archive
    archive_bytes,
    archive_format,
    check_member,
    member_text,
    read_directory,
    the_member,
    unpack_member,
)

__all__ = [
    "archive_bytes",
    "archive_format",
    "check_member",
    "member_text",
    "read_directory",
    "the_member",
    "unpack_member",
]

# "каждой паре бросков соответствует определенный символ из набора 'заглавные латинские
# буквы и цифры'": 11 is A, 12 is B, 66 is 9, so the 36 pairs in order are A-Z then 0-9.
ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
FACES = 6
CUTS = range(1, 8)
TIMED_OUT_CUT = 7  # "Если за это время игрок не выбрал срезку, её значение ... 7"
MASK_LENGTH = 6
ROLL = re.compile(r"[1-6]{2}")
# A mask the cuts can make: two groups of three binary digits, neither 000 (cuts are >= 1).
MASK = re.compile(r"(?!000)[01]{3}(?!000)[01]{3}")


# --- 1. the committed sequence -------------------------------------------------------


def check_numbers(numbers: list[int]) -> None:
    for index, number in enumerate(numbers):
        if not 1 <= number <= FACES:
            raise InvalidInput(
                "number-out-of-range",
                f"numbers[{index}] is {number}; every number is a die face from 1 to 6",
            )


def encode_sequence(numbers: list[int]) -> str:
    """Each pair of numbers (1st and 2nd, 3rd and 4th, ...) becomes one character."""
    check_numbers(numbers)
    if len(numbers) % 2:
        raise InvalidInput(
            "odd-count",
            f"numbers has {len(numbers)} entries; the encoding stores them in pairs, "
            "so the count must be even",
        )
    pairs = zip(numbers[0::2], numbers[1::2], strict=True)
    return "".join(ALPHABET[(first - 1) * FACES + (second - 1)] for first, second in pairs)


# Each character as its two numbers, written as the characters chr(1) to chr(6): a
# str.translate then decodes a whole sequence at C speed, and its UTF-8 bytes are the
# numbers (3,000 sequences of 100 to 300 characters: 0.17 s with a str.find per
# character, 0.07 s so).
NUMBERS_AS_CHARACTERS = {
    ord(character): chr(code // FACES + 1) + chr(code % FACES + 1)
    for code, character in enumerate(ALPHABET)
}
NOT_IN_ALPHABET = re.compile(f"[^{ALPHABET}]")


def decode_sequence(sequence: str) -> list[int]:
    """Each character becomes its two numbers, first die first (B is 1 then 2)."""
    stray = NOT_IN_ALPHABET.search(sequence)
    if stray:
        raise InvalidInput(
            "bad-character",
            f"sequence[{stray.start()}] is {stray.group()!r}; the sequence uses only A-Z and "
            "0-9 (upper case, no spaces or line breaks)",
        )
    return list(sequence.translate(NUMBERS_AS_CHARACTERS).encode("ascii"))


# --- 2. the cuts ---------------------------------------------------------------------


def resolve_cut(cut: int | None, field: str) -> int:
    """A player who did not choose in time (``null``) gets 7."""
    if cut is None:
        return TIMED_OUT_CUT
    if cut not in CUTS:
        raise InvalidInput(
            "cut-out-of-range", f"{field} is {cut}; a cut is 1 to 7, or null if not chosen in time"
        )
    return cut


def cut_bits(cut: int) -> str:
    """The document's table 1=001 ... 7=111: three binary digits, most significant first."""
    return format(cut, "03b")


def start_position(cut1: int, cut2: int) -> int:
    """The product of the cuts, 1-based: "4*5 = 20, первые 19 чисел ... отбрасываются"."""
    return cut1 * cut2


def mask_string(cut1: int, cut2: int) -> str:
    """The first player's three digits, then the second's: cuts 4 and 5 give 100101."""
    return cut_bits(cut1) + cut_bits(cut2)


# --- 3. the mask ---------------------------------------------------------------------


def check_mask(mask: str) -> None:
    if not MASK.fullmatch(mask):
        raise InvalidInput(
            "bad-mask",
            f"mask is {mask!r}; a mask is six binary digits, two cuts of 1 to 7 "
            "(neither half 000)",
        )


def kept_positions(length: int, start: int, mask: str) -> list[int]:
    """1-based positions from ``start`` on whose mask digit is 1.

    The mask repeats every six numbers counted from the start, so a last window that
    is cut short by the end of the sequence still keeps the numbers under its 1s.
    """
    # window by window (the offsets under a 1, in order), not position by position with a
    # modulo: the same positions in the same order, a fifth of the time
    ones = [offset for offset, digit in enumerate(mask) if digit == "1"]
    return [
        window + offset
        for window in range(start, length + 1, MASK_LENGTH)
        for offset in ones
        if window + offset <= length
    ]


def pair_up(positions: list[int]) -> list[tuple[int, int]]:
    """Kept numbers pair up in order, across window boundaries; an odd last one is unused."""
    return list(zip(positions[0::2], positions[1::2], strict=False))


def roll_text(numbers: list[int], pair: tuple[int, int]) -> str:
    """A roll as the document prints it: the two faces in sequence order, "31" not "13"."""
    return f"{numbers[pair[0] - 1]}{numbers[pair[1] - 1]}"


# --- 4. the rolls --------------------------------------------------------------------


def check_rule(forbidden: list[str], forbidden_rolls: int) -> None:
    for index, roll in enumerate(forbidden):
        if not ROLL.fullmatch(roll):
            raise InvalidInput(
                "bad-forbidden",
                f"forbidden[{index}] is {roll!r}; a roll is two die faces such as \"55\"",
            )
    if forbidden_rolls < 0:
        raise InvalidInput(
            "bad-forbidden-rolls", f"forbidden_rolls is {forbidden_rolls}; it counts rolls, >= 0"
        )


def take_rolls(
    numbers: list[int],
    pairs: list[tuple[int, int]],
    count: int | None,
    forbidden: list[str],
    forbidden_rolls: int,
) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Accepted and dropped pairs, in order.

    While fewer than ``forbidden_rolls`` rolls are accepted, a pair in ``forbidden`` is
    dropped whole and the next pair is taken ("выпавшая пара отбрасывается, и берется
    следующая пара"); a dropped pair does not count as a roll. ``count`` None takes
    every pair; otherwise running out before ``count`` rolls is an error.
    """
    accepted: list[tuple[int, int]] = []
    dropped: list[tuple[int, int]] = []
    for pair in pairs:
        if count is not None and len(accepted) == count:
            break
        if len(accepted) < forbidden_rolls and roll_text(numbers, pair) in forbidden:
            dropped.append(pair)
        else:
            accepted.append(pair)
    if count is not None and len(accepted) < count:
        raise InvalidInput(
            "sequence-exhausted",
            f"the sequence yields {len(accepted)} of the {count} rolls asked for; "
            "the document continues such a game with ordinary dice",
        )
    return accepted, dropped


# --- the registered algorithms -------------------------------------------------------


@algorithm("nardy.encode")
def encode(numbers: list[int]) -> Output:
    return {"sequence": encode_sequence(numbers)}


@algorithm("nardy.decode")
def decode(sequence: str) -> Output:
    return {"numbers": decode_sequence(sequence)}


@algorithm("nardy.cuts")
def cuts(cut1: int | None, cut2: int | None) -> Output:
    first, second = resolve_cut(cut1, "cut1"), resolve_cut(cut2, "cut2")
    start = start_position(first, second)
    return {
        "cut1": first,
        "cut2": second,
        "cut1_bits": cut_bits(first),
        "cut2_bits": cut_bits(second),
        "start": start,
        "skipped": start - 1,
        "mask": mask_string(first, second),
    }


@algorithm("nardy.mask")
def mask(numbers: list[int], mask: str) -> Output:
    """The document's fragment example: the numbers from the start position on, one mask."""
    check_numbers(numbers)
    check_mask(mask)
    positions = kept_positions(len(numbers), 1, mask)
    return {
        "kept": [numbers[position - 1] for position in positions],
        "pairs": [roll_text(numbers, pair) for pair in pair_up(positions)],
    }


@algorithm("nardy.rolls")
def rolls(
    sequence: str,
    cut1: int | None,
    cut2: int | None,
    count: int | None = None,
    start: int | None = None,
    forbidden: list[str] | None = None,
    forbidden_rolls: int = 1,
) -> Output:
    """The rolls of one game: decode, start, mask, pair, apply the rule, take ``count``."""
    numbers = decode_sequence(sequence)
    return game_rolls(numbers, cut1, cut2, count, start, forbidden, forbidden_rolls)


def game_rolls(
    numbers: list[int],
    cut1: int | None,
    cut2: int | None,
    count: int | None,
    start: int | None,
    forbidden: list[str] | None,
    forbidden_rolls: int,
) -> Output:
    """nardy.rolls from the decoded numbers on (nardy.archive shares it)."""
    first, second = resolve_cut(cut1, "cut1"), resolve_cut(cut2, "cut2")
    if start is None:
        start = start_position(first, second)
    elif start < 1:
        raise InvalidInput("bad-start", f"start is {start}; positions count from 1")
    if count is not None and count < 0:
        raise InvalidInput("bad-count", f"count is {count}; a game asks for 0 or more rolls")
    rule = forbidden or []
    check_rule(rule, forbidden_rolls)
    pattern = mask_string(first, second)
    pairs = pair_up(kept_positions(len(numbers), start, pattern))
    accepted, dropped = take_rolls(numbers, pairs, count, rule, forbidden_rolls)
    return {
        "start": start,
        "mask": pattern,
        "rolls": [roll_text(numbers, pair) for pair in accepted],
        "positions": [list(pair) for pair in accepted],
        "dropped": [roll_text(numbers, pair) for pair in dropped],
        "dropped_positions": [list(pair) for pair in dropped],
    }


@algorithm("nardy.archive")
def archive(
    archive: str,
    password: str,
    cut1: int | None,
    cut2: int | None,
    count: int | None = None,
    start: int | None = None,
    forbidden: list[str] | None = None,
    forbidden_rolls: int = 1,
) -> Output:
    """The archive and its password to the sequence, then that sequence's rolls."""
    # pyzipper and py7zr: the 'archive' extra. Imported before the input is read, as
    # videopoker.analysis imports NumPy: without them the ImportError goes up, not a coded
    # error (the input is not at fault), and the bundled adapter answers unsupported.
    import py7zr  # noqa: F401
    import pyzipper  # noqa: F401

    data = archive_bytes(archive)
    kind = archive_format(data)
    directory = read_directory(data, kind, password)
    member = the_member(directory)
    check_member(member)
    sequence = member_text(unpack_member(directory, member, password), ALPHABET)
    numbers = decode_sequence(sequence)
    return {
        "format": kind,
        "encryption": member.encryption,
        "method": member.method,
        "member": member.name,
        "sequence": sequence,
        **game_rolls(numbers, cut1, cut2, count, start, forbidden, forbidden_rolls),
    }
