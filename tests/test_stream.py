"""``fairvec stream``: a generator's output for statistical batteries (issue 19, item 4).

The stream must be exactly the reference's generator (checked against the vectors'
algorithms, and for Tenhou against Tenhou's own validation data), in each format the
batteries read, written all or nothing; and Debian's dieharder must read it as the casino
document's command does (``dieharder -g 202 -f FILE``)."""

from __future__ import annotations

import base64
import hashlib
import random
import re
import shutil
import signal
import struct
import subprocess
import time
from pathlib import Path

import pytest
from support import HANG, PATIENCE, REPO, fairvec

from fairvec.reference import compute

VALIDATION = REPO / "upstream" / "tenhou" / "validation" / "2016022509gm-0009-0000-b327da61"
DIEHARDER_TESTS = {  # -d number: name; short tests that 2 * 10^6 numbers nearly cover at -p 10
    0: "diehard_birthdays",
    8: "diehard_count_1s_str",
    15: "diehard_runs",
    100: "sts_monobit",
}


def stream(*arguments: str) -> bytes:
    done = subprocess.run(
        [*fairvec_command(), "stream", *arguments], capture_output=True, timeout=HANG, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def fairvec_command() -> list[str]:
    from support import FAIRVEC_COMMAND

    return FAIRVEC_COMMAND


@pytest.mark.smoke  # the module's run kept in the inner loop
def test_casino_bytes_are_the_generators_cursor_after_cursor() -> None:
    raw = stream("casino.bytes", "--count", "48", "--input", "cursor=7", "--seed", "s")
    assert len(raw) == 48 * 4
    for block in range(3):  # 64 bytes = 16 words a cursor
        expected = compute(
            "casino.bytes",
            {"server_seed": "s", "salt": "salt", "client_seed": "client", "cursor": 7 + block},
            "hex-text",
        )
        assert raw[block * 64 : (block + 1) * 64].hex() == expected["bytes"]


def test_casino_numbers_are_the_documents_numbers() -> None:
    text = stream("casino.bytes", "--count", "16", "--unit", "numbers", "--format", "text")
    numbers = [float(line) for line in text.decode().split()]
    first = compute(
        "casino.bytes",
        {"server_seed": "fairvec", "salt": "salt", "client_seed": "client", "cursor": 0},
        "hex-text",
    )
    expected = compute("casino.numbers", {"bytes": first["bytes"]}, None)["numbers"]
    assert numbers[:8] == expected
    # dieharder's integers are the numbers' first 32 bits
    dieharder = stream("casino.bytes", "--count", "8", "--unit", "numbers", "--format", "dieharder")
    body = dieharder.decode().splitlines()[6:]
    assert [int(line) for line in body] == [int(x * 2**32) for x in expected]


def test_stake_bytes_are_round_after_round() -> None:
    raw = stream("stake.bytes", "--count", "16", "--input", "nonce=3")  # 64 bytes: 2 rounds
    for round_ in range(2):
        expected = compute(
            "stake.bytes",
            {"server_seed": "fairvec", "client_seed": "client", "nonce": 3, "round": round_},
            None,
        )
        assert raw[round_ * 32 : (round_ + 1) * 32].hex() == expected["bytes"]


def test_tenhou_rnd_is_tenhous_own_validation_data() -> None:
    """The validation game's seed: its first hand's rnd words are Tenhou's published ones."""
    seed = (VALIDATION.with_suffix(".seed_str")).read_text().strip().strip('"')
    published = [
        int(word.removesuffix("u32"), 16)
        for word in re.findall(
            r"0x[0-9A-Fa-f]+(?:u32)?", VALIDATION.with_suffix(".rnd_u32").read_text()
        )
    ]
    text = stream(
        "tenhou.rnd", "--count", "288", "--unit", "numbers", "--format", "text",
        "--input", f"shuffle=mt19937ar-sha512-n288-base64,{seed}",
    )  # fmt: skip
    words = [int(line) for line in text.decode().split()]
    assert words[:144] == published
    assert words[144:] != published  # the next hand draws on


def test_text_words_read_each_4_bytes_first_byte_most_significant() -> None:
    """--unit bytes in text (and Dieharder's) form: each word is 4 bytes of the stream, the
    first byte most significant (docs/stream.md, "Formats"), unpacked here by struct from
    the reference's bytes, not from the command's own raw output."""
    block = compute(
        "casino.bytes",
        {"server_seed": "s", "salt": "salt", "client_seed": "client", "cursor": 0},
        "hex-text",
    )["bytes"]
    expected = list(struct.unpack(">16I", bytes.fromhex(block)))
    assert expected != list(struct.unpack("<16I", bytes.fromhex(block)))  # the test can fail
    text = stream("casino.bytes", "--count", "16", "--format", "text", "--seed", "s")
    assert [int(line) for line in text.decode().split()] == expected
    dieharder = stream("casino.bytes", "--count", "16", "--format", "dieharder", "--seed", "s")
    assert [int(line) for line in dieharder.decode().splitlines()[6:]] == expected


def shortest_digits(value: float) -> int:
    """The fewest significant digits that read back as ``value`` (found by trying each
    precision, independently of repr)."""
    return next(digits for digits in range(1, 18) if float(f"{value:.{digits}g}") == value)


def significant_digits(text: str) -> int:
    mantissa = text.lower().split("e")[0].lstrip("-").replace(".", "")
    return len(mantissa.lstrip("0"))


def test_text_numbers_are_in_shortest_round_trip_form() -> None:
    """docs/stream.md promises each number "in shortest round-trip form": the line reads back
    as the number, with no more digits than it needs (%.17g writes 17 where 16 do)."""
    first = compute(
        "casino.bytes",
        {"server_seed": "fairvec", "salt": "salt", "client_seed": "client", "cursor": 0},
        "hex-text",
    )
    expected = compute("casino.numbers", {"bytes": first["bytes"]}, None)["numbers"]
    assert any(shortest_digits(x) < 17 for x in expected)  # %.17g would differ: the test can fail
    lines = stream("casino.bytes", "--count", "8", "--unit", "numbers", "--format", "text")
    written = lines.decode().split()
    assert [float(line) for line in written] == expected
    assert [significant_digits(line) for line in written] == [shortest_digits(x) for x in expected]


def test_tenhou_mt19937_raw_is_little_endian_words_of_an_independent_mt19937() -> None:
    """The raw stream is the generator's 32-bit outputs, each written little-endian (the
    words as Tenhou's C code holds them, docs/stream.md). Expected: CPython's own MT19937
    (random.Random seeded with the 624 words as one integer runs init_by_array on them,
    getrandbits(32) is genrand_int32), packed by struct here."""
    raw = b"".join(hashlib.sha512(f"mt:{block}".encode()).digest() for block in range(39))
    words = struct.unpack("<624I", raw)
    # CPython shortens a key whose last word is 0 (the quirk cpython-seed-drops-zero-words)
    assert words[-1] != 0
    independent = random.Random(int.from_bytes(raw, "little"))
    # 700 outputs: past the first 624, through one regeneration of the state
    expected = [independent.getrandbits(32) for _ in range(700)]
    shuffle = "mt19937ar-sha512-n288-base64," + base64.b64encode(raw).decode("ascii")
    written = stream("tenhou.mt19937", "--count", "700", "--input", f"shuffle={shuffle}")
    assert written == struct.pack("<700I", *expected)


def test_the_formats_hold_count_values() -> None:
    count = 1000
    assert len(stream("tenhou.mt19937", "--count", str(count))) == 4 * count
    text = stream("stake.bytes", "--count", str(count), "--format", "text", "--unit", "numbers")
    assert len(text.decode().split()) == count
    header, *body = (
        stream("casino.bytes", "--count", str(count), "--format", "dieharder")
        .decode()
        .split("numbit: 32\n")
    )
    assert f"count: {count}" in header and "type: d" in header
    values = body[0].split()
    assert len(values) == count and all(0 <= int(v) < 2**32 for v in values)
    raw_numbers = stream("casino.bytes", "--count", "8", "--unit", "numbers", "--format", "raw")
    assert list(struct.unpack("<8I", raw_numbers)) == [
        int(line) for line in stream("casino.bytes", "--count", "8", "--unit", "numbers",
                                     "--format", "dieharder").decode().splitlines()[6:]
    ]  # fmt: skip


def test_output_is_written_all_or_nothing(tmp_path: Path) -> None:
    out = tmp_path / "stream.bin"
    done = fairvec("stream", "casino.bytes", "--count", "100", "--output", out)
    assert done.status == 0 and out.stat().st_size == 400
    # a cursor that runs past 2^53 - 1 midway: one line, and no file, not half of one
    late = tmp_path / "late.bin"
    done = fairvec(
        "stream", "casino.bytes", "--count", "100", "--input", "cursor=9007199254740990",
        "--output", late,
    )  # fmt: skip
    assert done.status == 2 and "cursor-out-of-range" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    assert not late.exists() and list(tmp_path.iterdir()) == [out]


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        (["casino.bytes", "--count", "0"], "give a whole number from 1"),
        (["casino.bytes", "--count", "5", "--input", "pepper=1"], "has no input 'pepper'"),
        (
            ["casino.bytes", "--count", "5", "--input", "variant=base64"],
            "give one of hex-text, raw-bytes",
        ),
        (["casino.bytes", "--count", "5", "--input", "cursor=-1"], "give a whole number"),
        (["casino.bytes", "--count", "5", "--input", "cursor=\u00b2"], "give a whole number"),
        (["casino.bytes", "--count", "\u00b2"], "give a whole number from 1"),
        # 5,000 digits: past Python's int-string bound, once "internal error" (issue 34)
        (
            ["casino.bytes", "--count", "10", "--input", "cursor=" + "9" * 5000],
            "--input cursor=9999999999999999999999999999999999999999... (5,000 characters): "
            "5,000 digits, more than the 4,300 fairvec reads; give a smaller whole number",
        ),
        (["casino.bytes", "--count", "9" * 5000], "(5,000 characters)': give a whole number"),
        (["tenhou.rnd", "--count", "5", "--input", "shuffle=abc"], "(wrong-prefix)"),
        (["stake.bytes", "--count", "5", "--input", "nonce"], "give FIELD=VALUE"),
        (["casino.dice", "--count", "5"], "invalid choice"),
    ],
)
def test_bad_arguments_are_one_line(arguments: list[str], said: str) -> None:
    done = fairvec("stream", *arguments)
    assert done.status == 2
    assert said in done.stderr and "Traceback" not in done.stderr, done.stderr
    last = done.stderr.strip().splitlines()[-1]  # (argparse's usage lines come before it)
    assert said in last and len(last) < 300, last


