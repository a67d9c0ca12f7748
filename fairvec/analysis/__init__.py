"""Exact analysis of the families' outcome algorithms (``fairvec analyze``).

Distributions are counted, never sampled: every outcome's number of equally likely inputs
as an integer, every comparison as a fraction. ``numbers`` models the casino's 8-byte
double, ``outcomes`` holds one analysis per algorithm, ``verdicts`` turns them into the
verdicts of docs/verdicts.md. The analysis may import the reference (it analyses the
reference's algorithms); neither the reference nor the runner imports it, and building
the command line imports neither (so ``fairvec run`` never loads the reference).
"""

# The algorithms `fairvec analyze` takes, in the order of its help (outcomes.ANALYSES has
# one function for each; tests/test_analysis.py checks the two agree).
ALGORITHMS = (
    "battle.move", "battle.attack", "battle.damage",
    "casino.numbers", "casino.dice", "casino.double", "casino.x50", "casino.jackpot",
    "casino.slot", "casino.mines", "casino.tower", "casino.plinko", "casino.crash",
    "casino.overgo",
    "videopoker.card",
    "nardy.rolls",
    "tenhou.shuffle", "tenhou.dice",
)
