"""Ports as they are (issue 18): pinned inputs (a hello's pins, --fix), fresh vectors on
them, partial outputs, and the marked encoding of lone surrogates.

The port is tests/adapters/pinned_bustabit.py: bustabit.crash_v2 with bustabit's current
salt hard-coded, as real verifier libraries ship it."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

import pytest
from support import check_reports, fairvec

from fairvec.runner.protocol import MARK, marked_request_bytes, parse_hello

PORT = Path(__file__).resolve().parent / "adapters" / "pinned_bustabit.py"
SALT = "00000000000000000001e08b7fd44f95e3e950ac65650a8031a6d5e1750e34be"
CRASH_V2 = ["--algorithm", "bustabit.crash_v2"]


def port(*flags: str) -> list[str]:
    return ["--", sys.executable, str(PORT), *flags]


def run_port(
    tmp_path: Path, *options: str, flags: tuple[str, ...] = ("--pins",)
) -> tuple[Any, dict[str, Any]]:
    json_path, junit_path = tmp_path / "report.json", tmp_path / "junit.xml"
    done = fairvec(
        "run", *CRASH_V2, *options, "--json", json_path, "--junit", junit_path, *port(*flags)
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done, check_reports(json_path, junit_path)


def failed_ids(report: dict[str, Any]) -> list[str]:
    return [result["id"] for result in report["results"] if result["status"] == "fail"]


# -- pinned inputs -------------------------------------------------------------------------


@pytest.mark.parametrize("modulus", [33, 101])
def test_a_hybrid_port_fails_the_fixed_vectors_of_its_own_salt(
    tmp_path: Path, modulus: int
) -> None:
    done, report = run_port(
        tmp_path,
        "--pinned-count",
        "0",
        "--tier",
        "none",
        flags=("--pins", "--hybrid", str(modulus)),
    )
    assert done.status == 1, done.stdout + done.stderr
    failed = failed_ids(report)
    hybrid = [vector_id for vector_id in failed if f"hybrid-{modulus}-" in vector_id]
    assert hybrid, failed  # the vectors found for this very rule
    # and every failure is on the pinned salt: nothing else was run
    attested = report["attestation"]["algorithms"]["bustabit.crash_v2"]
    assert attested["pinned"] == {"salt": SALT}
    assert attested["fresh_vectors"] == 0


def test_the_same_port_without_the_hybrid_passes_on_hundreds_of_pinned_vectors(
    tmp_path: Path,
) -> None:
    done, report = run_port(tmp_path, "--pinned-seed", "test", "--pinned-count", "200")
    assert done.status == 0, done.stdout + done.stderr
    attested = report["attestation"]["algorithms"]["bustabit.crash_v2"]
    assert attested["failed"] == 0
    assert attested["run"] >= 300 + 200  # committed vectors on the salt, and the fresh ones
    assert attested["fresh_vectors"] == 200
    assert attested["skipped"]["input-not-pinned"] > 0  # the other salts: said, not hidden
    claims = report["attestation"]["claims"]
    assert claims["fresh"] == {"seed": "test", "count": 200, "vectors": {"bustabit.crash_v2": 200}}
    assert "pinned salt" in done.stdout and "replay with --pinned-seed" in done.stderr


def test_fresh_vectors_catch_the_hybrid_and_name_their_seed(tmp_path: Path) -> None:
    _, report = run_port(
        tmp_path, "--pinned-seed", "seed-1", "--pinned-count", "300", "--exclude-tag", "hybrid-33",
        "--fresh-seed", "seed-1", flags=("--pins", "--hybrid", "33"),
    )  # fmt: skip
    fresh = [vector_id for vector_id in failed_ids(report) if "/pinned-" in vector_id]
    assert len(fresh) >= 3, fresh  # about 1 in 33 of 300
    again = run_port(
        tmp_path, "--pinned-seed", "seed-1", "--pinned-count", "300", "--exclude-tag", "hybrid-33",
        "--fresh-seed", "seed-1", flags=("--pins", "--hybrid", "33"),
    )[1]  # fmt: skip
    assert failed_ids(again) == failed_ids(report)  # the seed replays the run


def test_fix_on_the_command_line_does_what_the_hello_does(tmp_path: Path) -> None:
    done, report = run_port(tmp_path, "--fix", f"salt={SALT}", "--pinned-count", "50", flags=())
    assert done.status == 0, done.stdout + done.stderr
    assert report["attestation"]["claims"]["pinned"] == {"bustabit.crash_v2": {"salt": SALT}}
    assert (
        report["attestation"]["algorithms"]["bustabit.crash_v2"]["skipped"]["adapter-unsupported"]
        == 0
    )


def test_fuzz_with_a_pinned_salt_finds_the_hybrid_within_300_inputs() -> None:
    done = fairvec(
        "fuzz", *CRASH_V2, "--seed", "1", "--count", "300", "--fix", f"salt={SALT}",
        *port("--hybrid", "33"),
    )  # fmt: skip
    assert done.status == 1, done.stdout + done.stderr
    assert f"salt: {SALT}" in done.stdout  # the mismatch's input holds the pinned salt
    assert "--fix salt=" in done.stdout  # and the replay line keeps the pin
    clean = fairvec(
        "fuzz", *CRASH_V2, "--seed", "1", "--count", "300", "--fix", f"salt={SALT}", *port()
    )
    assert clean.status == 0, clean.stdout + clean.stderr
    assert " 0 mismatch" in clean.stdout or "0 mismatch(es)" in clean.stdout


@pytest.mark.parametrize(
    ("fix", "said"),
    [
        ("salt=XYZ", "is not a valid salt of bustabit.crash_v2 (bad-salt)"),
        (
            "pepper=1",
            "no algorithm selected and declared by the adapter has an input field 'pepper'",
        ),
        ("bustabit.crash_v2:pepper=1", "bustabit.crash_v2 has no input field 'pepper'"),
        ("stake.dice:nonce=1", "stake.dice is not among the algorithms selected"),
    ],
)
def test_a_pin_the_spec_refuses_is_one_line(fix: str, said: str) -> None:
    done = fairvec("run", *CRASH_V2, "--fix", fix, *port())
    assert done.status == 2
    assert said in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_a_pin_given_twice_with_two_values_is_refused() -> None:
    other = "0" * 64
    done = fairvec("run", *CRASH_V2, "--fix", f"salt={other}", *port("--pins"))
    assert done.status == 2
    assert "pinned twice" in done.stderr and len(done.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("text", ["salt", "=x", "bustabit.crash_v2:=x"])
def test_a_malformed_fix_is_a_usage_error(text: str) -> None:
    done = fairvec("run", *CRASH_V2, "--fix", text, *port())
    assert done.status == 2
    assert "FIELD=VALUE" in done.stderr and "Traceback" not in done.stderr


def test_a_non_text_field_is_read_as_json() -> None:
    done = fairvec("run", "--algorithm", "stake.dice", "--fix", "nonce=abc", "--bundled", "python")
    assert done.status == 2
    assert "give its value as JSON" in done.stderr
    beyond = fairvec(
        "run", "--algorithm", "stake.dice", "--fix", "nonce=1e400", "--bundled", "python"
    )
    assert beyond.status == 2 and "a number beyond a double" in beyond.stderr
    # 5,000 digits: one short line about the value, not the whole value quoted back and
    # "check it is the file you meant" (issue 34)
    digits = fairvec("run", "--algorithm", "stake.dice", "--fix", "nonce=" + "9" * 5000,
                     "--bundled", "python")  # fmt: skip
    said = digits.stderr.strip().splitlines()
    assert digits.status == 2 and len(said) == 1 and len(said[0]) < 300, said
    assert "(5,000 characters): stake.dice's nonce: 5,000 digits, more than the 4,300" in said[0]
    ok = fairvec(
        "run", "--algorithm", "stake.dice", "--fix", "nonce=7", "--pinned-count", "20",
        "--tier", "none", "--bundled", "python",
    )  # fmt: skip
    assert ok.status == 0, ok.stdout + ok.stderr
    assert "pinned nonce = 7" in ok.stdout


# -- partial outputs -----------------------------------------------------------------------


def test_a_crash_only_port_passes_on_that_field_and_the_report_says_so(tmp_path: Path) -> None:
    done, report = run_port(tmp_path, "--pinned-count", "100", flags=("--pins", "--crash-only"))
    assert done.status == 0, done.stdout + done.stderr
    attested = report["attestation"]["algorithms"]["bustabit.crash_v2"]
    assert attested["outputs_judged"] == ["crash"]
    assert attested["run"] > 300 and attested["failed"] == 0
    assert report["attestation"]["claims"]["outputs"] == {"bustabit.crash_v2": ["crash"]}
    assert "PARTIAL: only crash judged" in done.stdout
    html = tmp_path / "report.html"
    assert fairvec("report", "--html", html, tmp_path / "report.json").status == 0
    assert "PARTIAL: crash only" in html.read_text(encoding="utf-8")


def test_a_partial_claim_still_judges_its_field(tmp_path: Path) -> None:
    done, report = run_port(
        tmp_path, "--pinned-count", "0", "--tier", "none",
        flags=("--pins", "--crash-only", "--hybrid", "33"),
    )  # fmt: skip
    assert done.status == 1
    assert any("hybrid-33" in vector_id for vector_id in failed_ids(report))


@pytest.mark.parametrize(
    ("hello", "said"),
    [
        ({"outputs": {"bustabit.crash_v2": ["crsh"]}}, "which has no such output field"),
        (
            {"outputs": {"stake.dice": ["roll"]}},
            "outputs/stake.dice: not among the hello's algorithms",
        ),
        (
            {"pins": {"stake.dice": {"nonce": 1}}},
            "pins/stake.dice: not among the hello's algorithms",
        ),
        ({"outputs": {"bustabit.crash_v2": []}}, "should be non-empty"),
        ({"lone_surrogates": "wtf-8"}, "is not one of"),
    ],
)
def test_a_bad_claim_in_the_hello_stops_the_run(
    tmp_path: Path, hello: dict[str, Any], said: str
) -> None:
    script = tmp_path / "adapter.py"
    greeting = {
        "type": "hello", "protocol": 1, "name": "x", "version": "1",
        "algorithms": {"bustabit.crash_v2": ["bustabit"]}, **hello,
    }  # fmt: skip
    script.write_text(
        f"import sys\nprint({json.dumps(json.dumps(greeting))}, flush=True)\nsys.stdin.read()\n"
    )
    done = fairvec("run", *CRASH_V2, "--", sys.executable, str(script))
    assert done.status == 2
    assert said in done.stderr and "Traceback" not in done.stderr, done.stderr


# -- lone surrogates, marked ------------------------------------------------------------------


def test_a_port_asking_for_marked_surrogates_passes_the_surrogate_vectors(tmp_path: Path) -> None:
    done, report = run_port(
        tmp_path, "-k", "surrogate", "--pinned-count", "0", flags=("--pins", "--marked")
    )
    assert done.status == 0, done.stdout + done.stderr
    assert report["attestation"]["algorithms"]["bustabit.crash_v2"]["passed"] >= 1


def _unmarked(text: str) -> str:
    if not text.startswith(MARK):
        return text
    return bytes.fromhex(text[1:]).decode("utf-16-be", "surrogatepass")


def test_the_marked_encoding_is_exact() -> None:
    """Every string, lone surrogates and a leading U+FFFF included, comes back as it was;
    the line stays ASCII and is plain JSON Go or Rust decode."""
    draw = random.Random(18)
    # "ud83d" and a lone low surrogate after a backslash: text that looks like a pair's
    # escape in the line ("\\\\ud83d\\udc00"), which the fast check must not take for one
    alphabet = ["a", "\u00e9", "\ud800", "\udfff", "\uffff", "\U0001f600", "\\", '"', "\x00"]
    alphabet += ["ud83d", "\udc00"]
    for _ in range(2000):
        drawn = "".join(draw.choice(alphabet) for _ in range(draw.randint(0, 6)))
        text = json.loads(json.dumps(drawn))  # as a vector file holds it: pairs joined
        vector = {"id": "x", "variant": None, "input": {text: [text], "k": text}}
        line = marked_request_bytes(vector, "a.b")  # type: ignore[arg-type]
        assert line.isascii()
        sent = json.loads(line)["input"]
        strings = [*sent]  # the keys, then the values (a text, or a list of one)
        for value in sent.values():
            strings += value if isinstance(value, list) else [value]
        for value in strings:  # no lone surrogate, and no U+0000, travels any more
            value.encode("utf-8")
            assert "\x00" not in value
        back = {
            _unmarked(key): (
                [_unmarked(v) for v in value] if isinstance(value, list) else _unmarked(value)
            )
            for key, value in sent.items()
        }
        assert back == {text: [text], "k": text}


def test_a_character_beyond_the_bmp_needs_no_mark() -> None:
    """An emoji travels as a surrogate pair's escape, nothing to mark: the request is the
    plain line (a third of stake's requests hold one; marking them all was the slow path)."""
    from fairvec.runner.protocol import _may_need_marks, request_bytes

    def line(text: str) -> bytes:
        return request_bytes({"id": "x", "variant": None, "input": {"s": text}}, "a.b")  # type: ignore[typeddict-item]

    assert not _may_need_marks(line("seed \U0001f600\U0001f680 \u00e9"))
    assert not _may_need_marks(line("\ud05d\ud7a3"))  # Hangul: \\ud0.. is no surrogate
    assert marked_request_bytes(
        {"id": "x", "variant": None, "input": {"s": "\U0001f600"}},  # type: ignore[typeddict-item]
        "a.b",
    ) == line("\U0001f600")
    for text in ("\ud800", "\udc00", "\x00", "\uffffx", "\\ud83d\udc00"):
        assert _may_need_marks(line(text)), text


def test_a_hello_without_the_claims_has_none() -> None:
    hello = parse_hello(b'{"type":"hello","protocol":1,"name":"n","version":"1","algorithms":{}}')
    assert (hello.pins, hello.outputs, hello.lone_surrogates) == ({}, {}, "escaped")


# -- fresh vectors, from the reference ------------------------------------------------------


def test_fresh_vectors_hold_the_pins_and_the_reference_answers() -> None:
    from fairvec.fuzz.fresh import fresh_vectors
    from fairvec.reference import compute

    vectors = fresh_vectors("bustabit.crash_v2", ["bustabit", "bcgame"], {"salt": SALT}, 40, "s")
    assert len(vectors) == 80
    assert all(vector["input"]["salt"] == SALT for vector in vectors)
    assert len({vector["input"]["game_hash"] for vector in vectors}) == 40
    for vector in vectors[:10]:
        expected = compute("bustabit.crash_v2", vector["input"], vector["variant"])
        assert vector["expected"] == {"output": expected}
    assert (
        fresh_vectors("bustabit.crash_v2", ["bustabit"], {"salt": SALT}, 5, "s")
        == [v for v in vectors if v["variant"] == "bustabit"][:5]
    )


# -- what a port author needs to find a failure again (the porting-guide trial) ------------


def test_fresh_vectors_obey_the_selection_and_name_the_rule(tmp_path: Path) -> None:
    """--tag pinned runs the fresh vectors alone; a fresh failure carries the quirk tag of
    the rule it breaks, its input in the JSON report, and the HTML page shows it with no
    warning that the suite differs."""
    done, report = run_port(
        tmp_path, "--tag", "pinned", "--pinned-count", "200", "--pinned-seed", "t",
        flags=("--pins", "--hybrid", "33"),
    )  # fmt: skip
    assert done.status == 1, done.stdout + done.stderr
    results = report["results"]
    assert results and all(result.get("fresh") for result in results)
    failed = [result for result in results if result["status"] == "fail"]
    assert failed and all("hybrid-instant-crash-33" in result["tags"] for result in failed)
    assert all(result["input"]["salt"] == SALT for result in failed)
    html = tmp_path / "report.html"
    assert fairvec("report", "--html", html, tmp_path / "report.json").status == 0
    page = html.read_text(encoding="utf-8")
    assert "not exactly the ones this run used" not in page
    assert failed[0]["input"]["game_hash"] in page
    assert "pinned: salt = 000000...34be (200 fresh)" in page


def test_an_undeclared_variant_is_skipped_as_such_not_as_unpinned(tmp_path: Path) -> None:
    _, report = run_port(tmp_path, "--pinned-count", "0", "--tier", "none")
    attested = report["attestation"]["algorithms"]["bustabit.crash_v2"]
    bcgame = [r for r in report["results"] if r["variant"] == "bcgame"]
    assert attested["skipped"]["variant-not-declared"] == len(bcgame) > 100
    assert {r["skip_reason"] for r in bcgame} == {"variant-not-declared"}
    assert report["attestation"]["claims"]["pinned_by"] == {"bustabit.crash_v2": {"salt": "hello"}}


def test_a_fix_for_an_undeclared_algorithm_says_so() -> None:
    done = fairvec(
        "run", "--algorithm", "bustabit.crash_v*", "--fix", f"bustabit.crash_v1:salt={SALT}",
        *port(),
    )  # fmt: skip
    assert done.status == 2
    assert "the adapter does not declare bustabit.crash_v1" in done.stderr


def test_excluding_a_check_every_port_makes_is_said() -> None:
    done = fairvec("run", "--algorithm", "bustabit.crash_v2", "--exclude-tag", "invalid",
                   "--pinned-count", "0", *port("--pins"))  # fmt: skip
    assert "warning: --exclude-tag invalid leaves out the invalid inputs" in done.stdout


def test_fuzz_valid_only_fuzzes_a_port_that_checks_nothing() -> None:
    """A crash-only port judged on crash alone, with the invalid inputs left out and
    counted: no mismatch, and the summary says the input checks were not fuzzed."""
    done = fairvec(
        "fuzz", *CRASH_V2, "--seed", "1", "--count", "300", "--fix", f"salt={SALT}",
        "--valid-only", *port("--crash-only"),
    )  # fmt: skip
    assert done.status == 0, done.stdout + done.stderr
    assert "invalid input(s) left out (--valid-only)" in done.stdout
    assert "PARTIAL: only crash judged" in done.stdout
    assert "--valid-only" in done.stdout.splitlines()[-1]  # the replay line keeps it