def test_output_refuses_a_special_file(tmp_path: Path) -> None:
    done = fairvec("stream", "casino.bytes", "--count", "5", "--output", "/dev/null")
    assert done.status == 2 and "/dev/null" in done.stderr


@pytest.mark.skipif(
    shutil.which("dieharder") is None,
    reason="Debian's dieharder is not installed (.ci/run installs it: apt-get install dieharder)",
)
def test_dieharder_reads_the_stream_as_the_casino_document_ran_it(tmp_path: Path) -> None:
    """The document's command, ``dieharder -g 202 -f FILE``, on 2 * 10^6 of the generator's
    numbers (the document used 10^9 and every test, -a): a short battery of 10 p-samples
    each (-p 10; dieharder's 100 would need 10^7 numbers, 30 s of CPU to write), every test
    PASSED or WEAK, the p-values printed (run pytest -s to see them). The seed is fixed, so
    the verdicts are too; a generator whose numbers lack their top bit fails two tests."""
    numbers = tmp_path / "rng_output_test_random_CS"
    made = fairvec(
        "stream", "casino.bytes", "--unit", "numbers", "--count", "2000000",
        "--format", "dieharder", "--output", numbers,
    )  # fmt: skip
    assert made.status == 0, made.stderr
    found = {}
    for number, name in DIEHARDER_TESTS.items():
        done = subprocess.run(
            ["dieharder", "-g", "202", "-f", str(numbers), "-d", str(number), "-p", "10"],
            capture_output=True, text=True, timeout=HANG, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        rows = re.findall(rf"^\s*{name}\|.*\|\s*([0-9.]+)\|\s*(\w+)\s*$", done.stdout, re.M)
        assert rows, done.stdout  # the test ran on file_input and printed its verdicts
        found[name] = rows
    print("\ndieharder -g 202 -p 10 on 2 * 10^6 casino.bytes numbers (seed fairvec):")
    for name, rows in found.items():
        print(f"  {name}: " + ", ".join(f"p = {p} {verdict}" for p, verdict in rows))
    verdicts = {verdict for rows in found.values() for _, verdict in rows}
    assert verdicts <= {"PASSED", "WEAK"}, found


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGHUP], ids=["TERM", "HUP"])
def test_a_stream_stopped_by_a_signal_leaves_nothing(tmp_path: Path, stop: int) -> None:
    """SIGTERM or SIGHUP mid-write ends it as Ctrl-C does: one line, 128 + N, and neither
    the file nor its temporary twin (every command, not only run, turns them into an
    exception that the writing's cleanup sees)."""
    out = tmp_path / "big.bin"
    child = subprocess.Popen(
        [*fairvec_command(), "stream", "casino.bytes", "--count", "4000000000", "--output",
         str(out)],
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + PATIENCE
    while not list(tmp_path.glob(".big.bin.*")) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert list(tmp_path.glob(".big.bin.*")), "the stream never started writing"
    child.send_signal(stop)
    _, stderr = child.communicate(timeout=HANG)
    assert child.returncode == 128 + stop
    assert stderr.strip() == f"fairvec: stopped by {signal.Signals(stop).name}"
    assert list(tmp_path.iterdir()) == []
