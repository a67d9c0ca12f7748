"""Pins per variant (issue 34 §3): bustabit's verifier hard-codes a salt per chain, so a pin
names ALGORITHM@VARIANT, in the hello or with --fix, and each variant's vectors (committed
and fresh) hold that variant's own salt.

The port is tests/adapters/two_salts_bustabit.py: bustabit.games with the current salt on
raw-bytes and the first chain's salt on hex-text, as bustabit's verifier ships them."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from support import check_reports, fairvec

pytestmark = pytest.mark.heavy  # the runs compute fresh vectors with the reference

PORT = Path(__file__).resolve().parent / "adapters" / "two_salts_bustabit.py"
CURRENT = "00000000000000000001e08b7fd44f95e3e950ac65650a8031a6d5e1750e34be"
FIRST = "0000000000000000004d6ec16dafe9d8370958664c1dc422f452892264c59526"
GAMES = ["--algorithm", "bustabit.games", "--tier", "none", "--pinned-count", "15",
         "--exclude-tag", "invalid"]  # fmt: skip
BY_FIX = [
    "--fix", f"bustabit.games@raw-bytes:salt={CURRENT}",
    "--fix", f"bustabit.games@hex-text:salt={FIRST}",
]  # fmt: skip


def run_games(tmp_path: Path, *options: str, flags: tuple[str, ...] = ()) -> dict[str, Any]:
    json_path, junit_path = tmp_path / "report.json", tmp_path / "junit.xml"
    done = fairvec(
        "run", *GAMES, "--pinned-seed", "v", *options, "--json", json_path,
        "--junit", junit_path, "--", sys.executable, str(PORT), *flags,
    )  # fmt: skip
    assert done.status == 0, done.stdout + done.stderr
    assert "bustabit.games: pinned salt (@hex-text) = " in done.stdout, done.stdout
    return check_reports(json_path, junit_path)


@pytest.mark.parametrize("how", ["hello", "fix"])
def test_each_variant_runs_on_its_own_salt_with_fresh_vectors(tmp_path: Path, how: str) -> None:
    report = (
        run_games(tmp_path, flags=("--pins",)) if how == "hello" else run_games(tmp_path, *BY_FIX)
    )
    attested = report["attestation"]["algorithms"]["bustabit.games"]
    assert attested["pinned"] is None  # no pin holds for every variant
    assert attested["pinned_variants"] == {
        "raw-bytes": {"salt": CURRENT},
        "hex-text": {"salt": FIRST},
    }
    assert attested["skipped"]["adapter-unsupported"] == 0  # no vector on another salt sent
    assert attested["fresh_vectors"] == 30  # 15 per variant, each made with its variant
    # the port answers unsupported to any other salt: every fresh vector passing, in both
    # variants, means each was made on its own variant's salt
    fresh = [result for result in report["results"] if result.get("fresh")]
    assert {result["id"].rpartition("@")[2] for result in fresh} == {"raw-bytes", "hex-text"}
    assert all(result["status"] == "pass" for result in fresh)
    committed = [r for r in report["results"] if not r.get("fresh") and r["status"] == "pass"]
    assert {r["id"].rpartition("@")[2] for r in committed} == {"raw-bytes", "hex-text"}



def test_fuzz_holds_each_variants_own_salt() -> None:
    done = fairvec(
        "fuzz", "--algorithm", "bustabit.games", "--count", "30", "--seed", "1",
        "--valid-only", *BY_FIX, "--", sys.executable, str(PORT),
    )  # fmt: skip
    assert done.status == 0, done.stdout + done.stderr
    assert "bustabit.games@hex-text: every input holds salt" in done.stdout
    row = next(line for line in done.stdout.splitlines() if line.startswith("bustabit.games "))
    assert row.split()[3] == "0", row  # skipped: no input on the other variant's salt

@pytest.mark.parametrize(
    ("fix", "said"),
    [
        (f"bustabit.games@chain-9:salt={CURRENT}", "bustabit.games has no variant 'chain-9'"),
        (f"bustabit.games*@hex-text:salt={FIRST}", "names one algorithm and one of its variants"),
        ("bustabit.games@hex-text:salt=XYZ", "is not a valid salt of bustabit.games"),
    ],
)
def test_a_variant_pin_the_suite_cannot_honour_is_one_line(fix: str, said: str) -> None:
    done = fairvec("run", *GAMES, "--fix", fix, "--", sys.executable, str(PORT))
    assert done.status == 2, done.stdout + done.stderr
    assert said in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr


# -- a pin's size (issue 34 §4: a 1 MB pin made 1,000 fresh requests of 1 MB, 25 minutes) --


def test_a_pin_longer_than_the_bound_is_one_line_before_anything_is_made() -> None:
    from fairvec.runner.claims import MAX_PIN_CHARACTERS

    long_seed = "s" * (MAX_PIN_CHARACTERS + 1)
    done = fairvec(
        "run", "--algorithm", "stake.dice", "--fix", f"client_seed={long_seed}",
        "--tier", "none", "--bundled", "python",
    )  # fmt: skip
    said = done.stderr.strip().splitlines()
    assert done.status == 2 and len(said) == 1 and len(said[0]) < 400, said
    assert f"more than the {MAX_PIN_CHARACTERS:,} a pin may hold" in said[0]
    assert "fresh vector(s)" not in done.stderr  # refused before any was made


# -- fresh vectors in proportion to their cost (issue 34 §4) -------------------------------


@pytest.mark.parametrize(
    ("fix", "fits"),
    [
        ("max_steps=10000000", "--pinned-count 14 or fewer"),  # 10,001 cases x 2 variants each
        ("bustabit.chain_position:game_number=20000000", "--pinned-count 29 or fewer"),
    ],
)
def test_a_pinned_run_whose_fresh_vectors_cost_hours_is_refused_before_any_is_made(
    fix: str, fits: str
) -> None:
    """Estimated by the spec's cost (10^7 hash steps a vector), not timed: the refusal
    comes before the first fresh vector is computed (before: 1,000 walks of 10^7 hashes)."""
    algorithm = "bustabit.chain_position" if "chain_position" in fix else "bustabit.chain_check"
    done = fairvec("run", "--algorithm", algorithm, "--fix", fix, "--tier", "none",
                   "--bundled", "python")  # fmt: skip
    said = done.stderr.strip().splitlines()
    assert done.status == 2 and len(said) == 1, said
    assert "more than the 300,000 (about 5 minutes) a pinned run may ask" in said[0]
    assert fits in said[0]
    assert "fresh vector(s) on the pinned inputs" not in done.stderr


def test_a_hello_pinning_a_variant_it_does_not_declare_is_refused() -> None:
    import json

    from fairvec.runner.protocol import parse_hello

    hello = {"type": "hello", "protocol": 1, "name": "p", "version": "1",
             "algorithms": {"bustabit.games": ["raw-bytes"]},
             "pins": {"bustabit.games@hex-text": {"salt": FIRST}}}  # fmt: skip
    with pytest.raises(ValueError, match="does not declare the variant 'hex-text'"):
        parse_hello(json.dumps(hello).encode())
    hello["algorithms"] = {"bustabit.games": ["raw-bytes", "hex-text"]}
    assert parse_hello(json.dumps(hello).encode()).pins == hello["pins"]
