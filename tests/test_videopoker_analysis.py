"""Video poker under optimal play: the fast analysis (fairvec/analysis/videopoker.py)
against the readable reference (videopoker.best_hold), both against brute force, and the
document's three tables (the values it states, read from spec/videopoker/analysis.yaml).

Nothing here types an expected count: the document's are read from the spec, the rest is
computed two independent ways and compared.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import random
import shutil
import subprocess
from collections import Counter
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import yaml
from support import FAIRVEC_COMMAND, HANG, ROOMY

np = pytest.importorskip("numpy")

from fairvec.analysis import videopoker as fast  # noqa: E402
from fairvec.reference import videopoker as vp  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TABLES = list(vp.PAY_TABLES)


def stated(case: str) -> dict[str, Any]:
    spec = yaml.safe_load((ROOT / "spec" / "videopoker" / "analysis.yaml").read_text("utf-8"))
    found = next(c for c in spec["cases"] if c["name"] == case)
    states: dict[str, Any] = found["document"]["states"]
    return states


def random_deals(count: int, seed: int) -> list[list[int]]:
    rng = random.Random(seed)
    return [rng.sample(range(52), 5) for _ in range(count)]


@pytest.fixture(scope="module")
def analyses() -> dict[str, fast.TableAnalysis]:
    return {name: fast.analyze(fast.PAY_TABLES[name]) for name in TABLES}


@pytest.mark.heavy  # the full analysis of every pay table
@pytest.mark.parametrize("name", TABLES)
def test_the_documents_table_comes_out_row_by_row(
    name: str, analyses: dict[str, fast.TableAnalysis]
) -> None:
    states = stated(name)
    analysis = analyses[name]
    assert analysis.total == states["total"]
    assert fast.decimal(analysis.returns) == states["return_decimal"]
    assert [row.event for row in analysis.rows] == list(states["rows"])
    rendered = fast.render_table(analysis)
    for row in analysis.rows:
        document = states["rows"][row.event]
        assert (row.pays, row.combinations) == (document["pays"], document["combinations"])
        line = (
            f"{fast.TITLES[row.event]} | {document['pays']} | {document['combinations']:,} | "
            f"{document['probability_decimal']} | {document['return_decimal']} |"
        )
        assert line in rendered.splitlines()


@pytest.mark.heavy  # the full analysis of every pay table
@pytest.mark.parametrize("name", TABLES)
def test_no_tie_changes_the_documents_counts(
    name: str, analyses: dict[str, fast.TableAnalysis]
) -> None:
    # ties exist (four of a kind with or without its kicker), but every tied best hold ends
    # alike, so the tie order cannot change the document's counts
    assert analyses[name].tied_deals > 0
    assert analyses[name].split_deals == 0
    assert analyses[name].divisor == fast.DOCUMENT_DIVISOR


def test_standard_weighting_totals_and_the_document_divisor() -> None:
    assert math.comb(52, 5) * math.lcm(*(math.comb(47, k) for k in range(6))) == fast.STANDARD_TOTAL
    assert stated("jacks-or-better")["total"] == fast.STANDARD_TOTAL // fast.DOCUMENT_DIVISOR
    # a deal's weight in the document's weighting is not whole: the division is per count
    assert fast.DEAL_WEIGHT % fast.DOCUMENT_DIVISOR != 0


@pytest.mark.heavy  # all 2,598,960 hands classified, 3,000 scored again
def test_every_five_card_hand_is_classified_as_the_reference_scores_it() -> None:
    hands, classes = fast._hands()
    rng = np.random.default_rng(7)
    for index in rng.choice(len(hands), 3000, replace=False):
        hand = [int(card) for card in hands[index]]
        for name in TABLES:
            table = fast.PAY_TABLES[name]
            row = fast._row_of_class(table.table)[classes[index]]
            assert table.rows[row][0] == vp.evaluate_hand(hand, name)["event"]


@pytest.mark.heavy  # the readable reference enumerates every draw of 32 holds of 7 deals
@pytest.mark.parametrize("name", TABLES)
def test_fast_hold_values_equal_the_readable_references(name: str) -> None:
    deals = [*random_deals(5, seed=11), [49, 17, 46, 39, 40], [0, 13, 26, 39, 1]]
    sums = fast.hold_pay_sums(fast.PAY_TABLES[name], np.array(deals, np.int8))
    table = vp.PAY_TABLES[name]
    for deal, row in zip(deals, sums, strict=True):
        for held in vp.held_masks_in_tie_order():
            counts = vp.hold_counts(deal, held, name)
            mask = sum(1 << position for position in held)
            assert sum(counts.values()) == math.comb(47, 5 - len(held))
            assert sum(table.pays[e] * n for e, n in counts.items()) == row[mask]


def brute_force(deal: list[int], held: tuple[int, ...], name: str) -> Counter[str]:
    unseen = [card for card in range(52) if card not in deal]
    kept = [deal[position] for position in held]
    return Counter(
        vp.evaluate_hand(kept + list(drawn), name)["event"]
        for drawn in itertools.combinations(unseen, 5 - len(held))
    )


@pytest.mark.heavy  # brute force over the draws
def test_the_references_counts_equal_brute_force() -> None:
    # every hold drawing at most three cards (brute force is slow beyond), on the document's
    # deal and on a deal with a pair, a flush draw and a straight draw
    deals = (([49, 17, 46, 39, 40], "jacks-or-better"), ([9, 22, 10, 11, 7], "tens-or-better"))
    for deal, name in deals:
        for held in vp.held_masks_in_tie_order():
            if len(held) >= 2:
                assert vp.hold_counts(deal, held, name) == +brute_force(deal, held, name)


def test_the_document_hold_is_second_best() -> None:
    ranked = vp.best_hold([49, 17, 46, 39, 40], "jacks-or-better")["holds"]
    assert ranked[0]["held"] == [1, 3, 4, 5]
    assert ranked[1]["held"] == [1, 4]


def test_the_tie_order_reads_size_then_positions() -> None:
    order = vp.held_masks_in_tie_order()
    assert order[0] == (0, 1, 2, 3, 4) and order[-1] == ()
    assert [tuple(fast._held_positions(int(m))) for m in fast.TIE_ORDER] == order


def test_deal_by_deal_solving_equals_the_class_weighted_one() -> None:
    # the path for tables whose tied holds end differently, checked on ordinary classes:
    # every deal of a class solved alone must add up to the class solved once, weighted
    deck = fast._deck()
    table = fast.PAY_TABLES["bonus-poker"]
    per_set = fast._per_set_pays(deck, table)
    values = fast._pay_sums(per_set, deck.deal_class, deck.subset_ranks) * fast.DRAW_SHARE[:, None]
    chosen, _, _ = fast._best_holds(values)
    classes = np.array([0, 17, 4000, 90000, len(deck.weights) - 1])
    weights = np.zeros(len(deck.weights), np.int64)
    weights[classes] = deck.weights[classes]
    by_class = fast._final_counts(deck, chosen, weights, deck.subset_ranks, deck.deal_class)
    by_deal = fast._solve_deal_by_deal(deck, table, classes)
    assert by_class.tolist() == by_deal.tolist()
    assert int(by_class.sum()) == int(weights.sum()) * fast.DEAL_WEIGHT


@pytest.mark.parametrize(
    ("text", "same_as"),
    [("6-9-20-75-500", "jacks-or-better"), ("tens:5-6-22-75-500", "tens-or-better"),
     ("1-2-3-4-5-8-25-35-70-45-500", "bonus-poker")],
)
def test_the_notation_reads_the_documents_tables(text: str, same_as: str) -> None:
    assert fast.parse_pay_table(text).table == fast.PAY_TABLES[same_as].table
    assert fast.parse_pay_table(same_as) is fast.PAY_TABLES[same_as]


@pytest.mark.parametrize(
    "text", ["6-9-20", "6/9/20/75/500", "", "kings:6-9-20-75-500", "1-2-3-4-5-6"]
)
def test_a_bad_notation_is_one_line_naming_the_format(text: str) -> None:
    with pytest.raises(ValueError, match="pay") as raised:
        fast.parse_pay_table(text)
    assert "\n" not in str(raised.value)


@pytest.mark.parametrize(
    ("value", "text"),
    [(Fraction(1, 2 * 10**6), "0.000001"), (Fraction(49, 10**8), "0.000000"),
     (Fraction(2), "2.000000"), (Fraction(-1, 2 * 10**6), "-0.000001")],
)
def test_decimals_round_halves_away_from_zero(value: Fraction, text: str) -> None:
    assert fast.decimal(value) == text == vp.exact_decimal(value)


def test_without_numpy_the_bundled_adapter_skips_the_analysis_with_the_reason(
    tmp_path: Path,
) -> None:
    """The README's first command installs no extra: the tables are then skipped, saying
    which extra to install, and the run still passes (no crash loop)."""
    blocker = tmp_path / "numpy"
    blocker.mkdir()
    (blocker / "__init__.py").write_text("raise ImportError('No module named numpy')\n")
    report = tmp_path / "report.json"
    done = subprocess.run(
        [*FAIRVEC_COMMAND, "run", "--bundled", "python", "--algorithm", "videopoker.analysis",
         *ROOMY, "--json", str(report)],
        capture_output=True, text=True, timeout=HANG, cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    results = json.loads(report.read_text(encoding="utf-8"))["results"]
    answered = [r for r in results if r["status"] != "pass"]
    assert answered and all(r["status"] == "skip" for r in answered)
    assert all("fairvec[analysis]" in r["message"] for r in answered)
    assert any(r["status"] == "pass" for r in results)  # the invalid inputs need no NumPy


@pytest.mark.parametrize("paytable", ["1-1-1-1-1-1-1-1-1", "tens:1-2-3-4-5-6-7-8-9"])
def test_the_node_port_agrees_where_suit_classes_split(paytable: str) -> None:
    """The Node port solves one deal per suit class, and a class whose tied holds end in
    different counts deal by deal (the tie order sees the cards, not the class). No vector
    splits a class; these tables do (520,776 split deals in the first), so both paths of
    the port are held to the reference here."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js is not installed")
    from fairvec.reference import compute

    request = {"id": "t", "algorithm": "videopoker.analysis", "variant": None,
               "input": {"paytable": paytable}}
    done = subprocess.run(
        [node, str(ROOT / "adapters" / "node" / "adapter.js")],
        input=json.dumps(request) + "\n", capture_output=True, text=True, timeout=HANG,
    )
    answer = json.loads(done.stdout.splitlines()[1])
    expected = compute("videopoker.analysis", {"paytable": paytable}, None)
    assert answer == {"id": "t", "output": expected}
    assert expected["split_deals"] > 0 or expected["tied_deals"] > 0
