"""Accumulated vectors (docs/accumulated.md): the bundled adapters pass them, a port wrong
in one case deep in a stream fails, located to its block by ``fairvec run`` and to the
case by ``fairvec accumulated locate``, and the Node adapter's own code reproduces a
committed digest without fairvec.

Run as a script, this file is the wrong port: ``python test_accumulated.py wrong DIGEST``
answers like the reference, except for the one input whose canonical JSON has that
SHA-256, whose crash point it raises by 0.01 (``nan DIGEST``: makes it NaN).
"""

from __future__ import annotations

import hashlib
import json
import random
import shutil
import struct
import subprocess
import sys
from itertools import islice
from pathlib import Path
from typing import Any

import pytest
from support import HANG, MISBEHAVING, REPO, ROOMY, fairvec

from fairvec import accumulated_digest, input_draws
from fairvec.runner import accumulated_run as streaming

ALGORITHM = "stake.crash"
STREAM_ID = "stake.crash/accumulated@truncate"
COUNT, BLOCK = 5000, 500  # a shortened stream with ten blocks, so a block can be named
WRONG_CASE = 3217  # in block 7 (cases 3000 to 3499)
NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="Node.js is not installed")


def _input_digest(inputs: dict[str, Any]) -> str:
    return hashlib.sha256(accumulated_digest.canonical(inputs).encode("utf-8")).hexdigest()


