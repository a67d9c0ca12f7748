"""Video poker under optimal play, exactly: the document's three return tables, fast.

For a pay table, every one of the C(52,5) = 2,598,960 deals is played with the hold of
highest exact expected value (ties broken as spec/videopoker/best_hold.yaml says), and
every draw of every deal is counted by the final hand it makes. The weighting is the
Wizard of Odds' one: each deal weighs lcm(C(47,0), ..., C(47,5)) = 7,669,695, shared
equally among the C(47,k) draws of its hold (k cards drawn), so every count is an integer
and the counts total C(52,5) x 7,669,695 = 19,933,230,517,200. The document prints those
counts divided by 12 (their common factor for all three of its tables): the total
1,661,102,543,100 and all 30 counts come out exactly (tests/test_videopoker_analysis.py).

The analysis is the reference's, [videopoker.analysis]: reference/videopoker.py reads the
pay tables and turns counts into rows (parse_pay_table, table_analysis), and its NumPy core
reference/_videopoker_solver.py counts (how it is fast is told there). This module is its
face for ``fairvec analyze`` and the verdicts page: the same names, and the document's layout
(render_table). It needs NumPy, the optional extra ``fairvec[analysis]``.

Public: PAY_TABLES, parse_pay_table, analyze, render_table, hold_pay_sums (the per-deal
values, which tests compare with the readable reference ``videopoker.best_hold``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from fairvec.reference import _videopoker_solver as solver
from fairvec.reference import videopoker as reference
from fairvec.reference._videopoker_solver import (
    CLASS_EXAMPLES,
    CLASSES,
    DEAL_WEIGHT,
    DEALS,
    DRAW_SHARE,
    STANDARD_TOTAL,
    TIE_ORDER,
    Int64s,
)
from fairvec.reference.videopoker import DOCUMENT_DIVISOR, FORMAT_HELP
from fairvec.reference.videopoker import PayTable as ReferencePayTable

__all__ = [
    "CLASSES", "CLASS_EXAMPLES", "DEALS", "DEAL_WEIGHT", "DOCUMENT_DIVISOR", "DRAW_SHARE",
    "FORMAT_HELP", "PAY_TABLES", "STANDARD_TOTAL", "TIE_ORDER", "TITLES", "PayTable", "Row",
    "TableAnalysis", "analyze", "decimal", "hold_pay_sums", "parse_pay_table", "render_table",
]

DECIMALS = 6  # the document's Probability and Return columns


# --- pay tables --------------------------------------------------------------------------


@dataclass(frozen=True)
class PayTable:
    """A pay table: its name, and the rows of its analysis (event, pays) top to bottom."""

    name: str
    notation: str  # the document's notation, e.g. "6-9-20-75-500"
    table: ReferencePayTable

    @property
    def rows(self) -> list[tuple[str, int]]:
        return list(self.table.pays.items())


# The industry's short name of a table, "9/6": full house 9, flush 6 (the full house first,
# the reverse of the document's dash notation), the other pays those of the game's common
# full-pay table, written here in the document's notation after the flush and full house.
INDUSTRY = re.compile(r"(?:(jacks|tens|bonus):)?([0-9]{1,3})/([0-9]{1,3})")
FULL_PAY_REST = {
    "jacks": ("", "25-50-800"),  # 9/6 Jacks or Better: 0.995439
    "tens": ("tens:", "25-50-800"),  # 6/5 Tens or Better
    "bonus": ("", "25-40-80-50-800"),  # 8/5 Bonus Poker: four 5s-Ks 25, 2s-4s 40, aces 80
}
INDUSTRY_HELP = (
    "or the industry's FULL-HOUSE/FLUSH (9/6: full house 9, flush 6, the rest of the "
    "full-pay table; bonus:8/5 and tens:6/5 for the other games)"
)


def parse_pay_table(text: str) -> PayTable:
    """A table by name, in the industry's notation (9/6: full house first), or in the
    document's (see FORMAT_HELP: flush first); ValueError if none, or if the document's
    notation pays the flush more than the full house, which is the industry's order
    written with dashes (issue 36: 9-6-25-50-800 read as flush 9 returned 1.007276)."""
    if text in PAY_TABLES:
        return PAY_TABLES[text]
    industry = INDUSTRY.fullmatch(text.strip())
    if industry is not None:
        return _industry_table(text.strip(), industry)
    try:
        notation, table = reference.parse_pay_table(text)
    except ValueError as error:
        unreadable = str(error).startswith("cannot read")
        raise ValueError(f"{error}, {INDUSTRY_HELP}" if unreadable else str(error)) from None
    _refuse_flush_over_full_house(notation, table)
    return PayTable(name=notation, notation=_spelled_out(notation, table), table=table)


def _industry_table(text: str, found: re.Match[str]) -> PayTable:
    prefix, rest = FULL_PAY_REST[found.group(1) or "jacks"]
    full_house, flush = found.group(2), found.group(3)
    notation, table = reference.parse_pay_table(f"{prefix}{flush}-{full_house}-{rest}")
    return PayTable(name=text, notation=_spelled_out(notation, table), table=table)


def _refuse_flush_over_full_house(notation: str, table: ReferencePayTable) -> None:
    pays = table.pays
    if len(notation.removeprefix("tens:").split("-")) in (5, 7) and (
        pays["flush"] > pays["full-house"]
    ):
        flush, full_house = pays["flush"], pays["full-house"]
        prefix = "tens:" if notation.startswith("tens:") else ""
        rest = notation.removeprefix(prefix).split("-")[2:]
        swapped = prefix + "-".join([str(full_house), str(flush), *rest])
        raise ValueError(
            f"{notation} pays the flush {flush} and the full house {full_house}: this "
            f"notation is the document's, flush first. For the industry's {flush}/{full_house} "
            f"(full house {flush}, flush {full_house}) write {swapped} or {flush}/{full_house}; to "
            "analyse a table paying the flush more, write every pay from the pair up "
            "(1-2-3-4-FLUSH-FULLHOUSE-...)"
        )


def _spelled_out(notation: str, table: ReferencePayTable) -> str:
    """The notation and what it means, so no table is read in the wrong order."""
    pays = table.pays
    full_house, flush = pays["full-house"], pays["flush"]
    industry = f"{full_house}/{flush}"
    return f"{notation}: full house {full_house}, flush {flush}; the industry's {industry}"


PAY_TABLES: dict[str, PayTable] = {
    name: PayTable(name=name, notation=reference.notation_of(table), table=table)
    for name, table in reference.PAY_TABLES.items()
}


def _row_of_class(table: ReferencePayTable) -> list[int]:
    """For each final-hand class, the index of the table row it is paid under."""
    return reference.rows_of_classes(table, CLASS_EXAMPLES)


def _class_pays(table: PayTable) -> Int64s:
    pays = [p for _, p in table.rows]
    return np.array([pays[row] for row in _row_of_class(table.table)], np.int64)


def hold_pay_sums(table: PayTable, deals: npt.NDArray[np.int8]) -> Int64s:
    """For each deal (five cards, positions 1-5 in the given order) and mask (bit i:
    position i+1 held), the total pays over the hold's C(47, k) draws: EV = sum / C(47, k)."""
    return solver.hold_pay_sums(_class_pays(table), deals)


