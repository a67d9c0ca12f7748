"""The author's PHP script (docs/families/videopoker/author_script.php) against the reference.

Runs only where ``php`` is on PATH (``apt-get install -y php-cli``). The script runs through
run_author_script.php, which applies the three changes documented in it; the script file
itself is the printed text.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from support import HANG

from fairvec.reference import InvalidInput, compute
from fairvec.reference import videopoker as vp

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "docs" / "families" / "videopoker"
PHP = shutil.which("php")

pytestmark = pytest.mark.skipif(
    PHP is None,
    reason="php is not installed (apt-get install -y php-cli): the author's script cannot run",
)

SERVER_SEED = "2XMpPAbEw3qdH3HQla2K5zNwoNEFHOEYolkB969j"
CLIENT_SEED = "bc7v9bn70d7n07sn"
NEXT_HASH = "64e701539ecf4c03b90ecd957d6675b2f72c3fd84f04dc5eb63eed8b9a58b95b"
CARD_LINE = re.compile(r"^(Deal|Draw) card ([1-5]) =\t(\w+) of (\w+)$")


def run_script(*arguments: str) -> str:
    assert PHP is not None
    done = subprocess.run(
        [PHP, str(SCRIPTS / "run_author_script.php"), *arguments],
        capture_output=True, text=True, timeout=HANG, check=True,
    )
    return done.stdout


def parse(output: str) -> dict[str, Any]:
    """The script's printout: combined seed, hash, the card lines, the verdicts."""
    lines = output.splitlines()
    cards = [m.group(3, 4) for m in map(CARD_LINE.match, lines) if m]
    return {
        "combined_seed": next(x.split(" = ", 1)[1] for x in lines if x.startswith("Combined seed")),
        "hash": next(x.split(" = ", 1)[1] for x in lines if x.startswith("Hash of combined")),
        "cards": [f"{rank} {suit}" for rank, suit in cards],
        "labels": [m.group(1, 2) for m in map(CARD_LINE.match, lines) if m],
        "exhausted": "Error -- No more space in hash." in lines,
        "matches": "Server Seed match." in lines,
    }


def names(cards: list[dict[str, Any]]) -> list[str]:
    return [f"{card['rank']} {card['suit']}" for card in cards]


def test_as_printed_the_script_only_prints_itself() -> None:
    """Quirk php-script-does-not-run: no <?php tag, so PHP copies the text to the output."""
    assert PHP is not None
    printed = (SCRIPTS / "author_script.php").read_text(encoding="utf-8")
    done = subprocess.run([PHP, str(SCRIPTS / "author_script.php")], capture_output=True,
                          text=True, timeout=HANG, check=True)
    assert done.stdout == printed.split("?>\n", 1)[1]
    assert not any(line.startswith("Combined seed") for line in done.stdout.splitlines())


@pytest.mark.smoke  # the module's run kept in the inner loop
def test_worked_example_agrees_with_the_reference() -> None:
    php = parse(run_script(SERVER_SEED, CLIENT_SEED, NEXT_HASH))
    game = compute(
        "videopoker.game",
        {"server_seed": SERVER_SEED, "client_seed": CLIENT_SEED, "held": [1, 4],
         "paytable": "jacks-or-better"},
    )
    assert php["combined_seed"] == game["combined_seed"]
    assert php["hash"] == game["hash"]
    assert php["cards"] == names(game["cards"])
    assert not php["exhausted"]
    commitment = compute(
        "videopoker.commitment", {"server_seed": SERVER_SEED, "server_seed_hash": NEXT_HASH}
    )
    assert php["matches"] is commitment["matches"] is True
    # Quirk php-draw-labels: "Draw card 1..5" are queue slots, whatever was held.
    assert php["labels"] == [("Deal", str(n)) for n in range(1, 6)] + [
        ("Draw", str(n)) for n in range(1, 6)
    ]


def test_generated_games_agree_with_the_reference() -> None:
    data = json.loads((ROOT / "vectors" / "videopoker" / "game.json").read_text(encoding="utf-8"))
    generated = [v for v in data["vectors"] if "generated" in v["tags"]][:15]
    assert generated
    for vector in generated:
        given = vector["input"]
        expected = vector["expected"]["output"]
        php = parse(run_script(given["server_seed"], given["client_seed"], "0" * 64))
        assert php["hash"] == expected["hash"], vector["id"]
        assert php["cards"] == names(expected["cards"]), vector["id"]


def test_second_copy_hash_is_a_mismatch_for_both() -> None:
    hash_727f = "727f9b7c5db0e378fe5fffe9c178ad836f6e00a3662b7c3f1ca1ab3cae3001ea"
    assert not parse(run_script(SERVER_SEED, CLIENT_SEED, hash_727f))["matches"]
    out = compute(
        "videopoker.commitment", {"server_seed": SERVER_SEED, "server_seed_hash": hash_727f}
    )
    assert out["matches"] is False


def test_php_loose_comparison_defect() -> None:
    """The script calls two different "0e..." hashes a match; the reference does not."""
    seed, shown = "34250003024812", "0e" + "0" * 62
    assert parse(run_script(seed, CLIENT_SEED, shown))["matches"]
    out = compute("videopoker.commitment", {"server_seed": seed, "server_seed_hash": shown})
    assert out["hash"] != shown and out["matches"] is False


def test_php_case_sensitive_defect() -> None:
    assert not parse(run_script(SERVER_SEED, CLIENT_SEED, NEXT_HASH.upper()))["matches"]
    out = compute(
        "videopoker.commitment", {"server_seed": SERVER_SEED, "server_seed_hash": NEXT_HASH.upper()}
    )
    assert out["matches"] is True


def test_php_false_exhausted_defect() -> None:
    """Tenth card in the last pair: the script deals ten cards and still reports an error."""
    digest = "".join(f"{n:02x}" for n in range(9)) + "ff" * 54 + "09"
    php = parse(run_script(SERVER_SEED, CLIENT_SEED, NEXT_HASH, digest))
    found = compute("videopoker.cards", {"hash": digest})["cards"]
    assert php["cards"] == names(found)
    assert php["exhausted"]


def test_php_exhausted_continues_defect() -> None:
    """Nine cards only: the script prints an error, then checks the seed as if all were well."""
    digest = "".join(f"{n:02x}" for n in range(9)) + "ff" * 55
    php = parse(run_script(SERVER_SEED, CLIENT_SEED, NEXT_HASH, digest))
    assert len(php["cards"]) == 9 and php["exhausted"] and php["matches"]
    with pytest.raises(InvalidInput) as caught:
        vp.scan_hash(digest, 10)
    assert caught.value.code == "hash-exhausted"
