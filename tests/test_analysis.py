"""fairvec analyze: exact distributions checked against independent brute force on
reduced sizes, the verdicts page is up to date, the command line and the plot."""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest

from fairvec.analysis import ALGORITHMS, numbers, outcomes, verdicts
from fairvec.analysis.exact import residue_counts
from fairvec.cli import main
from fairvec.reference import battle, casino, nardy, tenhou

ROOT = Path(__file__).resolve().parents[1]
RANDOM = random.Random(20240611)


def reference_units(u: int) -> int:
    """The reference's own double for the 8 bytes of U, as an integer multiple of 2^-64."""
    value = casino.numbers_from_bytes(u.to_bytes(8, "big"))[0]
    numerator, denominator = value.as_integer_ratio()
    return numerator * (numbers.UNITS // denominator)


def reference_number(u: int) -> float:
    return casino.numbers_from_bytes(u.to_bytes(8, "big"))[0]


# --- the 8-byte number ------------------------------------------------------------------


def interesting_u() -> list[int]:
    """U of every magnitude, and the byte patterns where the double sum rounds."""
    edges = [0, 1, numbers.UNITS - 1, 0xFFFFFFFFFFFFFC00, 0xFFFFFFFFFFFFFBFF,
             0x7FFFFFFFFFFFFFFF, 0x8000000000000000, 0x7FFFFFFFFFFFFE00, 1 << 53, (1 << 53) - 1]
    shifted = [RANDOM.randrange(numbers.UNITS) >> RANDOM.randrange(64) for _ in range(3000)]
    return edges + shifted


def test_the_integer_model_is_the_reference_double() -> None:
    for u in interesting_u():
        assert numbers.number_of(u) == reference_units(u), hex(u)


def first_u_by_bisection(target: int) -> int:
    """Independent: bisect U over [0, 2^64] with the reference (the number never falls)."""
    low, high = 0, numbers.UNITS
    while low < high:
        middle = (low + high) // 2
        if reference_units(middle) >= target:
            high = middle
        else:
            low = middle + 1
    return low


def test_thresholds_match_bisection_with_the_reference() -> None:
    targets = [RANDOM.randrange(numbers.UNITS + 2) >> RANDOM.randrange(64) for _ in range(150)]
    targets += [0, 1, numbers.UNITS, numbers.UNITS + 1, 1 << 63, (1 << 63) + 1, 1 << 53]
    for target in targets:
        assert numbers.first_u_reaching(target) == first_u_by_bisection(target), hex(target)


SCALED_OUTCOMES = {  # the reference's own outcome functions, and the scale each floors by
    15: casino.double_outcome,
    54: casino.x50_outcome,
    10001: lambda number: casino.dice_outcome(number)[0],
    41: lambda number: casino.slot_spin([0.0] * 4 + [number])[4],
    2: lambda number: casino.plinko_bucket([number])[1],
    100: lambda number: casino.jackpot_outcome(number, 100) - 1,
}


@pytest.mark.parametrize("scale", sorted(SCALED_OUTCOMES))
def test_outcome_counts_match_enumerated_windows(scale: int) -> None:
    """Enumerate every U of windows around outcome boundaries (where the double rounding
    decides) through the reference, and count each outcome in the window: the counts must
    be the intersections of the window with the computed intervals."""
    thresholds = numbers.scaled_floor_thresholds(scale)
    outcome = SCALED_OUTCOMES[scale]
    picks = sorted({1, scale // 2, scale, RANDOM.randrange(1, scale + 1)})
    for k in picks:
        start = max(0, min(thresholds[k] - 2048, numbers.UNITS - 4096))
        seen = Counter(outcome(reference_number(u)) for u in range(start, start + 4096))
        for value, count in seen.items():
            low, high = thresholds[value], thresholds[value + 1]
            assert count == max(0, min(high, start + 4096) - max(low, start)), (k, value)


def test_counts_total_every_byte_string_and_one_is_two_to_the_minus_54() -> None:
    for scale in (2, 15, 54, 10001):
        counts = numbers.scaled_floor_counts(scale)
        assert sum(counts) == numbers.UNITS
        assert counts[scale] == numbers.UNITS - 0xFFFFFFFFFFFFFC00 == 1 << 10


def test_double_weights_alternate_in_the_top_binade() -> None:
    start = math.nextafter(0.5, 1.0)
    runs = numbers.double_weights(start, start + 64 * math.ulp(0.5))
    expected = Counter(
        reference_run(value) for value in doubles_from(start, 64)
    )
    assert runs == dict(expected)


def doubles_from(start: float, count: int) -> list[float]:
    values = [start]
    for _ in range(count - 1):
        values.append(math.nextafter(values[-1], 2.0))
    return values


def reference_run(value: float) -> int:
    """How many U give exactly this double, by bisection with the reference."""
    numerator, denominator = value.as_integer_ratio()
    units = numerator * (numbers.UNITS // denominator)
    following = math.nextafter(value, 2.0)
    numerator, denominator = following.as_integer_ratio()
    return first_u_by_bisection(numerator * (numbers.UNITS // denominator)) - \
        first_u_by_bisection(units)


# --- modulo arguments over reduced sizes ---------------------------------------------------


@pytest.mark.parametrize("bits", [8, 16])
@pytest.mark.parametrize("modulus", [3, 6, 15, 21, 100, 135])
def test_residue_counts_match_enumeration(bits: int, modulus: int) -> None:
    enumerated = Counter(value % modulus for value in range(1 << bits))
    assert residue_counts(bits, modulus) == [enumerated[r] for r in range(modulus)]


def test_battle_counts_match_enumeration_over_16_bits() -> None:
    tickets = range(1 << 16)
    assert outcomes.move_counts(16) == Counter(battle.move_from_ticket(t) for t in tickets)
    assert outcomes.attack_counts(16) == Counter(battle.attack_from_ticket(t)[1] for t in tickets)
    for attack in ("Hit", "Super Active"):
        enumerated = Counter(str(battle.damage_from_ticket(t, attack)) for t in tickets)
        assert outcomes.damage_counts(16, attack) == enumerated


def test_the_32_bit_move_favours_fire_by_one_ticket() -> None:
    counts = outcomes.battle_move(outcomes.Options()).counts
    assert counts["fire"] - counts["grass"] == 1 and counts["grass"] == counts["water"]


def test_plinko_convolution_matches_enumeration() -> None:
    directions = (3, 2, 1)  # small weights for left, right, 2
    for pins in (1, 2, 3, 4):
        dist = outcomes.plinko(pins, directions)
        enumerated: Counter[str] = Counter()
        for path in itertools.product(range(3), repeat=pins):
            enumerated[str(sum(path))] += math.prod(directions[d] for d in path)
        assert dict(dist.counts) == dict(enumerated)


def test_too_few_cards_matches_enumeration() -> None:
    # 2 cards written by 2 of 5 symbols each, 6 symbols long, both cards needed
    symbols = [0, 0, 1, 1, None]
    strings = list(itertools.product(symbols, repeat=6))
    short = sum(1 for s in strings if len({x for x in s if x is not None}) < 2)
    assert outcomes.too_few_cards(6, 2, 2, 2, 5) == Fraction(short, len(strings))


def test_likeliest_shuffle_matches_enumeration_over_4_bit_words() -> None:
    size, bits = 4, 4
    walls = Counter(
        tuple(tenhou.shuffle_wall(list(words), size))
        for words in itertools.product(range(1 << bits), repeat=size - 1)
    )
    likeliest = Fraction(max(walls.values()), (1 << bits) ** (size - 1)) * math.factorial(size)
    assert outcomes.likeliest_shuffle(size, bits) == likeliest


def test_every_card_comes_from_three_bytes() -> None:
    dist = outcomes.videopoker_card(outcomes.Options())
    assert set(dist.counts.values()) == {3} and len(dist.counts) == 52
    assert dist.total_variation() == 0


def test_nardy_supply_is_what_the_reference_rolls() -> None:
    sequence = "".join(RANDOM.choice(nardy.ALPHABET) for _ in range(outcomes.NARDY_SEQUENCE // 2))
    for cuts in ((4, 5), (1, 1), (7, 7), (3, 6)):
        rolls = nardy.rolls(sequence=sequence, cut1=cuts[0], cut2=cuts[1])
        assert len(rolls["rolls"]) == len(outcomes.nardy_pairs(*cuts))
        assert outcomes.nardy_rolls(outcomes.Options(cuts=cuts)).total_variation() == 0


# --- Crash and Overgo -----------------------------------------------------------------------


@pytest.mark.parametrize("edge", [casino.CRASH_EDGE, casino.OVERGO_EDGE])
def test_crash_cents_are_the_reference_multiplier(edge: float) -> None:
    ties = [127, 639, 2431, 3199, 12159, 15999, 79999, 399999, 12415, 310399, 60799, 303999]
    for k in [*ties, 0, 1, 999999, 1000000, *RANDOM.sample(range(1000000), 300)]:
        number = numbers.least_number_scaling_to(k, 1000000.0)
        scaled, _, text = casino.multiplier_outcome(number, edge)
        assert scaled == k and text == outcomes.money(outcomes.crash_cents(k, edge)), k


@pytest.mark.heavy  # the whole casino.crash distribution
def test_cashout_return_is_the_sum_over_winning_multipliers() -> None:
    dist = outcomes.casino_crash(outcomes.Options())
    for target in (101, 200, 1000):
        winners = sum(n for text, n in dist.counts.items()
                      if round(float(text) * 100) >= target)
        expected = Fraction(target * winners, 100 * numbers.UNITS)
        assert outcomes.cashout_return(casino.CRASH_EDGE, target) == expected


# --- the verdicts page, the command line, the plot ---------------------------------------------


def test_every_algorithm_has_an_analysis() -> None:
    assert tuple(outcomes.ANALYSES) == ALGORITHMS


@pytest.mark.heavy  # every algorithm's analysis, the video poker solver's rows too
def test_the_verdicts_page_is_up_to_date() -> None:
    """docs/verdicts.md is exactly what `fairvec analyze verdicts --write` writes now, the
    video poker return rows included (the test command's check of the page: once a tox
    command of its own, run alone before the tests while the second core waited)."""
    committed = (ROOT / "docs" / "verdicts.md").read_text(encoding="utf-8")
    fresh = verdicts.render()
    # the lines that differ first, so a failure says which rows moved
    stale = set(fresh.splitlines()) ^ set(committed.splitlines())
    fix = "run `fairvec analyze verdicts --write`"
    assert not stale, f"docs/verdicts.md is stale ({sorted(stale)[:4]}): {fix}"
    assert fresh == committed, f"docs/verdicts.md's lines are out of order: {fix}"


def test_verdicts_check_fails_on_a_stale_page(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(verdicts, "CLAIMS", verdicts.CLAIMS[:2])
    page = tmp_path / "verdicts.md"
    assert main(["analyze", "verdicts", "--write", str(page)]) == 0
    assert main(["analyze", "verdicts", "--check", str(page)]) == 0
    page.write_text(page.read_text(encoding="utf-8") + "edited\n", encoding="utf-8")
    assert main(["analyze", "verdicts", "--check", str(page)]) == 1
    assert "stale" in capsys.readouterr().out


def test_the_industry_pay_table_notation_puts_the_full_house_first() -> None:
    """"9/6" is full house 9, flush 6: the document's dash notation writes it 6-9-... (a
    user's 9-6-25-50-800 was read as flush 9 and returned 1.007276 for 0.995439)."""
    from fairvec.analysis import videopoker

    industry = videopoker.parse_pay_table("9/6")
    assert industry.table == videopoker.parse_pay_table("6-9-25-50-800").table
    assert (industry.table.pays["full-house"], industry.table.pays["flush"]) == (9, 6)
    assert "full house 9, flush 6; the industry's 9/6" in industry.notation
    bonus = videopoker.parse_pay_table("bonus:8/5").table.pays
    assert (bonus["four-aces"], bonus["full-house"], bonus["flush"]) == (80, 8, 5)
    assert videopoker.parse_pay_table("tens:6/5").table.pair_event == "tens-or-better"


def test_the_old_target_name_still_works_and_says_the_new_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(verdicts, "CLAIMS", verdicts.CLAIMS[:1])
    page = tmp_path / "verdicts.md"
    assert main(["analyze", "claims", "--write", str(page)]) == 0
    assert "`analyze claims` is now `analyze verdicts`" in capsys.readouterr().err
    assert main(["analyze", "verdicts", "--check", str(page)]) == 0


def test_claims_names_one_idea() -> None:
    """"claims" is what a port's hello claims (runner/claims.py); the documents' fairness
    claims and their verdicts are "verdicts" (issue 36: two modules had the one name)."""
    package = ROOT / "fairvec"
    named = sorted(
        path.relative_to(ROOT).as_posix()
        for path in [*package.rglob("claims.py"), *(ROOT / "runner").rglob("claims.py")]
        if not path.resolve().is_relative_to((ROOT / "runner").resolve())
    )
    assert named == [], f"only runner/claims.py may be named claims: {named}"
    assert not (ROOT / "docs" / "claims.md").exists()


@pytest.mark.parametrize(
    "arguments, message",
    [
        (["analyze", "nope"], "unknown target 'nope'"),
        (["analyze", "casino.mines", "--pins", "3"], "--pins does not apply"),
        (["analyze", "casino.plinko", "--pins", "17"], "--pins is 8 to 16"),
        (["analyze", "verdicts"], "exactly one of --write"),
        (["analyze", "nardy.rolls", "--cuts", "0", "8"], "--cuts takes two cuts"),
        (["analyze", "videopoker", "--pay-table", "foo"], "--pay-table: cannot read pay table"),
        (["analyze", "videopoker", "--pay-table", "9-6"], "has 2 pays; give 5 or 7"),
        (["analyze", "videopoker", "--pay-table", "9-6-25-50-800"],
         "pays the flush 9 and the full house 6: this notation is the document's, flush first. "
         "For the industry's 9/6 (full house 9, flush 6) write 6-9-25-50-800 or 9/6"),
    ],
)
def test_bad_input_is_a_one_line_error(arguments: list[str], message: str,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    assert main(arguments) == 2
    error = capsys.readouterr().err
    assert message in error and error.count("\n") == 1


def test_a_distribution_prints_its_rows(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", "battle.move"]) == 0
    out = capsys.readouterr().out
    assert "fire | 1,431,655,766 |" in out and "total variation distance: 1.55e-10" in out


def test_the_plot_is_a_png(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib", reason="--plot needs matplotlib (fairvec[analysis])")
    picture = tmp_path / "double.png"
    assert main(["analyze", "casino.double", "--plot", str(picture)]) == 0
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