# The solver's parts under the names tests/test_videopoker_analysis.py checks them by.
_hands = solver._hands
_deck = solver._deck
_held_positions = solver._held_positions
_pay_sums = solver._pay_sums
_best_holds = solver._best_holds
_final_counts = solver._final_counts


def _per_set_pays(deck: solver._Deck, table: PayTable) -> list[Int64s]:
    return solver._per_set_pays(deck, _class_pays(table))


def _solve_deal_by_deal(deck: solver._Deck, table: PayTable, classes: Int64s) -> Int64s:
    return solver._solve_deal_by_deal(deck, _class_pays(table), classes)


# --- the analysis ------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    event: str
    pays: int
    combinations: int
    probability: Fraction
    returns: Fraction  # pays x probability


@dataclass(frozen=True)
class TableAnalysis:
    pay_table: PayTable
    rows: list[Row]
    total: int
    divisor: int  # the document's weighting is the standard one divided by this
    tied_deals: int  # deals with more than one best hold
    split_deals: int  # of those, deals whose best holds end differently (0: tie-break moot)

    @property
    def returns(self) -> Fraction:
        return sum((row.returns for row in self.rows), Fraction(0))


def analyze(pay_table: PayTable) -> TableAnalysis:
    """The count of each final hand under optimal play, in the document's weighting: the
    reference's [videopoker.analysis] output, its fractions as Fractions."""
    output = reference.table_analysis(pay_table.notation, pay_table.table)
    rows = [
        Row(event, row["pays"], row["combinations"],
            probability=Fraction(row["probability"]), returns=Fraction(row["return"]))
        for event, row in output["rows"].items()
    ]
    return TableAnalysis(pay_table, rows, output["total"], output["divisor"],
                         output["tied_deals"], output["split_deals"])


def decimal(value: Fraction, places: int = DECIMALS) -> str:
    """``value`` rounded to ``places`` decimals, halves away from zero, as text ("0.979696")."""
    scaled = abs(value) * 10**places
    units = math.floor(scaled + Fraction(1, 2))
    whole, fraction = divmod(units, 10**places)
    sign = "-" if value < 0 and units else ""
    return f"{sign}{whole}.{fraction:0{places}d}" if places else f"{sign}{whole}"


TITLES = {
    "royal-flush": "Royal Flush", "straight-flush": "Straight Flush",
    "four-of-a-kind": "Four of a Kind", "four-aces": "Four Aces",
    "four-2s-3s-4s": "Four 2s, 3s, 4s", "four-5s-thru-ks": "Four 5s thru Ks",
    "full-house": "Full House", "flush": "Flush", "straight": "Straight",
    "three-of-a-kind": "Three of a Kind", "two-pair": "Two Pair",
    "jacks-or-better": "Jacks or Better", "tens-or-better": "Tens or Better",
    "all-other": "All Other",
}


def render_table(analysis: TableAnalysis) -> str:
    """The document's layout: Event | Pays | Combinations | Probability | Return, then Totals."""
    lines = [
        f"{analysis.pay_table.name} ({analysis.pay_table.notation})",
        "",
        "Event | Pays | Combinations | Probability | Return |",
        "---|---|---|---|---|",
    ]
    for row in analysis.rows:
        lines.append(
            f"{TITLES[row.event]} | {row.pays} | {row.combinations:,} | "
            f"{decimal(row.probability)} | {decimal(row.returns)} |"
        )
    lines.append(
        f"Totals | {analysis.total:,} | {decimal(Fraction(1))} | {decimal(analysis.returns)} |"
    )
    return "\n".join(lines) + "\n"