@pytest.fixture(scope="module")
def short_stream(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """A vector folder holding stake.crash with its accumulated vector cut to COUNT cases
    in blocks of BLOCK, the checkpoints computed here with the reference."""
    from fairvec.reference import compute

    data = json.loads((REPO / "vectors" / "stake" / "crash.json").read_text(encoding="utf-8"))
    entry = next(e for e in data["accumulated"] if e["id"] == STREAM_ID)
    total = accumulated_digest.Accumulator(BLOCK)
    stream = entry["stream"]
    inputs = list(islice(accumulated_digest.cases(stream["seed"], stream["input"]), COUNT))
    for case in inputs:
        total.add({"output": compute(ALGORITHM, case, entry["variant"])})
    entry.update(count=COUNT, block=BLOCK)
    entry["expected"] = {"digest": total.digest, "checkpoints": total.checkpoints}
    data["accumulated"] = [entry]
    folder = tmp_path_factory.mktemp("vectors")
    (folder / "stake").mkdir()
    (folder / "stake" / "crash.json").write_text(json.dumps(data), encoding="utf-8")
    return folder, inputs[WRONG_CASE]


def committed(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The results of the committed stream (a fresh one is drawn beside it: issue 34)."""
    return [result for result in results if result["id"] == STREAM_ID]


def _wrong_port(inputs: dict[str, Any], how: str = "wrong") -> list[str]:
    return [sys.executable, str(Path(__file__).resolve()), how, _input_digest(inputs)]


@pytest.mark.heavy
def test_a_port_wrong_in_one_case_fails_at_its_block(
    short_stream: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    folder, wrong_input = short_stream
    port = _wrong_port(wrong_input)
    report = tmp_path / "report.json"
    selection: list[str | Path] = ["--vectors", folder, "--tag", "accumulated"]
    done = fairvec("run", *selection, "--json", report, "--", *port)
    assert done.status == 1, done.stderr
    (result,) = committed(done.report(report)["results"])
    assert result["id"] == STREAM_ID and result["status"] == "fail"
    assert "from block 7 of 10 on (cases 3000 to 3499)" in result["message"]
    assert f"fairvec accumulated locate --block 7 {STREAM_ID} --" in result["message"]


@pytest.mark.parametrize("block", [["--block", "7"], []])
def test_locate_finds_the_case(short_stream: tuple[Path, dict[str, Any]], block: list[str]) -> None:
    folder, wrong_input = short_stream
    port = _wrong_port(wrong_input)
    done = fairvec("accumulated", "locate", *block, "--vectors", folder, STREAM_ID, "--", *port)
    assert done.status == 1, done.stderr
    assert f"first differing case: {STREAM_ID} case {WRONG_CASE} (block 7)" in done.stdout
    assert "differs at: .output.crash_point" in done.stdout
    assert json.dumps(wrong_input) in done.stdout


@pytest.mark.parametrize("block", [[], ["--block", "3"]], ids=["searched", "given"])
def test_locate_with_an_adapter_that_crashes_on_every_case_stops_in_one_line(
    short_stream: tuple[Path, dict[str, Any]], block: list[str]
) -> None:
    """The session stops after --max-crashes: the search says why in one line (it used to
    end in an internal error); with --block the first case is named as not answered."""
    folder, _ = short_stream
    port = [sys.executable, str(MISBEHAVING), "--crash-one-in", "1"]
    done = fairvec("accumulated", "locate", *block, "--vectors", folder, STREAM_ID, "--", *port)
    if block:
        assert done.status == 1, done.stderr
        assert f"{STREAM_ID} case 1000: the adapter did not answer: " in done.stdout
        return
    assert done.status == 2 and done.stdout == "", done.stdout + done.stderr
    assert done.stderr.startswith("fairvec: error: the run stopped: the adapter crashed")
    assert len(done.stderr.splitlines()) == 1, done.stderr


def test_locate_escapes_what_an_ascii_terminal_cannot_show(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The streams draw any Unicode scalar value: printed raw, they ended `locate` in an
    internal error on a stdout that cannot encode them."""
    from fairvec.vectorfiles import default_vectors_root

    vector_id = "stake.dice/accumulated@truncate"
    chosen = streaming.find(default_vectors_root(), vector_id)
    stream = chosen.entry["stream"]
    drawn = islice(accumulated_digest.cases(stream["seed"], stream["input"]), chosen.block)
    index, case = next(
        (index, case)
        for index, case in enumerate(drawn)
        if not json.dumps(case, ensure_ascii=False).isascii()
    )
    monkeypatch.setenv("PYTHONIOENCODING", "ascii")
    port = [sys.executable, str(MISBEHAVING), f"wrong-output:{vector_id}#{index}"]
    done = fairvec("accumulated", "locate", "--block", "1", vector_id, "--", *port)
    assert done.status == 1, done.stderr
    assert f"first differing case: {vector_id} case {index} (block 1)" in done.stdout
    assert json.dumps(case) in done.stdout and done.stdout.isascii()


@pytest.mark.heavy
def test_an_answer_json_cannot_hold_is_charged_to_its_case(
    short_stream: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    folder, wrong_input = short_stream
    report = tmp_path / "report.json"
    selection: list[str | Path] = ["--vectors", folder, "--tag", "accumulated"]
    done = fairvec("run", *selection, "--json", report, "--", *_wrong_port(wrong_input, "nan"))
    assert done.status == 1, done.stderr
    (result,) = committed(done.report(report)["results"])
    assert result["status"] == "error"
    assert result["message"].startswith(f"case {WRONG_CASE} (input {{")
    assert "the answer is not JSON: NaN and infinities" in result["message"]


def test_a_crash_inside_the_stream_is_charged_to_its_vector(
    short_stream: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    folder, _ = short_stream
    report = tmp_path / "report.json"
    port = [sys.executable, str(MISBEHAVING), f"crash:{STREAM_ID}#1234"]
    selection: list[str | Path] = ["--vectors", folder, "--tag", "accumulated"]
    done = fairvec("run", *selection, "--json", report, "--", *port)
    assert done.status == 1, done.stderr
    (result,) = committed(done.report(report)["results"])
    assert result["status"] == "error"
    assert result["message"].startswith("case 1234 (input {")
    assert "while handling this vector" in result["message"]


CRASHES_ON_EVERY_CASE = (
    "import json, os, sys\n"
    "from fairvec.reference import registry\n"
    "algorithms = {name: list(found.variants) for name, found in registry().items()}\n"
    'hello = {"type": "hello", "protocol": 1, "name": "crashes", "version": "1"}\n'
    'print(json.dumps({**hello, "algorithms": algorithms}), flush=True)\n'
    "for line in sys.stdin:\n"
    "    os._exit(5)\n"
)


@pytest.mark.heavy
def test_accumulated_vectors_stopped_by_crashes_stop_the_run(tmp_path: Path) -> None:
    """The accumulated vectors' own session gives up after --max-crashes as the fixed
    vectors' does: exit 2 and one line saying why (it exited 1, saying nothing)."""
    report = tmp_path / "report.json"
    selection = ["--algorithm", "bustabit.crash_v2", "--tag", "accumulated", "--json", report]
    done = fairvec("run", *selection, "--", sys.executable, "-c", CRASHES_ON_EVERY_CASE)
    assert done.status == 2, done.stdout + done.stderr
    # (the line before it names the fresh streams' seed: issue 34)
    fresh, line = done.stderr.splitlines()
    assert fresh.startswith("fairvec: ") and "replay with --fresh-seed" in fresh
    assert line.startswith("fairvec: error: the run stopped: ") and "5 times in a row" in line
    statuses = [result["status"] for result in done.report(report)["results"]]
    assert statuses[0] == "error" and "not-run" in statuses


def test_an_option_after_the_id_is_named_not_run_as_the_adapter() -> None:
    """`locate ID --block 2 ...` started `--block` as the adapter's command."""
    done = fairvec("accumulated", "locate", STREAM_ID, "--block", "2", "--bundled", "python")
    assert done.status == 2 and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith("fairvec: error: --block: an option after the other")


@pytest.mark.heavy
def test_the_right_port_passes_the_short_stream(short_stream: tuple[Path, dict[str, Any]]) -> None:
    folder, _ = short_stream
    done = fairvec("run", "--vectors", folder, "--tag", "accumulated", "--bundled", "python")
    assert done.status == 0, done.stdout + done.stderr
    done = fairvec("accumulated", "locate", "--vectors", folder, "--bundled", "python", STREAM_ID)
    assert done.status == 0 and "every checkpoint matches" in done.stdout


@pytest.mark.parametrize(
    ("bundled", "algorithm"),
    [("python", "battle.damage"), ("node", "casino.mines"), ("node", "stake.shuffle")],
)
@pytest.mark.heavy
def test_bundled_adapters_pass_the_default_tier(
    bundled: str, algorithm: str, tmp_path: Path
) -> None:
    if bundled == "node" and NODE is None:
        pytest.skip("Node.js is not installed")
    report = tmp_path / "report.json"
    done = fairvec(
        "run", "--algorithm", algorithm, "--tag", "accumulated", "--bundled", bundled,
        *ROOMY, "--json", report,
    )
    results = done.report(report)["results"]
    assert done.status == 0, results
    # the committed stream, and the fresh one drawn beside it (issue 34)
    assert [r["status"] for r in results] == ["pass", "pass"], results
    assert "/accumulated@" in results[0]["id"] or results[0]["id"].endswith("/accumulated")
    assert "/accumulated-fresh" in results[1]["id"]


@needs_node
@pytest.mark.parametrize(
    ("vector_path", "stream_id"),
    [
        ("casino/mines.json", "casino.mines/accumulated@hex-text"),
        # doubles and error records (issue 33, gap 5)
        ("stake/shuffle.json", "stake.shuffle/accumulated@pick-and-remove"),
    ],
)
@pytest.mark.heavy
def test_node_reproduces_a_committed_digest_on_its_own(vector_path: str, stream_id: str) -> None:
    vector_file = REPO / "vectors" / vector_path
    committed = next(
        e for e in json.loads(vector_file.read_text(encoding="utf-8"))["accumulated"]
        if e["id"] == stream_id
    )
    script = REPO / "adapters" / "node" / "accumulate.js"
    done = subprocess.run(
        [str(NODE), str(script), str(vector_file), stream_id],
        capture_output=True, text=True, timeout=HANG, check=True,
    )
    computed = json.loads(done.stdout)
    assert computed["digest"] == committed["expected"]["digest"]
    assert computed["checkpoints"] == committed["expected"]["checkpoints"]


@needs_node
def test_numbers_are_written_as_javascript_writes_them() -> None:
    picker = random.Random(10)
    doubles = [1e21, 1e20, 1e-6, 1e-7, 1e16, 2.0, -0.0, 5e-324, 0.1 + 0.2, 123456789012345680000.0]
    for _ in range(3000):
        value = struct.unpack(">d", picker.getrandbits(64).to_bytes(8, "big"))[0]
        if value == value and abs(value) != float("inf"):
            doubles.append(value)
    script = "const v=JSON.parse(require('fs').readFileSync(0,'utf8'));" \
        "process.stdout.write(JSON.stringify(v.map(String)))"
    done = subprocess.run(
        [str(NODE), "-e", script], input=json.dumps(doubles), capture_output=True, text=True,
        check=True,
    )
    assert [accumulated_digest.number(value) for value in doubles] == json.loads(done.stdout)


def test_records_are_canonical() -> None:
    # JSON-equal answers give one record; keys by UTF-16 units; lone surrogates escaped
    assert accumulated_digest.record({"output": {"b": 2.0, "a": [1.0, True]}}) == (
        b'{"output":{"a":[1,true],"b":2}}\n'
    )
    assert accumulated_digest.record({"output": {"\U0001f600": 1, "\uffff": 2}}).startswith(
        '{"output":{"\U0001f600":1'.encode()
    )
    assert accumulated_digest.record({"error": "x\ud800"}) == b'{"error":"x\\ud800"}\n'


def _doubles(picker: random.Random, count: int) -> list[float]:
    """Doubles of every kind: random bit patterns (every exponent), round and boundary
    values, and the ranges where orjson and ECMAScript switch to exponents."""
    doubles = [2.0, -2.0, 0.0, -0.0, 1e21, 1e20, 1e16, 1e15, 1.5e16, 1e-4, 1e-5, 1.5e-5, 1e-6,
               1e-7, 5e-324, 1.7976931348623157e308, 0.1 + 0.2, 123456789012345680000.0]
    while len(doubles) < count:
        value = struct.unpack(">d", picker.getrandbits(64).to_bytes(8, "big"))[0]
        if value == value and abs(value) != float("inf"):
            doubles.append(value)
        doubles.append(picker.random() * 10.0 ** picker.randint(-8, 22))
    return doubles


def _texts(picker: random.Random, count: int) -> list[str]:
    """Strings of controls, quotes and backslashes, number look-alikes, non-ASCII, astral
    characters, U+E000 to U+FFFF (which sort apart from astral ones by UTF-16 unit)."""
    pieces = ["\\", '"', "\\\"", ".0,", "1e5", "null", "2.0]", "\x7f", "\u2028", "é", "\uffff",
              "\ue000", "\U0001f600", "\U0010ffff", "a", "0", ":", ",", "}", *map(chr, range(32))]
    return [
        "".join(picker.choice(pieces) for _ in range(picker.randint(0, 6))) for _ in range(count)
    ]


def _answers(picker: random.Random) -> list[dict[str, Any]]:
    doubles, texts = _doubles(picker, 3000), _texts(picker, 400)
    integers = [0, -1, 2**53 - 1, -(2**53 - 1), 2**53, -(2**53), 2**63, 2**64, 2**70, 10**30]
    scalars: list[Any] = [*doubles, *texts, *integers, True, False, None]
    answers: list[dict[str, Any]] = [{"output": {"plain": [0.25, 1, "x", True]}}]
    for _ in range(600):
        keys = picker.sample(texts, 4)
        values = [picker.choice(scalars) for _ in keys]
        nested: dict[str, Any] = dict(zip(keys, values, strict=True))
        nested[picker.choice(texts)] = [picker.choice(scalars) for _ in range(3)]
        answers.append({"output": nested} if picker.random() < 0.9 else {"error": keys[0]})
    answers += [{"output": [value]} for value in doubles + integers]
    answers += [{"output": {text: 1, "\U0001f600": 2, "\uffff": 3}} for text in texts[:50]]
    return answers


@pytest.mark.parametrize("signed_exponents", [True, False])
def test_the_fast_records_are_the_canonical_ones(
    signed_exponents: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # orjson's text where it is provably canonical, else canonical(): the same bytes (with
    # the quick look at the whole text, and with the strings always blanked out)
    accumulated_digest._load_orjson_record()
    if accumulated_digest._orjson_record is None:
        pytest.skip("orjson is not installed (or FAIRVEC_NO_ORJSON is set)")
    if signed_exponents and not accumulated_digest._SIGNED_EXPONENTS:
        pytest.skip("this orjson writes an exponent without its sign")
    monkeypatch.setattr(accumulated_digest, "_SIGNED_EXPONENTS", signed_exponents)
    picker = random.Random(8785)
    answers = _answers(picker)
    answers += [{"error": "x\ud800"}, {"output": {"\udc00": [1.5, "\ud83d"]}}]
    fast = 0
    for answer in answers:
        expected = accumulated_digest.canonical_record(answer)
        assert accumulated_digest.record(answer) == expected, answer
        fast += accumulated_digest._fast_record(answer) is not None
    assert fast > len(answers) // 10  # the fast path is taken, not always refused
    for taken in [
        {"output": {"plain": [0.25, 1, "x", True, False, 2**53 - 1, -0.5, 1e-5, 1e15 + 0.5]}},
        {"error": 'a "1.0," \\"null\\" 1e5 2.0] \x01\n\x7f \u2028 é \uffff'},
        {"output": {"é": 1, "e": [2, {"\ue000": "\\", "\uffff": 0.1}], "E": 3}},
    ]:
        expected = accumulated_digest.canonical_record(taken)
        assert accumulated_digest._fast_record(taken) == expected, taken
    for refused in [
        {"output": 2.0}, {"output": -0.0}, {"output": [1e-7]}, {"output": 1e16},
        {"output": 2**53}, {"output": "\ud800"}, {"output": {"\U0001f600": 1}},
        {"output": None}, {"output": [float("nan")]}, {1: 2},
    ]:
        assert accumulated_digest._fast_record(refused) is None, refused
    for not_json in ({"output": float("nan")}, {"output": [float("inf")]}):
        with pytest.raises(ValueError):
            accumulated_digest.record(not_json)


def test_the_stream_reads_its_blocks_in_order() -> None:
    # take, below and below_each read one byte stream: SHA-256(seed ":" j), j = 0, 1, ...
    seed = "fairvec/stream-test"
    blocks = b"".join(hashlib.sha256(f"{seed}:{j}".encode()).digest() for j in range(400))
    stream, offset = input_draws.Stream(seed), 0
    for size in [1, 7, 8, 33, 5000, 3, 0, 2100, 64]:
        assert stream.take(size) == blocks[offset : offset + size]
        offset += size
    # a bound rejecting about half its draws: below_each is below again and again
    bound = 2**63 + 1
    one, each = input_draws.Stream(seed), input_draws.Stream(seed)
    assert each.below_each(bound, 300) == [one.below(bound) for _ in range(300)]
    assert each.take(40) == one.take(40)
    with pytest.raises(ValueError):
        one.below(0)


def test_a_drawer_draws_as_draw_inputs() -> None:
    fields: dict[str, Any] = {
        "hex": {"hex": 63}, "int": {"int": [-5, 5]}, "text": {"text": {"min": 0, "max": 40}},
        "word": {"text": {"min": 1, "max": 9, "alphabet": "ab\U0001f600"}},
        "list": {"list": {"of": {"base64": 5}, "min": 0, "max": 3}},
        "sample": {"sample": {"from": [1, 2, 3, 4], "min": 1, "max": 3}}, "uuid": {"uuid": True},
        "choice": {"choice": ["x", "y"]}, "const": {"const": 7}, "double": {"double": [0, 1]},
        "permutation": {"permutation": 6},
        "percent": {"percent": {"text": {"min": 0, "max": 3}}},
        "concat": {"concat": [{"const": "a"}, {"hex": 3}]},
    }
    slow, fast = input_draws.Stream("fairvec/drawer"), input_draws.Stream("fairvec/drawer")
    draw = input_draws.drawer(fields)
    assert [draw(fast) for _ in range(300)] == [
        input_draws.draw_inputs(slow, fields) for _ in range(300)
    ]


def test_the_full_tier_replaces_the_default_where_committed(tmp_path: Path) -> None:
    # battle.damage as committed (both tiers), battle.attack without its full tier
    (tmp_path / "battle").mkdir()
    for name, keep_full in (("attack", False), ("damage", True)):
        data = json.loads((REPO / "vectors" / "battle" / f"{name}.json").read_text("utf-8"))
        if not keep_full:
            data["accumulated"] = [e for e in data["accumulated"] if e["tier"] == "default"]
        (tmp_path / "battle" / f"{name}.json").write_text(json.dumps(data), "utf-8")
    default = {one.id for one in streaming.select(tmp_path, ["battle.*"], [], [], "default")}
    full = {one.id for one in streaming.select(tmp_path, ["battle.*"], [], [], "full")}
    assert default == {"battle.attack/accumulated", "battle.damage/accumulated"}
    assert full == {"battle.attack/accumulated", "battle.damage/accumulated-full"}
    assert streaming.select(tmp_path, ["battle.*"], [], [], "none") == []


# -- the wrong port ------------------------------------------------------------------------


def _serve_wrong(how: str, target: str) -> None:
    """wrong: the target's crash point 0.01 higher; nan: NaN (which JSON cannot hold)."""
    from fairvec.adapters.python.__main__ import parse
    from fairvec.reference import compute, registry

    algorithms = {name: list(found.variants) for name, found in registry().items()}
    hello = {"type": "hello", "protocol": 1, "name": "wrong", "version": "0"}
    print(json.dumps({**hello, "algorithms": algorithms}), flush=True)
    for line in sys.stdin.buffer:
        request = parse(line)
        output = compute(request["algorithm"], request["input"], request.get("variant"))
        if _input_digest(request["input"]) == target:
            wrong = round(output["crash_point"] + 0.01, 2) if how == "wrong" else float("nan")
            output["crash_point"] = wrong
        print(json.dumps({"id": request["id"], "output": output}), flush=True)


if __name__ == "__main__":
    _serve_wrong(sys.argv[1], sys.argv[2])


def test_a_missing_checkpoint_is_one_line_naming_the_entry(
    short_stream: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    """The schema cannot count checkpoints against blocks; the runner does, before any
    request, in the files it loaded for the run."""
    folder, _case = short_stream
    data = json.loads((folder / "stake" / "crash.json").read_text(encoding="utf-8"))
    data["accumulated"][0]["expected"]["checkpoints"].pop()
    (tmp_path / "stake").mkdir()
    broken = tmp_path / "stake" / "crash.json"
    broken.write_text(json.dumps(data), encoding="utf-8")
    done = fairvec("run", "--vectors", tmp_path, "--tag", "accumulated", "--bundled", "python")
    assert done.status == 2
    (line,) = done.stderr.splitlines()
    assert f"{broken}: accumulated/0: expected/checkpoints" in line
    assert "10 expected for 5000 cases in blocks of 500" in line
